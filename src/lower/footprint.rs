//! What an expression reads and what its postfix updates write, enough to
//! tell whether an operand evaluated earlier must be captured before a later
//! operand's update: a variable is one location, and the heap is taken as
//! one (a field update may change any field read or pure call; telling
//! fields and receivers apart would only save temporaries).

use std::collections::BTreeSet;

use crate::syntax::ast::{Call, Expr, ExprKind, Receiver};

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

/// Whether `e` holds a postfix update.
pub fn has_step(e: &Expr) -> bool {
    let mut found = false;
    visit(e, &mut |e| {
        found |= matches!(e.kind, ExprKind::PostStep(..))
    });
    found
}

/// The locations the postfix updates in `e` write.
pub fn writes(e: &Expr) -> Footprint {
    let mut f = Footprint::default();
    visit(e, &mut |e| {
        if let ExprKind::PostStep(_, target) = &e.kind {
            match &target.kind {
                ExprKind::Var(x) | ExprKind::Name(x) => {
                    f.vars.insert(x.name.clone());
                }
                _ => f.heap = true,
            }
        }
    });
    f
}

/// The locations `e` reads: its variables, and the heap unless it is built
/// from variables, literals and operators only (a field, a call, or any
/// form added later, such as an array element, may read any of the heap).
pub fn reads(e: &Expr) -> Footprint {
    let mut f = Footprint::default();
    visit(e, &mut |e| match &e.kind {
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

/// Calls `f` on `e` and every expression in it.
fn visit(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    f(e);
    match &e.kind {
        ExprKind::Int(_)
        | ExprKind::Bool(_)
        | ExprKind::Null
        | ExprKind::This
        | ExprKind::Result
        | ExprKind::Name(_)
        | ExprKind::Var(_) => {}
        ExprKind::Field { recv, .. } => visit(recv, f),
        ExprKind::Call(call) => visit_call(call, f),
        ExprKind::New { args, .. } => args.iter().for_each(|a| visit(a, f)),
        ExprKind::NewArray { size, .. } => visit(size, f),
        ExprKind::Index { arr, index, .. } => {
            visit(arr, f);
            visit(index, f);
        }
        ExprKind::Length(a) => visit(a, f),
        ExprKind::Unary(_, a)
        | ExprKind::Old(a)
        | ExprKind::Acc(a)
        | ExprKind::Untouched(a)
        | ExprKind::PostStep(_, a) => visit(a, f),
        ExprKind::Binary(_, a, b) => {
            visit(a, f);
            visit(b, f);
        }
        ExprKind::Cond(c, a, b) => {
            visit(c, f);
            visit(a, f);
            visit(b, f);
        }
        ExprKind::Opening(call, body) | ExprKind::Using(call, body) => {
            visit_call(call, f);
            visit(body, f);
        }
    }
}

fn visit_call(call: &Call, f: &mut dyn FnMut(&Expr)) {
    if let Receiver::Expr(r) = &call.receiver {
        visit(r, f);
    }
    call.args.iter().for_each(|a| visit(a, f));
}
