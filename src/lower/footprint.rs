//! What an expression reads and what its postfix updates write, enough to
//! tell whether an operand evaluated earlier must be captured before a later
//! operand's update: a variable is one location, and the heap is taken as
//! one (a field update may change any field read or pure call; telling
//! fields and receivers apart would only save temporaries).

use std::collections::BTreeSet;

use crate::syntax::ast::{Expr, ExprKind};
use crate::syntax::walk::exprs;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Footprint {
    pub vars: BTreeSet<String>,
    pub heap: bool,
}

impl Footprint {
    pub fn add(&mut self, other: &Footprint) {
        self.vars.extend(other.vars.iter().cloned());
        self.heap |= other.heap;
    }

    /// Whether the two share a location.
    pub fn meets(&self, other: &Footprint) -> bool {
        (self.heap && other.heap) || self.vars.iter().any(|v| other.vars.contains(v))
    }
}

/// Whether `e` holds an update (`x++`, `++x`) or an allocation (`new`):
/// what lowering takes out of an expression into statements before it.
pub fn has_step(e: &Expr) -> bool {
    let mut found = false;
    exprs(e, &mut |e| {
        found |= matches!(
            e.kind,
            ExprKind::PostStep(..)
                | ExprKind::PreStep(..)
                | ExprKind::New { .. }
                | ExprKind::NewArray { .. }
        )
    });
    found
}

/// The locations the updates in `e` write, and the heap if it creates an
/// object (a constructor may write any location its precondition gives
/// it; a new array changes no location that exists before it).
pub fn writes(e: &Expr) -> Footprint {
    let mut f = Footprint::default();
    exprs(e, &mut |e| match &e.kind {
        ExprKind::PostStep(_, target) | ExprKind::PreStep(_, target) => {
            f.add(&target_footprint(target))
        }
        ExprKind::New { .. } => f.heap = true,
        _ => {}
    });
    f
}

/// The location an assignment to `target` writes: a variable, or the heap.
pub fn target_footprint(target: &Expr) -> Footprint {
    let mut f = Footprint::default();
    match &target.kind {
        ExprKind::Var(x) | ExprKind::Name(x) => {
            f.vars.insert(x.name.clone());
        }
        _ => f.heap = true,
    }
    f
}

/// The locations `e` reads: its variables, and the heap unless it is built
/// from variables, literals and operators only (a field, a call, or any
/// form added later, such as an array element, may read any of the heap).
pub fn reads(e: &Expr) -> Footprint {
    let mut f = Footprint::default();
    exprs(e, &mut |e| match &e.kind {
        ExprKind::Var(x) | ExprKind::Name(x) => {
            f.vars.insert(x.name.clone());
        }
        ExprKind::Int(_)
        | ExprKind::Bool(_)
        | ExprKind::Null
        | ExprKind::This
        | ExprKind::Result
        | ExprKind::Unary(..)
        | ExprKind::Binary(..)
        | ExprKind::Cond(..) => {}
        _ => f.heap = true,
    });
    f
}
