//! Updates: `x++`, `x--`, `++x`, `--x`, `x op= e` and `x = y = e` as
//! statements, `x++` / `++x` (and `--`) inside the expressions of code, and
//! where the latter may not stand.
//!
//! A postfix update changes the state in the middle of an expression. Sift
//! lowers it to statements before verification (`crate::lower`): before
//! the statement, or, in a loop condition, before each evaluation of the
//! condition (after the invariant). Not in a ghost statement or form
//! (`open`, `opening`, `use`, `using`: they stand for proof steps, not
//! computation). Contracts, assertions and pure method bodies describe
//! states and never hold one.

use super::expr::Resolved;
use super::positions::{Clause, Pos};
use super::types::Ty;
use super::{Checker, error};
use crate::syntax::ast::{BinOp, Expr, ExprKind, Span, StepOp};

pub const GHOST_EXPR: &str = "ghost statements and forms stand for proof steps, not computation";

impl Checker {
    /// Runs `f` with postfix updates banned for the reason `why` (an outer
    /// ban, reported first, stays).
    pub(super) fn banning<T>(&mut self, why: &'static str, f: impl FnOnce(&mut Self) -> T) -> T {
        let outer = self.step_ban;
        self.step_ban = Some(outer.unwrap_or(why));
        let r = f(self);
        self.step_ban = outer;
        r
    }

    /// `x++` / `x--` (`prefix`: `++x` / `--x`) inside an expression: its
    /// value is the old (the new) value.
    pub(super) fn step_expr(
        &mut self,
        op: StepOp,
        prefix: bool,
        target: &mut Expr,
        span: Span,
    ) -> Ty {
        let sym = op.symbol();
        if self.ctx.clause != Clause::Code {
            let d = error(
                span.clone(),
                format!("`{sym}` is not allowed {}", self.ctx.clause.place()),
            )
            .with_label("an update changes the state")
            .with_help("contracts, assertions and pure method bodies cannot change variables");
            self.report(d);
        } else if let Some(why) = self.step_ban {
            let stmt = if prefix {
                format!("{sym}x;")
            } else {
                format!("x{sym};")
            };
            let d = error(span.clone(), format!("`{sym}` is not allowed here"))
                .with_label(why)
                .with_help(format!(
                    "update the variable in a statement of its own: `{stmt}`"
                ));
            self.report(d);
        }
        self.update_target(target, sym);
        Ty::Int
    }

    /// `x = y = e;`: `e` goes to the last target, and each target's value
    /// to the one before it (Java types `y = e` as `y`'s type).
    pub(super) fn chain(&mut self, targets: &mut [Expr], value: &mut Expr) {
        let tys: Vec<Ty> = targets
            .iter_mut()
            .map(|t| self.assign_target(t, "="))
            .collect();
        if let Some(last) = tys.last() {
            self.rhs_for(value, last, "");
        }
        for (i, pair) in tys.windows(2).enumerate() {
            if pair.iter().any(Ty::is_err) {
                continue;
            }
            let why = "the target before this one is assigned its value";
            self.expect(&pair[1], &pair[0], targets[i + 1].span.clone(), why);
        }
    }

    /// `x op= e;`, `x++;`, `x--;`.
    pub(super) fn update_stmt(&mut self, target: &mut Expr, op: BinOp, value: Option<&mut Expr>) {
        let Some(value) = value else {
            let sym = if op == BinOp::Add { "++" } else { "--" };
            return self.update_target(target, sym);
        };
        let sym = format!("{}=", op.symbol());
        self.update_target(target, &sym);
        let t = self.expr(value, Pos::Value);
        self.expect(
            &t,
            &Ty::Int,
            value.span.clone(),
            &format!("`{sym}` needs a value of type `int`"),
        );
    }

    /// The target of an update: a local variable, a parameter, a field or an
    /// array element, of type `int`. Resolves it in place.
    fn update_target(&mut self, target: &mut Expr, sym: &str) {
        let t = self.assign_target(target, sym);
        if t.is_err() {
            return;
        }
        self.expect(
            &t,
            &Ty::Int,
            target.span.clone(),
            &format!("`{sym}` needs an `int`"),
        );
    }

    /// The target of `sym` (`=`, `+=`, `++`, ...): a local variable, a
    /// parameter, a field or an array element. Resolves it in place; its
    /// type (`Err` when it is not a target, reported).
    fn assign_target(&mut self, target: &mut Expr, sym: &str) -> Ty {
        if let ExprKind::Name(id) = &target.kind
            && let Resolved::Class = self.lookup_name(&id.name)
        {
            let d = error(
                target.span.clone(),
                format!("cannot assign to class `{}`", id.name),
            )
            .with_label("not a variable");
            self.report(d);
            return Ty::Err;
        }
        let t = self.expr(target, Pos::Value);
        match &target.kind {
            ExprKind::Var(_) | ExprKind::Field { .. } | ExprKind::Index { .. } => t,
            ExprKind::This => {
                let d = error(target.span.clone(), "cannot assign to `this`")
                    .with_label("`this` is not a variable");
                self.report(d);
                Ty::Err
            }
            ExprKind::Length(_) => {
                let d = error(target.span.clone(), "cannot assign to `length`")
                    .with_label("the length of an array is immutable");
                self.report(d);
                Ty::Err
            }
            // An unknown name was reported by `expr`.
            ExprKind::Name(_) => Ty::Err,
            _ => {
                let d = error(
                    target.span.clone(),
                    format!("`{sym}` needs a variable, a field or an array element"),
                )
                .with_label("cannot assign to this expression");
                self.report(d);
                Ty::Err
            }
        }
    }
}
