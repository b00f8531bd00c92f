//! The fourth case of the termination check (docs/language.md section 7): a
//! call from a pure method with `decreases m;` to one with `decreases e;`
//! terminates when the callee's measure, for the call's arguments in the
//! caller's heap, is provably non-negative and below the caller's.

use super::ctx::{Cont, Ctx};
use super::eval::{bind, eval};
use super::program::PureInfo;
use super::state::State;
use super::term::Term;
use crate::diag::Kind;
use crate::record::Reason;
use crate::syntax::ast::Call;

/// A call that none of the paper's three cases accepts (`reason` says
/// why): accepted by the measures if both methods have one, otherwise a
/// `termination` failure. `caller_heap` is the heap the call is evaluated
/// in (the callee's pre-state); `after` goes on past the call.
#[allow(clippy::too_many_arguments)]
pub fn check_measure(
    ctx: &mut Ctx,
    caller_heap: &super::heap::Heap,
    after: State,
    call: &Call,
    pure: &PureInfo,
    (recv, args): (Option<Term>, &[Term]),
    reason: Reason,
    k: Cont,
) {
    let mut outside = after.clone();
    outside.obligation = None;
    let (Some(bound), Some(measure)) = (ctx.measure.clone(), pure.decl.decreases.as_ref()) else {
        if ctx
            .fail(&outside, Kind::Termination, call.span.clone(), reason)
            .is_some()
        {
            k(ctx, after)
        }
        return;
    };
    let mut callee = bind(&outside, recv, &pure.decl.params, args);
    callee.heap = caller_heap.clone();
    eval(ctx, callee, measure, &|ctx, st, m| {
        let goal = Term::and(vec![
            Term::le(Term::int(0), m.clone()),
            Term::lt(m.clone(), bound.clone()),
        ]);
        if ctx.prove(&st, &goal, "does the measure decrease?") {
            return k(ctx, after.clone());
        }
        let reason = Reason::MeasureMayNotDecrease {
            callee: pure.fun.clone(),
        };
        let mut failing = after.clone();
        failing.pc = st.pc.clone();
        failing.obligation = None;
        if ctx
            .fail(&failing, Kind::Termination, call.span.clone(), reason)
            .is_some()
        {
            k(ctx, after.clone())
        }
    })
}
