//! `--overflow` (docs/language.md section 4e): every operation of code
//! whose result might leave Java's `int` range (`+ - * / %`, unary `-`,
//! and a pure call returning `int`, whose body computes with mathematical
//! integers) is wrapped in `ExprKind::Int32`, which the engine and the
//! interpreter check. Runs after the sugar is lowered, so `x++`, `x op= e`
//! and `++x` are plain operators by then. Contracts, `assert`, `assume`,
//! `join`, invariants, ghost statements and pure bodies are not code and
//! keep mathematical integers.

use std::collections::HashSet;

use crate::syntax::ast::*;

/// Wraps the operations of every method and constructor body.
pub fn program(p: &mut Program) {
    let int_pures: HashSet<(String, String)> = p
        .classes
        .iter()
        .flat_map(|c| {
            c.pures
                .iter()
                .filter(|q| q.ret.kind == TypeKind::Int)
                .map(move |q| (c.name.name.clone(), q.name.name.clone()))
        })
        .collect();
    for class in &mut p.classes {
        for m in &mut class.methods {
            let mut work: Vec<&mut Block> = vec![&mut m.body];
            while let Some(b) = work.pop() {
                for s in b.stmts.iter_mut() {
                    stmt(s, &int_pures, &mut work);
                }
            }
        }
    }
}

/// The code expressions of `s` itself; its blocks go to `work`.
fn stmt<'a>(s: &'a mut Stmt, ints: &HashSet<(String, String)>, work: &mut Vec<&'a mut Block>) {
    match &mut s.kind {
        StmtKind::Local { init: Some(e), .. }
        | StmtKind::Assign { value: e, .. }
        | StmtKind::Call(e)
        | StmtKind::Return(Some(e)) => wrap(e, ints),
        StmtKind::FieldAssign { target, value } | StmtKind::IndexAssign { target, value } => {
            wrap(target, ints);
            wrap(value, ints);
        }
        StmtKind::If { cond, then, els } => {
            wrap(cond, ints);
            work.push(then);
            work.extend(els.as_mut());
        }
        StmtKind::While {
            cond, body, pre, ..
        } => {
            wrap(cond, ints);
            work.push(pre);
            work.push(body);
        }
        // Not code; the sugar is gone by now.
        StmtKind::Local { init: None, .. }
        | StmtKind::Return(None)
        | StmtKind::Assert(_)
        | StmtKind::Assume(_)
        | StmtKind::Join(_)
        | StmtKind::Open(_)
        | StmtKind::Close(_)
        | StmtKind::Use(_)
        | StmtKind::Update { .. }
        | StmtKind::For(_)
        | StmtKind::Chain { .. }
        | StmtKind::Break
        | StmtKind::Continue => {}
    }
}

/// Wraps the operations inside `e`, then `e` itself if it is one.
fn wrap(e: &mut Expr, ints: &HashSet<(String, String)>) {
    let checked = match &mut e.kind {
        ExprKind::Binary(op, a, b) => {
            wrap(a, ints);
            wrap(b, ints);
            matches!(
                op,
                BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Mod
            )
        }
        // `-2147483648` is a literal of its own.
        ExprKind::Unary(UnOp::Neg, a) => {
            wrap(a, ints);
            !matches!(a.kind, ExprKind::Int(_))
        }
        ExprKind::Unary(UnOp::Not, a) | ExprKind::Length(a) => {
            wrap(a, ints);
            false
        }
        ExprKind::Field { recv, .. } => {
            wrap(recv, ints);
            false
        }
        ExprKind::Index { arr, index, .. } => {
            wrap(arr, ints);
            wrap(index, ints);
            false
        }
        ExprKind::Cond(c, a, b) => {
            wrap(c, ints);
            wrap(a, ints);
            wrap(b, ints);
            false
        }
        ExprKind::Call(call) => {
            if let Receiver::Expr(r) = &mut call.receiver {
                wrap(r, ints);
            }
            call.args.iter_mut().for_each(|a| wrap(a, ints));
            call.target.as_ref().is_some_and(|t| {
                t.kind == MemberKind::Pure
                    && ints.contains(&(t.class.clone(), call.name.name.clone()))
            })
        }
        ExprKind::New { args, .. } => {
            args.iter_mut().for_each(|a| wrap(a, ints));
            false
        }
        ExprKind::NewArray { size, .. } => {
            wrap(size, ints);
            false
        }
        // The body of `opening`/`using` computes the value code uses.
        ExprKind::Opening(_, body) | ExprKind::Using(_, body) => {
            wrap(body, ints);
            false
        }
        ExprKind::Int(_)
        | ExprKind::Bool(_)
        | ExprKind::Null
        | ExprKind::This
        | ExprKind::Result
        | ExprKind::Name(_)
        | ExprKind::Var(_)
        | ExprKind::Old(_)
        // Not in code (a `type` error there): contracts keep mathematical
        // integers.
        | ExprKind::Quant(_)
        | ExprKind::Acc(_)
        | ExprKind::Untouched(_)
        | ExprKind::PostStep(..)
        | ExprKind::PreStep(..)
        | ExprKind::Int32(_) => false,
    };
    if checked {
        let span = e.span.clone();
        let inner = std::mem::replace(e, Expr::new(ExprKind::Null, span.clone()));
        *e = Expr::new(ExprKind::Int32(Box::new(inner)), span);
    }
}
