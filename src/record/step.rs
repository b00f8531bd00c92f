//! The kinds of step a path records: what the verifier did at one place.
//! Each consumer matches on these (never on their wording, which lives in
//! `record::words`). Texts are the program's own source, on one line.
//!
//! Adding a kind of step: add a variant here, word it in
//! `words::step` (the compiler lists every `match` that must handle it:
//! the debugger's `assume` placement, the explanations), and record it in
//! the engine with `Ctx::record`.

use serde::{Deserialize, Serialize};

use crate::diag::Kind;
use crate::syntax::ast::StmtKind;

use super::failure::Reason;

/// One step of a path: the state reached by a rule of the engine.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum StepKind {
    /// The member's parameters (and `this`) hold fresh values.
    MethodEntry,
    /// The precondition was produced.
    PreconditionProduced,
    /// A statement ran to its end.
    Statement { form: StmtForm, text: String },
    /// A conditional took one arm (the condition's fact is on the path).
    Branch { cond: String, arm: Arm },
    /// A loop body starts: from its invariant and condition only.
    LoopBody { cond: String },
    /// The path goes on after a loop: invariant and negated condition.
    LoopAfter { cond: String },
    /// A `return` inside a loop body has the loop's frame back (the heap
    /// the invariant left on entry); its place is the `return`.
    LoopFrame { cond: String },
    /// A `break` leaves a loop with the loop's frame back; its place is
    /// the `break`.
    LoopBreak { cond: String },
    /// A `join` merged the paths reaching it.
    Join { text: String },
    /// A ghost step the verifier inferred (docs/language.md section 6).
    Inferred(Inferred),
    /// The path failed here. `reason` is the failure itself; `obligation`
    /// says whether it broke an obligation of kind `kind` (an assertion,
    /// precondition, invariant, ...), which then names the failure.
    Failed {
        kind: Kind,
        reason: Reason,
        obligation: bool,
        /// The path goes on past the failure, assuming what failed (a
        /// failed `assert`, docs/language.md section 8).
        resumes: bool,
    },
}

/// The form of a statement (`StmtKind` without its parts). Conditionals,
/// loops and joins record steps of their own kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum StmtForm {
    Declare,
    Assign,
    FieldWrite,
    Call,
    If,
    While,
    Assert,
    Assume,
    Return,
    Break,
    Continue,
    Open,
    Close,
    Use,
    Join,
}

impl StmtForm {
    pub fn of(kind: &StmtKind) -> StmtForm {
        match kind {
            StmtKind::Local { .. } => StmtForm::Declare,
            StmtKind::Assign { .. } | StmtKind::Update { .. } | StmtKind::Chain { .. } => {
                StmtForm::Assign
            }
            StmtKind::FieldAssign { .. } | StmtKind::IndexAssign { .. } => StmtForm::FieldWrite,
            StmtKind::Call(_) => StmtForm::Call,
            StmtKind::If { .. } => StmtForm::If,
            StmtKind::While { .. } | StmtKind::For(_) => StmtForm::While,
            StmtKind::Assert(_) => StmtForm::Assert,
            StmtKind::Assume(_) => StmtForm::Assume,
            StmtKind::Return(_) => StmtForm::Return,
            StmtKind::Break => StmtForm::Break,
            StmtKind::Continue => StmtForm::Continue,
            StmtKind::Open(_) => StmtForm::Open,
            StmtKind::Close(_) => StmtForm::Close,
            StmtKind::Use(_) => StmtForm::Use,
            StmtKind::Join(_) => StmtForm::Join,
        }
    }
}

/// The arm of a conditional a path took.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Arm {
    Then,
    Else,
}

/// A ghost step inferred where the program left it out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Inferred {
    /// Opened `instance` to reach the field `access` reads or writes.
    Open { instance: String, access: String },
    /// Closed `instance` (its body was consumed in its place).
    Close { instance: String },
    /// Recorded the definition of the pure call `call` (unfolded when a
    /// proof needs it).
    Use { call: String },
}

impl StepKind {
    /// The step records a failure.
    pub fn is_failure(&self) -> bool {
        matches!(self, StepKind::Failed { .. })
    }

    /// The step records a decision between paths (an arm, a loop's body
    /// or its exit, through the condition or a `break`).
    pub fn is_decision(&self) -> bool {
        matches!(
            self,
            StepKind::Branch { .. }
                | StepKind::LoopBody { .. }
                | StepKind::LoopAfter { .. }
                | StepKind::LoopBreak { .. }
        )
    }
}
