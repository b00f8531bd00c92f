//! The termination check of pure methods (paper section 3.6, with Sift's
//! measures; docs/language.md section 7, which argues why it is sound).
//!
//! A call evaluated in a pure method's body (also while consuming the
//! callee's precondition or producing an opened predicate body) is
//! accepted when it leaves the caller's cycle of the call graph
//! (`calls::CallGraph`: it then goes down, and cannot come back), when it
//! is inside an `opening` or the callee's precondition leaves part of the
//! heap (the callee gets a smaller heap), or else by the one order its
//! cycle has: the measures, if every method of the cycle declares one
//! (the callee's is non-negative and below the caller's, or at most the
//! caller's if the callee is declared earlier), the text order if not.

use super::ctx::{Cont, Ctx};
use super::eval::{bind, eval};
use super::program::PureInfo;
use super::state::State;
use super::term::Term;
use crate::diag::Kind;
use crate::record::Reason;
use crate::syntax::ast::Call;

/// The termination check of a pure call whose precondition was consumed
/// (`s` before it, `after` after it); `k` goes on past the call, unless
/// the failure ends the path.
pub fn check_call(
    ctx: &mut Ctx,
    s: &State,
    after: State,
    call: &Call,
    pure: &PureInfo,
    operands: (Option<Term>, &[Term]),
    k: Cont,
) {
    let Some((caller, start)) = ctx.termination.clone() else {
        return k(ctx, after);
    };
    let leaves_cycle = !ctx.prog.calls.same_cycle(&caller, &pure.fun);
    // An inferred open while consuming the precondition is an `opening`.
    let smaller_heap = s.opening_depth > 0
        || super::infer::opened_while_consuming(s, &after)
        || !after.heap.is_empty();
    if s.unfolding || leaves_cycle || smaller_heap {
        return k(ctx, after);
    }
    let earlier = pure.decl.span.start < start;
    if ctx.prog.calls.measured(&caller) {
        return check_measure(ctx, &s.heap, after, call, pure, operands, earlier, k);
    }
    if earlier {
        return k(ctx, after);
    }
    let reason = Reason::MayNotTerminate {
        callee: pure.fun.clone(),
        caller,
    };
    let mut outside = after.clone();
    outside.obligation = None;
    if ctx
        .fail(&outside, Kind::Termination, call.span.clone(), reason)
        .is_some()
    {
        k(ctx, after)
    }
}

/// While a pure method's own measure is evaluated: a call into that
/// method's cycle is a `termination` failure (and `true`). A measure is a
/// function of its method's arguments; it cannot be computed by the
/// methods it is meant to show terminating.
pub fn measure_calls_back(ctx: &mut Ctx, s: &State, call: &Call, pure: &PureInfo) -> bool {
    // Calls inside an unfolding are the unfolded method's, not the measure's.
    let Some(owner) = ctx.measure_of.clone().filter(|_| !s.unfolding) else {
        return false;
    };
    if !ctx.prog.calls.same_cycle(&owner, &pure.fun) {
        return false;
    }
    let reason = Reason::MeasureCallsCycle {
        owner,
        call: ctx.text(&call.span),
    };
    let mut outside = s.clone();
    outside.obligation = None;
    ctx.fail(&outside, Kind::Termination, call.span.clone(), reason);
    true
}

/// A call inside the caller's cycle that does not shrink the heap, in a
/// cycle whose methods all have a measure: accepted if the measures say
/// so, otherwise a `termination` failure. `caller_heap` is the heap the
/// call is evaluated in (the callee's pre-state); `earlier` says whether
/// the callee is declared before the caller; `after` goes on past the call.
#[allow(clippy::too_many_arguments)]
fn check_measure(
    ctx: &mut Ctx,
    caller_heap: &super::heap::Heap,
    after: State,
    call: &Call,
    pure: &PureInfo,
    (recv, args): (Option<Term>, &[Term]),
    earlier: bool,
    k: Cont,
) {
    let mut outside = after.clone();
    outside.obligation = None;
    let fail = |ctx: &mut Ctx, st: &State, reason: Reason| {
        if ctx
            .fail(st, Kind::Termination, call.span.clone(), reason)
            .is_some()
        {
            k(ctx, after.clone())
        }
    };
    let (Some(bound), Some(measure)) = (ctx.measure.clone(), pure.decl.decreases.as_ref()) else {
        let reason = Reason::MeasureMayNotDecrease {
            callee: pure.fun.clone(),
            earlier,
        };
        return fail(ctx, &outside, reason);
    };
    // A measure that calls back into the cycle is reported where it is
    // written; evaluating it here would run this check again, without end.
    if let Some(back) = ctx.prog.calls.cyclic_measure(&pure.fun) {
        let reason = Reason::MeasureCallsCycle {
            owner: pure.fun.clone(),
            call: ctx.text(back),
        };
        return fail(ctx, &outside, reason);
    }
    let mut callee = bind(&outside, recv, &pure.decl.params, args);
    callee.heap = caller_heap.clone();
    eval(ctx, callee, measure, &|ctx, st, m| {
        let below = if earlier {
            Term::le(m.clone(), bound.clone())
        } else {
            Term::lt(m.clone(), bound.clone())
        };
        let goal = Term::and(vec![Term::le(Term::int(0), m.clone()), below]);
        if ctx.prove(&st, &goal, "does the measure decrease?") {
            return k(ctx, after.clone());
        }
        let reason = Reason::MeasureMayNotDecrease {
            callee: pure.fun.clone(),
            earlier,
        };
        let mut failing = after.clone();
        failing.pc = st.pc.clone();
        failing.obligation = None;
        fail(ctx, &failing, reason)
    })
}
