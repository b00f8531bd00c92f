//! The one walk over statements that every analysis shares (assigned
//! variables for loops and joins, `join` detection, the debugger's
//! statement list, the language server's cost estimate, ...). `parts`
//! matches every statement form without a catch-all arm: a new form is a
//! compile error here, and each analysis that needs to know about it
//! matches on it exhaustively too. `exprs` is the same for the expressions
//! inside one expression.

use super::ast::{Block, Call, Expr, ExprKind, Ident, Receiver, Stmt, StmtKind};

/// What the analyses need of one statement: the blocks it holds, in source
/// order (`then` before `else`), and the local variable or parameter it
/// itself assigns (what a loop or a `join` must forget).
pub struct Parts<'a> {
    pub blocks: Vec<&'a Block>,
    pub assigned: Option<&'a Ident>,
}

pub fn parts(s: &Stmt) -> Parts<'_> {
    let (blocks, assigned) = match &s.kind {
        StmtKind::If { then, els, .. } => {
            (std::iter::once(then).chain(els.as_ref()).collect(), None)
        }
        StmtKind::While { body, pre, .. } => (vec![pre, body], None),
        // Its `init` and `update` are part of the loop's header, not
        // statements of a block; `for` is lowered before the engine runs.
        StmtKind::For(f) => (vec![&f.body], None),
        StmtKind::Update { target, .. } => (
            Vec::new(),
            match &target.kind {
                ExprKind::Var(name) => Some(name),
                _ => None,
            },
        ),
        // Lowered before the engine runs; its first variable target.
        StmtKind::Chain { targets, .. } => (
            Vec::new(),
            targets.iter().find_map(|t| match &t.kind {
                ExprKind::Var(name) => Some(name),
                _ => None,
            }),
        ),
        StmtKind::Local { name, .. } => (Vec::new(), Some(name)),
        StmtKind::Assign { target, .. } => (Vec::new(), Some(target)),
        StmtKind::FieldAssign { .. }
        | StmtKind::IndexAssign { .. }
        | StmtKind::Call(_)
        | StmtKind::Assert(_)
        | StmtKind::Assume(_)
        | StmtKind::Return(_)
        | StmtKind::Open(_)
        | StmtKind::Close(_)
        | StmtKind::Use(_)
        | StmtKind::Join(_)
        | StmtKind::Break
        | StmtKind::Continue => (Vec::new(), None),
    };
    Parts { blocks, assigned }
}

/// The blocks `s` holds (`parts`).
pub fn blocks(s: &Stmt) -> Vec<&Block> {
    parts(s).blocks
}

/// The variable `s` itself assigns (`parts`).
pub fn assigned(s: &Stmt) -> Option<&Ident> {
    parts(s).assigned
}

/// Every statement of `stmts` and of the blocks nested in them, each
/// before the ones it holds, in source order. A stack, not recursion: an
/// `else if` chain nests one block per link, and may have many thousand.
pub fn statements(stmts: &[Stmt]) -> impl Iterator<Item = &Stmt> {
    let mut work: Vec<std::slice::Iter<'_, Stmt>> = vec![stmts.iter()];
    std::iter::from_fn(move || {
        loop {
            let top = work.last_mut()?;
            match top.next() {
                Some(s) => {
                    // Pushed in reverse: the first block is walked first.
                    work.extend(blocks(s).into_iter().rev().map(|b| b.stmts.iter()));
                    return Some(s);
                }
                None => {
                    work.pop();
                }
            }
        }
    })
}

/// Calls `f` on `e` and every expression in it.
pub fn exprs(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    f(e);
    match &e.kind {
        ExprKind::Int(_)
        | ExprKind::Bool(_)
        | ExprKind::Null
        | ExprKind::This
        | ExprKind::Result
        | ExprKind::Name(_)
        | ExprKind::Var(_) => {}
        ExprKind::Field { recv, .. } => exprs(recv, f),
        ExprKind::Call(call) => exprs_in_call(call, f),
        ExprKind::New { args, .. } => args.iter().for_each(|a| exprs(a, f)),
        ExprKind::NewArray { size, .. } => exprs(size, f),
        ExprKind::Index { arr, index, .. } => {
            exprs(arr, f);
            exprs(index, f);
        }
        ExprKind::Length(a) => exprs(a, f),
        ExprKind::Unary(_, a)
        | ExprKind::Old(a)
        | ExprKind::Acc(a)
        | ExprKind::Untouched(a)
        | ExprKind::PostStep(_, a)
        | ExprKind::PreStep(_, a)
        | ExprKind::Int32(a) => exprs(a, f),
        ExprKind::Binary(_, a, b) => {
            exprs(a, f);
            exprs(b, f);
        }
        ExprKind::Cond(c, a, b) => {
            exprs(c, f);
            exprs(a, f);
            exprs(b, f);
        }
        ExprKind::Opening(call, body) | ExprKind::Using(call, body) => {
            exprs_in_call(call, f);
            exprs(body, f);
        }
        ExprKind::Quant(q) => exprs(&q.body, f),
    }
}

fn exprs_in_call(call: &Call, f: &mut dyn FnMut(&Expr)) {
    if let Receiver::Expr(r) = &call.receiver {
        exprs(r, f);
    }
    call.args.iter().for_each(|a| exprs(a, f));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(src: &str) -> Vec<Stmt> {
        let program = crate::syntax::parse(src).expect("parses");
        program.classes[0].methods[0].body.stmts.clone()
    }

    #[test]
    fn statements_come_in_source_order_with_nested_ones_after_their_holder() {
        let stmts = body(
            "class A { void m(int x) { int y = 0; if (x > 0) { y = 1; } else { while (y < 3) invariant true; { y = y + 1; } } x = y; } }",
        );
        let texts: Vec<String> = statements(&stmts)
            .map(|s| match assigned(s) {
                Some(v) => format!("assign {}", v.name),
                None => format!("{} blocks", blocks(s).len()),
            })
            .collect();
        assert_eq!(
            texts,
            [
                "assign y", "2 blocks", "assign y", "2 blocks", "assign y", "assign x"
            ]
        );
    }

    #[test]
    fn long_else_if_chains_are_walked_without_recursion() {
        let mut src = String::from("class A { void m(int x) { if (x == 0) { }");
        for i in 1..5_000 {
            src.push_str(&format!(" else if (x == {i}) {{ }}"));
        }
        src.push_str(" } }");
        assert_eq!(statements(&body(&src)).count(), 5_000);
    }
}
