//! Where assertion forms (`acc`, predicate instances, `untouched`), `old`,
//! `result` and mutator calls may appear (docs/language.md section 4), and the
//! errors for the places where they may not.

use super::error;
use crate::diag::Diagnostic;
use crate::syntax::ast::Span;

/// The kind of text an expression belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clause {
    /// Expressions in a method body: conditions, right-hand sides, arguments,
    /// `return` values, targets of `open`/`close`/`use`.
    Code,
    /// `assume e`: a pure boolean expression.
    Assume,
    /// The body of a pure method.
    PureBody,
    Requires,
    Ensures,
    PureRequires,
    PredicateBody,
    Invariant,
    Assert,
    Join,
}

impl Clause {
    /// `acc`, predicate instances (and, in postconditions, `untouched`) may
    /// appear at assertion positions.
    pub fn is_assertion(self) -> bool {
        !matches!(self, Clause::Code | Clause::Assume | Clause::PureBody)
    }

    /// "in code", "in `assume`", ...
    pub fn place(self) -> &'static str {
        match self {
            Clause::Code => "in code",
            Clause::Assume => "in `assume`",
            Clause::PureBody => "in a pure method body",
            Clause::Requires | Clause::PureRequires => "in a precondition",
            Clause::Ensures => "in a postcondition",
            Clause::PredicateBody => "in a predicate body",
            Clause::Invariant => "in a loop invariant",
            Clause::Assert => "in `assert`",
            Clause::Join => "in `join`",
        }
    }
}

/// Whether an expression stands at an assertion position (the top of an
/// assertion, an operand of `&&`, the right of `==>`, a branch of `?:`, all
/// recursively from the top) or inside an ordinary expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pos {
    Assertion,
    Value,
}

/// The assertion-only forms.
#[derive(Clone, Copy, Debug)]
pub enum Form<'a> {
    Acc,
    Predicate(&'a str),
    Untouched,
}

const POSITIONS: &str = "assertions may appear only at the top, as operands of `&&`, on the right of `==>` or as branches of `?:`";

impl Form<'_> {
    fn what(self) -> String {
        match self {
            Form::Acc => "access assertion `acc`".into(),
            Form::Predicate(q) => format!("predicate instance `{q}`"),
            Form::Untouched => "`untouched`".into(),
        }
    }
}

/// Checks that an assertion form may stand here; `None` when it may.
pub fn misplaced(form: Form<'_>, clause: Clause, pos: Pos, span: Span) -> Option<Diagnostic> {
    if matches!(form, Form::Untouched) && !matches!(clause, Clause::Ensures | Clause::Invariant) {
        return Some(
            error(
                span,
                "`untouched` is only allowed in postconditions and loop invariants",
            )
            .with_label(format!("`untouched` {}", clause.place()))
            .with_help("move it to an `ensures` or `invariant` clause"),
        );
    }
    if clause.is_assertion() {
        if pos == Pos::Assertion {
            return None;
        }
        let d = error(
            span,
            format!("{} is not allowed in this position", form.what()),
        )
        .with_label("assertion inside an expression")
        .with_help(POSITIONS);
        return Some(match form {
            Form::Predicate(q) => d.with_note(format!(
                "to read values under `{q}` in an expression, write `opening ...{q}(...) in e`"
            )),
            _ => d,
        });
    }
    let d = error(
        span,
        format!("{} is not allowed {}", form.what(), clause.place()),
    );
    Some(match (form, clause) {
        (_, Clause::Assume) => d
            .with_label("`assume` takes a pure boolean expression")
            .with_help("to check an assertion, use `assert`"),
        (Form::Predicate(q), Clause::Code) => d
            .with_label("predicates cannot be evaluated in code")
            .with_help(format!(
                "unfold it with `open ...{q}(...);`, or read under it with `opening ...{q}(...) in e`"
            )),
        (Form::Predicate(_), _) => d
            .with_label("a pure method body must be a side-effect-free expression")
            .with_help("use `opening` to read values under a predicate"),
        (_, Clause::Code) => d
            .with_label("assertions belong in contracts, invariants, `assert` and `join`")
            .with_help("to check it here, use `assert`"),
        _ => d.with_label("a pure method body must be a side-effect-free expression"),
    })
}

/// A mutator call inside an expression.
pub fn mutator_in_expression(name: &str, clause: Clause, span: Span) -> Diagnostic {
    let d = error(
        span,
        format!("method `{name}` cannot be called {}", clause.place()),
    )
    .with_label("a method call that is not `pure` is not an expression");
    if clause == Clause::Code {
        d.with_help(format!(
            "call it as a statement, or assign its result to a local variable: `x = ...{name}(...);`"
        ))
    } else {
        d.with_help("only `pure` methods can be called in expressions")
    }
}

/// `new` inside an expression: allowed in code (lowered to a temporary
/// before the statement), except where `ban` says why not (a ghost
/// statement or form); `ty x = creation;` is the statement to write there.
pub fn new_in_expression(
    ty: &str,
    creation: &str,
    clause: Clause,
    ban: Option<&str>,
    span: Span,
) -> Option<Diagnostic> {
    if clause != Clause::Code {
        let d = error(span, format!("`new` is not allowed {}", clause.place()))
            .with_label("object creation inside an expression")
            .with_help("objects can only be created by statements");
        return Some(d);
    }
    let why = ban?;
    Some(
        error(span, "`new` is not allowed here")
            .with_label(why)
            .with_help(format!(
                "assign the new object to a local variable first: `{ty} x = {creation};`"
            )),
    )
}

/// `old(e)` outside a postcondition.
pub fn misplaced_old(clause: Clause, span: Span) -> Option<Diagnostic> {
    if clause == Clause::Invariant {
        return Some(
            error(span, "`old` is not allowed in a loop invariant")
                .with_label("`old` means the method's entry, only in `ensures`")
                .with_help(
                    "keep the value in a local before the loop (`int x0 = x;`) and name it in the invariant, or keep locations unchanged with `untouched(...)`",
                ),
        );
    }
    (clause != Clause::Ensures).then(|| {
        error(span, "`old` is only allowed in postconditions")
            .with_label(format!("`old` {}", clause.place()))
            .with_help(
                "`old(e)` is the value of `e` on entry to the method, in its `ensures` clauses",
            )
    })
}
