//! Arrays in the checker (docs/language.md section 4.4): `T[]` types, `new T[e]`,
//! `a[i]`, `a.length`, `a[i] = e;` and `acc(a.elems)`. `length` and `elems`
//! stay ordinary identifiers: they mean something only after an array.

use super::positions::{Pos, new_in_expression};
use super::types::Ty;
use super::{Checker, error};
use crate::syntax::ast::{ARRAY_CLASS, Expr, ExprKind, Span, Type, TypeKind};

/// The syntax type of a checker type (for the element type the engine needs).
pub(super) fn type_kind(t: &Ty) -> Option<TypeKind> {
    match t {
        Ty::Int => Some(TypeKind::Int),
        Ty::Bool => Some(TypeKind::Bool),
        Ty::Class(c) => Some(TypeKind::Class(c.clone())),
        Ty::Array(e) => type_kind(e).map(|k| TypeKind::Array(Box::new(k))),
        Ty::Null | Ty::Void | Ty::Err => None,
    }
}

impl Checker {
    /// `new T[size]` where it may stand (the right-hand side of an
    /// assignment): the size is an `int`; the result is `T[]`.
    pub(super) fn new_array(&mut self, elem: &Type, size: &mut Expr) -> Ty {
        let et = self.table.resolve_type(elem, &mut self.diags);
        let st = self.expr(size, Pos::Value);
        self.expect(
            &st,
            &Ty::Int,
            size.span.clone(),
            "the size of an array must be an `int`",
        );
        if et.is_err() {
            return Ty::Err;
        }
        Ty::Array(Box::new(et))
    }

    /// `new T[size]` inside an expression: as for `new C()`, allowed only
    /// in code.
    pub(super) fn new_array_in_expression(
        &mut self,
        elem: &Type,
        size: &mut Expr,
        span: Span,
    ) -> Ty {
        if let Some(d) = new_in_expression(
            &format!("{}[]", elem.kind),
            &format!("new {}[...]", elem.kind),
            self.ctx.clause,
            self.step_ban,
            span,
        ) {
            self.report(d);
        }
        self.new_array(elem, size)
    }

    /// `a[i]`: `a` an array, `i` an `int`; records the element type.
    pub(super) fn index(
        &mut self,
        arr: &mut Expr,
        index: &mut Expr,
        elem: &mut Option<TypeKind>,
    ) -> Ty {
        let at = self.expr(arr, Pos::Value);
        let it = self.expr(index, Pos::Value);
        self.expect(
            &it,
            &Ty::Int,
            index.span.clone(),
            "an array index must be an `int`",
        );
        match at {
            Ty::Array(e) => {
                *elem = type_kind(&e);
                *e
            }
            Ty::Err => Ty::Err,
            other => {
                let d = error(
                    arr.span.clone(),
                    format!("cannot index into a value of type `{other}`"),
                )
                .with_label("not an array")
                .with_help("only arrays (`T[]`) can be indexed with `[i]`");
                self.report(d);
                Ty::Err
            }
        }
    }

    /// `e.f` where `e` is an array: `length` becomes `ExprKind::Length`;
    /// `elems` is reported (it only exists inside `acc`). `rt` is the type
    /// of the receiver, already checked.
    pub(super) fn array_member(&mut self, e: &mut Expr, rt: &Ty) -> Ty {
        let ExprKind::Field { recv, field, .. } = &mut e.kind else {
            return Ty::Err;
        };
        match field.name.as_str() {
            "length" => {
                let recv = std::mem::replace(recv, Box::new(Expr::new(ExprKind::Null, 0..0)));
                e.kind = ExprKind::Length(recv);
                Ty::Int
            }
            "elems" => {
                let d = error(
                    field.span.clone(),
                    "the elements of an array can only be named in `acc(a.elems)`",
                )
                .with_label("`elems` outside `acc`")
                .with_help("read an element with `a[i]`");
                self.report(d);
                Ty::Err
            }
            f => {
                let d = error(field.span.clone(), format!("no field `{f}` on type `{rt}`"))
                    .with_label("arrays have `length` and, in `acc`, `elems`");
                self.report(d);
                Ty::Err
            }
        }
    }

    /// `acc(a.elems)` with `a` an array: marks the access as the elements
    /// chunk. Returns false when `a` is not an array (checked as a field).
    pub(super) fn acc_elems(&mut self, a: &mut Expr) -> bool {
        let ExprKind::Field { recv, field, class } = &mut a.kind else {
            return false;
        };
        if field.name != "elems" {
            return false;
        }
        // Typing the receiver twice would report its errors twice: try it
        // on a copy, and keep the resolved tree only for an array.
        let mut probe = (**recv).clone();
        let quiet = self.diags.len();
        let t = self.expr(&mut probe, Pos::Value);
        self.diags.truncate(quiet);
        if !matches!(t, Ty::Array(_)) {
            return false;
        }
        self.expr(recv, Pos::Value);
        *class = ARRAY_CLASS.to_string();
        true
    }
}
