//! Why a path failed, as data. The engine fills these; `record::words`
//! words them and lays out the diagnostic.
//!
//! Adding a failure reason: add a variant to [`Reason`] and word it in
//! `words::reason`; the explanations (`report::explain`) match on it to say
//! more (a missing chunk, say).

use serde::{Deserialize, Serialize};

use crate::diag::{Kind, Span};
use crate::solver::GaveUp;

/// What a chunk is a chunk of (short names, as the heap shows them).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ChunkName {
    Field(String),
    Predicate(String),
}

/// A heap chunk as a step shows it: what it is a chunk of, and its text
/// (`t.f ↦ v`, `t.q[s](args)`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ChunkView {
    pub of: ChunkName,
    pub text: String,
}

/// The failure itself, whatever obligation it breaks.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Reason {
    /// Reading the field access `access` needs its chunk, which is not held.
    NoRead { access: String, field: String },
    /// Writing the field access `access` needs its chunk.
    NoWrite { access: String, field: String },
    /// An assertion consumes the chunk `chunk` (`acc(e.f)`, `e.q(..)`),
    /// which is not held.
    NotHeld { chunk: String, of: ChunkName },
    /// The fact `fact` might not hold on the path.
    MightNotHold { fact: String },
    /// `unchanged`-style assertion: `part` might differ from before.
    MightHaveChanged { part: String },
    /// The divisor of `expr` might be zero.
    DivisorMaybeZero { expr: String },
    /// The receiver `receiver` of a call might be null.
    ReceiverMaybeNull { receiver: String },
    /// The precondition of `outer` calls `callee` again.
    PreconditionRecursion { outer: String, callee: String },
    /// A call to `callee` inside the pure method `caller`, in the same
    /// cycle of the call graph, might not terminate (section 3.6).
    MayNotTerminate { callee: String, caller: String },
    /// The measure of `owner` calls `call`, which can call `owner` again.
    MeasureCallsCycle { owner: String, call: String },
    /// `array.length` of an array that might be null.
    ArrayMaybeNull { array: String },
    /// Reading (or writing) the element `access` of `array` needs
    /// `acc(array.elems)`, which is not held.
    NoElements {
        array: String,
        access: String,
        write: bool,
    },
    /// The index of the element access `access` might be out of bounds.
    IndexMaybeOutside { access: String },
    /// The size of a new array might be negative.
    SizeMaybeNegative { size: String },
    /// The measure of `callee` at a call might be negative or not smaller
    /// than the caller's (larger, when `callee` is declared earlier: then
    /// staying equal is enough).
    MeasureMayNotDecrease { callee: String, earlier: bool },
    /// The value of `expr` (an operation in code, `--overflow`) might lie
    /// above (`above`) or below Java's `int` range; `fact` is what would
    /// rule that out, in the program's terms.
    MightOverflow {
        expr: String,
        above: bool,
        fact: String,
    },
}

impl Reason {
    /// The chunk this failure found missing, with the text that names it.
    pub fn missing_chunk(&self) -> Option<(ChunkName, &str)> {
        match self {
            Reason::NoRead { access, field } | Reason::NoWrite { access, field } => {
                Some((ChunkName::Field(field.clone()), access))
            }
            Reason::NotHeld { chunk, of } => Some((of.clone(), chunk)),
            Reason::NoElements { access, .. } => Some((ChunkName::Field("elems".into()), access)),
            Reason::MightNotHold { .. }
            | Reason::MightHaveChanged { .. }
            | Reason::DivisorMaybeZero { .. }
            | Reason::ReceiverMaybeNull { .. }
            | Reason::PreconditionRecursion { .. }
            | Reason::MayNotTerminate { .. }
            | Reason::MeasureCallsCycle { .. }
            | Reason::MeasureMayNotDecrease { .. }
            | Reason::ArrayMaybeNull { .. }
            | Reason::IndexMaybeOutside { .. }
            | Reason::SizeMaybeNegative { .. }
            | Reason::MightOverflow { .. } => None,
        }
    }
}

/// Why an inferred `close` could not provide an instance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CloseLack {
    /// The instance, as the program writes it.
    pub instance: String,
    /// `None`: its receiver might be null; else why its body failed.
    pub why: Option<Reason>,
}

/// A secondary place an obligation shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Related {
    /// The body of the predicate a `close` consumes.
    PredicateBody,
    /// The body of a `do` loop, which runs once before the first test.
    DoBody,
}

/// The obligation a failure broke: it decides the kind and place reported
/// (docs/language.md section 8).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObligationView {
    pub kind: Kind,
    /// Where to report, for obligations located at a statement or call.
    pub at: Option<Span>,
    /// The conjunct being checked.
    pub conjunct: Option<Span>,
    pub related: Vec<(Span, Related)>,
}

/// Everything known about one failure, before it is worded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FailureView {
    /// The failure's own kind and place (without an obligation, reported).
    pub kind: Kind,
    pub span: Span,
    pub reason: Reason,
    pub obligation: Option<ObligationView>,
    /// Where the path stood when the failure happened (its last step).
    pub path_end: Option<Span>,
    /// What an inferred `close` lacked, if one was tried.
    pub close_lack: Option<CloseLack>,
    /// Why the solver could not answer the failing proof, if it gave up.
    pub gave_up: Option<GaveUp>,
    /// The fix to suggest, if one is likely.
    pub hint: Option<super::hint::Hint>,
}

impl FailureView {
    /// The kind and place reported: the obligation's (at its statement or
    /// call, else at the conjunct being checked), else the failure's own.
    pub fn reported(&self) -> (Kind, Span) {
        match &self.obligation {
            None => (self.kind, self.span.clone()),
            Some(ob) => {
                let at = ob.at.clone().or(ob.conjunct.clone());
                (ob.kind, at.unwrap_or(self.span.clone()))
            }
        }
    }
}
