//! Statements: locals and their scopes, assignments, calls, control flow,
//! ghost statements, `return` and reachability (Java's rules: a statement
//! that cannot complete normally makes the next one unreachable, and a
//! non-void method's body must not complete normally).

use super::calls::Site;
use super::constant;
use super::expr::Resolved;
use super::positions::{Clause, Pos};
use super::scope::Local;
use super::steps::GHOST_EXPR;
use super::types::Ty;
use super::{Checker, Jumps, error};
use crate::syntax::ast::{Block, Expr, ExprKind, For, MemberKind, Span, Stmt, StmtKind};

/// Why a statement cannot complete normally.
#[derive(Clone, Copy)]
enum Ends {
    Return,
    Break,
    Continue,
    /// A loop whose condition is the constant `true`, which no `break`
    /// leaves.
    Loop,
    /// A `do` whose body never reaches the test, which no `break` leaves.
    DoBody,
    /// An `if` whose branches all cannot complete normally.
    Branches,
}

impl Ends {
    fn label(self) -> &'static str {
        match self {
            Ends::Return => "this statement follows a `return`",
            Ends::Break => "this statement follows a `break`",
            Ends::Continue => "this statement follows a `continue`",
            Ends::DoBody => "this statement follows a `do` whose body never reaches its test",
            Ends::Loop => "this statement follows a loop whose condition is always `true`",
            Ends::Branches => "no branch of the `if` before this statement goes on after it",
        }
    }
}

impl Checker {
    /// Checks a block in a scope of its own; true when it cannot complete
    /// normally (every path through it returns or loops forever).
    pub(super) fn block(&mut self, b: &mut Block) -> bool {
        self.scopes.push();
        let mut ended: Option<(Ends, Span)> = None;
        let mut reported = false;
        for s in b.stmts.iter_mut() {
            if let Some((why, at)) = &ended
                && !reported
            {
                let d = error(s.span.clone(), "unreachable statement")
                    .with_label(why.label())
                    .with_related(at.clone(), "execution never goes past this statement")
                    .with_help("remove it");
                self.report(d);
                reported = true;
            }
            let span = s.span.clone();
            if let Some(why) = self.stmt(s)
                && ended.is_none()
            {
                ended = Some((why, span));
            }
        }
        self.scopes.pop();
        ended.is_some()
    }

    /// Checks one statement; says why it cannot complete normally, if so.
    fn stmt(&mut self, s: &mut Stmt) -> Option<Ends> {
        self.ctx.clause = Clause::Code;
        self.field_assign_of_this(s);
        let stmt_span = s.span.clone();
        match &mut s.kind {
            StmtKind::Local { ty, name, init } => {
                let t = self.table.resolve_type(ty, &mut self.diags);
                if let Some(e) = init {
                    self.rhs(e, &t);
                }
                let local = Local {
                    name: name.name.clone(),
                    ty: t,
                    span: name.span.clone(),
                    decl: stmt_span,
                    param: false,
                };
                if let Err(prev) = self.scopes.declare(local) {
                    let d = error(
                        name.span.clone(),
                        format!("local `{}` is already defined", name.name),
                    )
                    .with_label(format!("`{}` redeclared here", name.name))
                    .with_related(prev, format!("previous declaration of `{}`", name.name))
                    .with_help("a local cannot shadow another local or a parameter; rename it");
                    self.report(d);
                }
            }
            StmtKind::Assign { target, value } => {
                let t = match self.lookup_name(&target.name) {
                    Resolved::Local(t) => {
                        self.bind(target);
                        t
                    }
                    // Turned into a `FieldAssign` above.
                    Resolved::Field(..) => Ty::Err,
                    Resolved::StaticField => {
                        self.static_field(target);
                        Ty::Err
                    }
                    Resolved::Class => {
                        let d = error(
                            target.span.clone(),
                            format!("cannot assign to class `{}`", target.name),
                        )
                        .with_label("not a variable");
                        self.report(d);
                        Ty::Err
                    }
                    Resolved::Unknown => {
                        self.unknown_value(target);
                        Ty::Err
                    }
                };
                self.rhs(value, &t);
            }
            StmtKind::FieldAssign { target, value } => {
                let t = match &target.kind {
                    ExprKind::Field { .. } => {
                        let t = self.expr(target, Pos::Value);
                        if matches!(target.kind, ExprKind::Length(_)) {
                            let d = error(target.span.clone(), "cannot assign to `length`")
                                .with_label("the length of an array is immutable");
                            self.report(d);
                        }
                        t
                    }
                    ExprKind::This => {
                        let d = error(target.span.clone(), "cannot assign to `this`")
                            .with_label("`this` is not a variable");
                        self.report(d);
                        Ty::Err
                    }
                    _ => {
                        self.expr(target, Pos::Value);
                        let d = error(target.span.clone(), "invalid left-hand side of assignment")
                            .with_label("cannot assign to this expression");
                        self.report(d);
                        Ty::Err
                    }
                };
                self.rhs(value, &t);
            }
            StmtKind::IndexAssign { target, value } => {
                let t = self.expr(target, Pos::Value);
                self.rhs(value, &t);
            }
            StmtKind::Call(e) => match &mut e.kind {
                ExprKind::Call(call) => {
                    self.call(call, Site::Stmt);
                }
                ExprKind::New { class, args } => {
                    let class = class.clone();
                    self.new_object(&class, args, e.span.clone());
                }
                _ => {
                    self.expr(e, Pos::Value);
                    let d = error(e.span.clone(), "expression is not a statement")
                        .with_label("only method calls can stand alone");
                    self.report(d);
                }
            },
            StmtKind::If { .. } => return self.if_chain(s),
            StmtKind::While {
                cond,
                invariants,
                body,
                body_first,
                ..
            } => {
                let keyword = if *body_first { "do" } else { "while" };
                self.condition(cond, keyword);
                for inv in invariants.iter_mut() {
                    self.assertion(inv, Clause::Invariant);
                }
                self.ctx.loops.push(Jumps::default());
                let body_ends = self.block(body);
                let jumps = self.ctx.loops.pop().unwrap_or_default();
                // Java's rules: only a constant `true` makes a loop endless,
                // unless a `break` leaves it; `while (b)` may always stop.
                // A `do` reaches its test only if its body can complete
                // normally (`continue` counts: it goes to the test).
                if jumps.broken {
                    return None;
                }
                if constant::is_true(cond) {
                    return Some(Ends::Loop);
                }
                if *body_first && body_ends && !jumps.continued {
                    return Some(Ends::DoBody);
                }
            }
            StmtKind::Break => {
                return match self.ctx.loops.last_mut() {
                    Some(jumps) => {
                        jumps.broken = true;
                        Some(Ends::Break)
                    }
                    None => {
                        self.outside_loop(stmt_span, "break");
                        None
                    }
                };
            }
            StmtKind::Continue => {
                return match self.ctx.loops.last_mut() {
                    Some(jumps) => {
                        jumps.continued = true;
                        Some(Ends::Continue)
                    }
                    None => {
                        self.outside_loop(stmt_span, "continue");
                        None
                    }
                };
            }
            StmtKind::Update { target, op, value } => self.update_stmt(target, *op, value.as_mut()),
            StmtKind::Chain { targets, value } => self.chain(targets, value),
            StmtKind::For(f) => return self.for_loop(f),
            StmtKind::Assert(e) => self.assertion(e, Clause::Assert),
            StmtKind::Join(e) => self.assertion(e, Clause::Join),
            StmtKind::Assume(e) => {
                self.ctx.clause = Clause::Assume;
                let t = self.expr(e, Pos::Value);
                self.expect(&t, &Ty::Bool, e.span.clone(), "`assume` takes a `bool`");
                self.ctx.clause = Clause::Code;
            }
            StmtKind::Return(value) => {
                self.ret(value.as_mut(), s.span.clone());
                return Some(Ends::Return);
            }
            StmtKind::Open(e) => self.ghost(e, Site::Open),
            StmtKind::Close(e) => self.ghost(e, Site::Close),
            StmtKind::Use(e) => self.ghost(e, Site::Use),
        }
        None
    }

    /// An `if` and its `else if` links, in a loop: a chain nests one `else`
    /// block per link, and may have many thousand links. It cannot complete
    /// normally when no branch can (an `if` without `else` always can).
    fn if_chain(&mut self, s: &mut Stmt) -> Option<Ends> {
        let mut all_end = true;
        let mut cur = s;
        loop {
            let StmtKind::If { cond, then, els } = &mut cur.kind else {
                return None;
            };
            self.condition(cond, "if");
            all_end &= self.block(then);
            let Some(b) = els else {
                return None;
            };
            if b.else_if().is_none() {
                all_end &= self.block(b);
                return all_end.then_some(Ends::Branches);
            }
            match b.else_if_mut() {
                Some(next) => cur = next,
                None => return None,
            }
        }
    }

    /// `f = e;` where `f` is a field of `this` becomes `this.f = e;`.
    fn field_assign_of_this(&mut self, s: &mut Stmt) {
        let StmtKind::Assign { target, value } = &mut s.kind else {
            return;
        };
        let Resolved::Field(class, _) = self.lookup_name(&target.name) else {
            return;
        };
        let this = Expr::new(ExprKind::This, target.span.clone());
        let field = Expr::new(
            ExprKind::Field {
                recv: Box::new(this),
                field: target.clone(),
                class,
            },
            target.span.clone(),
        );
        let value = std::mem::replace(value, Expr::new(ExprKind::Null, 0..0));
        s.kind = StmtKind::FieldAssign {
            target: field,
            value,
        };
    }

    /// The right-hand side of `x = e;`, `T x = e;`, `e.f = e;` or
    /// `a[i] = e;`, or the value of `return e;`: a call or `new` may stand
    /// here as a whole (lowering gives the last three a temporary).
    fn rhs(&mut self, e: &mut Expr, expected: &Ty) {
        self.rhs_for(e, expected, "");
    }

    /// `rhs`, with what the expected type is for.
    pub(super) fn rhs_for(&mut self, e: &mut Expr, expected: &Ty, why: &str) {
        let span = e.span.clone();
        let t = match &mut e.kind {
            ExprKind::Call(call) => {
                let t = self.call(call, Site::Rhs);
                if t == Ty::Void {
                    let d = error(
                        span.clone(),
                        format!("method `{}` does not return a value", call.name.name),
                    )
                    .with_label("this method is `void`")
                    .with_help("call it as a statement");
                    self.report(d);
                    return;
                }
                t
            }
            ExprKind::New { class, args } => {
                let class = class.clone();
                self.new_object(&class, args, span.clone())
            }
            ExprKind::NewArray { elem, size } => {
                let elem = elem.clone();
                self.new_array(&elem, size)
            }
            _ => self.expr(e, Pos::Value),
        };
        self.expect(&t, expected, span, why);
    }

    fn condition(&mut self, cond: &mut Expr, keyword: &str) {
        let t = self.expr(cond, Pos::Value);
        self.expect(
            &t,
            &Ty::Bool,
            cond.span.clone(),
            &format!("the condition of `{keyword}` must be a `bool`"),
        );
    }

    fn ret(&mut self, value: Option<&mut Expr>, span: crate::syntax::ast::Span) {
        let ret = self.ctx.ret.clone();
        match value {
            Some(e) if ret != Ty::Void => {
                self.rhs_for(e, &ret, &format!("the method returns `{ret}`"));
            }
            Some(e) => {
                self.expr(e, Pos::Value);
                let place = if self.ctx.kind == MemberKind::Constructor {
                    "a constructor"
                } else {
                    "a `void` method"
                };
                let d = error(
                    e.span.clone(),
                    format!("cannot return a value from {place}"),
                )
                .with_label("unexpected return value")
                .with_help("remove the value: `return;`");
                self.report(d);
            }
            None if ret != Ty::Void => {
                let d = error(span, "missing return value")
                    .with_label(format!("this method returns `{ret}`"))
                    .with_help("return a value: `return e;`");
                self.report(d);
            }
            None => {}
        }
    }

    /// `for (init; cond; update) invariant I; { body }`: `init` declares in
    /// a scope of the loop's own, which `update` sees and the body's block
    /// nests in.
    fn for_loop(&mut self, f: &mut For) -> Option<Ends> {
        self.scopes.push();
        if let Some(init) = &mut f.init {
            self.stmt(init);
        }
        self.condition(&mut f.cond, "for");
        for inv in f.invariants.iter_mut() {
            self.assertion(inv, Clause::Invariant);
        }
        self.ctx.loops.push(Jumps::default());
        self.block(&mut f.body);
        let broken = self.ctx.loops.pop().unwrap_or_default().broken;
        if let Some(update) = &mut f.update {
            self.stmt(update);
        }
        self.scopes.pop();
        (constant::is_true(&f.cond) && !broken).then_some(Ends::Loop)
    }

    fn outside_loop(&mut self, span: Span, keyword: &str) {
        let d = error(span, format!("`{keyword}` outside a loop"))
            .with_label(format!(
                "`{keyword}` must be inside a `while`, `for` or `do` body"
            ))
            .with_help("remove it, or return from the method with `return`");
        self.report(d);
    }

    /// `open`, `close` and `use`: the target must be a call of the right kind.
    fn ghost(&mut self, e: &mut Expr, site: Site) {
        self.banning(GHOST_EXPR, |c| c.ghost_target(e, site));
    }

    fn ghost_target(&mut self, e: &mut Expr, site: Site) {
        if let ExprKind::Call(call) = &mut e.kind {
            self.call(call, site);
            return;
        }
        self.expr(e, Pos::Value);
        let (kw, what) = match site {
            Site::Open => ("open", "a predicate instance"),
            Site::Close => ("close", "a predicate instance"),
            _ => ("use", "a pure method call"),
        };
        let d = error(e.span.clone(), format!("`{kw}` needs {what}")).with_label("not a call");
        self.report(d);
    }
}
