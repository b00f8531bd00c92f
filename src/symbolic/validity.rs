//! Validity (paper section 3.5, Definitions 3–5): what it takes for each
//! member of a program to be correct.

use std::cell::RefCell;

use super::consume::consume;
use super::ctx::{Ctx, Exits};
use super::eval::eval;
use super::exec::exec_block;
use super::heap::Heap;
use super::produce::produce;
use super::program::{MethodInfo, PredInfo, PureInfo, sort_of};
use super::state::{Obligation, State};
use super::term::{Sort, Term};
use crate::diag::Kind;
use crate::record::StepKind;
use crate::syntax::ast::{Param, Span};

/// Γ = [this ↦ fresh, x1 ↦ fresh, …] and Σ = {this ≠ null}.
pub(crate) fn initial_state(ctx: &mut Ctx, instance: bool, params: &[Param], span: Span) -> State {
    let mut s = State::default();
    if instance {
        let this = ctx.fresh("this", Sort::Ref);
        s.assume(Term::neq(this.clone(), Term::null()));
        s.store.insert("this".into(), this);
    }
    for p in params {
        let t = ctx.fresh(&p.name.name, sort_of(&p.ty.kind));
        s.store.insert(p.name.name.as_str().into(), t);
    }
    ctx.record(&mut s, span, StepKind::MethodEntry);
    s
}

/// Definition 3: a mutator (or constructor) is valid if its contract is
/// well-defined and, from any state satisfying its precondition, its body
/// reaches states satisfying its postcondition. The body of a method whose
/// contract is ill-defined is not verified.
pub fn check_method(ctx: &mut Ctx, m: &MethodInfo) {
    ctx.assigned = m.assigned.clone();
    let mut s0 = initial_state(
        ctx,
        !m.decl.is_static,
        &m.decl.params,
        m.decl.name.span.clone(),
    );
    super::overflow::assume_store(ctx, &mut s0);

    ctx.entry = Some(s0.store.clone());
    // A task's route applies to the body's paths, not to this check.
    let route = ctx.route.take();
    let before = ctx.failures.len();
    let snap = ctx.fresh_snap();
    produce(ctx, s0.clone(), snap, &m.pre, &|ctx, s1| {
        let mut s2 = s1.clone();
        s2.old = s1.heap.clone();
        s2.heap = Heap::new();
        if let Some(sort) = m.ret {
            let r = ctx.fresh("result", sort);
            super::overflow::assume_int(ctx, &mut s2, &r);
            s2.store.insert("result".into(), r);
        }
        let snap = ctx.fresh_snap();
        produce(ctx, s2, snap, &m.post, &|_, _| {});
    });
    if ctx.failures.len() > before {
        return;
    }

    ctx.route = route;
    // The precondition may split the path; a `join` in the body merges all
    // of its paths, so the unit's base is what they have in common.
    let starts = RefCell::new(Vec::new());
    let snap = ctx.fresh_snap();
    produce(ctx, s0.clone(), snap, &m.pre, &|ctx, s1| {
        let mut s2 = s1;
        s2.old = s2.heap.clone();
        ctx.record(&mut s2, m.pre.span.clone(), StepKind::PreconditionProduced);
        starts.borrow_mut().push(s2);
    });
    let starts = starts.into_inner();
    ctx.unit_base = State::common(&starts);

    // In the postcondition a parameter denotes its value on entry (docs/language.md
    // section 3), whatever the body assigned to it since: the caller reads
    // the contract with the arguments it passed.
    let entry = s0.store.clone();
    let post = |ctx: &mut Ctx, end: State| {
        let mut end = end;
        let result = end.store.get("result").cloned();
        end.store = entry.clone();
        if let Some(r) = result {
            end.store.insert("result".into(), r);
        }
        let ob = Obligation::per_conjunct(Kind::PostconditionFailed);
        consume(ctx, end, &m.post, Some(ob), &|_, _, _| {});
    };
    for s2 in starts {
        exec_block(ctx, s2, &m.decl.body.stmts, &post, Exits::method(&post));
    }
}

/// Definition 5 and section 3.6: a pure method's precondition and body are
/// well-defined, and its calls pass the termination check.
pub fn check_pure(ctx: &mut Ctx, p: &PureInfo) {
    let s0 = initial_state(
        ctx,
        !p.decl.is_static,
        &p.decl.params,
        p.decl.name.span.clone(),
    );
    let snap = ctx.fresh_snap();
    produce(ctx, s0, snap, &p.pre, &|ctx, s1| {
        // The pre-state, for naming values on entry (`old` itself is not
        // allowed in a pure body).
        let mut s1 = s1;
        s1.old = s1.heap.clone();
        let body = |ctx: &mut Ctx, s: State, measure: Option<Term>| {
            ctx.termination = Some((p.fun.clone(), p.decl.span.start));
            ctx.measure = measure;
            eval(ctx, s, &p.decl.body, &|_, _, _| {});
            ctx.termination = None;
            ctx.measure = None;
        };
        match &p.decl.decreases {
            // The measure is evaluated in the pre-state (and must be
            // well-defined there, without calling back into its method's
            // cycle).
            Some(m) => {
                ctx.measure_of = Some(p.fun.clone());
                eval(ctx, s1, m, &|ctx, s2, t| {
                    let owner = ctx.measure_of.take();
                    body(ctx, s2, Some(t));
                    ctx.measure_of = owner;
                });
                ctx.measure_of = None;
            }
            None => body(ctx, s1, None),
        }
    });
}

/// Definition 4: a predicate body is a well-defined (self-framing) assertion.
pub fn check_predicate(ctx: &mut Ctx, q: &PredInfo) {
    let s0 = initial_state(ctx, true, &q.decl.params, q.decl.name.span.clone());
    let snap = ctx.fresh_snap();
    produce(ctx, s0, snap, &q.decl.body, &|_, _| {});
}
