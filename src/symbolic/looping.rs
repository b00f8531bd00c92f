//! Loops (paper Figure 8, `while`; docs/language.md section 3.2): the
//! invariant consumed on entry, the body checked once from an arbitrary
//! state satisfying it, the exit from the frame; `return`, `break` and
//! `continue` inside the body, and `do` loops, whose body runs once before
//! the first test.

use std::cell::RefCell;
use std::collections::BTreeSet;

use super::consume::consume;
use super::ctx::{Cont, Ctx, Exits, TermCont};
use super::eval::eval;
use super::exec::{exec_block, havoc};
use super::heap::Heap;
use super::produce::produce;
use super::program::{collect_assigned, conjoin};
use super::state::{Obligation, State};
use super::term::Term;
use crate::diag::Kind;
use crate::record::failure::Related;
use crate::record::step::StepKind;
use crate::syntax::ast::*;

/// A loop (docs/language.md section 3.2). Entry: the invariant is consumed;
/// what it leaves is the *frame*, one per path of the consumption. Body:
/// checked once from any state satisfying the invariant and the condition;
/// a `return` or `break` inside it has the frame back (`with_frame`), and a
/// `continue` must re-establish the invariant as the body's end does. Exit:
/// the path goes on from each frame plus the invariant and the negated
/// condition, and from each `break`.
///
/// A `do` loop (`body_first`) first runs its body from the entry state
/// itself (a `break` there goes on after the loop as it is); the invariant
/// is first consumed where that run reaches the test (its end or a
/// `continue`), and from there on the loop is the same.
pub(super) fn exec_while(
    ctx: &mut Ctx,
    s: State,
    (pre, cond): (&Block, &Expr),
    invariants: &[Expr],
    (body, body_first): (&Block, bool),
    k: Cont,
    ex: Exits,
) {
    if let Some(n) = ctx.unroll {
        return super::paths::unrolled_while(ctx, s, (pre, cond), body, body_first, n, k, ex);
    }
    let inv = conjoin(invariants, cond.span.clone());
    let mut assigned = BTreeSet::new();
    collect_assigned(&pre.stmts, &mut assigned);
    collect_assigned(&body.stmts, &mut assigned);
    // The condition, after its postfix updates (`pre`, empty unless the
    // condition has some).
    let test = |ctx: &mut Ctx, s: State, k: TermCont, ret: Cont| {
        let eval_cond = |ctx: &mut Ctx, s: State| eval(ctx, s, cond, k);
        exec_block(ctx, s, &pre.stmts, &eval_cond, Exits::method(ret))
    };
    // `untouched` in the invariant compares with the heap on entry to the
    // loop: the invariant is consumed and produced with that heap as the
    // old one (an invariant cannot contain `old`), and the method's old
    // heap is put back for everything else.
    let entry = s.heap.clone();
    let method_old = s.old.clone();
    let at_entry = |st: State| {
        let mut st = st;
        st.old = entry.clone();
        st
    };
    let back = |st: State| {
        let mut st = st;
        st.old = method_old.clone();
        st
    };

    // The states at the first test: the entry state, or those a `do`
    // body's first run reaches it in. Its `break`s are kept for the exit.
    let broken = RefCell::new(Vec::new());
    let firsts = if body_first {
        let firsts = RefCell::new(Vec::new());
        let reach = |_: &mut Ctx, st: State| firsts.borrow_mut().push(st);
        let leave = |_: &mut Ctx, st: State| broken.borrow_mut().push(st);
        let jumps = Exits {
            ret: ex.ret,
            brk: Some(&leave),
            cont: Some(&reach),
        };
        exec_block(ctx, s.clone(), &body.stmts, &reach, jumps);
        firsts.into_inner()
    } else {
        vec![s.clone()]
    };

    // Entry. A path on which the invariant fails ends here. The frames'
    // facts are those past the entry state's (a `do` body's first run
    // extends its path).
    let frames = RefCell::new(Vec::new());
    for first in firsts {
        let mut ob = Obligation::per_conjunct(Kind::InvariantNotEstablished);
        if body_first {
            ob.related.push((body.span.clone(), Related::DoBody));
        }
        consume(ctx, at_entry(first), &inv, Some(ob), &|_, frame, _| {
            frames.borrow_mut().push(back(frame))
        });
    }
    let frames = frames.into_inner();
    let base = s.pc.len();

    // Body.
    let mut start = s.clone();
    start.heap = Heap::new();
    start.obligation = None;
    havoc(ctx, &mut start, &assigned);
    let returned = |ctx: &mut Ctx, end: State| {
        // Without a frame (the invariant failed on entry, reported) the
        // return goes on with the body's heap alone.
        if frames.is_empty() {
            return (ex.ret)(ctx, end);
        }
        for frame in &frames {
            let out = with_frame(ctx, &end, frame, base, cond, Leaving::Return);
            (ex.ret)(ctx, out)
        }
    };
    // Without a frame, a `break` goes nowhere: the failure on entry is
    // reported, and the exit has no path either.
    let left = |ctx: &mut Ctx, end: State| {
        for frame in &frames {
            let out = with_frame(ctx, &end, frame, base, cond, Leaving::Break);
            broken.borrow_mut().push(out)
        }
    };
    // The invariant may split the path; a `join` in the body merges all of
    // its paths, so the unit's base is what they have in common.
    let starts = RefCell::new(Vec::new());
    let snap = ctx.fresh_snap();
    produce(ctx, at_entry(start), snap, &inv, &|_, s1| {
        starts.borrow_mut().push(back(s1))
    });
    let starts = starts.into_inner();
    let saved = ctx.enter_unit(&State::common(&starts));
    for s1 in starts {
        let run = |ctx: &mut Ctx, s2: State, tc: Term| {
            if !ctx.may_hold(&s2, &tc, "can the loop body run?") {
                return;
            }
            let mut s3 = s2.with_fact(tc);
            ctx.record(
                &mut s3,
                cond.span.clone(),
                StepKind::LoopBody {
                    cond: ctx.text(&cond.span),
                },
            );
            let preserve = |ctx: &mut Ctx, end: State| {
                let ob = Obligation::per_conjunct(Kind::InvariantNotPreserved);
                consume(ctx, at_entry(end), &inv, Some(ob), &|_, _, _| {});
            };
            let jumps = Exits {
                ret: &returned,
                brk: Some(&left),
                cont: Some(&preserve),
            };
            exec_block(ctx, s3, &body.stmts, &preserve, jumps)
        };
        test(ctx, s1, &run, &returned);
    }
    ctx.leave_unit(saved);

    // Exit: through a `break` (after the body's unit: the code after the
    // loop is the enclosing unit's), then through the condition.
    for out in broken.into_inner() {
        k(ctx, out)
    }
    for frame in frames {
        let mut after = frame;
        havoc(ctx, &mut after, &assigned);
        let snap = ctx.fresh_snap();
        produce(ctx, at_entry(after), snap, &inv, &|ctx, s1| {
            let exit = |ctx: &mut Ctx, s2: State, tc: Term| {
                let exit = Term::not(tc);
                // `while (true)` cannot complete normally.
                if exit.is_false() {
                    return;
                }
                let mut out = s2.with_fact(exit);
                ctx.record(
                    &mut out,
                    cond.span.clone(),
                    StepKind::LoopAfter {
                        cond: ctx.text(&cond.span),
                    },
                );
                k(ctx, out)
            };
            test(ctx, back(s1), &exit, ex.ret)
        })
    }
}

/// How a path leaves a loop body other than through its end.
#[derive(Clone, Copy)]
enum Leaving {
    Return,
    Break,
}

/// A `return` or `break` inside a loop body, with the loop's frame back: the chunks
/// the invariant did not consume on entry, with their values (the body
/// holds no permission to them, so they are unchanged), and what that
/// consumption learned about the entry state (the facts of `frame` past
/// the first `base`, the length of the path condition on entry). They are
/// terms of the entry state, which the havoc of the body's variables does
/// not touch.
fn with_frame(
    ctx: &mut Ctx,
    end: &State,
    frame: &State,
    base: usize,
    cond: &Expr,
    how: Leaving,
) -> State {
    let mut out = end.clone();
    out.heap.merge(&frame.heap);
    for fact in frame.pc.facts_since(base) {
        out.assume(fact);
    }
    let span = end
        .trace
        .last()
        .map_or_else(|| cond.span.clone(), |step| step.span.clone());
    let cond = ctx.text(&cond.span);
    let step = match how {
        Leaving::Return => StepKind::LoopFrame { cond },
        Leaving::Break => StepKind::LoopBreak { cond },
    };
    ctx.record(&mut out, span, step);
    out
}
