//! Ghost statement inference (paper section 4.1, docs/language.md section 6):
//! the `open`, `close` and `use` steps a programmer may leave out.
//!
//! Every inferred step is one the programmer could have written, so it
//! never makes a wrong program verify: opening a held instance and unfolding
//! a pure method only add true facts, and closing consumes the predicate's
//! body like a `close` would. Each is bounded (`MAX_DEPTH` nested opens or
//! closes, one unfolding per call), so inference always terminates, and each
//! is recorded as a step of the trace marked "inferred".

use std::cell::RefCell;
use std::sync::{Arc, OnceLock};

use super::consume::{Rest, consume_inner, remove_chunk};
use super::ctx::{Ctx, TermCont};
use super::eval::{bind, eval, find_chunk};
use super::heap::{Chunk, ChunkId, Heap};
use super::produce::{produce, produce_body};
use super::program::{PredInfo, ProgramInfo, PureInfo};
use super::state::{Deferred, State};
use super::term::Term;
use crate::record::failure::CloseLack;
use crate::record::step::{Inferred, StepKind};
use crate::syntax::ast::*;

/// How many inferred opens (or closes) may be nested in one another.
pub const MAX_DEPTH: u8 = 3;

/// Whether opening an instance of `pred` (and, `depth` levels down, the
/// instances its body holds) may give a chunk named `name`: a field
/// (`Class.f`) or a predicate instance (`Class.q`).
fn provides(prog: &ProgramInfo, pred: &PredInfo, name: &str, depth: u8) -> bool {
    fn walk(prog: &ProgramInfo, e: &Expr, name: &str, depth: u8) -> bool {
        match &e.kind {
            ExprKind::Acc(fe) => match &fe.kind {
                ExprKind::Field {
                    field: f, class, ..
                } => format!("{class}.{}", f.name) == name,
                _ => false,
            },
            ExprKind::Call(c) => c.target.as_ref().is_some_and(|t| {
                prog.predicate(&t.class, &c.name.name).is_some_and(|q| {
                    format!("{}.{}", t.class, c.name.name) == name
                        || (depth > 1 && walk(prog, &q.decl.body, name, depth - 1))
                })
            }),
            ExprKind::Binary(BinOp::And, a, b) | ExprKind::Cond(_, a, b) => {
                walk(prog, a, name, depth) || walk(prog, b, name, depth)
            }
            ExprKind::Binary(BinOp::Implies, _, b) => walk(prog, b, name, depth),
            _ => false,
        }
    }
    depth > 0 && walk(prog, &pred.decl.body, name, depth)
}

/// The predicate of a predicate chunk (`Class.q`).
fn pred_of<'p>(prog: &'p ProgramInfo, qualified: &str) -> Option<&'p PredInfo> {
    let (class, name) = qualified.split_once('.')?;
    prog.predicate(class, name)
}

/// Held instances in `heap` that may provide a chunk named `name`, in the
/// order they were added (the choice is deterministic).
fn candidates(prog: &ProgramInfo, heap: &Heap, name: &str, depth: u8) -> Vec<ChunkId> {
    heap.iter()
        .filter(|(_, c)| match c {
            Chunk::Pred { pred, .. } => {
                pred_of(prog, pred).is_some_and(|q| provides(prog, q, name, depth))
            }
            Chunk::Field { .. } => false,
        })
        .map(|(id, _)| id)
        .collect()
}

/// What a search for a field chunk inside held instances hands on: the
/// state (with what the openings learned), the opened heap and the chunk.
pub type Found<'k> = &'k dyn Fn(&mut Ctx, State, Heap, ChunkId);
/// The search found nothing on this path (the state knows what it learned).
pub type Missing<'k> = &'k dyn Fn(&mut Ctx, State);

/// Open on demand: the chunk of `field` for `recv` is not in `heap`; opens
/// held instances that may provide it (nested up to `MAX_DEPTH`), trying
/// them in order. `s` gives the store and path condition; its heap is not
/// changed (the caller decides whether the opened heap is kept, as for a
/// field write, or only looked into, as `opening` does).
#[allow(clippy::too_many_arguments)]
pub fn open_for_field(
    ctx: &mut Ctx,
    s: State,
    heap: Heap,
    field: &str,
    recv: &Term,
    span: Span,
    found: Found,
    missing: Missing,
) {
    let key = std::slice::from_ref(recv);
    open_for(ctx, s, heap, field, key, span, found, missing)
}

/// Open on demand for any chunk: the one named `name` (a field or a
/// predicate instance) whose key is `key`, as `open_for_field`.
#[allow(clippy::too_many_arguments)]
fn open_for(
    ctx: &mut Ctx,
    s: State,
    heap: Heap,
    name: &str,
    key: &[Term],
    span: Span,
    found: Found,
    missing: Missing,
) {
    if !ctx.infer || s.infer_depth >= MAX_DEPTH {
        return missing(ctx, s);
    }
    let prog = ctx.prog.clone();
    let cands = candidates(&prog, &heap, name, MAX_DEPTH - s.infer_depth);
    let target = Target { name, key, span };
    search(ctx, s, heap, &cands, &target, found, missing)
}

/// The chunk an open on demand looks for, and where it is needed.
struct Target<'t> {
    name: &'t str,
    key: &'t [Term],
    span: Span,
}

fn search(
    ctx: &mut Ctx,
    s: State,
    heap: Heap,
    cands: &[ChunkId],
    target: &Target,
    found: Found,
    missing: Missing,
) {
    let Some((&first, rest)) = cands.split_first() else {
        return missing(ctx, s);
    };
    let next = |ctx: &mut Ctx, s: State| search(ctx, s, heap.clone(), rest, target, found, missing);
    let prog = ctx.prog.clone();
    let Some(Chunk::Pred {
        recv: owner,
        pred,
        args,
        snap,
    }) = heap.get(first).cloned()
    else {
        return next(ctx, s);
    };
    let (Some(q), Some((without, _))) = (pred_of(&prog, &pred), remove_chunk(&heap, first)) else {
        return next(ctx, s);
    };
    let mut opened = bind(&s, Some(owner.clone()), &q.decl.params, &args);
    opened.heap = without;
    opened.obligation = None;
    // Producing the body is nested in this open: an open it needs in turn
    // (a body that reads before it holds the permission, from an instance
    // the body itself holds) counts against the same bound.
    opened.infer_depth = s.infer_depth + 1;
    // In the program's terms where a variable holds the owner.
    let owner_name =
        super::names::Names::new(&prog, &ctx.source, (&s.store, &heap, &s.old), None).term(&owner);
    let shown = format!("{owner_name}.{}()", q.decl.name.name);
    let span = target.span.clone();
    // As a trial: the body was checked to frame itself where the predicate
    // is declared, so a failure while producing it here (a read whose own
    // open on demand met the bound) is no error of the program: that path
    // gets nothing from this candidate and goes on to the next one.
    let failures = ctx.attempt(&opened, &|ctx, t| {
        produce_body(ctx, t, snap.clone(), &q.decl.body, &|ctx, produced| {
            // What opening a held instance learns is true: it stays.
            let mut st = s.clone();
            st.pc = produced.pc.clone();
            // The step shows the opened heap, whether or not the caller keeps it.
            let mut step = st.clone();
            step.heap = produced.heap.clone();
            let what = StepKind::Inferred(Inferred::Open {
                instance: shown.clone(),
                access: ctx.text(&span),
            });
            ctx.record(&mut step, span.clone(), what);
            st.trace = step.trace;
            let h = produced.heap;
            if let Some(id) = find_chunk(ctx, &st, &h, target.name, target.key) {
                return found(ctx, st, h, id);
            }
            // Instances the body held may provide it in turn.
            let inner: Vec<ChunkId> = candidates(&prog, &h, target.name, MAX_DEPTH)
                .into_iter()
                .filter(|id| heap.get(*id).is_none())
                .collect();
            if inner.is_empty() || st.infer_depth + 1 >= MAX_DEPTH {
                return next(ctx, s.resume(&st));
            }
            let mut deeper = st.clone();
            deeper.infer_depth += 1;
            search(
                ctx,
                deeper,
                h,
                &inner,
                target,
                &|ctx, mut got, h2, id| {
                    got.infer_depth = s.infer_depth;
                    found(ctx, got, h2, id)
                },
                &|ctx, failed| next(ctx, s.resume(&failed)),
            )
        })
    });
    for f in failures {
        next(ctx, s.resume(&f.state))
    }
}

/// Whether an open on demand made while consuming took what it consumed
/// from the opened heap: `after` is the state past the consumption, `before`
/// the one it started from. The termination check (section 3.6) treats
/// such a call as one inside an `opening`, as the open could be written so.
pub fn opened_while_consuming(before: &State, after: &State) -> bool {
    after.consumed_opens > before.consumed_opens
}

/// Counts an open on demand whose opened heap a consumption goes on from.
pub fn note_consumed_open(s: &mut State) {
    s.consumed_opens += 1;
}

/// A predicate instance `recv.q(args)` (chunk `name`, key `key`) must be
/// consumed from `h2` and is not held. In a pure method's body, where no
/// close may be inferred (`close_for`), a held instance that holds it is
/// opened instead, as `opening` around the consumption would (paper
/// section 4.1; `length()` calling `next.length()` with `this.list()`
/// held); elsewhere it is closed on demand. `k` goes on from the heap left
/// after taking it; `missing` gets the state and what a close lacked.
#[allow(clippy::too_many_arguments)]
pub fn provide_instance(
    ctx: &mut Ctx,
    s: State,
    h2: Heap,
    pred: &PredInfo,
    (recv, args): (Option<Term>, Vec<Term>),
    (name, key): (&str, &[Term]),
    span: Span,
    k: Rest,
    missing: &dyn Fn(&mut Ctx, State, Option<CloseLack>),
) {
    if !in_pure_body(ctx, &s) {
        return close_for(ctx, s, h2, pred, recv, args, span, k, missing);
    }
    // Named after what needs it: the call whose precondition this is.
    let at = s
        .obligation
        .as_ref()
        .and_then(|o| o.at.clone())
        .unwrap_or_else(|| span.clone());
    open_for(
        ctx,
        s,
        h2,
        name,
        key,
        at,
        &|ctx, mut st, opened, id| match remove_chunk(&opened, id) {
            Some((rest, snap)) => {
                note_consumed_open(&mut st);
                k(ctx, st, rest, snap)
            }
            None => ctx.internal(&st, span.clone(), "chunk vanished"),
        },
        &|ctx, st| missing(ctx, st, None),
    )
}

/// Evaluating a pure method's body: checking it (paper 3.6 applies to its
/// calls), or unfolding it for `use`, `using` or an inferred use. A body
/// that verifies needs no close (none is inferred where it is checked), so
/// its unfoldings need none either; opening is also far cheaper than
/// closing an instance from the parts of another one.
fn in_pure_body(ctx: &Ctx, s: &State) -> bool {
    ctx.termination.is_some() || s.unfolding
}

/// Close on demand: the instance `recv.q(args)` must be consumed from `h2`
/// and is not held. Consumes its body from `h2` instead (closing nested
/// instances the same way, up to `MAX_DEPTH`), which is what `close`
/// followed by the consumption would do, and goes on with the instance's
/// snapshot. On the paths where that fails, `missing` gets the state and a
/// note saying what the close lacked.
#[allow(clippy::too_many_arguments)]
pub fn close_for(
    ctx: &mut Ctx,
    s: State,
    h2: Heap,
    pred: &PredInfo,
    recv: Option<Term>,
    args: Vec<Term>,
    span: Span,
    k: Rest,
    missing: &dyn Fn(&mut Ctx, State, Option<CloseLack>),
) {
    // Not in a pure method's body: no `close` can be written there, and the
    // termination check (paper 3.6) counts on the heap a call needs never
    // growing: inside an `opening` the call needs less than the opened
    // instance, and a call to an earlier method needs what its caller has.
    // A close there could hand a call the opened instance back, or make
    // an instance of a predicate without permissions out of nothing.
    let (Some(recv), true) = (
        recv,
        ctx.infer && s.infer_depth < MAX_DEPTH && !in_pure_body(ctx, &s),
    ) else {
        return missing(ctx, s, None);
    };
    let what = ctx.text(&span);
    if !ctx.prove(
        &s,
        &Term::neq(recv.clone(), Term::null()),
        "may the inferred close's receiver be null?",
    ) {
        let note = CloseLack {
            instance: what,
            why: None,
        };
        return missing(ctx, s, Some(note));
    }
    let failures = ctx.attempt(&s, &|ctx, t| {
        let mut body = bind(&t, Some(recv.clone()), &pred.decl.params, &args);
        body.infer_depth += 1;
        // The body's conjuncts are not the assertion's: they must not move
        // the place a later failure of the assertion is reported at.
        if let Some(o) = body.obligation.as_mut() {
            o.nested += 1;
        }
        consume_inner(
            ctx,
            body,
            h2.clone(),
            &pred.decl.body,
            &|ctx, after, rest, snap| {
                let mut out = s.clone();
                out.pc = after.pc;
                out.obligation = match (after.obligation, &s.obligation) {
                    (Some(mut o), Some(before)) => {
                        o.nested = before.nested;
                        o.conjunct = before.conjunct.clone();
                        Some(o)
                    }
                    _ => s.obligation.clone(),
                };
                let step = StepKind::Inferred(Inferred::Close {
                    instance: what.clone(),
                });
                ctx.record(&mut out, span.clone(), step);
                k(ctx, out, rest, snap)
            },
        )
    });
    for f in failures {
        let note = CloseLack {
            instance: what.clone(),
            why: Some(f.reason),
        };
        missing(ctx, s.resume(&f.state), Some(note))
    }
}

/// How deep the calls inside an inferred unfolding are unfolded in turn
/// (`valid()` whose body calls `getSize()`): each level only adds true
/// equations, and a bound keeps recursive pure methods finite.
pub const NESTED_UNFOLDS: u8 = 2;

/// Use on evaluation: a pure call that was evaluated also gives the
/// equation `use` would give for it (calls in the body are unfolded in
/// turn, `NESTED_UNFOLDS` deep). The step is recorded here; the unfolding itself
/// waits until a proof on this path fails without it (`definitions`), so
/// that a program that never needs it does not pay for it.
#[allow(clippy::too_many_arguments)]
pub fn use_on_eval(
    ctx: &mut Ctx,
    s: State,
    call: &Call,
    pure: &PureInfo,
    recv: Option<Term>,
    args: &[Term],
    t: Term,
    k: TermCont,
) {
    // Once per call term and path: unfolding it again adds nothing.
    // Inside an explicit `use` (depth 0) or too deep: no unfolding.
    let nested = s.unfolding && !(1..=NESTED_UNFOLDS).contains(&s.unfold_depth);
    if !ctx.infer || nested || s.pc.is_defined(&t) || s.deferred_calls.contains(&t) {
        return k(ctx, s, t);
    }
    let Some(snap) = t.args().first().cloned() else {
        return k(ctx, s, t);
    };
    let mut out = s;
    let deferred = Arc::new(Deferred {
        call: t.clone(),
        snap,
        class: pure.class.clone(),
        name: pure.decl.name.name.clone(),
        recv,
        args: args.to_vec(),
        guard: None,
        depth: out.unfold_depth,
        facts: OnceLock::new(),
    });
    out.deferred.push_back(deferred);
    out.deferred_calls.insert(t.clone());
    let what = StepKind::Inferred(Inferred::Use {
        call: ctx.text(&call.span),
    });
    ctx.record(&mut out, call.span.clone(), what);
    k(ctx, out, t)
}

/// The facts of every definition deferred on the path of `s`, each
/// unfolded once. The body is evaluated as the pure method's own validity
/// check does (paper 3.5): from its precondition produced with the call's
/// snapshot into an empty state. That is where the method was proved
/// well-defined, and a pure method reads only what its precondition holds,
/// so this gives the terms an unfolding in the caller's heap would give,
/// and its facts hold wherever the call was evaluated (the precondition
/// held there with that snapshot). Keeping terms only, not the caller's
/// state, keeps the memory of a long path flat. An unfolding that fails
/// gives no facts: the call goes on without its equation.
pub fn definitions(ctx: &mut Ctx, s: &State) -> Vec<Term> {
    let mut out = Vec::new();
    for d in s.deferred.iter() {
        if s.pc.is_defined(&d.call) {
            continue;
        }
        if d.facts.get().is_none() {
            let facts = unfold(ctx, d);
            let _ = d.facts.set(facts);
        }
        match (d.facts.get(), &d.guard) {
            (Some(Some(facts)), None) => out.extend(facts.iter().cloned()),
            (Some(Some(facts)), Some(g)) => {
                out.push(Term::implies(g.clone(), Term::and(facts.clone())));
            }
            _ => {}
        }
    }
    out
}

fn unfold(ctx: &mut Ctx, d: &Deferred) -> Option<Vec<Term>> {
    let prog = ctx.prog.clone();
    let pure = prog.pure_method(&d.class, &d.name)?;
    let results: RefCell<Vec<Vec<Term>>> = RefCell::new(Vec::new());
    let failures = ctx.attempt(&State::default(), &|ctx, tr| {
        let mut inner = bind(&tr, d.recv.clone(), &pure.decl.params, &d.args);
        inner.unfolding = true;
        inner.unfold_depth = d.depth + 1;
        produce(ctx, inner, d.snap.clone(), &pure.pre, &|ctx, pre| {
            eval(ctx, pre, &pure.decl.body, &|ctx, after, body| {
                let mut facts = after.pc.facts();
                facts.push(Term::eq(d.call.clone(), body));
                // The calls the body made, unfolded in turn.
                facts.extend(definitions(ctx, &after));
                results.borrow_mut().push(facts);
            })
        })
    });
    let mut paths = results.into_inner();
    if !failures.is_empty() || paths.is_empty() {
        return None;
    }
    if paths.len() == 1 {
        return paths.pop();
    }
    // The body split the path (a conditional): one of its paths is taken,
    // each with its own condition among its facts.
    Some(vec![Term::or(paths.into_iter().map(Term::and).collect())])
}
