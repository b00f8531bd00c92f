//! `consume` (paper Figure 7): checks that an assertion holds and takes the
//! chunks it asserts out of the heap, passing on their snapshot.
//!
//! Expressions are evaluated in the heap as it was when the consumption
//! began; chunks are removed from what the earlier conjuncts left (`H2`).

use super::ctx::{Ctx, TermCont};
use super::eval::{eval, eval_call_operands, find_chunk, on_arms};
use super::heap::{Chunk, ChunkId, Heap};
use super::infer::{note_consumed_open, open_for_field, provide_instance};
use super::state::{Obligation, State};
use super::term::Term;
use crate::diag::Kind;
use crate::record::failure::{ChunkName, CloseLack, Reason};
use crate::syntax::ast::*;

/// The rest of a consumption: state, remaining heap `H2`, snapshot.
pub type Rest<'k> = &'k dyn Fn(&mut Ctx, State, Heap, Term);

/// Consumes `a` from the heap of `s` under obligation `ob` (which decides how
/// failures are reported, unless an outer obligation is already active;
/// without one, failures keep their own kind and place).
pub fn consume(ctx: &mut Ctx, s: State, a: &Expr, ob: Option<Obligation>, k: TermCont) {
    let saved = s.obligation.clone();
    let start_pc = s.pc.clone();
    let start_deferred = (s.deferred.clone(), s.deferred_calls.clone());
    let mut s = s;
    match s.obligation.as_mut() {
        Some(outer) => outer.nested += 1,
        None => s.obligation = ob,
    }
    let h2 = s.heap.clone();
    consume_inner(ctx, s, h2, a, &|ctx, done, rest, snap| {
        let mut out = done;
        out.heap = rest;
        match (&saved, out.obligation.take()) {
            // An outer obligation goes on, with what happened inside it.
            (Some(outer), Some(mut o)) => {
                o.nested = outer.nested;
                o.conjunct = outer.conjunct.clone();
                out.obligation = Some(o);
            }
            (Some(outer), None) => out.obligation = Some(outer.clone()),
            // A failed `assert` is assumed, and only it: whatever its failed
            // evaluation produced (facts of a body opened from nothing, a
            // value read without permission, the definitions of the calls
            // it made, which carry their preconditions) leaves the path.
            (None, Some(o)) if o.lenient && o.reported => {
                let mut pc = start_pc.clone();
                for f in o.assumed {
                    pc.add(f);
                }
                out.pc = pc;
                (out.deferred, out.deferred_calls) = start_deferred.clone();
            }
            (None, _) => {}
        }
        k(ctx, out, snap)
    })
}

/// The snapshot of `l && r` (Figure 7, row 5, Figure 6, row 5): only the
/// conjuncts that hold heap parts take a place in it, so opening an instance
/// and closing it again unchanged gives back the very same snapshot
/// (docs/language.md section 4). `produce` splits snapshots the same way.
pub fn snapshot_shape(l: &Expr, r: &Expr) -> (bool, bool) {
    (is_spatial(l), is_spatial(r))
}

/// Whether an assertion holds heap parts (so its conditionals must branch).
pub fn is_spatial(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Acc(_) | ExprKind::Untouched(_) => true,
        ExprKind::Call(c) => is_predicate(c),
        ExprKind::Binary(BinOp::And, a, b) => is_spatial(a) || is_spatial(b),
        ExprKind::Binary(BinOp::Implies, _, b) => is_spatial(b),
        ExprKind::Cond(_, a, b) => is_spatial(a) || is_spatial(b),
        _ => false,
    }
}

pub fn is_predicate(c: &Call) -> bool {
    c.target
        .as_ref()
        .is_some_and(|t| t.kind == MemberKind::Predicate)
}

fn at_conjunct(mut s: State, span: &Span) -> State {
    if let Some(o) = s.obligation.as_mut()
        && o.nested == 0
    {
        o.conjunct = Some(span.clone());
    }
    s
}

pub fn consume_inner(ctx: &mut Ctx, s: State, h2: Heap, a: &Expr, k: Rest) {
    if !ctx.tick() {
        return;
    }
    match &a.kind {
        // Figure 7, row 5: φ1 * φ2 — the snapshot combines both parts.
        ExprKind::Binary(BinOp::And, l, r) => consume_inner(ctx, s, h2, l, &|ctx, s1, h2, sl| {
            consume_inner(ctx, s1, h2, r, &|ctx, s2, h2, sr| {
                let snap = match snapshot_shape(l, r) {
                    (true, true) => Term::combine(sl.clone(), sr),
                    (true, false) => sl.clone(),
                    (false, true) => sr,
                    (false, false) => Term::unit(),
                };
                k(ctx, s2, h2, snap)
            })
        }),
        ExprKind::Binary(BinOp::Implies, c, r) if is_spatial(r) => {
            consume_cond(ctx, s, h2, c, Some(r), None, k)
        }
        // Figure 7, row 7: a conditional assertion.
        ExprKind::Cond(c, x, y) if is_spatial(x) || is_spatial(y) => {
            consume_cond(ctx, s, h2, c, Some(x), Some(y), k)
        }
        // Figure 7, row 3: acc(e.f) takes a matching field chunk from H2.
        ExprKind::Acc(fe) => {
            let s = at_conjunct(s, &a.span);
            let ExprKind::Field { recv, field, class } = &fe.kind else {
                return ctx.internal(&s, fe.span.clone(), "acc of something that is not a field");
            };
            let name = format!("{class}.{}", field.name);
            let what = format!("acc({})", ctx.text(&fe.span));
            let of = ChunkName::Field(field.name.clone());
            eval(ctx, s, recv, &|ctx, s, t| {
                let key = std::slice::from_ref(&t);
                if let Some(id) = find_chunk(ctx, &s, &h2, &name, key) {
                    return take(ctx, s, &h2, id, fe.span.clone(), k);
                }
                open_for_field(
                    ctx,
                    s,
                    h2.clone(),
                    &name,
                    &t,
                    fe.span.clone(),
                    &|ctx, mut st, opened, id| {
                        note_consumed_open(&mut st);
                        take(ctx, st, &opened, id, fe.span.clone(), k)
                    },
                    &|ctx, st| {
                        let reason = Reason::NotHeld {
                            chunk: what.clone(),
                            of: of.clone(),
                        };
                        missing_chunk(ctx, st, h2.clone(), fe.span.clone(), reason, None, k)
                    },
                )
            })
        }
        // Figure 7, row 6: a predicate instance takes a matching chunk.
        ExprKind::Call(call) if is_predicate(call) => {
            let s = at_conjunct(s, &a.span);
            let class = call.target.as_ref().map_or("", |t| t.class.as_str());
            let name = format!("{class}.{}", call.name.name);
            let what = ctx.text(&a.span);
            let prog = ctx.prog.clone();
            let Some(pred) = call
                .target
                .as_ref()
                .and_then(|t| prog.predicate(&t.class, &call.name.name))
            else {
                return ctx.internal(&s, a.span.clone(), "not a predicate instance");
            };
            eval_call_operands(ctx, s, call, None, &|ctx, s, recv, args| {
                let mut key: Vec<Term> = recv.iter().cloned().collect();
                key.extend(args.iter().cloned());
                if let Some(id) = find_chunk(ctx, &s, &h2, &name, &key) {
                    return take(ctx, s, &h2, id, a.span.clone(), k);
                }
                provide_instance(
                    ctx,
                    s,
                    h2.clone(),
                    pred,
                    (recv, args),
                    (&name, &key),
                    a.span.clone(),
                    k,
                    &|ctx, st, note| {
                        let reason = Reason::NotHeld {
                            chunk: what.clone(),
                            of: ChunkName::Predicate(call.name.name.clone()),
                        };
                        missing_chunk(ctx, st, h2.clone(), a.span.clone(), reason, note, k)
                    },
                )
            })
        }
        // Figure 7, row 8: untouched(φ) — φ has the same snapshot now and in
        // the old heap; nothing is taken.
        ExprKind::Untouched(inner) => {
            let s = at_conjunct(s, &a.span);
            let now = s.heap.clone();
            consume_inner(ctx, s.clone(), now, inner, &|ctx, s1, _, snap_now| {
                let mut in_old = s1.clone();
                in_old.heap = s.old.clone();
                consume_inner(
                    ctx,
                    in_old,
                    s.old.clone(),
                    inner,
                    &|ctx, s2, _, snap_old| {
                        let mut back = s.clone();
                        back.pc = s2.pc;
                        back.obligation = s2.obligation;
                        let same = Term::eq(snap_now.clone(), snap_old);
                        if ctx.prove(&back, &same, "untouched: same snapshot now and before?") {
                            return k(ctx, back, h2.clone(), Term::unit());
                        }
                        let reason = Reason::MightHaveChanged {
                            part: ctx.text(&inner.span),
                        };
                        if let Some(back) =
                            ctx.fail(&back, Kind::AssertFailed, a.span.clone(), reason)
                        {
                            k(ctx, back, h2.clone(), Term::unit())
                        }
                    },
                )
            })
        }
        // Figure 7, rows 1, 2 and 4: a pure fact must follow from Σ.
        _ => {
            let s = at_conjunct(s, &a.span);
            let before = s.failures();
            eval(ctx, s, a, &|ctx, s, t| {
                let clean = s.failures() == before;
                if ctx.prove(&s, &t, &format!("does `{}` hold?", ctx.text(&a.span))) {
                    let mut s = s;
                    s.note_fact(&t, before);
                    // A proved `assert` stays on the path, as in Dafny: its
                    // terms are what instantiates quantified facts later
                    // (`assert a[1] == 0;` is the witness of an `exists`).
                    if s.obligation.as_ref().is_some_and(|o| o.lenient) {
                        s.assume(t.clone());
                    }
                    return k(ctx, s, h2.clone(), Term::unit());
                }
                let reason = Reason::MightNotHold {
                    fact: ctx.text(&a.span),
                };
                if let Some(mut s) = ctx.fail(&s, Kind::AssertFailed, a.span.clone(), reason) {
                    // A failed fact is assumed afterwards (and here, for the
                    // conjuncts after it), unless its own evaluation failed.
                    if clean {
                        let now = s.failures();
                        s.note_fact(&t, now);
                        s.assume(t);
                    }
                    k(ctx, s, h2.clone(), Term::unit())
                }
            })
        }
    }
}

fn consume_cond(
    ctx: &mut Ctx,
    s: State,
    h2: Heap,
    c: &Expr,
    then: Option<&Expr>,
    els: Option<&Expr>,
    k: Rest,
) {
    let before = s.failures();
    on_arms(ctx, s, c, then, els, &|ctx, mut branch, arm, fact| {
        branch.note_fact(fact, before);
        match arm {
            Some(a) => consume_inner(ctx, branch, h2.clone(), a, k),
            None => k(ctx, branch, h2.clone(), Term::unit()),
        }
    })
}

/// Takes the chunk `id` out of `heap` and goes on with its snapshot.
fn take(ctx: &mut Ctx, s: State, heap: &Heap, id: ChunkId, span: Span, k: Rest) {
    match remove_chunk(heap, id) {
        Some((rest, snap)) => k(ctx, s, rest, snap),
        None => ctx.internal(&s, span, "chunk vanished"),
    }
}

/// A chunk that must be consumed is not held (and inference could not
/// provide it): `permission.missing` at `span`, or the active obligation's
/// kind. Under a lenient obligation the consumption goes on with a fresh
/// snapshot.
fn missing_chunk(
    ctx: &mut Ctx,
    s: State,
    heap: Heap,
    span: Span,
    reason: Reason,
    note: Option<CloseLack>,
    k: Rest,
) {
    if let Some(s) = ctx.fail_noted(&s, Kind::PermissionMissing, span, reason, note) {
        let snap = ctx.fresh_snap();
        k(ctx, s, heap, snap)
    }
}

/// The heap without chunk `id`, and the chunk's snapshot.
pub fn remove_chunk(heap: &Heap, id: ChunkId) -> Option<(Heap, Term)> {
    let mut rest = heap.clone();
    let snap = match rest.remove(id)? {
        Chunk::Field { value, .. } => Term::to_snap(value),
        Chunk::Pred { snap, .. } => snap,
    };
    Some((rest, snap))
}
