//! Calls of methods, pure methods and predicates, and object creation:
//! resolving the target and the receiver, checking the arguments, and
//! checking that the kind of member fits where the call stands.

use super::expr::Resolved;
use super::positions::{Clause, Form, Pos, mutator_in_expression};
use super::scope::suggest;
use super::table::{Member, Sig, arity_message, kind_noun};
use super::types::Ty;
use super::{Checker, error, mismatch};
use crate::syntax::ast::{Call, CallTarget, Expr, ExprKind, Ident, MemberKind, Receiver, Span};

/// Where a call stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Site {
    /// Inside an expression or assertion.
    Expr(Pos),
    /// `call;`
    Stmt,
    /// The whole right-hand side of `x = call;` or `T x = call;`.
    Rhs,
    Open,
    Close,
    Use,
    Opening,
    Using,
}

impl Site {
    fn keyword(self) -> &'static str {
        match self {
            Site::Open => "open",
            Site::Close => "close",
            Site::Use => "use",
            Site::Opening => "opening",
            Site::Using => "using",
            _ => "",
        }
    }
}

impl Checker {
    /// Resolves and checks a call; returns the type of its value.
    pub(super) fn call(&mut self, call: &mut Call, site: Site) -> Ty {
        let sig = self.resolve_call(call);
        let args: Vec<(Ty, Span)> = call
            .args
            .iter_mut()
            .map(|a| (self.expr(a, Pos::Value), a.span.clone()))
            .collect();
        let Some(sig) = sig else {
            return Ty::Err;
        };
        let what = format!("{} `{}`", sig.noun(), sig.name);
        self.check_args(&what, &sig.params, &args, call.span.clone());
        self.check_site(&sig, site, call.span.clone())
    }

    fn check_site(&mut self, sig: &Sig, site: Site, span: Span) -> Ty {
        let name = &sig.name;
        match (sig.kind, site) {
            (MemberKind::Method, Site::Stmt | Site::Rhs) => sig.ret.clone(),
            (MemberKind::Method, Site::Expr(_)) => {
                let d = mutator_in_expression(name, self.ctx.clause, span);
                self.report(d);
                Ty::Err
            }
            (MemberKind::Pure, Site::Expr(_) | Site::Rhs | Site::Use | Site::Using) => {
                sig.ret.clone()
            }
            (MemberKind::Pure, Site::Stmt) => {
                let d = error(span, format!("call of pure method `{name}` has no effect"))
                    .with_label("a pure call is not a statement")
                    .with_help(format!(
                        "to learn its definition, write `use ...{name}(...);`"
                    ));
                self.report(d);
                Ty::Err
            }
            (MemberKind::Predicate, Site::Open | Site::Close | Site::Opening) => Ty::Bool,
            (MemberKind::Predicate, Site::Expr(pos)) => {
                self.form(Form::Predicate(name), pos, span);
                Ty::Bool
            }
            (MemberKind::Predicate, Site::Stmt | Site::Rhs) => {
                if let Some(d) = super::positions::misplaced(
                    Form::Predicate(name),
                    Clause::Code,
                    Pos::Value,
                    span,
                ) {
                    self.report(d);
                }
                Ty::Err
            }
            (kind, Site::Open | Site::Close | Site::Opening) => {
                let kw = site.keyword();
                let d = error(span, format!("`{kw}` needs a predicate instance"))
                    .with_label(format!("`{name}` is a {}", kind_noun(kind)));
                let d = match (kind, site) {
                    (MemberKind::Pure, Site::Opening) => {
                        d.with_help("to learn a pure method's definition, use `using`")
                    }
                    (MemberKind::Pure, _) => {
                        d.with_help("to learn a pure method's definition, use `use`")
                    }
                    _ => d,
                };
                self.report(d);
                Ty::Err
            }
            (kind, Site::Use | Site::Using) => {
                let kw = site.keyword();
                let d = error(span, format!("`{kw}` needs a pure method call"))
                    .with_label(format!("`{name}` is a {}", kind_noun(kind)));
                let d = match (kind, site) {
                    (MemberKind::Predicate, Site::Using) => {
                        d.with_help("to unfold a predicate, use `opening`")
                    }
                    (MemberKind::Predicate, _) => d.with_help("to unfold a predicate, use `open`"),
                    _ => d,
                };
                self.report(d);
                Ty::Err
            }
            (MemberKind::Constructor, _) => Ty::Err,
        }
    }

    /// Argument count and types.
    pub(super) fn check_args(
        &mut self,
        what: &str,
        params: &[Ty],
        args: &[(Ty, Span)],
        span: Span,
    ) {
        if params.len() != args.len() {
            let d = error(span, arity_message(what, params.len(), args.len())).with_label(format!(
                "expected {} argument{}",
                params.len(),
                super::plural(params.len())
            ));
            self.report(d);
            return;
        }
        for (p, (t, s)) in params.iter().zip(args) {
            if !t.assignable_to(p) {
                let d = mismatch(p, t, s.clone())
                    .with_label(format!("expected `{p}` for this parameter of {what}"));
                self.report(d);
            }
        }
    }

    /// `new C(args)`: the class and its constructor.
    pub(super) fn new_object(&mut self, class: &Ident, args: &mut [Expr], span: Span) -> Ty {
        let tys: Vec<(Ty, Span)> = args
            .iter_mut()
            .map(|a| (self.expr(a, Pos::Value), a.span.clone()))
            .collect();
        let Some(info) = self.class_info(&class.name) else {
            let d = self.table.unknown_class(&class.name, class.span.clone());
            self.report(d);
            return Ty::Err;
        };
        let params = match info.ctor {
            Some(i) => info.methods[i].params.clone(),
            None => Vec::new(),
        };
        let what = format!("constructor `{}`", class.name);
        self.check_args(&what, &params, &tys, span);
        Ty::Class(class.name.clone())
    }

    /// Finds the member a call names, fills `call.target` and makes the
    /// receiver explicit (`this`) or a class where the source left it open.
    fn resolve_call(&mut self, call: &mut Call) -> Option<Sig> {
        let name = call.name.clone();
        let receiver = std::mem::replace(&mut call.receiver, Receiver::Implicit);
        match receiver {
            Receiver::Implicit => self.implicit_call(call, &name),
            Receiver::Class(c) => {
                call.receiver = Receiver::Class(c.clone());
                self.class_call(call, &c, &name)
            }
            Receiver::Expr(mut e) => {
                if let ExprKind::Name(n) | ExprKind::Var(n) = &e.kind {
                    let class = match self.lookup_name(&n.name) {
                        Resolved::Class => true,
                        Resolved::StaticField => self.table.class_index(&n.name).is_some(),
                        _ => false,
                    };
                    if class {
                        let c = n.clone();
                        call.receiver = Receiver::Class(c.clone());
                        return self.class_call(call, &c, &name);
                    }
                }
                let t = self.expr(&mut e, Pos::Value);
                call.receiver = Receiver::Expr(e);
                self.instance_call(call, &t, &name)
            }
        }
    }

    fn implicit_call(&mut self, call: &mut Call, name: &Ident) -> Option<Sig> {
        let cur = self.current();
        let class = cur.name.clone();
        let sig = match cur.member(&name.name) {
            Some(Member::Callable(sig)) => sig.clone(),
            Some(Member::Ambiguous) => return None,
            Some(Member::Field) => {
                self.not_callable(name, &class);
                return None;
            }
            None => {
                let mut d = error(
                    name.span.clone(),
                    format!("cannot find method `{}` in this scope", name.name),
                )
                .with_label(format!("not a method of `{class}`"));
                if let Some(s) = suggest(&name.name, cur.callable_names()) {
                    d = d.with_help(format!("did you mean `{s}`?"));
                }
                self.report(d);
                return None;
            }
        };
        call.target = Some(target(&class, &sig));
        if !sig.is_static {
            if self.ctx.is_static {
                let d = error(
                    name.span.clone(),
                    format!(
                        "cannot call instance {} `{}` from a static context",
                        sig.noun(),
                        name.name
                    ),
                )
                .with_label("there is no `this` in a static method")
                .with_help(format!("call it on an object: `o.{}(...)`", name.name));
                self.report(d);
            } else {
                let this = Expr::new(ExprKind::This, name.span.clone());
                call.receiver = Receiver::Expr(Box::new(this));
            }
        }
        Some(sig)
    }

    fn class_call(&mut self, call: &mut Call, class: &Ident, name: &Ident) -> Option<Sig> {
        let Some(info) = self.class_info(&class.name) else {
            let d = self.table.unknown_class(&class.name, class.span.clone());
            self.report(d);
            return None;
        };
        let cname = info.name.clone();
        let sig = self.member_sig(&cname, name)?;
        call.target = Some(target(&cname, &sig));
        if !sig.is_static {
            let d = error(
                name.span.clone(),
                format!(
                    "cannot call instance {} `{}` through class `{cname}`",
                    sig.noun(),
                    name.name
                ),
            )
            .with_label(format!("`{}` is not static", name.name))
            .with_help(format!("call it on an object: `o.{}(...)`", name.name));
            self.report(d);
        }
        Some(sig)
    }

    fn instance_call(&mut self, call: &mut Call, recv: &Ty, name: &Ident) -> Option<Sig> {
        let n = &name.name;
        let cname = match recv {
            Ty::Err => return None,
            Ty::Class(c) => c.clone(),
            Ty::Null => {
                let d = error(name.span.clone(), format!("cannot call `{n}` on `null`"))
                    .with_label("`null` has no methods");
                self.report(d);
                return None;
            }
            other => {
                let d = error(
                    name.span.clone(),
                    format!("no method `{n}` on type `{other}`"),
                )
                .with_label(format!("`{other}` is not a class type"));
                self.report(java_length_help(d, n));
                return None;
            }
        };
        let sig = self.member_sig(&cname, name)?;
        call.target = Some(target(&cname, &sig));
        if sig.is_static {
            let d = error(
                name.span.clone(),
                format!("static {} `{n}` called through an object", sig.noun()),
            )
            .with_label(format!("`{n}` is static"))
            .with_help(format!("call it through its class: `{cname}.{n}(...)`"));
            self.report(d);
        }
        Some(sig)
    }

    /// The callable member `name` of class `class`.
    fn member_sig(&mut self, class: &str, name: &Ident) -> Option<Sig> {
        let info = self.class_info(class)?;
        match info.member(&name.name) {
            Some(Member::Callable(sig)) => Some(sig.clone()),
            Some(Member::Ambiguous) => None,
            Some(Member::Field) => {
                self.not_callable(name, class);
                None
            }
            None => {
                let mut d = error(
                    name.span.clone(),
                    format!("no method `{}` in class `{class}`", name.name),
                )
                .with_label("unknown method");
                if let Some(s) = suggest(&name.name, info.callable_names()) {
                    d = d.with_help(format!("did you mean `{s}`?"));
                }
                self.report(java_length_help(d, &name.name));
                None
            }
        }
    }

    fn not_callable(&mut self, name: &Ident, class: &str) {
        let d = error(
            name.span.clone(),
            format!("`{}` is a field of `{class}`, not a method", name.name),
        )
        .with_label("not callable");
        self.report(d);
    }
}

fn target(class: &str, sig: &Sig) -> CallTarget {
    CallTarget {
        class: class.to_string(),
        kind: sig.kind,
        is_static: sig.is_static,
    }
}

/// Java's `s.length()`: Sift has no strings, and an array's length is a
/// field-like read.
fn java_length_help(d: crate::diag::Diagnostic, method: &str) -> crate::diag::Diagnostic {
    match method {
        "length" if d.help.is_none() => {
            d.with_help("an array's length is `a.length`, without `()` (Sift has no strings)")
        }
        // A Java collection's `size()`.
        "size" if d.help.is_none() => {
            d.with_help("an array's length is `a.length`, without `()` (Sift has no collections)")
        }
        _ => d,
    }
}
