//! The target of an update: a variable, a field or an array element, with
//! the parts that locate it (the receiver, the array and the index)
//! evaluated once, in Java's order, before the update reads it.

use super::Lowerer;
use super::footprint::{Footprint, reads, writes};
use crate::syntax::ast::{Expr, ExprKind, Ident, Span, Stmt, StmtKind, TypeKind};

pub enum Place {
    Var(Ident),
    Field {
        recv: Expr,
        field: Ident,
        class: String,
        span: Span,
    },
    Element {
        arr: Expr,
        index: Expr,
        elem: Option<TypeKind>,
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
                let recv = keep(l, recv, later, site, out);
                Ok(Place::Field {
                    recv,
                    field,
                    class,
                    span,
                })
            }
            ExprKind::Index { arr, index, elem } => {
                // The array is evaluated before the index, which may
                // change what the array's expression denotes.
                let mut after_arr = later.clone();
                after_arr.add(&writes(&index));
                let arr = l.expr(*arr, site, out);
                let arr = keep(l, arr, &after_arr, site, out);
                let index = l.expr(*index, site, out);
                let index = keep(l, index, later, site, out);
                Ok(Place::Element {
                    arr,
                    index,
                    elem,
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
            Place::Element {
                arr,
                index,
                elem,
                span,
            } => Expr::new(
                ExprKind::Index {
                    arr: Box::new(arr.clone()),
                    index: Box::new(index.clone()),
                    elem: elem.clone(),
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
            Place::Element { .. } => StmtKind::IndexAssign {
                target: self.read(),
                value,
            },
        }
    }
}

/// `e` itself when it is a variable, `this` or a literal that nothing
/// `later` writes; else a temporary holding its value now.
fn keep(l: &mut Lowerer, e: Expr, later: &Footprint, site: &Span, out: &mut Vec<Stmt>) -> Expr {
    let stable = matches!(e.kind, ExprKind::Var(_) | ExprKind::This | ExprKind::Int(_));
    if stable && !reads(&e).meets(later) {
        e
    } else {
        l.capture(e, site, out)
    }
}
