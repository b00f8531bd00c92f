//! `exec` (paper Figure 8): statements, in continuation-passing style.
//!
//! `k` is the rest of the path after the statement; `ex` says where a
//! `return` goes (the method's postcondition), and a `break` or `continue`
//! (the innermost loop's). Each statement records the
//! state it produced, so a failure carries the steps that led to it.

use std::cell::RefCell;
use std::collections::BTreeSet;

use super::consume::consume;
use super::ctx::{Cont, Ctx, Exits, obligation_at};
use super::eval::{
    bind, eval, eval_args, eval_call_operands, open_instance, predicate_of, unfold_pure,
};
use super::heap::{Chunk, Heap};
use super::infer::open_for_field;
use super::produce::produce;
use super::program::MethodInfo;
use super::state::{Obligation, State};
use super::term::{Sort, Term};
use crate::diag::Kind;
use crate::record::failure::{Reason, Related};
use crate::record::step::{Arm, StepKind, StmtForm};
use crate::syntax::ast::*;

/// Executes statements in order. The continuation of one statement would be
/// "the rest of the block"; instead of nesting it (one level of stack per
/// statement), the states a statement reaches are pushed on a work list with
/// the index of the next statement, so the stack grows with the nesting of
/// blocks, not with their length. Taking the first reached state first keeps
/// the depth-first order of the paper's continuations (and the solver's
/// push/pop stack in step with it).
pub fn exec_block(ctx: &mut Ctx, s: State, stmts: &[Stmt], k: Cont, ex: Exits) {
    let mut work = vec![(s, 0usize)];
    while let Some((s, i)) = work.pop() {
        // A cancelled run's paths are not wanted, nor those past the
        // member's budget (its result says so).
        if ctx.solver.cancelled() || !ctx.tick() {
            return;
        }
        let Some(st) = stmts.get(i) else {
            k(ctx, s);
            continue;
        };
        let reached = RefCell::new(Vec::new());
        exec(ctx, s, st, &|_, next| reached.borrow_mut().push(next), ex);
        work.extend(
            reached
                .into_inner()
                .into_iter()
                .rev()
                .map(|next| (next, i + 1)),
        );
    }
}

fn exec(ctx: &mut Ctx, s: State, st: &Stmt, k: Cont, ex: Exits) {
    // The statement's step, then on to `k`.
    let to = |ctx: &mut Ctx, s: State, k: Cont| {
        let mut s = s;
        let text = ctx.text(&st.span);
        let form = StmtForm::of(&st.kind);
        ctx.record(&mut s, st.span.clone(), StepKind::Statement { form, text });
        k(ctx, s)
    };
    let done = |ctx: &mut Ctx, s: State| to(ctx, s, k);
    match &st.kind {
        // Figure 8, row 1: `T x;` gives x its type's default value.
        StmtKind::Local {
            ty,
            name,
            init: None,
        } => {
            let mut s = s;
            s.store
                .insert(name.name.as_str().into(), default_value(&ty.kind));
            done(ctx, s)
        }
        // Figure 8, row 2: `x = e;` (or a call or `new`).
        StmtKind::Local {
            name,
            init: Some(e),
            ..
        }
        | StmtKind::Assign {
            target: name,
            value: e,
        } => assign(ctx, s, &name.name, e, &done),
        // Figure 8, row 3: `e1.f = e2;` needs a chunk for the location.
        StmtKind::FieldAssign { target, value } => field_assign(ctx, s, target, value, &done),
        StmtKind::IndexAssign { target, value } => {
            super::array::exec_index_assign(ctx, s, target, value, &done)
        }
        // Figure 8, row 4: a mutator call.
        StmtKind::Call(e) => match &e.kind {
            ExprKind::Call(call) => exec_call(ctx, s, call, &|ctx, s, _| done(ctx, s)),
            _ => ctx.internal(&s, e.span.clone(), "a call statement that is not a call"),
        },
        // Figure 8, row 6: if-then-else, each branch only where reachable.
        StmtKind::If { cond, then, els } => eval(ctx, s, cond, &|ctx, s, tc| {
            ctx.cases(&s, &tc, &|ctx, mut b, taken| {
                let arm = if taken { Arm::Then } else { Arm::Else };
                let cond_text = ctx.text(&cond.span);
                let step = StepKind::Branch {
                    cond: cond_text,
                    arm,
                };
                ctx.record(&mut b, cond.span.clone(), step);
                if ctx.unroll.is_some() {
                    b.decisions.push_back((cond.span.start, taken));
                }
                match (taken, els) {
                    (true, _) => exec_block(ctx, b, &then.stmts, k, ex),
                    (false, Some(e)) => exec_block(ctx, b, &e.stmts, k, ex),
                    (false, None) => k(ctx, b),
                }
            })
        }),
        StmtKind::While {
            cond,
            invariants,
            body,
            pre,
            body_first,
        } => {
            super::looping::exec_while(ctx, s, (pre, cond), invariants, (body, *body_first), k, ex)
        }
        StmtKind::Break => match ex.brk {
            Some(brk) => to(ctx, s, brk),
            None => ctx.internal(&s, st.span.clone(), "a `break` outside a loop"),
        },
        StmtKind::Continue => match ex.cont {
            Some(cont) => to(ctx, s, cont),
            None => ctx.internal(&s, st.span.clone(), "a `continue` outside a loop"),
        },
        // Figure 8, row 7: assert (here any assertion; the heap is unchanged).
        StmtKind::Assert(a) => {
            let mut ob = Obligation::per_conjunct(Kind::AssertFailed);
            ob.lenient = true;
            consume(ctx, s.clone(), a, Some(ob), &|ctx, after, _| {
                let mut out = s.clone();
                out.pc = after.pc;
                done(ctx, out)
            })
        }
        StmtKind::Assume(e) => eval(ctx, s, e, &|ctx, s, t| {
            if !ctx.may_hold(&s, &t, "is the assumption consistent with the path?") {
                return;
            }
            let mut s = s;
            s.assume(t);
            done(ctx, s)
        }),
        StmtKind::Return(value) => {
            let finish = |ctx: &mut Ctx, s: State| {
                let mut s = s;
                let text = ctx.text(&st.span);
                let step = StepKind::Statement {
                    form: StmtForm::Return,
                    text,
                };
                ctx.record(&mut s, st.span.clone(), step);
                (ex.ret)(ctx, s)
            };
            match value {
                None => finish(ctx, s),
                Some(e) => eval(ctx, s, e, &|ctx, s, t| {
                    let mut s = s;
                    s.store.insert("result".into(), t);
                    finish(ctx, s)
                }),
            }
        }
        // Figure 8, row 8: open.
        StmtKind::Open(e) => with_call(ctx, s, e, &|ctx, s, call| {
            open_instance(ctx, s, call, st.span.clone(), &done)
        }),
        // Figure 8, row 9: close.
        StmtKind::Close(e) => with_call(ctx, s, e, &|ctx, s, call| {
            exec_close(ctx, s, call, st.span.clone(), &done)
        }),
        // Figure 8, row 10: use.
        StmtKind::Use(e) => with_call(ctx, s, e, &|ctx, s, call| unfold_pure(ctx, s, call, &done)),
        StmtKind::Join(a) => exec_join(ctx, s, a, st.span.clone(), k),
        StmtKind::Update { .. } | StmtKind::For(_) | StmtKind::Chain { .. } => {
            ctx.internal(&s, st.span.clone(), "a statement left to lowering")
        }
    }
}

fn with_call(ctx: &mut Ctx, s: State, e: &Expr, k: &dyn Fn(&mut Ctx, State, &Call)) {
    match &e.kind {
        ExprKind::Call(call) => k(ctx, s, call),
        _ => ctx.internal(&s, e.span.clone(), "a ghost statement without a call"),
    }
}

pub fn default_value(t: &TypeKind) -> Term {
    match t {
        TypeKind::Int => Term::int(0),
        TypeKind::Bool => Term::bool(false),
        TypeKind::Class(_) | TypeKind::Array(_) => Term::null(),
    }
}

fn assign(ctx: &mut Ctx, s: State, x: &str, e: &Expr, k: Cont) {
    let set = |ctx: &mut Ctx, s: State, t: Term| {
        let mut s = s;
        s.store.insert(x.into(), t);
        k(ctx, s)
    };
    match &e.kind {
        ExprKind::Call(call)
            if call
                .target
                .as_ref()
                .is_some_and(|t| t.kind == MemberKind::Method) =>
        {
            exec_call(ctx, s, call, &|ctx, s, result| match result {
                Some(t) => set(ctx, s, t),
                None => ctx.internal(&s, call.span.clone(), "a void call used as a value"),
            })
        }
        ExprKind::New { class, args } => exec_new(ctx, s, &class.name, args, e.span.clone(), &set),
        ExprKind::NewArray { elem, size } => {
            super::array::exec_new_array(ctx, s, (&elem.kind, size), e.span.clone(), &set)
        }
        _ => eval(ctx, s, e, &set),
    }
}

fn field_assign(ctx: &mut Ctx, s: State, target: &Expr, value: &Expr, k: Cont) {
    let ExprKind::Field { recv, field, class } = &target.kind else {
        return ctx.internal(
            &s,
            target.span.clone(),
            "assignment to something that is not a field",
        );
    };
    let name = format!("{class}.{}", field.name);
    eval(ctx, s, recv, &|ctx, s, t| {
        eval(ctx, s, value, &|ctx, s, v| {
            let write = |ctx: &mut Ctx, st: State, heap: Heap, id| {
                let mut st = st;
                st.heap = heap;
                st.heap.set_value(id, v.clone());
                k(ctx, st)
            };
            let key = std::slice::from_ref(&t);
            if let Some(id) = super::eval::find_chunk(ctx, &s, &s.heap, &name, key) {
                let heap = s.heap.clone();
                return write(ctx, s, heap, id);
            }
            // Open on demand: the instance stays open after the write.
            open_for_field(
                ctx,
                s.clone(),
                s.heap.clone(),
                &name,
                &t,
                target.span.clone(),
                &write,
                &|ctx, st| {
                    let reason = Reason::NoWrite {
                        access: ctx.text(&target.span),
                        field: field.name.clone(),
                    };
                    let span = target.span.clone();
                    if let Some(st) = ctx.fail(&st, Kind::PermissionMissing, span, reason) {
                        k(ctx, st)
                    }
                },
            )
        })
    })
}

/// A mutator call: receiver non-null, then consume the precondition and
/// produce the postcondition, with `old` bound to the heap before the call.
fn exec_call(ctx: &mut Ctx, s: State, call: &Call, k: &dyn Fn(&mut Ctx, State, Option<Term>)) {
    let prog = ctx.prog.clone();
    let Some(m) = call
        .target
        .as_ref()
        .and_then(|t| prog.method(&t.class, &call.name.name))
    else {
        return ctx.internal(
            &s,
            call.span.clone(),
            "a call statement that is not a mutator",
        );
    };
    eval_call_operands(ctx, s, call, Some(&call.span), &|ctx, s, recv, args| {
        invoke(ctx, s, m, recv, &args, call.span.clone(), k)
    })
}

fn invoke(
    ctx: &mut Ctx,
    s: State,
    m: &MethodInfo,
    this: Option<Term>,
    args: &[Term],
    span: Span,
    k: &dyn Fn(&mut Ctx, State, Option<Term>),
) {
    let callee = bind(&s, this, &m.decl.params, args);
    let ob = obligation_at(Kind::PreconditionFailed, span, None, &s);
    consume(ctx, callee, &m.pre, Some(ob), &|ctx, after, _| {
        let mut post = after;
        post.old = s.heap.clone();
        let result = m
            .ret
            .map(|sort| ctx.fresh(&format!("{}_result", m.decl.name.name), sort));
        if let Some(r) = &result {
            super::overflow::assume_int(ctx, &mut post, r);
            post.store.insert("result".into(), r.clone());
        }
        let snap = ctx.fresh_snap();
        produce(ctx, post, snap, &m.post, &|ctx, produced| {
            let mut out = produced;
            out.store = s.store.clone();
            out.old = s.old.clone();
            k(ctx, out, result.clone())
        })
    })
}

/// Object creation (Figure 8, row 5; paper section 4 for constructors): a
/// fresh object with default-valued field chunks, then the constructor call.
fn exec_new(
    ctx: &mut Ctx,
    s: State,
    class: &str,
    args: &[Expr],
    span: Span,
    k: &dyn Fn(&mut Ctx, State, Term),
) {
    let prog = ctx.prog.clone();
    eval_args(ctx, s, args, &|ctx, s, targs| {
        let (o, n) = ctx.fresh_object(class);
        let mut s = s;
        s.assume(Term::eq(
            Term::app(super::term::prelude::ALLOC, vec![o.clone()], Sort::Int),
            Term::int(n),
        ));
        for other in s.existing_refs() {
            s.assume(Term::neq(other, o.clone()));
        }
        for (field, _, ty) in prog.class_fields(class) {
            s.heap.add(Chunk::Field {
                recv: o.clone(),
                field: field.as_str().into(),
                value: default_value(ty),
            });
        }
        match prog.constructor(class) {
            Some(m) => invoke(
                ctx,
                s,
                m,
                Some(o.clone()),
                &targs,
                span.clone(),
                &|ctx, s, _| k(ctx, s, o.clone()),
            ),
            None => k(ctx, s, o),
        }
    })
}

fn exec_close(ctx: &mut Ctx, s: State, call: &Call, span: Span, k: Cont) {
    let prog = ctx.prog.clone();
    let Some(pred) = predicate_of(ctx, &s, &prog, call) else {
        return;
    };
    let name = format!("{}.{}", pred.class, call.name.name);
    // The receiver must be provably non-null: producing an instance assumes
    // it is (docs/language.md section 4), so `null.q()` must never be created.
    // `receiver.null` at the `close` (docs/language.md section 3).
    eval_call_operands(ctx, s, call, Some(&span), &|ctx, s, recv, args| {
        let Some(recv) = recv else {
            return ctx.internal(&s, call.span.clone(), "predicate without receiver");
        };
        let body = bind(&s, Some(recv.clone()), &pred.decl.params, &args);
        let ob = obligation_at(
            Kind::CloseFailed,
            span.clone(),
            Some((pred.decl.body.span.clone(), Related::PredicateBody)),
            &s,
        );
        consume(ctx, body, &pred.decl.body, Some(ob), &|ctx, after, snap| {
            let mut out = after;
            out.store = s.store.clone();
            out.heap.add(Chunk::Pred {
                recv: recv.clone(),
                pred: name.as_str().into(),
                args: args.clone(),
                snap,
            });
            k(ctx, out)
        })
    })
}

/// Gives every listed variable in the store a fresh value.
pub(super) fn havoc(ctx: &mut Ctx, s: &mut State, vars: &BTreeSet<String>) {
    for v in vars {
        if let Some(old) = s.store.get(v.as_str()) {
            let sort = old.sort();
            let t = ctx.fresh(v, sort);
            super::overflow::assume_int(ctx, s, &t);
            s.store.insert(v.as_str().into(), t);
        }
    }
}

/// `join A` (paper section 6.1): every path must satisfy A; the path then
/// goes on from a single state made of A alone over what holds on every
/// path of the unit (`Ctx::unit_base`: its path condition, old heap and
/// deferred definitions are the parts common to all its starting states).
/// That state does not depend on which path arrives (the variables that
/// differ are given fresh values), so it is explored once, from the first
/// arrival.
fn exec_join(ctx: &mut Ctx, s: State, a: &Expr, span: Span, k: Cont) {
    // Exploring paths, a join neither checks nor merges: each path goes on
    // (the concrete run checks the join).
    if ctx.unroll.is_some() {
        return k(ctx, s);
    }
    let ob = Obligation::per_conjunct(Kind::JoinFailed);
    let later = ctx.joins_done.contains(&(span.start, ctx.unit));
    let satisfied = std::cell::Cell::new(false);
    consume(ctx, s.clone(), a, Some(ob), &|ctx, _, _| {
        satisfied.set(true);
        // A later arrival ends here; its step lets the debugger show
        // that the path goes on in the merged state.
        if later {
            let mut arrived = s.clone();
            let text = ctx.text(&span);
            ctx.record(&mut arrived, span.clone(), StepKind::Join { text });
        }
    });
    // Like any failure, one that does not satisfy `A` ends its path: the
    // merged state is explored from the first arrival that does.
    if !satisfied.get() || !ctx.joins_done.insert((span.start, ctx.unit)) {
        return;
    }
    let mut joined = s;
    joined.heap = Heap::new();
    joined.pc = ctx.unit_base.pc.clone();
    joined.old = ctx.unit_base.old.clone();
    // Deferred definitions are knowledge too: those of the arriving path
    // carry the callee's precondition as it held where the call was made
    // (`infer::definitions`), so only the unit's own, which every path
    // shares, are kept. A call evaluated again past the join is deferred
    // anew (`infer::use_on_eval`).
    joined.deferred = ctx.unit_base.deferred.clone();
    joined.deferred_calls = ctx.unit_base.deferred_calls.clone();
    joined.obligation = None;
    let assigned = ctx.assigned.clone();
    havoc(ctx, &mut joined, &assigned);
    let snap = ctx.fresh_snap();
    produce(ctx, joined, snap, a, &|ctx, s1| {
        let mut s1 = s1;
        let text = ctx.text(&span);
        ctx.record(&mut s1, span.clone(), StepKind::Join { text });
        k(ctx, s1)
    })
}
