//! Sequence values (`seq<T>`, issue 23) as terms of Z3's
//! sequence theory over snapshots, `(Seq Snap)`: one sort serves every
//! element type, each element wrapped as a snapshot (`fromInt`, ...) like
//! an array's elements. Z3 decides the laws users rely on without help
//! (length of a concatenation, indexing into either part, slices of slices,
//! extensionality), which axioms over an uninterpreted sort would only
//! approximate through triggers.
//!
//! Indexing outside `0 <= i < length` and slices outside
//! `0 <= i <= j <= length` are Z3's unspecified values: the verifier proves
//! bounds before it builds such a term, so they never matter.

use super::{Op, Sort, Term};

/// The operations; their arguments are listed with each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ListOp {
    /// `[]` (no arguments).
    Empty,
    /// `[e]` (`e` a snapshot).
    Unit,
    /// `s + t`.
    Concat,
    /// `s.length` (an `Int`).
    Len,
    /// `s[i]` (a snapshot).
    At,
    /// The `n` elements from `i`: `s, i, n`.
    Extract,
    /// Whether the snapshot `e` is an element: `s, e`.
    Contains,
}

impl ListOp {
    /// The SMT-LIB function; `Contains` is applied to `(seq.unit e)`.
    pub fn smtlib(self) -> &'static str {
        match self {
            ListOp::Empty => "(as seq.empty (Seq Snap))",
            ListOp::Unit => "seq.unit",
            ListOp::Concat => "seq.++",
            ListOp::Len => "seq.len",
            ListOp::At => super::prelude::SEQ_AT,
            ListOp::Extract => "seq.extract",
            ListOp::Contains => "seq.contains",
        }
    }
}

// Smart constructors, folding only what is syntactically certain.
impl Term {
    pub fn list_empty() -> Term {
        Term::mk(Op::List(ListOp::Empty), vec![], Sort::List)
    }

    /// `[e]` of a snapshot `e`.
    pub fn list_unit(e: Term) -> Term {
        Term::mk(Op::List(ListOp::Unit), vec![e], Sort::List)
    }

    pub fn list_concat(a: Term, b: Term) -> Term {
        if a.is_list_empty() {
            return b;
        }
        if b.is_list_empty() {
            return a;
        }
        Term::mk(Op::List(ListOp::Concat), vec![a, b], Sort::List)
    }

    pub fn list_len(s: Term) -> Term {
        match s.op() {
            Op::List(ListOp::Empty) => Term::int(0),
            Op::List(ListOp::Unit) => Term::int(1),
            _ => Term::mk(Op::List(ListOp::Len), vec![s], Sort::Int),
        }
    }

    /// Element `i` (a snapshot); `0 <= i < length` must be proved first.
    pub fn list_at(s: Term, i: Term) -> Term {
        if let (Op::List(ListOp::Unit), Some(0)) = (s.op(), i.as_int()) {
            return s.args()[0].clone();
        }
        Term::mk(Op::List(ListOp::At), vec![s, i], Sort::Snap)
    }

    /// The `n` elements from `i`; `0 <= i`, `0 <= n` and
    /// `i + n <= length` must be proved first.
    pub fn list_extract(s: Term, i: Term, n: Term) -> Term {
        Term::mk(Op::List(ListOp::Extract), vec![s, i, n], Sort::List)
    }

    /// Whether the snapshot `e` is an element of `s`.
    pub fn list_contains(s: Term, e: Term) -> Term {
        if s.is_list_empty() {
            return Term::bool(false);
        }
        Term::mk(Op::List(ListOp::Contains), vec![s, e], Sort::Bool)
    }

    fn is_list_empty(&self) -> bool {
        matches!(self.op(), Op::List(ListOp::Empty))
    }
}

/// As in the program: `[]`, `[e]`, `s + t`, `s.length`, `s[i]`,
/// `s[i..i + n]`, `s.contains(e)`.
pub(super) fn render(op: ListOp, args: &[Term], out: &mut String) {
    match (op, args) {
        (ListOp::Empty, _) => out.push_str("[]"),
        (ListOp::Unit, [e]) => {
            out.push('[');
            e.render(out);
            out.push(']');
        }
        (ListOp::Concat, [a, b]) => {
            out.push('(');
            a.render(out);
            out.push_str(" + ");
            b.render(out);
            out.push(')');
        }
        (ListOp::Len, [s]) => {
            s.render(out);
            out.push_str(".length");
        }
        (ListOp::At, [s, i]) => {
            s.render(out);
            out.push('[');
            i.render(out);
            out.push(']');
        }
        (ListOp::Extract, [s, i, n]) => {
            s.render(out);
            out.push('[');
            i.render(out);
            out.push_str("..");
            i.render(out);
            out.push_str(" + ");
            n.render(out);
            out.push(']');
        }
        (ListOp::Contains, [s, e]) => {
            s.render(out);
            out.push_str(".contains(");
            e.render(out);
            out.push(')');
        }
        _ => out.push('…'),
    }
}
