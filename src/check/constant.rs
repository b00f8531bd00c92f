//! Constant expressions, for Java's reachability rules (docs/language.md
//! section 3): a `while` whose condition is a constant expression with value
//! `true` cannot complete normally.
//!
//! As in Java (JLS 15.29), a constant expression is built only from
//! literals (`true`, `false`, integers; `null` is not a constant), the unary
//! operators `!` and `-`, the binary operators, `c ? a : b`, and parentheses
//! (which the tree does not keep), with every operand itself constant: no
//! variable, field, `this`, `result`, call or `old`, and no short cut
//! (`true || x` is not constant, although its value is known). Sift has no
//! `final` variables, so no name is ever a constant. `==>` counts like `&&`
//! and `||`. Integers are Sift's mathematical integers, not Java's 32-bit
//! ones. Like javac, a division or remainder by zero makes the expression
//! non-constant; so does an integer (a literal or any intermediate value)
//! outside the 128-bit range, which is where the checker stops folding: such
//! a loop is taken to be one that may complete normally.

use crate::syntax::ast::{BinOp, Expr, ExprKind, UnOp};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Const {
    Int(i128),
    Bool(bool),
}

/// The value of `e` if it is a constant expression.
pub fn value(e: &Expr) -> Option<Const> {
    use Const::{Bool, Int};
    match &e.kind {
        ExprKind::Int(digits) => digits.parse().ok().map(Int),
        ExprKind::Bool(b) => Some(Bool(*b)),
        ExprKind::Unary(op, x) => match (op, value(x)?) {
            (UnOp::Not, Bool(b)) => Some(Bool(!b)),
            (UnOp::Neg, Int(n)) => n.checked_neg().map(Int),
            _ => None,
        },
        ExprKind::Binary(op, l, r) => binary(*op, value(l)?, value(r)?),
        ExprKind::Cond(c, a, b) => {
            let (Bool(c), a, b) = (value(c)?, value(a)?, value(b)?) else {
                return None;
            };
            Some(if c { a } else { b })
        }
        _ => None,
    }
}

fn binary(op: BinOp, l: Const, r: Const) -> Option<Const> {
    use Const::{Bool, Int};
    Some(match (l, r) {
        (Int(a), Int(b)) => match op {
            BinOp::Add => Int(a.checked_add(b)?),
            BinOp::Sub => Int(a.checked_sub(b)?),
            BinOp::Mul => Int(a.checked_mul(b)?),
            // Truncating toward zero, as Sift's `/` and `%` do; `None` for
            // a zero divisor.
            BinOp::Div => Int(a.checked_div(b)?),
            BinOp::Mod => Int(a.checked_rem(b)?),
            BinOp::Eq => Bool(a == b),
            BinOp::Ne => Bool(a != b),
            BinOp::Lt => Bool(a < b),
            BinOp::Le => Bool(a <= b),
            BinOp::Gt => Bool(a > b),
            BinOp::Ge => Bool(a >= b),
            BinOp::Implies | BinOp::Or | BinOp::And => return None,
        },
        (Bool(a), Bool(b)) => match op {
            BinOp::Implies => Bool(!a || b),
            BinOp::Or => Bool(a || b),
            BinOp::And => Bool(a && b),
            BinOp::Eq => Bool(a == b),
            BinOp::Ne => Bool(a != b),
            _ => return None,
        },
        _ => return None,
    })
}

/// Whether `e` is a constant expression with value `true`.
pub fn is_true(e: &Expr) -> bool {
    value(e) == Some(Const::Bool(true))
}
