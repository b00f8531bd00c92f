//! `produce` (paper Figure 6): assumes an assertion, adding the chunks it
//! asserts (their values taken from the snapshot) and its facts.
//!
//! As in the paper, the assertion's expressions are evaluated in the heap
//! produced so far by this assertion (`H'`): assertions frame themselves.
//! The produced chunks are then added to the heap of the state.

use super::consume::{consume, is_predicate, is_spatial, snapshot_shape};
use super::ctx::{Cont, Ctx, TrialFailure};
use super::eval::{eval, eval_call_operands, on_arms};
use super::heap::{Chunk, Heap};
use super::state::State;
use super::term::Term;
use crate::record::failure::ChunkName;
use crate::syntax::ast::*;
use crate::syntax::walk::exprs;

pub fn produce(ctx: &mut Ctx, s: State, snap: Term, a: &Expr, k: Cont) {
    produce_with(ctx, s, snap, a, false, k)
}

/// Produces a predicate body from the snapshot of a held instance. Unlike
/// a fresh snapshot, that one is compared later with the snapshot of the
/// body consumed again (`close`): the parts of it that hold no heap are
/// assumed to be `unit`, as consuming them gives (see `prelude.smt2`), so
/// that an instance opened and closed again unchanged is the same instance.
pub fn produce_body(ctx: &mut Ctx, s: State, snap: Term, a: &Expr, k: Cont) {
    produce_with(ctx, s, snap, a, true, k)
}

/// What stays the same through one production: the heap it adds to (for
/// separation) and whether snapshots of heap-less parts are `unit`.
struct Target<'h> {
    outer: &'h Heap,
    unit_parts: bool,
}

fn produce_with(ctx: &mut Ctx, s: State, snap: Term, a: &Expr, unit_parts: bool, k: Cont) {
    let outer = s.heap.clone();
    let mut inner = s;
    inner.heap = Heap::new();
    let target = Target {
        outer: &outer,
        unit_parts,
    };
    produce_inner(ctx, inner, &target, snap, a, &|ctx, done| {
        let mut out = done;
        let mut heap = outer.clone();
        heap.merge(&out.heap);
        out.heap = heap;
        k(ctx, out)
    })
}

fn produce_inner(ctx: &mut Ctx, s: State, target: &Target, snap: Term, a: &Expr, k: Cont) {
    if !ctx.tick() {
        return;
    }
    match &a.kind {
        // Figure 6, row 1: true.
        ExprKind::Bool(true) => k(ctx, with_unit_snapshot(s, target, &snap)),
        // Figure 6, row 2: false — the path is unreachable.
        ExprKind::Bool(false) => {}
        // Figure 6, row 5: φ1 * φ2 splits the snapshot (between the
        // conjuncts that hold heap parts only, as `consume` builds it).
        ExprKind::Binary(BinOp::And, ..) => {
            let parts = conjuncts(a, snap);
            produce_parts(ctx, s, target, &parts, Vec::new(), k)
        }
        ExprKind::Binary(BinOp::Implies, c, r) if is_spatial(r) => {
            produce_cond(ctx, s, target, snap, c, Some(r), None, k)
        }
        // Figure 6, row 7: a conditional assertion splits the path.
        ExprKind::Cond(c, x, y) if is_spatial(x) || is_spatial(y) => {
            produce_cond(ctx, s, target, snap, c, Some(x), Some(y), k)
        }
        // Figure 6, row 3: acc(e.f) adds t.f ↦ toSort(snapshot).
        ExprKind::Acc(fe) => {
            let ExprKind::Field { recv, field, class } = &fe.kind else {
                return ctx.internal(&s, fe.span.clone(), "acc of something that is not a field");
            };
            let name = format!("{class}.{}", field.name);
            let sort = ctx.prog.field_sort(&name);
            eval(ctx, s, recv, &|ctx, s, t| {
                let mut s = s;
                s.assume(Term::neq(t.clone(), Term::null()));
                if !assume_separate(&mut s, target.outer, &name, &t) {
                    return;
                }
                s.heap.add(Chunk::Field {
                    recv: t,
                    field: name.as_str().into(),
                    value: Term::from_snap(snap.clone(), sort),
                });
                k(ctx, s)
            })
        }
        // Figure 6, row 6: a predicate instance adds t.q[snapshot](args).
        ExprKind::Call(call) if is_predicate(call) => {
            let class = call.target.as_ref().map_or("", |t| t.class.as_str());
            let name = format!("{class}.{}", call.name.name);
            eval_call_operands(ctx, s, call, None, &|ctx, s, recv, args| {
                let Some(recv) = recv else {
                    return ctx.internal(&s, call.span.clone(), "predicate without receiver");
                };
                let mut s = s;
                s.assume(Term::neq(recv.clone(), Term::null()));
                s.heap.add(Chunk::Pred {
                    recv,
                    pred: name.as_str().into(),
                    args,
                    snap: snap.clone(),
                });
                k(ctx, s)
            })
        }
        // Figure 6, row 8: untouched(φ) assumes φ's snapshot is the same now
        // and in the old heap.
        ExprKind::Untouched(inner) => consume(ctx, s.clone(), inner, None, &|ctx, s1, snap_now| {
            let mut in_old = s1.clone();
            in_old.heap = s.old.clone();
            consume(ctx, in_old, inner, None, &|ctx, s2, snap_old| {
                let mut out = with_unit_snapshot(s.resume(&s2), target, &snap);
                out.assume(Term::eq(snap_now.clone(), snap_old));
                k(ctx, out)
            })
        }),
        // Figure 6, row 4: a pure fact joins the path condition.
        _ => eval(ctx, s, a, &|ctx, s, t| {
            if t.is_false() {
                return;
            }
            let mut s = with_unit_snapshot(s, target, &snap);
            s.assume(t);
            k(ctx, s)
        }),
    }
}

/// Consuming a part that holds no heap gives `unit` (see `produce_body`).
fn with_unit_snapshot(s: State, target: &Target, snap: &Term) -> State {
    let mut s = s;
    if target.unit_parts && !matches!(snap.op(), super::term::Op::Unit) {
        s.assume(Term::eq(snap.clone(), Term::unit()));
    }
    s
}

/// Separation (Figure 6, row 3): the new chunk's receiver differs from every
/// other receiver of the same field. Two allocated objects are already
/// known to differ, so they cost nothing. Returns false if the receiver is
/// syntactically one that already has the field (the path is infeasible).
fn assume_separate(s: &mut State, outer: &Heap, field: &str, t: &Term) -> bool {
    let mut facts = Vec::new();
    for heap in [outer, &s.heap] {
        for id in heap.named(field) {
            let Some(other) = heap.get(id).map(|c| c.recv().clone()) else {
                continue;
            };
            if other == *t {
                return false;
            }
            if other.allocation().is_some() && t.allocation().is_some() {
                continue;
            }
            facts.push(Term::neq(other, t.clone()));
        }
    }
    for f in facts {
        s.assume(f);
    }
    true
}

#[allow(clippy::too_many_arguments)]
fn produce_cond(
    ctx: &mut Ctx,
    s: State,
    target: &Target,
    snap: Term,
    c: &Expr,
    then: Option<&Expr>,
    els: Option<&Expr>,
    k: Cont,
) {
    on_arms(ctx, s, c, then, els, &|ctx, branch, arm, _| match arm {
        Some(a) => produce_inner(ctx, branch, target, snap.clone(), a, k),
        None => k(ctx, with_unit_snapshot(branch, target, &snap)),
    })
}

/// The conjuncts of `a`, in order, each with its part of `snap`: the
/// snapshot splits between the conjuncts that hold heap parts only, as
/// `consume` builds it.
fn conjuncts(a: &Expr, snap: Term) -> Vec<(&Expr, Term)> {
    let mut out = Vec::new();
    let mut work = vec![(a, snap)];
    while let Some((e, snap)) = work.pop() {
        let ExprKind::Binary(BinOp::And, l, r) = &e.kind else {
            out.push((e, snap));
            continue;
        };
        let (sl, sr) = match snapshot_shape(l, r) {
            (true, true) => (Term::first(snap.clone()), Term::second(snap)),
            (true, false) => (snap, Term::unit()),
            (false, true) => (Term::unit(), snap),
            (false, false) => (snap, Term::unit()),
        };
        work.push((r, sr));
        work.push((l, sl));
    }
    out
}

/// Figure 6, row 5: φ1 * φ2, one conjunct after the other. A pure
/// conjunct whose calls need an instance a later conjunct provides (the
/// paper's Figure 10: `fp() && l.valid() && valid()` and then
/// `getList() == l`, where `valid()` needs `getList().valid()`) is
/// produced after the others: the facts are the same, in an order that
/// frames them.
fn produce_parts(
    ctx: &mut Ctx,
    s: State,
    target: &Target,
    parts: &[(&Expr, Term)],
    later: Vec<(&Expr, Term)>,
    k: Cont,
) {
    let Some(((e, snap), rest)) = parts.split_first() else {
        if later.is_empty() {
            return k(ctx, s);
        }
        return produce_parts(ctx, s, target, &later, Vec::new(), k);
    };
    // Only for a missing predicate instance: a field read still needs its
    // `acc` before it, a division its non-zero divisor, and so on.
    let lacks_an_instance = |ctx: &mut Ctx| {
        // A look ahead, not a step of the path: the debugger's tree does
        // not get its steps.
        let tree = ctx.all_steps.take();
        let trial = ctx.attempt(&s, &|ctx, t| {
            produce_inner(ctx, t, target, snap.clone(), e, &|_, _| {})
        });
        ctx.all_steps = tree;
        let instance = |f: &TrialFailure| {
            matches!(f.reason.missing_chunk(), Some((ChunkName::Predicate(_), _)))
        };
        !trial.is_empty() && trial.iter().all(instance)
    };
    if !rest.is_empty() && !is_spatial(e) && calls_pure(e) && lacks_an_instance(ctx) {
        let mut later = later;
        later.push((e, snap.clone()));
        return produce_parts(ctx, s, target, rest, later, k);
    }
    produce_inner(ctx, s, target, snap.clone(), e, &|ctx, s1| {
        produce_parts(ctx, s1, target, rest, later.clone(), k)
    })
}

/// Whether a pure expression calls a pure method (whose precondition needs
/// heap parts).
fn calls_pure(e: &Expr) -> bool {
    let mut found = false;
    exprs(e, &mut |x| {
        found |= matches!(
            x.kind,
            ExprKind::Call(_) | ExprKind::Opening(..) | ExprKind::Using(..)
        );
    });
    found
}
