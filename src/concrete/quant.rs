//! Quantifiers, run concretely (docs/language.md section 4c): a quantifier
//! whose guard bounds each `int` variable below and above is checked by
//! trying every value in the bounds (`bool` variables take both values);
//! any other stops the run as "cannot check concretely".
//!
//! The guard is the left of a top-level `==>` or the leading conjuncts of
//! a top-level `&&`; its conjuncts `lo <= i`, `lo < i`, `i < hi`, `i <= hi`
//! (either way round) bound `i`. A bound may name another variable of the
//! same quantifier, plus or minus a literal (`i <= j` in
//! `0 <= i && i <= j && j < n`): the bounds are narrowed through such
//! links until they are all known. Every value that satisfies the guard
//! lies in the box so found, and outside the guard the body is `true` for
//! `forall` (`false` for `exists`), so trying the box decides it.

use std::collections::BTreeMap;

use super::eval::Env;
use super::{Machine, R, Stop, Value};
use crate::syntax::ast::{BinOp, Expr, ExprKind, Quant, Span, TypeKind};

/// A bound of a variable: a value of no bound variable, or another bound
/// variable plus a constant.
enum Bound<'e> {
    Expr(&'e Expr, i128),
    Var(String, i128),
}

/// One side of a variable: `Lower` for `lo <= i`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Lower,
    Upper,
}

/// The conjuncts of the guard of `body`.
fn guard(body: &Expr) -> Vec<&Expr> {
    let mut out = Vec::new();
    match &body.kind {
        ExprKind::Binary(BinOp::Implies, g, _) => conjuncts(g, &mut out),
        ExprKind::Binary(BinOp::And, _, _) => conjuncts(body, &mut out),
        _ => {}
    }
    out
}

fn conjuncts<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
    match &e.kind {
        ExprKind::Binary(BinOp::And, a, b) => {
            conjuncts(a, out);
            conjuncts(b, out);
        }
        _ => out.push(e),
    }
}

fn is_var(e: &Expr, name: &str) -> bool {
    matches!(&e.kind, ExprKind::Var(id) if id.name == name)
}

fn mentions(e: &Expr, name: &str) -> bool {
    let mut found = false;
    crate::syntax::walk::exprs(e, &mut |x| found |= is_var(x, name));
    found
}

/// `e` as a bound: another bound variable plus a literal, or an expression
/// mentioning no bound variable.
fn as_bound<'e>(e: &'e Expr, names: &[&str], shift: i128) -> Option<Bound<'e>> {
    let literal = |x: &Expr| match &x.kind {
        ExprKind::Int(d) => d.parse::<i128>().ok(),
        _ => None,
    };
    for n in names {
        if is_var(e, n) {
            return Some(Bound::Var((*n).to_string(), shift));
        }
    }
    if let ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub), a, b) = &e.kind
        && let Some(c) = literal(b)
        && names.iter().any(|n| is_var(a, n))
    {
        let c = if *op == BinOp::Add {
            c
        } else {
            c.checked_neg()?
        };
        return as_bound(a, names, shift.checked_add(c)?);
    }
    if names.iter().any(|n| mentions(e, n)) {
        return None;
    }
    Some(Bound::Expr(e, shift))
}

/// The bounds the conjunct `c` gives the variable `x` (inclusive).
fn bounds_of<'e>(c: &'e Expr, x: &str, names: &[&str]) -> Option<(Side, Bound<'e>)> {
    let ExprKind::Binary(op, a, b) = &c.kind else {
        return None;
    };
    // As `l op r` with op `<` or `<=`.
    let (l, r, strict) = match op {
        BinOp::Lt => (a, b, true),
        BinOp::Le => (a, b, false),
        BinOp::Gt => (b, a, true),
        BinOp::Ge => (b, a, false),
        _ => return None,
    };
    let gap = i128::from(strict);
    if is_var(l, x) && !mentions(r, x) {
        return Some((Side::Upper, as_bound(r, names, -gap)?));
    }
    if is_var(r, x) && !mentions(l, x) {
        return Some((Side::Lower, as_bound(l, names, gap)?));
    }
    None
}

impl Machine<'_> {
    /// The value of a quantifier, by enumeration.
    pub(super) fn eval_quant(&mut self, q: &Quant, span: &Span, env: Env) -> R<Value> {
        let names: Vec<&str> = q.vars.iter().map(|v| v.name.name.as_str()).collect();
        let guard = guard(&q.body);
        let mut ranges: BTreeMap<&str, (Option<i128>, Option<i128>)> = BTreeMap::new();
        let mut links = Vec::new();
        for v in &q.vars {
            let x = v.name.name.as_str();
            if v.ty.kind == TypeKind::Bool {
                ranges.insert(x, (Some(0), Some(1)));
                continue;
            }
            ranges.insert(x, (None, None));
            for c in &guard {
                match bounds_of(c, x, &names) {
                    Some((side, Bound::Expr(e, shift))) => {
                        let Value::Int(n) = self.eval(e, env)? else {
                            return Err(Stop::Unchecked(span.clone()));
                        };
                        let n = n.checked_add(shift).ok_or(Stop::Unchecked(span.clone()))?;
                        narrow(ranges.get_mut(x), side, n);
                    }
                    Some((side, Bound::Var(y, shift))) => links.push((x, side, y, shift)),
                    None => {}
                }
            }
        }
        // Each round carries every known bound one link further.
        for _ in 0..=names.len() {
            for (x, side, y, shift) in &links {
                let (lo, hi) = ranges.get(y.as_str()).copied().unwrap_or((None, None));
                let from = if *side == Side::Lower { lo } else { hi };
                if let Some(n) = from.and_then(|n| n.checked_add(*shift)) {
                    narrow(ranges.get_mut(x), *side, n);
                }
            }
        }
        let mut domains = Vec::new();
        for v in &q.vars {
            let x = v.name.name.as_str();
            match ranges.get(x) {
                Some((Some(lo), Some(hi))) => {
                    domains.push((x, v.ty.kind == TypeKind::Bool, *lo, *hi))
                }
                _ => return Err(Stop::Unchecked(span.clone())),
            }
        }
        let mut store = env.store.clone();
        let found = self.enumerate(q, &domains, &mut store, env)?;
        Ok(Value::Bool(found == q.forall))
    }

    /// Whether every point of `domains` makes the body true (`forall`), or
    /// some point does (`exists`): true when the search ran to its end
    /// without meeting the deciding value.
    fn enumerate(
        &mut self,
        q: &Quant,
        domains: &[(&str, bool, i128, i128)],
        store: &mut super::Store,
        env: Env,
    ) -> R<bool> {
        let Some(((x, boolean, lo, hi), rest)) = domains.split_first() else {
            let v = self.eval_bool(&q.body, env.with_store(store))?;
            // `forall`: go on while true; `exists`: go on while false.
            return Ok(v == q.forall);
        };
        let mut n = *lo;
        while n <= *hi {
            self.step()?;
            let value = if *boolean {
                Value::Bool(n != 0)
            } else {
                Value::Int(n)
            };
            store.insert((*x).to_string(), value);
            if !self.enumerate(q, rest, store, env)? {
                return Ok(false);
            }
            n += 1;
        }
        Ok(true)
    }
}

fn narrow(range: Option<&mut (Option<i128>, Option<i128>)>, side: Side, n: i128) {
    let Some((lo, hi)) = range else { return };
    match side {
        Side::Lower => *lo = Some(lo.map_or(n, |l| l.max(n))),
        Side::Upper => *hi = Some(hi.map_or(n, |h| h.min(n))),
    }
}
