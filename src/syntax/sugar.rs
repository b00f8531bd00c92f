//! The builders of the statement sugar of docs/language.md section 3.4: `for`
//! loops and their headers, and the compound assignment operators (the
//! checker types them, `crate::lower` rewrites them).

use crate::syntax::ast::*;
use crate::syntax::error::internal;
use crate::syntax::expr;
use crate::syntax::parse::{Builder, Depth, Kids, P, R, Rule};

impl Builder<'_> {
    /// `for (init; cond; update) invariant I; { body }`.
    pub(super) fn for_stmt(&self, k: &mut Kids, depth: Depth) -> R<StmtKind> {
        k.expect(Rule::kw_for)?;
        let open = k.expect(Rule::lparen)?;
        let init = match k.eat(Rule::for_init) {
            Some(p) => {
                let semi = k.peek_start().unwrap_or(open.as_span().end());
                Some(self.header_stmt(p, semi)?)
            }
            None => None,
        };
        k.expect(Rule::semi)?;
        let cond = expr::expr(self, k.expect(Rule::expr)?, 0)?;
        let semi = k.expect(Rule::semi)?;
        let update = match k.eat(Rule::for_update) {
            Some(p) => {
                let close = k.peek_start().unwrap_or(semi.as_span().end());
                Some(self.header_stmt(p, close)?)
            }
            None => None,
        };
        k.expect(Rule::rparen)?;
        let invariants = self.invariants(k)?;
        let body = self.block(k.expect(Rule::block)?, depth.inner(0))?;
        Ok(StmtKind::For(Box::new(For {
            init,
            cond,
            update,
            invariants,
            body,
        })))
    }

    /// The `init` or `update` of a `for` header: a statement without its
    /// `;`. `next` is where the token after it starts.
    fn header_stmt(&self, p: P, next: usize) -> R<Stmt> {
        let q = p.into_inner().next().ok_or_else(|| internal(next..next))?;
        // The head may span the blanks before the next token: end at its
        // last token (the last pair in pre-order; tokens have no inner pairs).
        let start = q.as_span().start();
        let end = q
            .clone()
            .into_inner()
            .flatten()
            .last()
            .map_or(q.as_span().end(), |l| l.as_span().end());
        let kind = match q.as_rule() {
            Rule::local_head => self.local_head(q)?,
            _ => self.simple_head(q, next)?,
        };
        Ok(Stmt {
            kind,
            span: start..end,
        })
    }
}

/// The operator of a compound assignment token (`+=` ...).
pub fn update_op(rule: Option<Rule>) -> Option<BinOp> {
    Some(match rule? {
        Rule::op_add_assign => BinOp::Add,
        Rule::op_sub_assign => BinOp::Sub,
        Rule::op_mul_assign => BinOp::Mul,
        Rule::op_div_assign => BinOp::Div,
        Rule::op_rem_assign => BinOp::Mod,
        _ => return None,
    })
}
