//! The target of an update: a variable or a field (arrays will add their
//! elements as one more case here), with the parts that locate it (the
//! receiver) evaluated once, before the update reads it.

use super::Lowerer;
use super::footprint::{Footprint, reads};
use crate::syntax::ast::{Expr, ExprKind, Ident, Span, Stmt, StmtKind};

pub enum Place {
    Var(Ident),
    Field {
        recv: Expr,
        field: Ident,
        class: String,
        span: Span,
    },
}

impl Place {
    /// The place `target` denotes, its parts lowered into `out` and
    /// captured unless they are a variable or `this` that nothing `later`
    /// writes. `Err` gives back what is not a place.
    pub fn of(
        l: &mut Lowerer,
        target: Expr,
        later: &Footprint,
        site: &Span,
        out: &mut Vec<Stmt>,
    ) -> Result<Place, Expr> {
        let span = target.span;
        match target.kind {
            ExprKind::Var(id) => Ok(Place::Var(id)),
            ExprKind::Field { recv, field, class } => {
                let recv = l.expr(*recv, site, out);
                let stable = matches!(recv.kind, ExprKind::Var(_) | ExprKind::This);
                let recv = if stable && !reads(&recv).meets(later) {
                    recv
                } else {
                    l.capture(recv, site, out)
                };
                Ok(Place::Field {
                    recv,
                    field,
                    class,
                    span,
                })
            }
            kind => Err(Expr::new(kind, span)),
        }
    }

    /// Reading the place (at its source span).
    pub fn read(&self) -> Expr {
        match self {
            Place::Var(id) => Expr::new(ExprKind::Var(id.clone()), id.span.clone()),
            Place::Field {
                recv,
                field,
                class,
                span,
            } => Expr::new(
                ExprKind::Field {
                    recv: Box::new(recv.clone()),
                    field: field.clone(),
                    class: class.clone(),
                },
                span.clone(),
            ),
        }
    }

    /// Storing `value` into the place.
    pub fn write(&self, value: Expr) -> StmtKind {
        match self {
            Place::Var(id) => StmtKind::Assign {
                target: id.clone(),
                value,
            },
            Place::Field { .. } => StmtKind::FieldAssign {
                target: self.read(),
                value,
            },
        }
    }
}
