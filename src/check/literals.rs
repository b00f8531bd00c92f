//! `--overflow` (docs/language.md section 4e): an integer literal above
//! 2147483647 in code is a `type` error, except `2147483648` directly under
//! unary minus (`-2147483648`). Contracts, assertions, invariants and pure
//! bodies keep mathematical integers and any literal.

use super::error;
use crate::diag::Diagnostic;
use crate::syntax::ast::{Expr, ExprKind, Program, Stmt, StmtKind, UnOp};
use crate::syntax::walk;

const MAX: u128 = 2_147_483_647;

/// The literals out of range in the code of `p` (a checked program).
pub fn out_of_range(p: &Program) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for class in &p.classes {
        for m in &class.methods {
            for s in walk::statements(&m.body.stmts) {
                for e in code_exprs(s) {
                    literals(e, &mut out);
                }
            }
        }
    }
    out
}

/// The expressions of `s` itself that are code (a `for` header's parts
/// included; its body comes from the walk).
fn code_exprs(s: &Stmt) -> Vec<&Expr> {
    match &s.kind {
        StmtKind::Local { init, .. } => init.iter().collect(),
        StmtKind::Assign { value, .. } | StmtKind::Call(value) => vec![value],
        StmtKind::FieldAssign { target, value } | StmtKind::IndexAssign { target, value } => {
            vec![target, value]
        }
        StmtKind::If { cond, .. } | StmtKind::While { cond, .. } => vec![cond],
        StmtKind::Update { target, value, .. } => std::iter::once(target).chain(value).collect(),
        StmtKind::Chain { targets, value } => targets.iter().chain([value]).collect(),
        StmtKind::For(f) => {
            let mut v: Vec<&Expr> = vec![&f.cond];
            for part in f.init.iter().chain(&f.update) {
                v.extend(code_exprs(part));
            }
            v
        }
        StmtKind::Return(e) => e.iter().collect(),
        StmtKind::Assert(_)
        | StmtKind::Assume(_)
        | StmtKind::Join(_)
        | StmtKind::Open(_)
        | StmtKind::Close(_)
        | StmtKind::Use(_)
        | StmtKind::Break
        | StmtKind::Continue => Vec::new(),
    }
}

fn literals(e: &Expr, out: &mut Vec<Diagnostic>) {
    let mut negated = Vec::new();
    walk::exprs(e, &mut |x| {
        if let ExprKind::Unary(UnOp::Neg, a) = &x.kind
            && matches!(&a.kind, ExprKind::Int(d) if d == "2147483648")
        {
            negated.push(a.span.start);
        }
    });
    walk::exprs(e, &mut |x| match &x.kind {
        ExprKind::Int(d) if !fits(d) && !negated.contains(&x.span.start) => {
            let d = error(
                x.span.clone(),
                format!("integer literal `{d}` is too large for `int`"),
            )
            .with_label("with --overflow, `int` in code is Java's 32-bit integer")
            .with_help("literals in code lie in [-2147483648, 2147483647]; contracts and assertions may use larger ones");
            out.push(d);
        }
        // Not code.
        ExprKind::Old(_) => {}
        _ => {}
    });
}

/// Whether the digits `d` are at most 2147483647.
fn fits(d: &str) -> bool {
    d.len() <= 10 && d.parse::<u128>().is_ok_and(|n| n <= MAX)
}
