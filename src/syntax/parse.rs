//! The pest parser and the builder of declarations and statements (the
//! expressions are built in `expr.rs`).

use pest::Parser as _;
use pest::iterators::{Pair, Pairs};
use pest_derive::Parser;

use crate::diag::Diagnostic;
use crate::syntax::ast::*;
use crate::syntax::error::{self, at_token, internal};
use crate::syntax::expr::{self, Built};
use crate::syntax::scan::{MAX_ELSE_IF, MAX_NESTING, chain_too_long, too_deep};

#[derive(Parser)]
#[grammar = "../lang/sift.pest"]
pub struct SiftParser;

pub type P<'i> = Pair<'i, Rule>;

/// `int`, `bool` or a class name (`base_ty`).
pub fn base_type(p: &P) -> Option<TypeKind> {
    match p.as_rule() {
        Rule::kw_int => Some(TypeKind::Int),
        Rule::kw_bool => Some(TypeKind::Bool),
        Rule::kw_object => Some(TypeKind::Class(OBJECT.to_string())),
        Rule::ident => Some(TypeKind::Class(p.as_str().to_string())),
        _ => None,
    }
}

/// `base` with `dims` array dimensions (`int` and 2: `int[][]`).
pub fn array_of(base: TypeKind, dims: usize) -> TypeKind {
    (0..dims).fold(base, |t, _| TypeKind::Array(Box::new(t)))
}
/// Whether an assignment may target `e` as parsed (a name, a field or an
/// element; the checker says which names are variables).
fn assignable(e: &Expr) -> bool {
    matches!(
        e.kind,
        ExprKind::Name(_) | ExprKind::Field { .. } | ExprKind::Index { .. }
    )
}

/// Errors are boxed: a `Diagnostic` is large, and results travel through
/// every level of the recursion.
pub type R<T> = Result<T, Box<Diagnostic>>;

pub fn span_of(p: &P) -> Span {
    let s = p.as_span();
    s.start()..s.end()
}

pub fn ident(p: &P) -> Ident {
    Ident {
        name: p.as_str().to_string(),
        span: span_of(p),
    }
}

/// The children of a pair, taken in order; running out or meeting an
/// unexpected rule is a bug of the grammar/builder pair, reported as an
/// internal error instead of a panic.
pub struct Kids<'i> {
    it: Pairs<'i, Rule>,
    span: Span,
}

impl<'i> Kids<'i> {
    pub fn of(p: P<'i>) -> Kids<'i> {
        let span = span_of(&p);
        Kids {
            it: p.into_inner(),
            span,
        }
    }

    pub fn next(&mut self) -> R<P<'i>> {
        self.it.next().ok_or_else(|| internal(self.span.clone()))
    }

    pub fn expect(&mut self, rule: Rule) -> R<P<'i>> {
        let p = self.next()?;
        if p.as_rule() == rule {
            Ok(p)
        } else {
            Err(internal(span_of(&p)))
        }
    }

    pub fn peek_rule(&self) -> Option<Rule> {
        self.it.peek().map(|p| p.as_rule())
    }

    /// Where the next child starts.
    pub fn peek_start(&self) -> Option<usize> {
        self.it.peek().map(|p| p.as_span().start())
    }

    /// The next child if it is a `rule`.
    pub fn eat(&mut self, rule: Rule) -> Option<P<'i>> {
        if self.peek_rule() == Some(rule) {
            self.it.next()
        } else {
            None
        }
    }
}

/// Parses a whole program (after `scan::prescan`).
pub fn program(src: &str) -> R<Program> {
    let mut pairs =
        SiftParser::parse(Rule::program, src).map_err(|e| Box::new(error::from_pest(src, &e)))?;
    let top = pairs.next().ok_or_else(|| internal(0..0))?;
    let b = Builder { src };
    let mut classes = Vec::new();
    for p in top.into_inner() {
        if p.as_rule() == Rule::class_decl {
            classes.push(b.class(p)?);
        }
    }
    Ok(Program {
        classes,
        bindings: Default::default(),
    })
}

pub struct Builder<'s> {
    pub src: &'s str,
}

/// Where a block stands: its nesting level (a method body is level 1) and
/// the number of `else if` links around it. The links are counted apart:
/// a chain is flat in the source, however deep its tree.
#[derive(Clone, Copy)]
pub(super) struct Depth {
    blocks: usize,
    links: usize,
}

impl Depth {
    /// A block directly inside this one, `links` more links away.
    pub(super) fn inner(self, links: usize) -> Depth {
        Depth {
            blocks: self.blocks + 1,
            links: self.links + links,
        }
    }
}

impl Builder<'_> {
    fn class(&self, p: P) -> R<Class> {
        let span = span_of(&p);
        let mut k = Kids::of(p);
        k.expect(Rule::kw_class)?;
        let name = ident(&k.expect(Rule::ident)?);
        k.expect(Rule::lbrace)?;
        let mut class = Class {
            name,
            fields: Vec::new(),
            methods: Vec::new(),
            pures: Vec::new(),
            predicates: Vec::new(),
            span,
        };
        while let Some(m) = k.eat(Rule::member) {
            let mut mk = Kids::of(m);
            let d = mk.next()?;
            match d.as_rule() {
                Rule::field_decl => class.fields.push(self.field(d)?),
                Rule::constructor => {
                    let m = self.constructor(d, &class.name.name)?;
                    class.methods.push(m);
                }
                Rule::method_decl => class.methods.push(self.method(d)?),
                Rule::pure_decl => class.pures.push(self.pure(d)?),
                Rule::predicate_decl => class.predicates.push(self.predicate(d)?),
                _ => return Err(internal(span_of(&d))),
            }
        }
        Ok(class)
    }

    pub(crate) fn ty(&self, p: &P) -> R<Type> {
        let span = span_of(p);
        let mut parts = p.clone().into_inner();
        let inner = parts.next().ok_or_else(|| internal(span.clone()))?;
        let base = base_type(&inner).ok_or_else(|| internal(span.clone()))?;
        // The pair may end with blanks (`array_dim*`): end at the last token.
        let mut end = inner.as_span().end();
        let mut dims = 0;
        for d in parts {
            end = d.as_span().end();
            dims += 1;
        }
        let span = span.start..end;
        Ok(Type {
            kind: array_of(base, dims),
            span,
        })
    }

    fn field(&self, p: P) -> R<Field> {
        let span = span_of(&p);
        let mut k = Kids::of(p);
        let ty = self.ty(&k.expect(Rule::ty)?)?;
        let name = ident(&k.expect(Rule::ident)?);
        Ok(Field { ty, name, span })
    }

    fn params(&self, p: P) -> R<Vec<Param>> {
        let mut out = Vec::new();
        for q in p.into_inner() {
            if q.as_rule() == Rule::param {
                let mut k = Kids::of(q);
                let ty = self.ty(&k.expect(Rule::ty)?)?;
                let name = ident(&k.expect(Rule::ident)?);
                out.push(Param { ty, name });
            }
        }
        Ok(out)
    }

    /// `( params )`: the parameters, from the `lparen` on.
    fn param_list(&self, k: &mut Kids) -> R<Vec<Param>> {
        k.expect(Rule::lparen)?;
        let params = self.params(k.expect(Rule::params)?)?;
        k.expect(Rule::rparen)?;
        Ok(params)
    }

    /// The expression of a `requires`, `ensures` or `invariant` clause.
    pub(super) fn clause(&self, p: P) -> R<Expr> {
        let mut k = Kids::of(p);
        k.next()?;
        expr::expr(self, k.expect(Rule::expr)?, 0)
    }

    /// The `invariant` clauses of a loop.
    pub(super) fn invariants(&self, k: &mut Kids) -> R<Vec<Expr>> {
        let mut out = Vec::new();
        while let Some(c) = k.eat(Rule::invariant_clause) {
            out.push(self.clause(c)?);
        }
        Ok(out)
    }

    /// Contract clauses and the body of a constructor or method.
    fn contract_and_body(&self, k: &mut Kids) -> R<(Vec<Expr>, Vec<Expr>, Block)> {
        let mut requires = Vec::new();
        let mut ensures = Vec::new();
        loop {
            if let Some(c) = k.eat(Rule::requires_clause) {
                requires.push(self.clause(c)?);
            } else if let Some(c) = k.eat(Rule::ensures_clause) {
                ensures.push(self.clause(c)?);
            } else {
                break;
            }
        }
        let top = Depth {
            blocks: 1,
            links: 0,
        };
        let body = self.block(k.expect(Rule::block)?, top)?;
        Ok((requires, ensures, body))
    }

    fn constructor(&self, p: P, class: &str) -> R<Method> {
        let span = span_of(&p);
        let mut k = Kids::of(p);
        let name = ident(&k.expect(Rule::ident)?);
        if name.name != class {
            return Err(at_token(
                self.src,
                k.peek_start().unwrap_or(name.span.end),
                "identifier",
                &format!(
                    "a constructor of `{class}` must be named `{class}`; a method needs a return type"
                ),
            ));
        }
        let params = self.param_list(&mut k)?;
        let (requires, ensures, body) = self.contract_and_body(&mut k)?;
        Ok(Method {
            name,
            is_static: false,
            is_constructor: true,
            ret: None,
            params,
            requires,
            ensures,
            body,
            span,
        })
    }

    fn method(&self, p: P) -> R<Method> {
        let span = span_of(&p);
        let mut k = Kids::of(p);
        let is_static = k.eat(Rule::kw_static).is_some();
        let ret = match k.eat(Rule::kw_void) {
            Some(_) => None,
            None => Some(self.ty(&k.expect(Rule::ty)?)?),
        };
        // `public A() { }`: a constructor with a modifier parses as a
        // method whose result type is the modifier.
        if let Some(Type {
            kind: TypeKind::Class(word),
            span,
        }) = &ret
            && crate::syntax::habits::is_modifier(word)
        {
            return Err(Box::new(crate::syntax::habits::modifier_error(
                word,
                span.clone(),
            )));
        }
        let name = ident(&k.expect(Rule::ident)?);
        let params = self.param_list(&mut k)?;
        let (requires, ensures, body) = self.contract_and_body(&mut k)?;
        Ok(Method {
            name,
            is_static,
            is_constructor: false,
            ret,
            params,
            requires,
            ensures,
            body,
            span,
        })
    }

    /// `{ return e; }` at the end of a pure method or predicate.
    fn return_body(&self, k: &mut Kids) -> R<Expr> {
        k.expect(Rule::lbrace)?;
        k.expect(Rule::kw_return)?;
        expr::expr(self, k.expect(Rule::expr)?, 0)
    }

    fn pure(&self, p: P) -> R<Pure> {
        let span = span_of(&p);
        let mut k = Kids::of(p);
        let is_static = k.eat(Rule::kw_static).is_some();
        k.expect(Rule::kw_pure)?;
        let ret = self.ty(&k.expect(Rule::ty)?)?;
        let name = ident(&k.expect(Rule::ident)?);
        let params = self.param_list(&mut k)?;
        let mut requires = Vec::new();
        while let Some(c) = k.eat(Rule::requires_clause) {
            requires.push(self.clause(c)?);
        }
        let decreases = match k.eat(Rule::decreases_clause) {
            Some(c) => Some(self.clause(c)?),
            None => None,
        };
        let body = self.return_body(&mut k)?;
        Ok(Pure {
            name,
            is_static,
            ret,
            params,
            requires,
            decreases,
            body,
            span,
        })
    }

    fn predicate(&self, p: P) -> R<Predicate> {
        let span = span_of(&p);
        let mut k = Kids::of(p);
        k.expect(Rule::kw_predicate)?;
        let name = ident(&k.expect(Rule::ident)?);
        let params = self.param_list(&mut k)?;
        let body = self.return_body(&mut k)?;
        Ok(Predicate {
            name,
            params,
            body,
            span,
        })
    }

    /// A block standing at `depth`.
    pub(super) fn block(&self, p: P, depth: Depth) -> R<Block> {
        let span = span_of(&p);
        // The prescan bounds the brackets already; this is a second line of
        // defence for the recursion below.
        if depth.blocks > MAX_NESTING {
            return Err(too_deep(span.start..span.start + 1).into());
        }
        let mut stmts = Vec::new();
        for s in p.into_inner() {
            if s.as_rule() == Rule::stmt {
                stmts.push(self.stmt(s, depth)?);
            }
        }
        Ok(Block { stmts, span })
    }

    fn stmt(&self, p: P, depth: Depth) -> R<Stmt> {
        let span = span_of(&p);
        let s = p
            .into_inner()
            .next()
            .ok_or_else(|| internal(span.clone()))?;
        let rule = s.as_rule();
        if rule == Rule::if_stmt {
            return self.if_stmt(s, depth);
        }
        let mut k = Kids::of(s);
        let kind = match rule {
            Rule::while_stmt => {
                k.expect(Rule::kw_while)?;
                let cond = self.paren_cond(&mut k)?;
                let invariants = self.invariants(&mut k)?;
                let body = self.block(k.expect(Rule::block)?, depth.inner(0))?;
                loop_stmt(cond, invariants, body, false)
            }
            Rule::do_stmt => {
                k.expect(Rule::kw_do)?;
                let body = self.block(k.expect(Rule::block)?, depth.inner(0))?;
                k.expect(Rule::kw_while)?;
                let cond = self.paren_cond(&mut k)?;
                let invariants = self.invariants(&mut k)?;
                loop_stmt(cond, invariants, body, true)
            }
            Rule::break_stmt => StmtKind::Break,
            Rule::continue_stmt => StmtKind::Continue,
            Rule::assert_stmt => StmtKind::Assert(self.keyword_expr(&mut k)?),
            Rule::assume_stmt => StmtKind::Assume(self.keyword_expr(&mut k)?),
            Rule::join_stmt => StmtKind::Join(self.keyword_expr(&mut k)?),
            Rule::return_stmt => {
                k.expect(Rule::kw_return)?;
                match k.eat(Rule::expr) {
                    Some(e) => StmtKind::Return(Some(expr::expr(self, e, 0)?)),
                    None => StmtKind::Return(None),
                }
            }
            Rule::open_stmt => StmtKind::Open(self.keyword_call(&mut k, "open")?),
            Rule::close_stmt => StmtKind::Close(self.keyword_call(&mut k, "close")?),
            Rule::use_stmt => StmtKind::Use(self.keyword_call(&mut k, "use")?),
            Rule::for_stmt => self.for_stmt(&mut k, depth)?,
            Rule::local_stmt => self.local_head(k.expect(Rule::local_head)?)?,
            Rule::simple_stmt => {
                let head = k.expect(Rule::simple_head)?;
                let semi = k.expect(Rule::semi)?;
                self.simple_head(head, semi.as_span().start())?
            }
            _ => return Err(internal(span)),
        };
        Ok(Stmt { kind, span })
    }

    /// `( e )` after `if` or `while`.
    fn paren_cond(&self, k: &mut Kids) -> R<Expr> {
        k.expect(Rule::lparen)?;
        let cond = expr::expr(self, k.expect(Rule::expr)?, 0)?;
        k.expect(Rule::rparen)?;
        Ok(cond)
    }

    /// `kw e ;`
    fn keyword_expr(&self, k: &mut Kids) -> R<Expr> {
        k.next()?;
        expr::expr(self, k.expect(Rule::expr)?, 0)
    }

    /// `open/close/use e.q(args) ;`
    fn keyword_call(&self, k: &mut Kids, kw: &str) -> R<Expr> {
        k.next()?;
        let target = expr::postfix_expr(self, k.expect(Rule::postfix_expr)?, 0)?;
        let semi = k.expect(Rule::semi)?;
        let what = if kw == "use" {
            "a pure method call, like `use p(x);`"
        } else {
            "a predicate instance, like `open valid();`"
        };
        self.require_call(
            target,
            semi.as_span().start(),
            &format!("`{kw}` takes {what}"),
        )
    }

    /// Checks that `b` is a call; otherwise reports the token at `next`.
    pub fn require_call(&self, b: Built, next: usize, help: &str) -> R<Expr> {
        match b.expr.kind {
            ExprKind::Call(_) => Ok(b.expr),
            ExprKind::Name(_) | ExprKind::Field { .. } => {
                Err(at_token(self.src, next, "`(`", help))
            }
            _ => Err(at_token(self.src, next, "`.`", help)),
        }
    }

    /// `T x` or `T x = e` (of a statement or a `for` header).
    pub(super) fn local_head(&self, p: P) -> R<StmtKind> {
        let mut k = Kids::of(p);
        let ty = self.ty(&k.expect(Rule::ty)?)?;
        let name = ident(&k.expect(Rule::ident)?);
        let init = match k.eat(Rule::assign) {
            Some(_) => Some(expr::expr(self, k.expect(Rule::expr)?, 0)?),
            None => None,
        };
        Ok(StmtKind::Local { ty, name, init })
    }

    /// `x = e`, `e.f = e`, `x op= e`, `x++` or `call`; `next` is where the
    /// token after it (`;` or `)`) starts.
    pub(super) fn simple_head(&self, p: P, next: usize) -> R<StmtKind> {
        let mut k = Kids::of(p);
        // `++x;`: the update `x += 1`, as `x++;`.
        let pre = match k.peek_rule() {
            Some(Rule::op_pre_incr) => Some(BinOp::Add),
            Some(Rule::op_pre_decr) => Some(BinOp::Sub),
            _ => None,
        };
        if let Some(op) = pre {
            k.next()?;
            let target = expr::postfix_expr(self, k.expect(Rule::postfix_expr)?, 0)?;
            return Ok(StmtKind::Update {
                target: target.expr,
                op,
                value: None,
            });
        }
        let lhs = expr::postfix_expr(self, k.expect(Rule::postfix_expr)?, 0)?;
        if k.peek_rule() == Some(Rule::chain_link) {
            return self.chain(lhs.expr, k);
        }
        if let Some(op) = crate::syntax::sugar::update_op(k.peek_rule()) {
            k.next()?;
            let value = expr::expr(self, k.expect(Rule::expr)?, 0)?;
            return Ok(StmtKind::Update {
                target: lhs.expr,
                op,
                value: Some(value),
            });
        }
        if let Some(eq) = k.eat(Rule::assign) {
            let value = expr::expr(self, k.expect(Rule::expr)?, 0)?;
            return match lhs.expr.kind {
                ExprKind::Name(target) => Ok(StmtKind::Assign { target, value }),
                ExprKind::Field { .. } => Ok(StmtKind::FieldAssign {
                    target: lhs.expr,
                    value,
                }),
                ExprKind::Index { .. } => Ok(StmtKind::IndexAssign {
                    target: lhs.expr,
                    value,
                }),
                _ => Err(self.not_assignable(&lhs.expr, eq.as_span().start())),
            };
        }
        match lhs.expr.kind {
            ExprKind::Call(_) => Ok(StmtKind::Call(lhs.expr)),
            // `x++;`: the update `x += 1`.
            ExprKind::PostStep(step, target) => Ok(StmtKind::Update {
                target: *target,
                op: step.bin_op(),
                value: None,
            }),
            ExprKind::New { .. } | ExprKind::NewArray { .. } => Err(at_token(
                self.src,
                next,
                "`=` or a method call",
                "assign the new object: `C x = new C(...);`",
            )),
            _ => Err(at_token(
                self.src,
                next,
                "`=` or a method call",
                "a statement that is an expression must be a method call, like `x.m();`",
            )),
        }
    }

    /// `x = y = ... = e` after its first target `first`: the links, then
    /// the last `=` and the value.
    fn chain(&self, first: Expr, mut k: Kids) -> R<StmtKind> {
        let mut targets = vec![first];
        while let Some(link) = k.eat(Rule::chain_link) {
            let mut lk = Kids::of(link);
            let eq = lk.expect(Rule::assign)?;
            if let Some(last) = targets.last().filter(|t| !assignable(t)) {
                return Err(self.not_assignable(last, eq.as_span().start()));
            }
            let t = expr::postfix_expr(self, lk.expect(Rule::postfix_expr)?, 0)?;
            targets.push(t.expr);
        }
        let eq = k.expect(Rule::assign)?;
        if let Some(last) = targets.last().filter(|t| !assignable(t)) {
            return Err(self.not_assignable(last, eq.as_span().start()));
        }
        let value = expr::expr(self, k.expect(Rule::expr)?, 0)?;
        Ok(StmtKind::Chain { targets, value })
    }

    /// The error for `lhs = ...` where `lhs` cannot be assigned; `eq` is
    /// where its `=` starts.
    fn not_assignable(&self, lhs: &Expr, eq: usize) -> Box<Diagnostic> {
        let (span, _) = crate::syntax::scan::token_at(self.src, eq);
        Box::new(
            Diagnostic::new(
                crate::diag::Kind::Parse,
                span,
                "invalid left-hand side of assignment",
            )
            .with_label("cannot assign to this")
            .with_related(lhs.span.clone(), "this is not a variable or a field")
            .with_help("only a variable `x`, a field `e.f` or an element `a[i]` can be assigned"),
        )
    }

    /// `if (c) {..} else if (c) {..} ... else {..}`: the chain is a flat
    /// repetition in the grammar and nested `else` blocks in the tree, built
    /// bottom up without recursion.
    fn if_stmt(&self, p: P, depth: Depth) -> R<Stmt> {
        // The pair's span may end with blanks: end at the last block.
        let end = p
            .clone()
            .into_inner()
            .last()
            .map_or(span_of(&p).end, |q| q.as_span().end());
        let span = span_of(&p).start..end;
        let mut links: Vec<(usize, Expr, Block)> = Vec::new();
        let mut els: Option<Block> = None;
        let mut k = Kids::of(p);
        let kw = k.expect(Rule::kw_if)?;
        let cond = self.paren_cond(&mut k)?;
        let then = self.block(k.expect(Rule::block)?, depth.inner(0))?;
        links.push((kw.as_span().start(), cond, then));
        while let Some(e) = k.eat(Rule::else_if) {
            let mut ek = Kids::of(e);
            let kw_else = ek.expect(Rule::kw_else)?;
            let kw = ek.expect(Rule::kw_if)?;
            if depth.links + links.len() > MAX_ELSE_IF {
                let span = kw_else.as_span().start()..kw.as_span().end();
                return Err(chain_too_long(span).into());
            }
            let cond = self.paren_cond(&mut ek)?;
            let then = self.block(ek.expect(Rule::block)?, depth.inner(links.len()))?;
            links.push((kw.as_span().start(), cond, then));
        }
        if let Some(e) = k.eat(Rule::else_block) {
            let mut ek = Kids::of(e);
            ek.expect(Rule::kw_else)?;
            let inner = depth.inner(links.len() - 1);
            els = Some(self.block(ek.expect(Rule::block)?, inner)?);
        }
        while let Some((start, cond, then)) = links.pop() {
            let kind = StmtKind::If { cond, then, els };
            if links.is_empty() {
                return Ok(Stmt { kind, span });
            }
            let inner = start..span.end;
            els = Some(Block {
                stmts: vec![Stmt {
                    kind,
                    span: inner.clone(),
                }],
                span: inner,
            });
        }
        Err(internal(span))
    }
}

/// A `while` loop, or a `do` loop (`body_first`); no statements run
/// before its test yet (the lowering puts a condition's updates there).
fn loop_stmt(cond: Expr, invariants: Vec<Expr>, body: Block, body_first: bool) -> StmtKind {
    let pre = Block {
        stmts: Vec::new(),
        span: cond.span.clone(),
    };
    StmtKind::While {
        cond,
        invariants,
        body,
        pre,
        body_first,
    }
}
