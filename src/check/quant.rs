//! Quantifiers in the checker (docs/language.md section 4c): where they may
//! stand, their bound variables, and the terms Sift instantiates them from.
//!
//! The engine gives Z3 a quantifier with the array reads and pure calls of
//! its body as the trigger (`symbolic::quant`). A bound variable that none
//! of them mentions could only be instantiated by guessing, so it is
//! rejected here, where the program can still be changed.

use std::collections::BTreeSet;

use super::positions::{Clause, Pos};
use super::scope::Local;
use super::types::Ty;
use super::{Checker, error};
use crate::syntax::ast::{Expr, ExprKind, MemberKind, Quant, Span};
use crate::syntax::walk;

impl Checker {
    /// `forall T x, ... :: body` / `exists ...`: a `bool`.
    pub(super) fn quant(&mut self, q: &mut Quant, span: Span) -> Ty {
        let word = q.word();
        if matches!(self.ctx.clause, Clause::Code) {
            let d = error(span.clone(), format!("`{word}` is not allowed in code"))
                .with_label("a quantifier inside a statement's expression")
                .with_help(
                    "state it in an `assert`, `assume`, loop invariant or contract, or compute it with a loop",
                );
            self.report(d);
        }
        self.scopes.push();
        let mut typed = true;
        for v in &q.vars {
            let t = self.table.resolve_type(&v.ty, &mut self.diags);
            typed &= matches!(t, Ty::Int | Ty::Bool);
            if !matches!(t, Ty::Int | Ty::Bool | Ty::Err) {
                let d = error(
                    v.ty.span.clone(),
                    format!(
                        "the bound variable `{}` must be an `int` or a `bool`",
                        v.name.name
                    ),
                )
                .with_label(format!("`{t}` cannot be quantified over"))
                .with_help(
                    "quantify over indices instead: `forall int i :: 0 <= i < a.length ==> ...`",
                );
                self.report(d);
            }
            let local = Local {
                name: v.name.name.clone(),
                ty: t,
                span: v.name.span.clone(),
                decl: v.ty.span.start..v.name.span.end,
                param: false,
            };
            if let Err(prev) = self.scopes.declare(local) {
                let d = error(
                    v.name.span.clone(),
                    format!("`{}` is already defined", v.name.name),
                )
                .with_label(format!("`{}` redeclared here", v.name.name))
                .with_related(prev, format!("previous declaration of `{}`", v.name.name))
                .with_help("a bound variable cannot shadow a local, a parameter or another bound variable; rename it");
                self.report(d);
            }
        }
        let t = self.expr(&mut q.body, Pos::Value);
        self.expect(
            &t,
            &Ty::Bool,
            q.body.span.clone(),
            &format!("the body of `{word}` must be a `bool`"),
        );
        self.scopes.pop();
        if typed && !t.is_err() {
            self.triggers(q, span);
        }
        Ty::Bool
    }

    /// Every bound variable must occur in an array read or a pure call of
    /// the body that mentions no variable bound further in.
    fn triggers(&mut self, q: &Quant, span: Span) {
        let mentioned = trigger_vars(q);
        for v in &q.vars {
            if mentioned.contains(v.name.name.as_str()) {
                continue;
            }
            let name = &v.name.name;
            let d = error(span.clone(), format!("no term mentions `{name}`"))
                .with_label(format!(
                    "`{name}` occurs in no array read or pure method call of the body"
                ))
                .with_related(v.name.span.clone(), format!("`{name}` is bound here"))
                .with_help(format!(
                    "Sift uses a quantified fact through the array reads (`a[i]`) and pure method calls in its body that mention its variables; \
                     mention `{name}` in one of them (a pure method can state the property of `{name}`), or drop `{name}`"
                ));
            self.report(d);
            break;
        }
    }
}

/// The bound variables of `q` that occur in a candidate trigger term.
fn trigger_vars(q: &Quant) -> BTreeSet<&str> {
    let bound: BTreeSet<&str> = q.vars.iter().map(|v| v.name.name.as_str()).collect();
    let mut inner = BTreeSet::new();
    walk::exprs(&q.body, &mut |e| {
        if let ExprKind::Quant(nested) = &e.kind {
            inner.extend(nested.vars.iter().map(|v| v.name.name.clone()));
        }
    });
    let mut out = BTreeSet::new();
    walk::exprs(&q.body, &mut |e| {
        if !is_trigger_term(e) {
            return;
        }
        let vars = vars_of(e);
        if vars.iter().any(|v| inner.contains(v)) {
            return;
        }
        for v in vars {
            if let Some(b) = bound.get(v.as_str()) {
                out.insert(*b);
            }
        }
    });
    out
}

/// An array read or a pure method call.
pub(super) fn is_trigger_term(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Index { elem, .. } => elem.is_some(),
        ExprKind::Call(c) => c
            .target
            .as_ref()
            .is_some_and(|t| t.kind == MemberKind::Pure),
        _ => false,
    }
}

/// The names of the local variables occurring in `e`.
fn vars_of(e: &Expr) -> Vec<String> {
    let mut out = Vec::new();
    walk::exprs(e, &mut |x| {
        if let ExprKind::Var(id) = &x.kind {
            out.push(id.name.clone());
        }
    });
    out
}
