//! Expressions and assertions: names, fields, operators, `old`, `result`,
//! `acc`, `untouched`, `opening` and `using`.

use super::calls::Site;
use super::positions::{Form, Pos, misplaced, misplaced_old, new_in_expression};
use super::scope::suggest;
use super::steps::GHOST_EXPR;
use super::types::Ty;
use super::{Checker, error, mismatch};
use crate::syntax::ast::{BinOp, Expr, ExprKind, Ident, MemberKind, Span, UnOp};

/// What a bare name denotes.
pub(super) enum Resolved {
    Local(Ty),
    /// A field of `this`: the declaring class and the field's type.
    Field(String, Ty),
    /// A field of the current class, used where there is no `this`.
    StaticField,
    Class,
    Unknown,
}

impl Checker {
    /// Types `e` (resolving it in place); `pos` says whether `e` stands at
    /// an assertion position.
    pub(super) fn expr(&mut self, e: &mut Expr, pos: Pos) -> Ty {
        let span = e.span.clone();
        match &mut e.kind {
            ExprKind::Int(_) => Ty::Int,
            ExprKind::Bool(_) => Ty::Bool,
            ExprKind::Null => Ty::Null,
            ExprKind::This => self.this_ty(span),
            ExprKind::Result => self.result_ty(span),
            ExprKind::Name(id) | ExprKind::Var(id) => {
                let id = id.clone();
                self.name(e, id)
            }
            ExprKind::Field { recv, field, class } => {
                let rt = self.expr(recv, Pos::Value);
                if matches!(rt, Ty::Array(_)) {
                    return self.array_member(e, &rt);
                }
                match self.field_of(&rt, field) {
                    Some((c, t)) => {
                        *class = c;
                        t
                    }
                    None => Ty::Err,
                }
            }
            ExprKind::Call(call) => self.call(call, Site::Expr(pos)),
            ExprKind::New { class, args } => {
                if let Some(d) = new_in_expression(
                    &class.name,
                    &format!("new {}(...)", class.name),
                    self.ctx.clause,
                    self.step_ban,
                    span.clone(),
                ) {
                    self.report(d);
                }
                let class = class.clone();
                self.new_object(&class, args, span)
            }
            ExprKind::NewArray { elem, size } => {
                let elem = elem.clone();
                self.new_array_in_expression(&elem, size, span)
            }
            ExprKind::Index { arr, index, elem } => self.index(arr, index, elem),
            // Already checked (`array_member`).
            ExprKind::Length(_) => Ty::Int,
            ExprKind::Unary(op, a) => {
                let (want, sym) = match op {
                    UnOp::Not => (Ty::Bool, "!"),
                    UnOp::Neg => (Ty::Int, "-"),
                };
                let t = self.expr(a, Pos::Value);
                self.expect(
                    &t,
                    &want,
                    a.span.clone(),
                    &format!("`{sym}` needs an operand of type `{want}`"),
                );
                want
            }
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b, pos, span),
            ExprKind::Cond(c, a, b) => {
                let tc = self.expr(c, Pos::Value);
                self.expect(
                    &tc,
                    &Ty::Bool,
                    c.span.clone(),
                    "the condition of `?:` must be a `bool`",
                );
                let ta = self.expr(a, pos);
                let tb = self.expr(b, pos);
                match ta.join(&tb) {
                    Some(t) => t,
                    None => {
                        let d = error(
                            span,
                            format!("`?:` branches have incompatible types `{ta}` and `{tb}`"),
                        )
                        .with_label("the branches must have the same type")
                        .with_related(a.span.clone(), format!("this is `{ta}`"))
                        .with_related(b.span.clone(), format!("this is `{tb}`"));
                        self.report(d);
                        Ty::Err
                    }
                }
            }
            ExprKind::Old(a) => {
                if let Some(d) = misplaced_old(self.ctx.clause, span) {
                    self.report(d);
                }
                self.expr(a, Pos::Value)
            }
            ExprKind::Opening(call, body) => self.banning(GHOST_EXPR, |c| {
                c.call(call, Site::Opening);
                c.expr(body, Pos::Value)
            }),
            ExprKind::Using(call, body) => self.banning(GHOST_EXPR, |c| {
                c.call(call, Site::Using);
                c.expr(body, Pos::Value)
            }),
            ExprKind::PostStep(op, target) => self.step_expr(*op, false, target, span),
            ExprKind::PreStep(op, target) => self.step_expr(*op, true, target, span),
            // Made by the lowering, after checking.
            ExprKind::Int32(a) => self.expr(a, pos),
            ExprKind::Quant(q) => self.quant(q, span),
            ExprKind::Acc(a) => {
                self.form(Form::Acc, pos, span);
                self.acc_arg(a);
                Ty::Bool
            }
            ExprKind::Untouched(a) => {
                let reported = self.form(Form::Untouched, pos, span);
                if reported {
                    self.quiet_forms += 1;
                }
                let t = self.expr(a, Pos::Assertion);
                if reported {
                    self.quiet_forms -= 1;
                }
                self.expect(
                    &t,
                    &Ty::Bool,
                    a.span.clone(),
                    "`untouched` takes an assertion",
                );
                Ty::Bool
            }
        }
    }

    /// Reports an assertion form at a place where it is not allowed; true
    /// when it did.
    pub(super) fn form(&mut self, form: Form<'_>, pos: Pos, span: Span) -> bool {
        if self.quiet_forms > 0 {
            return false;
        }
        match misplaced(form, self.ctx.clause, pos, span) {
            Some(d) => {
                self.report(d);
                true
            }
            None => false,
        }
    }

    fn this_ty(&mut self, span: Span) -> Ty {
        if self.ctx.is_static {
            let d = error(span, "`this` is not available in a static context")
                .with_label("there is no `this` in a static method")
                .with_help(
                    "remove `static` from the method, or use an object passed as a parameter",
                );
            self.report(d);
            return Ty::Err;
        }
        Ty::Class(self.current().name.clone())
    }

    fn result_ty(&mut self, span: Span) -> Ty {
        if self.ctx.clause == super::Clause::Ensures && self.ctx.ret != Ty::Void {
            return self.ctx.ret.clone();
        }
        let label = if self.ctx.clause != super::Clause::Ensures {
            format!("`result` {}", self.ctx.clause.place())
        } else if self.ctx.kind == MemberKind::Constructor {
            "a constructor returns no value".to_string()
        } else {
            "this method returns no value".to_string()
        };
        let d = error(
            span,
            "`result` is only allowed in postconditions of methods that return a value",
        )
        .with_label(label);
        self.report(d);
        Ty::Err
    }

    /// Records what the local or parameter `id` refers to.
    pub(super) fn bind(&mut self, id: &Ident) {
        if let Some(l) = self.scopes.lookup(&id.name) {
            let binding = crate::syntax::ast::Binding {
                param: l.param,
                name: l.span.clone(),
                decl: l.decl.clone(),
            };
            self.bindings.insert(id.span.start, binding);
        }
    }

    /// What the bare name `name` denotes here.
    pub(super) fn lookup_name(&self, name: &str) -> Resolved {
        if let Some(l) = self.scopes.lookup(name) {
            return Resolved::Local(l.ty.clone());
        }
        let cur = self.current();
        if let Some(t) = cur.field(name) {
            return if self.ctx.is_static {
                Resolved::StaticField
            } else {
                Resolved::Field(cur.name.clone(), t)
            };
        }
        if self.table.class_index(name).is_some() {
            return Resolved::Class;
        }
        Resolved::Unknown
    }

    /// Resolves a bare name used as a value: a local becomes `Var`, a field
    /// of `this` becomes `this.f`.
    fn name(&mut self, e: &mut Expr, id: Ident) -> Ty {
        match self.lookup_name(&id.name) {
            Resolved::Local(t) => {
                self.bind(&id);
                e.kind = ExprKind::Var(id);
                t
            }
            Resolved::Field(class, t) => {
                let this = Expr::new(ExprKind::This, id.span.clone());
                e.kind = ExprKind::Field {
                    recv: Box::new(this),
                    field: id,
                    class,
                };
                t
            }
            Resolved::StaticField => {
                self.static_field(&id);
                Ty::Err
            }
            Resolved::Class => {
                let d = error(
                    id.span.clone(),
                    format!("expected value, found class `{}`", id.name),
                )
                .with_label("not a value");
                self.report(d);
                Ty::Err
            }
            Resolved::Unknown => {
                self.unknown_value(&id);
                Ty::Err
            }
        }
    }

    pub(super) fn static_field(&mut self, id: &Ident) {
        let d = error(
            id.span.clone(),
            format!("field `{}` cannot be used in a static context", id.name),
        )
        .with_label("there is no `this` in a static method")
        .with_help(format!("read it from an object: `o.{}`", id.name));
        self.report(d);
    }

    pub(super) fn unknown_value(&mut self, id: &Ident) {
        // `System.out.println(...)`, `System.exit(...)`.
        if id.name == "System" {
            let d = error(id.span.clone(), "`System` is not Sift")
                .with_label("Java's standard library")
                .with_help(
                    "Sift programs have no input or output: state what a value must be with `assert`, or run the method with `sift run` to see its result",
                );
            return self.report(d);
        }
        let mut d = error(
            id.span.clone(),
            format!("cannot find value `{}` in this scope", id.name),
        )
        .with_label("not found in this scope");
        if let Some(l) = self.scopes.ended(&id.name) {
            d = d
                .with_related(l.span.clone(), format!("`{}` is declared here", id.name))
                .with_note(format!(
                    "the block declaring `{}` has already ended",
                    id.name
                ));
        } else {
            let fields: Vec<&str> = if self.ctx.is_static {
                Vec::new()
            } else {
                self.current().field_names().collect()
            };
            let candidates = self.scopes.names().chain(fields);
            if let Some(s) = suggest(&id.name, candidates) {
                d = d.with_help(format!("did you mean `{s}`?"));
            }
        }
        self.report(d);
    }

    /// The declaring class and type of field `field` of a value of type `rt`.
    pub(super) fn field_of(&mut self, rt: &Ty, field: &Ident) -> Option<(String, Ty)> {
        let f = &field.name;
        let d = match rt {
            Ty::Err => return None,
            Ty::Class(c) => {
                let info = self.class_info(c)?;
                if let Some(t) = info.field(f) {
                    return Some((c.clone(), t));
                }
                let d = error(field.span.clone(), format!("no field `{f}` on type `{c}`"))
                    .with_label("unknown field");
                if info.member(f).is_some() {
                    d.with_help(format!(
                        "`{f}` is a method of `{c}`: call it with `{f}(...)`"
                    ))
                } else if let Some(s) = suggest(f, info.field_names()) {
                    d.with_help(format!("did you mean `{s}`?"))
                } else {
                    d
                }
            }
            Ty::Null => error(
                field.span.clone(),
                format!("cannot read field `{f}` of `null`"),
            )
            .with_label("`null` has no fields"),
            _ => error(field.span.clone(), format!("no field `{f}` on type `{rt}`"))
                .with_label(format!("`{rt}` is not a class type")),
        };
        self.report(d);
        None
    }

    fn acc_arg(&mut self, a: &mut Expr) {
        if self.acc_elems(a) {
            return;
        }
        let t = self.expr(a, Pos::Value);
        if t.is_err() || matches!(a.kind, ExprKind::Field { .. }) {
            return;
        }
        let label = match &a.kind {
            ExprKind::Var(id) => format!("`{}` is a local variable", id.name),
            _ => "not a field access".to_string(),
        };
        let d = error(a.span.clone(), "`acc` needs a field access")
            .with_label(label)
            .with_help("write `acc(e.f)` for a field `f` of an object `e`, or `acc(a.elems)` for the elements of an array `a`");
        self.report(d);
    }

    fn binary(&mut self, op: BinOp, a: &mut Expr, b: &mut Expr, pos: Pos, span: Span) -> Ty {
        let sym = op.symbol();
        let (pa, pb) = match op {
            BinOp::And => (pos, pos),
            BinOp::Implies => (Pos::Value, pos),
            _ => (Pos::Value, Pos::Value),
        };
        let ta = self.expr(a, pa);
        let tb = self.expr(b, pb);
        let (operand, result) = match op {
            BinOp::And | BinOp::Or | BinOp::Implies => (Ty::Bool, Ty::Bool),
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => (Ty::Int, Ty::Bool),
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Mod => (Ty::Int, Ty::Int),
            BinOp::Eq | BinOp::Ne => {
                if !ta.comparable(&tb) {
                    let d = error(
                        span,
                        format!("cannot compare `{ta}` with `{tb}` using `{sym}`"),
                    )
                    .with_label("operands of incompatible types")
                    .with_related(a.span.clone(), format!("this is `{ta}`"))
                    .with_related(b.span.clone(), format!("this is `{tb}`"));
                    self.report(d);
                }
                return Ty::Bool;
            }
        };
        let label = format!("`{sym}` needs operands of type `{operand}`");
        for (t, e) in [(&ta, &*a), (&tb, &*b)] {
            if !t.assignable_to(&operand) {
                let d = mismatch(&operand, t, e.span.clone()).with_label(label.clone());
                self.report(d);
            }
        }
        result
    }
}
