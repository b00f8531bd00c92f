//! Arrays in the symbolic engine (docs/language.md section 4.4).
//!
//! An array is a reference; its length is `length(a)`, a function of the
//! reference (immutable, read without permission); its elements are one
//! field chunk `a.elems ↦ seq` named `[].elems`, whose value is a Z3 array
//! from indices to element snapshots (`prelude.smt2`). Because the elements
//! are a field chunk, `acc(a.elems)` is consumed, produced, separated and
//! found inside predicates (inference) exactly as `acc(e.f)` is.

use super::ctx::{Cont, Ctx, TermCont};
use super::eval::{eval, find_chunk};
use super::heap::{Chunk, ChunkId, Heap};
use super::infer::open_for_field;
use super::program::sort_of;
use super::state::State;
use super::term::{Sort, Term, prelude};
use crate::diag::Kind;
use crate::record::Reason;
use crate::syntax::ast::{ELEMS, Expr, Span, TypeKind};

/// `a.length`: `a` must be provably non-null.
pub fn eval_length(ctx: &mut Ctx, s: State, arr: &Expr, e: &Expr, k: TermCont) {
    eval(ctx, s, arr, &|ctx, s, t| {
        let nonnull = Term::neq(t.clone(), Term::null());
        if ctx.prove(&s, &nonnull, "is the array non-null?") {
            let len = Term::length(t);
            let s = super::overflow::with_length(ctx, s, &len);
            return k(ctx, s, len);
        }
        let reason = Reason::ArrayMaybeNull {
            array: ctx.text(&arr.span),
        };
        if let Some(s) = ctx.fail(&s, Kind::ReceiverNull, e.span.clone(), reason) {
            k(ctx, s, Term::length(t))
        }
    })
}

/// The element sort of an index expression (set by the checker).
fn elem_sort(elem: &Option<TypeKind>) -> Sort {
    elem.as_ref().map_or(Sort::Int, sort_of)
}

/// `a[i]`: needs `acc(a.elems)` (opened on demand from a held predicate
/// instance, as for a field read: the heap stays as it was) and
/// `0 <= i < a.length`.
pub fn eval_index(
    ctx: &mut Ctx,
    s: State,
    (arr, index, elem): (&Expr, &Expr, &Option<TypeKind>),
    e: &Expr,
    k: TermCont,
) {
    let sort = elem_sort(elem);
    eval(ctx, s, arr, &|ctx, s, a| {
        ctx.elem_sorts.insert(a.clone(), sort);
        eval(ctx, s, index, &|ctx, s, i| {
            let read = |ctx: &mut Ctx, st: State, seq: Term| {
                in_bounds(ctx, st, &a, &i, e.span.clone(), &|ctx, st| {
                    let v = Term::from_snap(Term::select(seq.clone(), i.clone()), sort);
                    let st = super::overflow::with_int(ctx, st, &v);
                    k(ctx, st, v)
                })
            };
            with_elems(
                ctx,
                s,
                &a,
                e,
                "read",
                &|ctx, st, heap, id| match heap.get(id) {
                    Some(Chunk::Field { value, .. }) => read(ctx, st, value.clone()),
                    _ => ctx.internal(&st, e.span.clone(), "elements chunk expected"),
                },
            )
        })
    })
}

/// Finds the elements chunk of `a` in the heap of `s`, or opens held
/// instances for it; `found` gets the (possibly opened) heap. Without it:
/// `permission.missing` at the access `e` (a lenient obligation goes on
/// with unknown elements).
fn with_elems(
    ctx: &mut Ctx,
    s: State,
    a: &Term,
    e: &Expr,
    verb: &str,
    found: &dyn Fn(&mut Ctx, State, Heap, ChunkId),
) {
    if let Some(id) = find_chunk(ctx, &s, &s.heap, ELEMS, std::slice::from_ref(a)) {
        let heap = s.heap.clone();
        return found(ctx, s, heap, id);
    }
    open_for_field(
        ctx,
        s.clone(),
        s.heap.clone(),
        ELEMS,
        a,
        e.span.clone(),
        found,
        &|ctx, st| {
            let array = match &e.kind {
                crate::syntax::ast::ExprKind::Index { arr, .. } => ctx.text(&arr.span),
                _ => ctx.text(&e.span),
            };
            let reason = Reason::NoElements {
                array,
                access: ctx.text(&e.span),
                write: verb == "write",
            };
            if let Some(st) = ctx.fail(&st, Kind::PermissionMissing, e.span.clone(), reason) {
                // Go on (under an `assert`) with elements nothing is known of.
                let mut heap = st.heap.clone();
                let seq = ctx.fresh("unknown", Sort::Seq);
                let id = heap.add(Chunk::Field {
                    recv: a.clone(),
                    field: ELEMS.into(),
                    value: seq,
                });
                found(ctx, st, heap, id)
            }
        },
    )
}

/// `0 <= i < length(a)`, or `index.out.of.bounds` at `span`.
fn in_bounds(ctx: &mut Ctx, s: State, a: &Term, i: &Term, span: Span, k: Cont) {
    let ok = Term::and(vec![
        Term::le(Term::int(0), i.clone()),
        Term::lt(i.clone(), Term::length(a.clone())),
    ]);
    if ctx.prove(&s, &ok, "is the index within the array?") {
        return k(ctx, s);
    }
    let reason = Reason::IndexMaybeOutside {
        access: ctx.text(&span),
    };
    if let Some(s) = ctx.fail(&s, Kind::IndexOutOfBounds, span, reason) {
        k(ctx, s)
    }
}

/// `a[i] = v;`: needs `acc(a.elems)` (an instance opened on demand stays
/// open after the write, as for a field write) and `i` in bounds.
pub fn exec_index_assign(ctx: &mut Ctx, s: State, target: &Expr, value: &Expr, k: Cont) {
    let crate::syntax::ast::ExprKind::Index { arr, index, elem } = &target.kind else {
        return ctx.internal(
            &s,
            target.span.clone(),
            "assignment to something that is not an element",
        );
    };
    eval(ctx, s, arr, &|ctx, s, a| {
        ctx.elem_sorts.insert(a.clone(), elem_sort(elem));
        eval(ctx, s, index, &|ctx, s, i| {
            eval(ctx, s, value, &|ctx, s, v| {
                with_elems(ctx, s, &a, target, "write", &|ctx, st, heap, id| {
                    let Some(Chunk::Field { value: seq, .. }) = heap.get(id).cloned() else {
                        return ctx.internal(&st, target.span.clone(), "elements chunk expected");
                    };
                    in_bounds(ctx, st, &a, &i, target.span.clone(), &|ctx, st| {
                        let mut st = st;
                        st.heap = heap.clone();
                        let written = Term::store(seq.clone(), i.clone(), Term::to_snap(v.clone()));
                        st.heap.set_value(id, written);
                        k(ctx, st)
                    })
                })
            })
        })
    })
}

/// `new T[n]`: `n >= 0` (`array.size.negative` at the `new` otherwise); a
/// fresh reference (numbered like new objects, so distinct from every
/// other), `length(a) == n`, and `a.elems` holding `T`'s default value.
pub fn exec_new_array(
    ctx: &mut Ctx,
    s: State,
    (elem, size): (&TypeKind, &Expr),
    span: Span,
    k: &dyn Fn(&mut Ctx, State, Term),
) {
    eval(ctx, s, size, &|ctx, s, n| {
        let ok = Term::le(Term::int(0), n.clone());
        if !ctx.prove(&s, &ok, "is the array size non-negative?") {
            let reason = Reason::SizeMaybeNegative {
                size: ctx.text(&size.span),
            };
            if ctx
                .fail(&s, Kind::ArraySizeNegative, span.clone(), reason)
                .is_none()
            {
                return;
            }
        }
        let (a, num) = ctx.fresh_object("Array");
        ctx.elem_sorts.insert(a.clone(), sort_of(elem));
        let mut s = s;
        s.assume(Term::eq(
            Term::app(prelude::ALLOC, vec![a.clone()], Sort::Int),
            Term::int(num),
        ));
        for other in s.existing_refs() {
            s.assume(Term::neq(other, a.clone()));
        }
        s.assume(Term::eq(Term::length(a.clone()), n.clone()));
        let default = Term::to_snap(super::exec::default_value(elem));
        s.heap.add(Chunk::Field {
            recv: a.clone(),
            field: ELEMS.into(),
            value: Term::const_seq(default),
        });
        k(ctx, s, a)
    })
}

/// How many elements of an array a counterexample shows.
pub const SHOWN: usize = 8;

/// An array a counterexample shows: the variable naming it, the array and
/// its elements.
pub type Shown = (String, Term, Term);

/// Terms that show an array's contents in a counterexample: its length and
/// its first `SHOWN` elements (read in the same model).
fn counterexample_terms(recv: &Term, seq: &Term, sort: Sort) -> Vec<Term> {
    let mut out = vec![Term::length(recv.clone())];
    for i in 0..SHOWN {
        let i = i128::try_from(i).unwrap_or(0);
        out.push(Term::from_snap(
            Term::select(seq.clone(), Term::int(i)),
            sort,
        ));
    }
    out
}

/// Adds to `terms` fresh variables standing for the contents of `arrays`
/// and returns their equations, to assert in the model's query: the
/// equations put the element terms into the query, so the model gives
/// them values consistent with the prelude's laws (a term only evaluated
/// in a model may escape the quantified laws).
pub fn name_contents(ctx: &mut Ctx, arrays: &[Shown], terms: &mut Vec<Term>) -> Vec<Term> {
    let mut named = Vec::new();
    for (_, recv, seq) in arrays {
        let sort = ctx.elem_sorts.get(recv).copied().unwrap_or(Sort::Int);
        for t in counterexample_terms(recv, seq, sort) {
            let v = ctx.fresh("shown", t.sort());
            named.push(Term::eq(v.clone(), t));
            terms.push(v);
        }
    }
    named
}

/// Shows each of `arrays` as its contents (from `values`, the model values
/// of the variables of `name_contents`), in place of its reference.
pub fn show_contents(arrays: &[Shown], values: &[String], out: &mut Vec<(String, String)>) {
    let width = SHOWN + 1;
    for (i, (owner, _, _)) in arrays.iter().enumerate() {
        let shown = values
            .get(i * width..(i + 1) * width)
            .map_or_else(|| "?".to_string(), render_contents);
        match out.iter_mut().find(|(n, _)| n == owner) {
            Some(entry) => entry.1 = shown,
            None => out.push((owner.clone(), shown)),
        }
    }
}

/// `[3, 0, 7]` from the model values of `counterexample_terms`.
fn render_contents(values: &[String]) -> String {
    let Some((len, elems)) = values.split_first() else {
        return "?".into();
    };
    let n = len.parse::<usize>().unwrap_or(SHOWN);
    let mut shown: Vec<&str> = elems.iter().take(n).map(String::as_str).collect();
    if n > SHOWN {
        shown.push("…");
    }
    format!("[{}]", shown.join(", "))
}

/// How many elements of an input array a model gives (the rest keep
/// their default): replayed counterexamples and `sift test` runs.
pub const INPUT_ELEMENTS: usize = 16;

/// The input "fields" of an array in a model (`paths::InputTerms`): its
/// length as `[].length` and each of its first elements `[]#k/Sort` read
/// as every element sort (the run keeps the one its type says).
pub fn input_terms(recv: &Term, seq: &Term) -> Vec<(String, Term)> {
    let mut out = vec![("[].length".to_string(), Term::length(recv.clone()))];
    for k in 0..INPUT_ELEMENTS {
        let elem = Term::select(seq.clone(), Term::int(i128::try_from(k).unwrap_or(0)));
        for sort in [Sort::Int, Sort::Bool, Sort::Ref] {
            let name = format!("[]#{k}/{}", sort.name());
            out.push((name, Term::from_snap(elem.clone(), sort)));
        }
    }
    out
}

/// `terms` with each element read replaced by a fresh variable, and the
/// equations that define those variables, to assert in the model's query:
/// a read that is only evaluated in a model escapes the quantified facts
/// about the elements (they are instantiated for the terms of the query),
/// so inputs built from it could contradict the precondition.
pub fn name_reads(ctx: &mut Ctx, terms: &[Term]) -> (Vec<Term>, Vec<Term>) {
    let mut named = Vec::new();
    let shown = terms
        .iter()
        .map(|t| {
            let mut reads = false;
            let mut stack = vec![t];
            while let Some(x) = stack.pop() {
                reads |= matches!(x.op(), super::term::Op::Select);
                stack.extend(x.args());
            }
            if !reads {
                return t.clone();
            }
            let v = ctx.fresh("input", t.sort());
            named.push(Term::eq(v.clone(), t.clone()));
            v
        })
        .collect();
    (shown, named)
}
