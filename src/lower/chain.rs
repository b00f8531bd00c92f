//! Assignment chains `x = y = e;` and prefix updates `++x` / `--x`
//! (docs/language.md section 3.4).

use super::footprint::{Footprint, target_footprint, writes};
use super::place::Place;
use super::{Lowerer, is_whole_rhs};
use crate::syntax::ast::*;

impl Lowerer<'_> {
    /// `x = y = e;`: the targets' parts left to right (each captured where
    /// a later part, the value or a later target's store could change it),
    /// the value, then the stores from the last target to the first, each
    /// storing the value the one after it got.
    pub(super) fn chain(
        &mut self,
        targets: Vec<Expr>,
        value: Expr,
        span: Span,
        out: &mut Vec<Stmt>,
    ) {
        // later[i]: what is written after the i-th target's parts are evaluated.
        let mut later = vec![Footprint::default(); targets.len()];
        let mut acc = writes(&value);
        for (i, t) in targets.iter().enumerate().rev() {
            later[i] = acc.clone();
            acc.add(&writes(t));
            acc.add(&target_footprint(t));
        }
        let mut places = Vec::with_capacity(targets.len());
        for (t, after) in targets.into_iter().zip(later) {
            match Place::of(self, t, &after, &span, out) {
                Ok(p) => places.push(p),
                Err(target) => {
                    // Not a place: the checker let nothing else through;
                    // the engine reports the unlowered statement.
                    let kind = StmtKind::Chain {
                        targets: vec![target],
                        value,
                    };
                    return out.push(Stmt { kind, span });
                }
            }
        }
        let Some(last) = places.pop() else {
            return;
        };
        let mut value = match &last {
            // `y = m();` keeps the call whole, as a statement of its own.
            Place::Var(_) => {
                let value = self.rhs(value, &span, out);
                out.push(Stmt {
                    kind: last.write(value),
                    span: span.clone(),
                });
                last.read()
            }
            _ => {
                let value = if is_whole_rhs(&value) {
                    self.call_result(value, &span, out)
                } else {
                    self.expr(value, &span, out)
                };
                let value = if stable(&value) {
                    value
                } else {
                    self.capture(value, &span, out)
                };
                out.push(Stmt {
                    kind: last.write(value.clone()),
                    span: span.clone(),
                });
                value
            }
        };
        while let Some(place) = places.pop() {
            out.push(Stmt {
                kind: place.write(value.clone()),
                span: span.clone(),
            });
            if let Place::Var(_) = place {
                value = place.read();
            }
        }
    }

    /// `++x` / `--x`: the store of the new value, then its read (for a
    /// field or an element, the new value is kept in a temporary: reading
    /// the place again would be a second access).
    pub(super) fn pre_step(
        &mut self,
        op: StepOp,
        target: Expr,
        span: Span,
        site: &Span,
        out: &mut Vec<Stmt>,
    ) -> Expr {
        let place = match Place::of(self, target, &Footprint::default(), site, out) {
            Ok(p) => p,
            Err(target) => return Expr::new(ExprKind::PreStep(op, Box::new(target)), span),
        };
        // The `1` stands at the operator.
        let one = Expr::new(ExprKind::Int("1".into()), span.start..span.start + 2);
        let new = Expr::new(
            ExprKind::Binary(op.bin_op(), Box::new(place.read()), Box::new(one)),
            span.clone(),
        );
        let value = match place {
            Place::Var(_) => new,
            _ => self.capture_as(new, &span, site, out),
        };
        out.push(Stmt {
            kind: place.write(value.clone()),
            span: site.clone(),
        });
        match place {
            Place::Var(_) => Expr::new(place.read().kind, span),
            _ => value,
        }
    }
}

/// Whether `e` reads only what no store can change (a variable that
/// nothing assigns in between, a literal, `this`, `null`).
fn stable(e: &Expr) -> bool {
    matches!(
        e.kind,
        ExprKind::Var(_) | ExprKind::Int(_) | ExprKind::Bool(_) | ExprKind::Null | ExprKind::This
    )
}
