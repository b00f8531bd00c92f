//! Java's 32-bit `int` under `--overflow` (docs/language.md section 4e):
//! every `int` the program's state holds (a parameter of a method, a
//! field, an element, a callee's result, a value a loop or `join` forgets)
//! is assumed to lie in range where it enters a path, lengths in
//! `[0, 2147483647]`; and the operations of code, wrapped in
//! `ExprKind::Int32` by the lowering, must stay in range. Parameters of
//! pure methods and predicates get no such assumption: contracts call
//! them with mathematical integers.

use super::ctx::{Ctx, TermCont};
use super::eval::eval;
use super::state::State;
use super::term::{Sort, Term};
use crate::diag::Kind;
use crate::record::failure::Reason;
use crate::syntax::ast::{BinOp, Expr, ExprKind, UnOp};

pub const MIN: i128 = -2_147_483_648;
pub const MAX: i128 = 2_147_483_647;

/// `MIN <= t <= MAX`.
fn in_range(t: &Term) -> Term {
    Term::and(vec![
        Term::le(Term::int(MIN), t.clone()),
        Term::le(t.clone(), Term::int(MAX)),
    ])
}

/// Adds that the `int` `t` lies in range (with `--overflow`).
pub fn assume_int(ctx: &Ctx, s: &mut State, t: &Term) {
    if ctx.overflow && t.sort() == Sort::Int && t.as_int().is_none() {
        s.assume(in_range(t));
    }
}

/// `assume_int`, on a state passed along.
pub fn with_int(ctx: &Ctx, mut s: State, t: &Term) -> State {
    assume_int(ctx, &mut s, t);
    s
}

/// Adds that the array length `t` lies in `[0, MAX]` (with `--overflow`).
pub fn with_length(ctx: &Ctx, mut s: State, t: &Term) -> State {
    if ctx.overflow {
        s.assume(Term::le(Term::int(0), t.clone()));
        s.assume(Term::le(t.clone(), Term::int(MAX)));
    }
    s
}

/// Every `int` variable of the store (a method's parameters on entry).
pub fn assume_store(ctx: &Ctx, s: &mut State) {
    let ints: Vec<Term> = s
        .store
        .values()
        .filter(|t| t.sort() == Sort::Int)
        .cloned()
        .collect();
    for t in ints {
        assume_int(ctx, s, &t);
    }
}

/// `ExprKind::Int32(a)`: `a`'s value, which must lie in range (`overflow`
/// at `a` otherwise, ending the path).
pub fn eval_int32(ctx: &mut Ctx, s: State, a: &Expr, k: TermCont) {
    eval(ctx, s, a, &|ctx, s, t| {
        for above in [true, false] {
            let goal = if above {
                Term::le(t.clone(), Term::int(MAX))
            } else {
                Term::le(Term::int(MIN), t.clone())
            };
            if !ctx.prove(&s, &goal, "does the value stay within `int`?") {
                let reason = Reason::MightOverflow {
                    expr: ctx.text(&a.span),
                    above,
                    fact: rule_out(ctx, a, above),
                };
                if let Some(s) = ctx.fail(&s, Kind::Overflow, a.span.clone(), reason) {
                    k(ctx, s, t.clone());
                }
                return;
            }
        }
        k(ctx, s, t)
    })
}

/// A fact in the program's terms that keeps `a` in range on the side
/// that failed: `x < 2147483647` for `x + 1`, `x > -2147483648` for `-x`.
fn rule_out(ctx: &Ctx, a: &Expr, above: bool) -> String {
    // A postfix update's operand reads the old value: `i` for `i++`.
    let text = |e: &Expr| {
        let t = ctx.text(&e.span).replace("++", "").replace("--", "");
        if matches!(
            e.kind,
            ExprKind::Binary(..) | ExprKind::Cond(..) | ExprKind::Unary(..)
        ) && !(t.starts_with('(') && t.ends_with(')'))
        {
            format!("({t})")
        } else {
            t
        }
    };
    let lit = |e: &Expr| match &e.kind {
        ExprKind::Int(d) => d.parse::<i128>().ok(),
        _ => None,
    };
    let inner = match &a.kind {
        ExprKind::Int32(inner) => inner,
        _ => a,
    };
    match (&inner.kind, above) {
        (ExprKind::Binary(BinOp::Add, x, c), true) if lit(c).is_some_and(|c| c > 0) => {
            format!("{} < {}", text(x), MAX + 1 - lit(c).unwrap_or(0))
        }
        (ExprKind::Binary(BinOp::Add, c, x), true) if lit(c).is_some_and(|c| c > 0) => {
            format!("{} < {}", text(x), MAX + 1 - lit(c).unwrap_or(0))
        }
        (ExprKind::Binary(BinOp::Sub, x, c), false) if lit(c).is_some_and(|c| c > 0) => {
            format!("{} > {}", text(x), MIN - 1 + lit(c).unwrap_or(0))
        }
        (ExprKind::Unary(UnOp::Neg, x), true) => format!("{} > {MIN}", text(x)),
        (ExprKind::Binary(BinOp::Div, x, y), true) => {
            format!("{} != {MIN} || {} != -1", text(x), text(y))
        }
        (_, true) => format!("{} <= {MAX}", ctx.text(&inner.span)),
        (_, false) => format!("{} >= {MIN}", ctx.text(&inner.span)),
    }
}
