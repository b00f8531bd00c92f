//! `eval` (paper Figure 5): expressions to terms, in continuation-passing
//! style. The continuation also receives the state, because evaluation may
//! learn facts (`using`, `opening`, branch conditions) that stay on the path
//! (docs/language.md section 4; paper section 4.1). The heap is never changed.

use super::consume::{consume, remove_chunk};
use super::ctx::{Cont, Ctx, TermCont, obligation_at};
use super::heap::Chunk;
use super::heap::Heap;
use super::infer::{open_for_field, provide_instance, use_on_eval};
use super::produce::produce_body;
use super::program::{PredInfo, ProgramInfo, PureInfo};
use super::state::State;
use super::term::Term;
use crate::diag::Kind;
use crate::record::failure::{ChunkName, Reason};
use crate::syntax::ast::*;

pub fn eval(ctx: &mut Ctx, s: State, e: &Expr, k: TermCont) {
    if !ctx.tick() {
        return;
    }
    match &e.kind {
        ExprKind::Int(digits) => k(ctx, s, Term::int_literal(digits)),
        ExprKind::Bool(b) => k(ctx, s, Term::bool(*b)),
        // Figure 5, row 1: null.
        ExprKind::Null => k(ctx, s, Term::null()),
        // Figure 5, row 2: a variable is looked up in the store.
        ExprKind::This => lookup_var(ctx, s, "this", e, k),
        ExprKind::Result => lookup_var(ctx, s, "result", e, k),
        ExprKind::Var(x) => lookup_var(ctx, s, &x.name, e, k),
        ExprKind::Field { recv, field, class } => {
            eval_field(ctx, s, recv, &format!("{class}.{}", field.name), e, k)
        }
        ExprKind::Call(call) => eval_pure_call(ctx, s, call, k),
        ExprKind::Length(a) => super::array::eval_length(ctx, s, a, e, k),
        ExprKind::Index { arr, index, elem } => {
            super::array::eval_index(ctx, s, (arr, index, elem), e, k)
        }
        ExprKind::Unary(UnOp::Not, a) => eval(ctx, s, a, &|ctx, s, t| k(ctx, s, Term::not(t))),
        ExprKind::Unary(UnOp::Neg, a) => eval(ctx, s, a, &|ctx, s, t| k(ctx, s, Term::neg(t))),
        ExprKind::Binary(BinOp::And, a, b) => {
            eval_cond(ctx, s, a, Arm::Expr(b), Arm::Const(false), k)
        }
        ExprKind::Binary(BinOp::Or, a, b) => {
            eval_cond(ctx, s, a, Arm::Const(true), Arm::Expr(b), k)
        }
        ExprKind::Binary(BinOp::Implies, a, b) => {
            eval_cond(ctx, s, a, Arm::Expr(b), Arm::Const(true), k)
        }
        ExprKind::Binary(op, a, b) => eval(ctx, s, a, &|ctx, s, ta| {
            eval(ctx, s, b, &|ctx, s, tb| {
                binary(ctx, s, *op, ta.clone(), tb, e, k)
            })
        }),
        ExprKind::Cond(c, a, b) => eval_cond(ctx, s, c, Arm::Expr(a), Arm::Expr(b), k),
        ExprKind::Old(a) => eval_old(ctx, s, a, k),
        ExprKind::Int32(a) => super::overflow::eval_int32(ctx, s, a, k),
        ExprKind::Opening(call, body) => eval_opening(ctx, s, call, body, e.span.clone(), k),
        ExprKind::Using(call, body) => eval_using(ctx, s, call, body, k),
        ExprKind::Quant(q) => super::quant::eval_quant(ctx, s, q, k),
        // `PostStep` and `PreStep` are lowered before verification (`crate::lower`).
        ExprKind::Name(_)
        | ExprKind::New { .. }
        | ExprKind::NewArray { .. }
        | ExprKind::Acc(_)
        | ExprKind::Untouched(_)
        | ExprKind::PostStep(..)
        | ExprKind::PreStep(..) => {
            ctx.internal(&s, e.span.clone(), "unexpected form in an expression")
        }
    }
}

fn lookup_var(ctx: &mut Ctx, s: State, name: &str, e: &Expr, k: TermCont) {
    match s.var(name) {
        Some(t) => k(ctx, s, t),
        None => ctx.internal(&s, e.span.clone(), &format!("`{name}` has no value")),
    }
}

/// Figure 5, row 3: `e.f` needs a chunk for `t.f`, found through Z3 equality.
fn eval_field(ctx: &mut Ctx, s: State, recv: &Expr, field: &str, e: &Expr, k: TermCont) {
    eval(ctx, s, recv, &|ctx, s, t| match find_chunk(
        ctx,
        &s,
        &s.heap,
        field,
        std::slice::from_ref(&t),
    ) {
        Some(id) => match s.heap.get(id) {
            Some(Chunk::Field { value, .. }) => {
                let v = value.clone();
                let s = super::overflow::with_int(ctx, s, &v);
                k(ctx, s, v)
            }
            _ => ctx.internal(&s, e.span.clone(), "field chunk expected"),
        },
        // Open on demand, as `opening`: the value is read inside the opened
        // instance and the heap stays as it was.
        None => open_for_field(
            ctx,
            s.clone(),
            s.heap.clone(),
            field,
            &t,
            e.span.clone(),
            &|ctx, st, opened, id| match opened.get(id) {
                Some(Chunk::Field { value, .. }) => {
                    let st = super::overflow::with_int(ctx, st, value);
                    k(ctx, st, value.clone())
                }
                _ => ctx.internal(&st, e.span.clone(), "field chunk expected"),
            },
            &|ctx, st| {
                let reason = Reason::NoRead {
                    access: ctx.text(&e.span),
                    field: super::heap::short_name(field).to_string(),
                };
                if let Some(s) = ctx.fail(&st, Kind::PermissionMissing, e.span.clone(), reason) {
                    let v = ctx.fresh("unknown", ctx.prog.field_sort(field));
                    k(ctx, s, v)
                }
            },
        ),
    })
}

/// A chunk named `name` whose key terms provably equal `key`: syntactic
/// equality first, then one Z3 query per candidate that is not obviously
/// different.
pub fn find_chunk(
    ctx: &mut Ctx,
    s: &State,
    heap: &super::heap::Heap,
    name: &str,
    key: &[Term],
) -> Option<super::heap::ChunkId> {
    if let Some(id) = heap.find_syntactic(name, key) {
        return Some(id);
    }
    for id in heap.named(name) {
        let Some(chunk) = heap.get(id) else { continue };
        let eqs: Vec<Term> = chunk
            .key_terms()
            .into_iter()
            .zip(key.iter())
            .map(|(a, b)| Term::eq(a, b.clone()))
            .collect();
        let goal = Term::and(eqs);
        if goal.is_false() {
            continue;
        }
        if ctx.prove(
            s,
            &goal,
            &format!("does the heap hold {name} for these arguments?"),
        ) {
            return Some(id);
        }
    }
    None
}

fn binary(ctx: &mut Ctx, s: State, op: BinOp, a: Term, b: Term, e: &Expr, k: TermCont) {
    let t = match op {
        BinOp::Eq => Term::eq(a, b),
        BinOp::Ne => Term::neq(a, b),
        BinOp::Lt => Term::lt(a, b),
        BinOp::Le => Term::le(a, b),
        BinOp::Gt => Term::lt(b, a),
        BinOp::Ge => Term::le(b, a),
        BinOp::Add => Term::add(a, b),
        BinOp::Sub => Term::sub(a, b),
        BinOp::Mul => Term::mul(a, b),
        BinOp::Div | BinOp::Mod => {
            let nonzero = Term::neq(b.clone(), Term::int(0));
            if !ctx.prove(&s, &nonzero, "is the divisor non-zero?") {
                let reason = Reason::DivisorMaybeZero {
                    expr: ctx.text(&e.span),
                };
                let Some(s) = ctx.fail(&s, Kind::DivisionByZero, e.span.clone(), reason) else {
                    return;
                };
                let t = if op == BinOp::Div {
                    Term::java_div(a, b)
                } else {
                    Term::java_rem(a, b)
                };
                return k(ctx, s, t);
            }
            if op == BinOp::Div {
                Term::java_div(a, b)
            } else {
                Term::java_rem(a, b)
            }
        }
        BinOp::And | BinOp::Or | BinOp::Implies => unreachable!("handled by eval_cond"),
    };
    k(ctx, s, t)
}

pub enum Arm<'e> {
    Expr(&'e Expr),
    Const(bool),
}

impl Arm<'_> {
    fn needs_state(&self) -> bool {
        match self {
            Arm::Expr(e) => needs_state(e),
            Arm::Const(_) => false,
        }
    }

    fn eval(&self, ctx: &mut Ctx, s: State, k: TermCont) {
        match self {
            Arm::Expr(e) => eval(ctx, s, e, k),
            Arm::Const(b) => k(ctx, s, Term::bool(*b)),
        }
    }
}

/// Whether evaluating `e` can fail or learn facts (it reads the heap,
/// calls, divides, opens): only then do its branches need their own paths.
pub fn needs_state(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Int(_)
        | ExprKind::Bool(_)
        | ExprKind::Null
        | ExprKind::This
        | ExprKind::Result
        | ExprKind::Var(_)
        | ExprKind::Name(_) => false,
        ExprKind::Unary(_, a) => needs_state(a),
        ExprKind::Binary(BinOp::Div | BinOp::Mod, _, _) => true,
        ExprKind::Binary(_, a, b) => needs_state(a) || needs_state(b),
        ExprKind::Cond(c, a, b) => needs_state(c) || needs_state(a) || needs_state(b),
        _ => true,
    }
}

/// Figure 5, row 5: `c ? a : b` (and `&&`, `||`, `==>` as conditionals).
/// Each arm is evaluated only where it may be reached; facts learned in an
/// arm are kept under its condition.
pub fn eval_cond(ctx: &mut Ctx, s: State, c: &Expr, a: Arm, b: Arm, k: TermCont) {
    eval(ctx, s, c, &|ctx, s, tc| {
        if !a.needs_state() && !b.needs_state() {
            return a.eval(ctx, s, &|ctx, s, ta| {
                b.eval(ctx, s, &|ctx, s, tb| {
                    k(ctx, s, Term::ite(tc.clone(), ta.clone(), tb))
                })
            });
        }
        let then_ok = ctx.may_hold(&s, &tc, "can the condition hold?");
        let else_ok = ctx.may_hold(&s, &Term::not(tc.clone()), "can the condition fail?");
        match (then_ok, else_ok) {
            (true, true) => {
                let base = s.pc.len();
                let deferred = s.deferred.len();
                a.eval(ctx, s.with_fact(tc.clone()), &|ctx, sa, ta| {
                    let learned_a = Term::and(sa.pc.facts_since(base));
                    let neg = Term::not(tc.clone());
                    // The second arm goes on from what failed in the first.
                    let mut sb0 = s.with_fact(neg.clone());
                    sb0.obligation = sa.obligation.clone();
                    b.eval(ctx, sb0, &|ctx, sb, tb| {
                        let learned_b = Term::and(sb.pc.facts_since(base));
                        let mut out = s.clone();
                        out.obligation = sb.obligation.clone();
                        out.assume(Term::implies(tc.clone(), learned_a.clone()));
                        out.assume(Term::implies(neg.clone(), learned_b));
                        out.carry_deferred(&sa, deferred, &tc);
                        out.carry_deferred(&sb, deferred, &neg);
                        k(ctx, out, Term::ite(tc.clone(), ta.clone(), tb))
                    })
                })
            }
            (true, false) => a.eval(ctx, s, k),
            (false, true) => b.eval(ctx, s, k),
            (false, false) => {}
        }
    })
}

/// Figure 5, row 6: `old(e)` is evaluated in the old heap.
fn eval_old(ctx: &mut Ctx, s: State, a: &Expr, k: TermCont) {
    let mut in_old = s.clone();
    in_old.heap = s.old.clone();
    eval(ctx, in_old, a, &|ctx, s2, t| k(ctx, s.resume(&s2), t))
}

/// Evaluates the receiver of an instance call (`None` for a static one).
pub fn eval_receiver(
    ctx: &mut Ctx,
    s: State,
    call: &Call,
    k: &dyn Fn(&mut Ctx, State, Option<Term>),
) {
    match &call.receiver {
        Receiver::Expr(r) => eval(ctx, s, r, &|ctx, s, t| k(ctx, s, Some(t))),
        Receiver::Implicit | Receiver::Class(_) => k(ctx, s, None),
    }
}

pub fn eval_args(ctx: &mut Ctx, s: State, args: &[Expr], k: &dyn Fn(&mut Ctx, State, Vec<Term>)) {
    fn go(
        ctx: &mut Ctx,
        s: State,
        args: &[Expr],
        done: Vec<Term>,
        k: &dyn Fn(&mut Ctx, State, Vec<Term>),
    ) {
        match args.split_first() {
            None => k(ctx, s, done),
            Some((first, rest)) => eval(ctx, s, first, &|ctx, s, t| {
                let mut next = done.clone();
                next.push(t);
                go(ctx, s, rest, next, k)
            }),
        }
    }
    go(ctx, s, args, Vec::new(), k)
}

/// The rest of a path in one arm of a conditional assertion: the arm
/// (`None`: an empty one) and the fact that chose it.
pub type ArmCont<'k, 'a> = &'k dyn Fn(&mut Ctx, State, Option<&'a Expr>, &Term);

/// Conditional assertions (Figure 6, row 7 and Figure 7, row 7; `c ==> a`
/// has no `else` arm): evaluates `c`, then goes on with the arm of each
/// side that may be reachable, that side's fact on the path.
pub fn on_arms<'a>(
    ctx: &mut Ctx,
    s: State,
    c: &Expr,
    then: Option<&'a Expr>,
    els: Option<&'a Expr>,
    k: ArmCont<'_, 'a>,
) {
    eval(ctx, s, c, &|ctx, s, tc| {
        ctx.cases(&s, &tc, &|ctx, branch, side| {
            if side {
                k(ctx, branch, then, &tc)
            } else {
                k(ctx, branch, els, &Term::not(tc.clone()))
            }
        })
    })
}

/// The rest of a path given a call's receiver (if any) and arguments.
pub type OperandsCont<'k> = &'k dyn Fn(&mut Ctx, State, Option<Term>, Vec<Term>);

/// The receiver and arguments of a call, with the receiver proved non-null
/// if `check_null` (calls; a predicate instance needs no such check: where
/// its chunk is held, the receiver is known non-null).
/// The receiver and arguments of `call`. With `null_at`, the receiver must
/// be provably non-null (`receiver.null` reported there otherwise).
pub fn eval_call_operands(
    ctx: &mut Ctx,
    s: State,
    call: &Call,
    null_at: Option<&Span>,
    k: OperandsCont,
) {
    eval_receiver(ctx, s, call, &|ctx, s, recv| {
        eval_args(ctx, s, &call.args, &|ctx, s, args| {
            if let Some(r) = &recv
                && let Some(at) = null_at
                && !ctx.prove(
                    &s,
                    &Term::neq(r.clone(), Term::null()),
                    "is the receiver non-null?",
                )
            {
                let what = match &call.receiver {
                    Receiver::Expr(e) => ctx.text(&e.span),
                    _ => "this".into(),
                };
                let reason = Reason::ReceiverMaybeNull { receiver: what };
                let Some(s) = ctx.fail(&s, Kind::ReceiverNull, at.clone(), reason) else {
                    return;
                };
                return k(ctx, s, recv.clone(), args);
            }
            k(ctx, s, recv.clone(), args)
        })
    })
}

/// A store binding `this` and the parameters, for contracts and bodies.
pub fn bind(s: &State, this: Option<Term>, params: &[Param], args: &[Term]) -> State {
    let mut out = s.clone();
    out.store = Default::default();
    if let Some(t) = this {
        out.store.insert("this".into(), t);
    }
    for (p, a) in params.iter().zip(args) {
        out.store.insert(p.name.name.as_str().into(), a.clone());
    }
    out
}

/// Figure 5, row 4: a pure call consumes its precondition (which must hold)
/// and stands for `C.p(snapshot, this, args)`; with inference on, its
/// definition is unfolded once (`infer::use_on_eval`).
pub fn eval_pure_call(ctx: &mut Ctx, s: State, call: &Call, k: TermCont) {
    pure_call(ctx, s, call, true, k)
}

/// A pure call without the inferred unfolding (for `use` and `using`,
/// which unfold it themselves).
fn pure_call(ctx: &mut Ctx, s: State, call: &Call, unfold: bool, k: TermCont) {
    let Some(target) = &call.target else {
        return ctx.internal(&s, call.span.clone(), "unresolved call");
    };
    let prog = ctx.prog.clone();
    let Some(pure) = prog.pure_method(&target.class, &call.name.name) else {
        return ctx.internal(
            &s,
            call.span.clone(),
            "a call in an expression that is not a pure method",
        );
    };
    if super::termination::measure_calls_back(ctx, &s, call, pure) {
        return;
    }
    if ctx.consuming_pre.contains(&pure.fun) {
        let reason = Reason::PreconditionRecursion {
            outer: ctx.consuming_pre.last().cloned().unwrap_or_default(),
            callee: pure.fun.clone(),
        };
        ctx.fail(
            &outside_obligation(&s),
            Kind::Termination,
            call.span.clone(),
            reason,
        );
        return;
    }
    eval_call_operands(ctx, s, call, Some(&call.span), &|ctx, s, recv, args| {
        let callee = bind(&s, recv.clone(), &pure.decl.params, &args);
        ctx.consuming_pre.push(pure.fun.clone());
        let ob = obligation_at(Kind::PreconditionFailed, call.span.clone(), None, &s);
        consume(ctx, callee, &pure.pre, Some(ob), &|ctx, after, snap| {
            // The precondition is consumed: the rest of the path is not
            // inside it any more.
            let inner = ctx.consuming_pre.pop();
            pure_call_result(
                ctx,
                &s,
                after,
                snap,
                call,
                pure,
                recv.clone(),
                &args,
                unfold,
                k,
            );
            ctx.consuming_pre.extend(inner);
        });
        ctx.consuming_pre.pop();
    })
}

/// Termination failures are about the program, not about what is being
/// established: they keep their own kind and place.
fn outside_obligation(s: &State) -> State {
    let mut s = s.clone();
    s.obligation = None;
    s
}

/// The term of a pure call whose precondition was consumed, after the
/// termination check of section 3.6 when checking a pure method body.
#[allow(clippy::too_many_arguments)]
fn pure_call_result(
    ctx: &mut Ctx,
    s: &State,
    after: State,
    snap: Term,
    call: &Call,
    pure: &PureInfo,
    recv: Option<Term>,
    args: &[Term],
    unfold: bool,
    k: TermCont,
) {
    let finish = |ctx: &mut Ctx, after: State| {
        let mut fargs = vec![snap.clone()];
        fargs.extend(recv.clone());
        fargs.extend(args.iter().cloned());
        let t = Term::app(&pure.fun, fargs, pure.ret);
        let out = s.resume(&after);
        if unfold {
            use_on_eval(ctx, out, call, pure, recv.clone(), args, t, k)
        } else {
            k(ctx, out, t)
        }
    };
    let operands = (recv.clone(), args);
    super::termination::check_call(ctx, s, after, call, pure, operands, &finish)
}

/// Figure 5, row 7: `opening e.q(args) in body` evaluates `body` with the
/// predicate instance replaced by its definition; the heap is restored
/// afterwards, the facts learned stay.
fn eval_opening(ctx: &mut Ctx, s: State, call: &Call, body: &Expr, span: Span, k: TermCont) {
    open_instance(ctx, s.clone(), call, span, &|ctx, opened| {
        let mut inner = opened;
        inner.opening_depth += 1;
        eval(ctx, inner, body, &|ctx, done, t| k(ctx, s.resume(&done), t))
    })
}

/// The predicate a ghost operation or `opening` names.
pub fn predicate_of<'p>(
    ctx: &mut Ctx,
    s: &State,
    prog: &'p ProgramInfo,
    call: &Call,
) -> Option<&'p PredInfo> {
    let pred = call
        .target
        .as_ref()
        .and_then(|t| prog.predicate(&t.class, &call.name.name));
    if pred.is_none() {
        ctx.internal(s, call.span.clone(), "not a predicate instance");
    }
    pred
}

/// Opening a predicate instance (Figure 8, row 8; Figure 5, row 7): its
/// chunk is consumed (failing with `open.failed` at `span` unless an outer
/// obligation decides) and its body produced from the chunk's snapshot.
/// The continuation sees the opened heap with the caller's store.
pub fn open_instance(ctx: &mut Ctx, s: State, call: &Call, span: Span, k: Cont) {
    let prog = ctx.prog.clone();
    let Some(pred) = predicate_of(ctx, &s, &prog, call) else {
        return;
    };
    let name = format!("{}.{}", pred.class, call.name.name);
    let what = ctx.text(&call.span);
    eval_call_operands(ctx, s, call, None, &|ctx, s, recv, args| {
        let mut key: Vec<Term> = recv.iter().cloned().collect();
        key.extend(args.iter().cloned());
        let mut taking = s.clone();
        if taking.obligation.is_none() {
            taking.obligation = Some(obligation_at(Kind::OpenFailed, span.clone(), None, &s));
        }
        let body = &pred.decl.body;
        let open_from = |ctx: &mut Ctx, st: State, rest: Heap, snap: Term| {
            let mut opened = bind(&st, recv.clone(), &pred.decl.params, &args);
            opened.heap = rest;
            opened.obligation = s.obligation.clone().and(st.obligation);
            produce_body(ctx, opened, snap, body, &|ctx, produced| {
                let mut out = produced;
                out.store = s.store.clone();
                k(ctx, out)
            })
        };
        if let Some(id) = find_chunk(ctx, &taking, &s.heap, &name, &key) {
            let Some((rest, snap)) = remove_chunk(&s.heap, id) else {
                return ctx.internal(&s, call.span.clone(), "chunk vanished");
            };
            return open_from(ctx, s.clone(), rest, snap);
        }
        // Not held: close it on demand (and open it again at once), or in
        // a pure body take it out of a held instance that holds it.
        provide_instance(
            ctx,
            taking,
            s.heap.clone(),
            pred,
            (recv.clone(), args.clone()),
            (&name, &key),
            call.span.clone(),
            &|ctx, st, rest, snap| open_from(ctx, st, rest, snap),
            &|ctx, st, note| {
                let reason = Reason::NotHeld {
                    chunk: what.clone(),
                    of: ChunkName::Predicate(call.name.name.clone()),
                };
                let span = call.span.clone();
                // Under an `assert` the path goes on, but without the body:
                // nothing may be learned from an instance that is not held.
                if let Some(failed) =
                    ctx.fail_noted(&st, Kind::PermissionMissing, span, reason, note)
                    && s.obligation.is_some()
                {
                    k(ctx, s.resume(&failed))
                }
            },
        )
    })
}

/// Figure 5, row 8: `using e.p(args) in body` evaluates `body` knowing that
/// the call equals the pure method's body. Inside a body that is itself
/// being unfolded, the call is evaluated (and checked) but not unfolded
/// again: one unfolding per `use` or `using` the code being verified
/// contains, so recursive pure methods cannot make it loop.
fn eval_using(ctx: &mut Ctx, s: State, call: &Call, body: &Expr, k: TermCont) {
    if s.unfolding {
        return eval_pure_call(ctx, s, call, &|ctx, s2, _| eval(ctx, s2, body, k));
    }
    unfold_pure(ctx, s, call, &|ctx, s2| eval(ctx, s2, body, k))
}

/// `use`/`using`: evaluates the call and the callee's body for the same
/// arguments, and adds their equality to the path.
pub fn unfold_pure(ctx: &mut Ctx, s: State, call: &Call, k: Cont) {
    let prog = ctx.prog.clone();
    let Some(pure) = call
        .target
        .as_ref()
        .and_then(|t| prog.pure_method(&t.class, &call.name.name))
    else {
        return ctx.internal(
            &s,
            call.span.clone(),
            "`use` of something that is not a pure method",
        );
    };
    pure_call(ctx, s, call, false, &|ctx, s, t_call| {
        // The call term is C.p(snapshot, this?, args...): reuse its operands.
        let operands = t_call.args().get(1..).unwrap_or(&[]);
        let (recv, args) = match (pure.decl.is_static, operands.split_first()) {
            (false, Some((r, rest))) => (Some(r.clone()), rest.to_vec()),
            _ => (None, operands.to_vec()),
        };
        let mut inner = bind(&s, recv, &pure.decl.params, &args);
        inner.unfolding = true;
        eval(ctx, inner, &pure.decl.body, &|ctx, after, t_body| {
            let mut out = s.resume(&after);
            out.pc.define(t_call.clone(), t_body);
            k(ctx, out)
        })
    })
}
