//! Expressions: pest's flat `expr` sequences folded by a Pratt parser
//! (docs/language.md section 4), with chained comparisons desugared and the depth
//! of every tree bounded.

use std::sync::LazyLock;

use pest::pratt_parser::{Assoc, Op, PrattParser};

use crate::diag::{Diagnostic, Kind};
use crate::syntax::ast::*;
use crate::syntax::error::internal;
use crate::syntax::parse::{Builder, Kids, P, R, Rule, array_of, base_type, ident, span_of};
use crate::syntax::scan::{MAX_NESTING, too_deep};

/// Maximal depth of an expression tree.
pub const MAX_DEPTH: usize = 500;

/// Maximal recursion of the builder through parentheses, arguments and
/// bodies; the prescan bounds it already, this is a second line of defence.
const MAX_RECURSION: usize = 2 * MAX_NESTING + 10;

/// An expression under construction.
pub struct Built {
    pub expr: Expr,
    /// Height of the tree (a leaf is 1).
    pub depth: usize,
    /// For an unparenthesized comparison or comparison chain: the depth of
    /// its last operand, which the next comparison of the chain shares.
    chain: Option<usize>,
}

static PRATT: LazyLock<PrattParser<Rule>> = LazyLock::new(|| {
    let left = |r| Op::infix(r, Assoc::Left);
    PrattParser::new()
        .op(Op::infix(Rule::op_cond, Assoc::Right))
        .op(Op::infix(Rule::op_implies, Assoc::Right))
        .op(left(Rule::op_or))
        .op(left(Rule::op_and))
        .op(left(Rule::op_eq) | left(Rule::op_ne))
        .op(left(Rule::op_lt) | left(Rule::op_le) | left(Rule::op_gt) | left(Rule::op_ge))
        .op(left(Rule::op_add) | left(Rule::op_sub))
        .op(left(Rule::op_mul) | left(Rule::op_div) | left(Rule::op_rem))
        .op(Op::prefix(Rule::op_not)
            | Op::prefix(Rule::op_neg)
            | Op::prefix(Rule::op_pre_incr)
            | Op::prefix(Rule::op_pre_decr))
        .op(Op::postfix(Rule::call_suffix)
            | Op::postfix(Rule::field_suffix)
            | Op::postfix(Rule::index_suffix)
            | Op::postfix(Rule::op_incr)
            | Op::postfix(Rule::op_decr))
});

fn too_deep_expr(span: Span) -> Box<Diagnostic> {
    Box::new(
        Diagnostic::new(
            Kind::Parse,
            span,
            format!("expression nested too deeply: more than {MAX_DEPTH} levels"),
        )
        .with_label("this goes too deep")
        .with_help("split the expression, for example with local variables or pure methods"),
    )
}

/// A new node of height `depth`; `at` is blamed if it is too high.
fn node(kind: ExprKind, span: Span, depth: usize, at: Span) -> R<Built> {
    if depth > MAX_DEPTH {
        return Err(too_deep_expr(at));
    }
    Ok(Built {
        expr: Expr::new(kind, span),
        depth,
        chain: None,
    })
}

fn leaf(kind: ExprKind, span: Span) -> R<Built> {
    node(kind, span.clone(), 1, span)
}

/// An `expr` pair.
pub fn expr(b: &Builder, p: P, nest: usize) -> R<Expr> {
    built(b, p, nest).map(|x| x.expr)
}

fn built(b: &Builder, p: P, nest: usize) -> R<Built> {
    let span = span_of(&p);
    if nest > MAX_RECURSION {
        return Err(too_deep(span.start..span.start + 1).into());
    }
    // Prefix and right-associative operators recurse in the Pratt parser:
    // bound them before it runs.
    let mut recursive = 0usize;
    let mut flat = Vec::new();
    for q in p.into_inner() {
        let items: Vec<P> = if q.as_rule() == Rule::term {
            q.into_inner().collect()
        } else {
            vec![q]
        };
        for t in items {
            if matches!(
                t.as_rule(),
                Rule::op_not
                    | Rule::op_neg
                    | Rule::op_pre_incr
                    | Rule::op_pre_decr
                    | Rule::op_cond
                    | Rule::op_implies
            ) {
                recursive += 1;
                if recursive > MAX_DEPTH {
                    return Err(too_deep_expr(span_of(&t)));
                }
            }
            flat.push(t);
        }
    }
    if flat.is_empty() {
        return Err(internal(span));
    }
    PRATT
        .map_primary(|q| primary(b, q, nest))
        .map_prefix(|op, rhs| prefix(op, rhs?))
        .map_postfix(|lhs, op| postfix(b, lhs?, op, nest))
        .map_infix(|lhs, op, rhs| infix(b, lhs?, op, rhs?, nest))
        .parse(flat.into_iter())
}

/// A `postfix_expr` pair: a primary and its `.f` / `.m(args)` suffixes.
pub fn postfix_expr(b: &Builder, p: P, nest: usize) -> R<Built> {
    let span = span_of(&p);
    let mut it = p.into_inner();
    let first = it.next().ok_or_else(|| internal(span))?;
    let mut acc = primary(b, first, nest)?;
    for s in it {
        acc = postfix(b, acc, s, nest)?;
    }
    Ok(acc)
}

/// The arguments of a call and the height of the highest.
fn args(b: &Builder, p: P, nest: usize) -> R<(Vec<Expr>, usize)> {
    let mut out = Vec::new();
    let mut depth = 0;
    for q in p.into_inner() {
        if q.as_rule() == Rule::expr {
            let a = built(b, q, nest + 1)?;
            depth = depth.max(a.depth);
            out.push(a.expr);
        }
    }
    Ok((out, depth))
}

fn normalize_int(digits: &str) -> String {
    let t = digits.trim_start_matches('0');
    if t.is_empty() {
        "0".to_string()
    } else {
        t.to_string()
    }
}

fn primary(b: &Builder, p: P, nest: usize) -> R<Built> {
    let outer = span_of(&p);
    let q = p.into_inner().next().ok_or_else(|| internal(outer))?;
    let span = span_of(&q);
    let rule = q.as_rule();
    match rule {
        Rule::kw_true => return leaf(ExprKind::Bool(true), span),
        Rule::kw_false => return leaf(ExprKind::Bool(false), span),
        Rule::kw_null => return leaf(ExprKind::Null, span),
        Rule::kw_this => return leaf(ExprKind::This, span),
        Rule::kw_result => return leaf(ExprKind::Result, span),
        Rule::int_lit => return leaf(ExprKind::Int(normalize_int(q.as_str())), span),
        _ => {}
    }
    let mut k = Kids::of(q);
    match rule {
        Rule::name_expr => {
            let name = ident(&k.expect(Rule::ident)?);
            if k.eat(Rule::lparen).is_none() {
                // Not the pair's span: it may end with blanks.
                let span = name.span.clone();
                return leaf(ExprKind::Name(name), span);
            }
            let (args, d) = args(b, k.expect(Rule::args)?, nest)?;
            let call = Call {
                receiver: Receiver::Implicit,
                name,
                args,
                target: None,
                span: span.clone(),
            };
            node(ExprKind::Call(Box::new(call)), span.clone(), d + 1, span)
        }
        Rule::new_expr => {
            k.expect(Rule::kw_new)?;
            // `new Object()` names the built-in class by its reserved word.
            let class = ident(&k.next()?);
            k.expect(Rule::lparen)?;
            let (args, d) = args(b, k.expect(Rule::args)?, nest)?;
            node(ExprKind::New { class, args }, span.clone(), d + 1, span)
        }
        Rule::new_array_expr => {
            k.expect(Rule::kw_new)?;
            let base_p = k.next()?;
            let base = base_type(&base_p).ok_or_else(|| internal(span.clone()))?;
            k.expect(Rule::lbrack)?;
            let size = built(b, k.expect(Rule::expr)?, nest + 1)?;
            let rb = k.expect(Rule::rbrack)?;
            let mut end = rb.as_span().end();
            let mut dims = 0;
            while let Some(d) = k.eat(Rule::array_dim) {
                end = d.as_span().end();
                dims += 1;
            }
            let elem = Type {
                kind: array_of(base, dims),
                span: base_p.as_span().start()..base_p.as_span().end(),
            };
            let span = span.start..end;
            let depth = size.depth + 1;
            let kind = ExprKind::NewArray {
                elem,
                size: Box::new(size.expr),
            };
            node(kind, span.clone(), depth, span)
        }
        Rule::paren_expr => {
            k.expect(Rule::lparen)?;
            let inner = built(b, k.expect(Rule::expr)?, nest + 1)?;
            Ok(Built {
                expr: Expr::new(inner.expr.kind, span),
                depth: inner.depth,
                chain: None,
            })
        }
        Rule::old_expr | Rule::acc_expr | Rule::untouched_expr => {
            k.next()?;
            k.expect(Rule::lparen)?;
            let inner = built(b, k.expect(Rule::expr)?, nest + 1)?;
            let e = Box::new(inner.expr);
            let kind = match rule {
                Rule::old_expr => ExprKind::Old(e),
                Rule::acc_expr => ExprKind::Acc(e),
                _ => ExprKind::Untouched(e),
            };
            node(kind, span.clone(), inner.depth + 1, span)
        }
        Rule::opening_expr | Rule::using_expr => {
            k.next()?;
            let target = postfix_expr(b, k.expect(Rule::postfix_expr)?, nest + 1)?;
            let target_depth = target.depth;
            let kw_in = k.expect(Rule::kw_in)?;
            let help = if rule == Rule::opening_expr {
                "`opening` takes a predicate instance, like `opening valid() in e`"
            } else {
                "`using` takes a pure method call, like `using p(x) in e`"
            };
            let call = match b.require_call(target, kw_in.as_span().start(), help)?.kind {
                ExprKind::Call(c) => c,
                _ => return Err(internal(span)),
            };
            let body = built(b, k.expect(Rule::expr)?, nest + 1)?;
            // The pair's span may end with blanks; the body's does not.
            let span = span.start..body.expr.span.end;
            let depth = 1 + target_depth.max(body.depth);
            let body = Box::new(body.expr);
            let kind = if rule == Rule::opening_expr {
                ExprKind::Opening(call, body)
            } else {
                ExprKind::Using(call, body)
            };
            node(kind, span.clone(), depth, span)
        }
        Rule::quant_expr => {
            let forall = k.next()?.as_rule() == Rule::kw_forall;
            let mut vars = Vec::new();
            let mut body = None;
            while let Ok(q) = k.next() {
                match q.as_rule() {
                    Rule::quant_var => {
                        let mut v = Kids::of(q);
                        let ty = b.ty(&v.expect(Rule::ty)?)?;
                        let name = ident(&v.expect(Rule::ident)?);
                        vars.push(Param { ty, name });
                    }
                    Rule::expr => body = Some(built(b, q, nest + 1)?),
                    _ => {}
                }
            }
            let body = body.ok_or_else(|| internal(span.clone()))?;
            let span = span.start..body.expr.span.end;
            let depth = 1 + body.depth;
            let q = Quant {
                forall,
                vars,
                body: body.expr,
            };
            node(ExprKind::Quant(Box::new(q)), span.clone(), depth, span)
        }
        _ => Err(internal(span)),
    }
}

fn prefix(op: P, rhs: Built) -> R<Built> {
    let op_span = span_of(&op);
    let span = op_span.start..rhs.expr.span.end;
    let target = Box::new(rhs.expr);
    let kind = match op.as_rule() {
        Rule::op_not => ExprKind::Unary(UnOp::Not, target),
        Rule::op_neg => ExprKind::Unary(UnOp::Neg, target),
        // The checker says which targets can be updated.
        Rule::op_pre_incr => ExprKind::PreStep(StepOp::Incr, target),
        Rule::op_pre_decr => ExprKind::PreStep(StepOp::Decr, target),
        _ => return Err(internal(op_span)),
    };
    node(kind, span, rhs.depth + 1, op_span)
}

fn postfix(b: &Builder, lhs: Built, op: P, nest: usize) -> R<Built> {
    let op_span = span_of(&op);
    let span = lhs.expr.span.start..op_span.end;
    let rule = op.as_rule();
    if let Some(step) = match rule {
        Rule::op_incr => Some(StepOp::Incr),
        Rule::op_decr => Some(StepOp::Decr),
        _ => None,
    } {
        // The checker says which targets can be updated.
        let kind = ExprKind::PostStep(step, Box::new(lhs.expr));
        return node(kind, span, lhs.depth + 1, op_span);
    }
    let mut k = Kids::of(op);
    if rule == Rule::index_suffix {
        k.expect(Rule::lbrack)?;
        let index = built(b, k.expect(Rule::expr)?, nest + 1)?;
        let depth = 1 + lhs.depth.max(index.depth);
        let kind = ExprKind::Index {
            arr: Box::new(lhs.expr),
            index: Box::new(index.expr),
            elem: None,
        };
        return node(kind, span, depth, op_span);
    }
    k.expect(Rule::dot)?;
    let name = ident(&k.expect(Rule::ident)?);
    match rule {
        Rule::call_suffix => {
            k.expect(Rule::lparen)?;
            let (args, d) = args(b, k.expect(Rule::args)?, nest)?;
            let depth = 1 + lhs.depth.max(d);
            let call = Call {
                receiver: Receiver::Expr(Box::new(lhs.expr)),
                name,
                args,
                target: None,
                span: span.clone(),
            };
            node(ExprKind::Call(Box::new(call)), span, depth, op_span)
        }
        Rule::field_suffix => {
            let kind = ExprKind::Field {
                recv: Box::new(lhs.expr),
                field: name,
                class: String::new(),
            };
            node(kind, span, lhs.depth + 1, op_span)
        }
        _ => Err(internal(op_span)),
    }
}

fn infix(b: &Builder, lhs: Built, op: P, rhs: Built, nest: usize) -> R<Built> {
    let op_span = span_of(&op);
    let span = lhs.expr.span.start..rhs.expr.span.end;
    let bin = match op.as_rule() {
        Rule::op_cond => {
            let mut k = Kids::of(op);
            k.expect(Rule::qmark)?;
            let mid = built(b, k.expect(Rule::expr)?, nest + 1)?;
            let depth = 1 + lhs.depth.max(mid.depth).max(rhs.depth);
            let kind = ExprKind::Cond(Box::new(lhs.expr), Box::new(mid.expr), Box::new(rhs.expr));
            return node(kind, span, depth, op_span);
        }
        Rule::op_implies => BinOp::Implies,
        Rule::op_or => BinOp::Or,
        Rule::op_and => BinOp::And,
        Rule::op_eq => BinOp::Eq,
        Rule::op_ne => BinOp::Ne,
        Rule::op_lt => BinOp::Lt,
        Rule::op_le => BinOp::Le,
        Rule::op_gt => BinOp::Gt,
        Rule::op_ge => BinOp::Ge,
        Rule::op_add => BinOp::Add,
        Rule::op_sub => BinOp::Sub,
        Rule::op_mul => BinOp::Mul,
        Rule::op_div => BinOp::Div,
        Rule::op_rem => BinOp::Mod,
        _ => return Err(internal(op_span)),
    };
    let comparison = matches!(bin, BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge);
    match (comparison, lhs.chain) {
        // `a < b < c` is `a < b && b < c`: the middle operand is shared.
        (true, Some(middle_depth)) => {
            let middle = last_operand(&lhs.expr).ok_or_else(|| internal(op_span.clone()))?;
            let cmp_span = middle.span.start..rhs.expr.span.end;
            let rhs_depth = rhs.depth;
            let cmp = node(
                ExprKind::Binary(bin, Box::new(middle), Box::new(rhs.expr)),
                cmp_span,
                1 + middle_depth.max(rhs_depth),
                op_span.clone(),
            )?;
            let depth = 1 + lhs.depth.max(cmp.depth);
            let mut and = node(
                ExprKind::Binary(BinOp::And, Box::new(lhs.expr), Box::new(cmp.expr)),
                span,
                depth,
                op_span,
            )?;
            and.chain = Some(rhs_depth);
            Ok(and)
        }
        _ => {
            let rhs_depth = rhs.depth;
            let depth = 1 + lhs.depth.max(rhs.depth);
            let kind = ExprKind::Binary(bin, Box::new(lhs.expr), Box::new(rhs.expr));
            let mut n = node(kind, span, depth, op_span)?;
            if comparison {
                n.chain = Some(rhs_depth);
            }
            Ok(n)
        }
    }
}

/// The right operand of the last comparison of a chain (a comparison, or an
/// `&&` of a chain and a comparison).
fn last_operand(e: &Expr) -> Option<Expr> {
    match &e.kind {
        ExprKind::Binary(BinOp::And, _, last) => last_operand(last),
        ExprKind::Binary(BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge, _, r) => {
            Some((**r).clone())
        }
        _ => None,
    }
}
