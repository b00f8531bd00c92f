//! The wording of the record: every sentence a step or a failure is shown
//! with, and the layout of a failure as a diagnostic (primary place,
//! labels, related places, notes). Text, JSON, `--trace`, the debugger and
//! the language server all word the record through here, so rewording a
//! message changes it everywhere at once and breaks no consumer (none of
//! them reads these sentences back).

use std::fmt;

use crate::diag::{Diagnostic, Kind, Span};
use crate::solver::GaveUp;

use super::failure::{ChunkView, CloseLack, FailureView, Reason, Related};
use super::hint::{Before, Hint};
use super::step::{Arm, Inferred, StepKind};

impl fmt::Display for StepKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StepKind::MethodEntry => f.write_str("method entry"),
            StepKind::PreconditionProduced => f.write_str("precondition produced"),
            StepKind::Statement { text, .. } | StepKind::Join { text } => f.write_str(text),
            StepKind::Branch { cond, arm } => {
                let side = match arm {
                    Arm::Then => "then",
                    Arm::Else => "else",
                };
                write!(f, "if ({cond}): {side} branch")
            }
            StepKind::LoopBody { cond } => write!(f, "loop body (while {cond})"),
            StepKind::LoopAfter { cond } => write!(f, "after the loop (while {cond})"),
            StepKind::LoopFrame { cond } => {
                write!(f, "returning: the frame of the loop (while {cond}) is back")
            }
            StepKind::LoopBreak { cond } => {
                write!(
                    f,
                    "leaving the loop (while {cond}) by `break`: its frame is back"
                )
            }
            StepKind::Inferred(Inferred::Open { instance, access }) => {
                write!(f, "inferred: open `{instance}` for `{access}`")
            }
            StepKind::Inferred(Inferred::Close { instance }) => {
                write!(f, "inferred: close `{instance}`")
            }
            StepKind::Inferred(Inferred::Use { call }) => write!(f, "inferred: use `{call}`"),
            StepKind::Failed {
                kind,
                reason,
                obligation,
                ..
            } => {
                f.write_str("fails: ")?;
                if *obligation {
                    f.write_str(obligation_message(*kind))
                } else {
                    write!(f, "{reason}")
                }
            }
        }
    }
}

impl fmt::Display for ChunkView {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::NoRead { access, .. } => write!(f, "no permission to read `{access}`"),
            Reason::NoWrite { access, .. } => write!(f, "no permission to write `{access}`"),
            Reason::NotHeld { chunk, .. } => write!(f, "no `{chunk}` in the heap"),
            Reason::MightNotHold { fact } => write!(f, "`{fact}` might not hold"),
            Reason::MightHaveChanged { part } => write!(f, "`{part}` might have changed"),
            Reason::DivisorMaybeZero { expr } => write!(f, "the divisor of `{expr}` might be zero"),
            Reason::MightOverflow { expr, above, .. } => {
                if *above {
                    write!(f, "`{expr}` might be above 2147483647 (`int` overflow)")
                } else {
                    write!(f, "`{expr}` might be below -2147483648 (`int` overflow)")
                }
            }
            Reason::ReceiverMaybeNull { receiver } => {
                write!(f, "the receiver `{receiver}` might be null")
            }
            Reason::PreconditionRecursion { outer, callee } => write!(
                f,
                "the precondition of `{outer}` calls `{callee}` again: checking it would never finish"
            ),
            Reason::MayNotTerminate { callee, caller } if callee == caller => write!(
                f,
                "cannot show that this call terminates: `{callee}` calls itself, the call is not inside `opening`, and its precondition consumes the whole heap"
            ),
            Reason::MayNotTerminate { callee, caller } => write!(
                f,
                "cannot show that this call terminates: `{callee}` can call `{caller}` again, is not declared before it, the call is not inside `opening`, and its precondition consumes the whole heap"
            ),
            Reason::MeasureCallsCycle { owner, call } => write!(
                f,
                "the measure of `{owner}` calls `{call}`, which can lead back to `{owner}`: a measure cannot depend on the methods it measures"
            ),
            Reason::ArrayMaybeNull { array } => write!(f, "the array `{array}` might be null"),
            Reason::NoElements {
                array,
                access,
                write,
            } => write!(
                f,
                "no `acc({array}.elems)` in the heap to {} `{access}`",
                if *write { "write" } else { "read" }
            ),
            Reason::IndexMaybeOutside { access } => write!(
                f,
                "the index of `{access}` might be outside the array (negative or at least its length)"
            ),
            Reason::SizeMaybeNegative { size } => write!(f, "the size `{size}` might be negative"),
            Reason::MeasureMayNotDecrease { callee, earlier } => write!(
                f,
                "cannot show that this call terminates: the measure of `{callee}` might be negative or {} the caller's",
                if *earlier {
                    "larger than"
                } else {
                    "not smaller than"
                }
            ),
        }
    }
}

impl fmt::Display for CloseLack {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "could not close `{}`: ", self.instance)?;
        match &self.why {
            None => f.write_str("its receiver might be null"),
            Some(reason) => write!(f, "{reason}"),
        }
    }
}

/// How a front end names the solver's limits (the command line's flags,
/// an editor's settings), for the note on a proof the solver gave up on.
/// Unnamed limits are not mentioned.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct LimitNames {
    pub rlimit: Option<String>,
    pub timeout: Option<String>,
    /// The time one member may take (`Options::member_time_ms`).
    pub member_time: Option<String>,
}

fn gave_up_note(why: &GaveUp, names: &LimitNames) -> String {
    let named = |what: &str, name: &Option<String>| match name {
        Some(n) => format!("the solver gave up: {what} ({n})"),
        None => format!("the solver gave up: {what}"),
    };
    match why {
        GaveUp::ResourceLimit => named("the query used up its resource limit", &names.rlimit),
        GaveUp::Timeout => named("the query ran past its time limit", &names.timeout),
        GaveUp::Other(reason) => format!("the solver gave up ({reason})"),
    }
}

/// Why a member whose exploration used up the engine's work budget
/// (`symbolic::ctx::WORK_BUDGET`) is not verified.
pub fn work_budget_exhausted(budget: u64) -> String {
    format!(
        "not verified: the verifier stopped after {budget} steps, its work budget for one member, \
         before every path was checked (split the member, or write the `open`, `close` and `use` \
         statements that inference searches for)"
    )
}

/// Why `sift test` lists fewer paths than a method has.
pub fn exploration_stopped(budget: u64) -> String {
    format!(
        "path exploration stopped after {budget} steps, its work budget: the paths above are \
         not all of the method's"
    )
}

/// Why a member that ran past its time (`Options::member_time_ms`) is not
/// verified.
pub fn member_time_exhausted(ms: u64, names: &LimitNames) -> String {
    let named = match &names.member_time {
        Some(n) => format!(" ({n})"),
        None => String::new(),
    };
    format!(
        "not verified: the verifier stopped after {ms} ms, the time one member may take{named}, \
         before every path was checked"
    )
}

/// The headline of a failure that broke an obligation of this kind.
pub fn obligation_message(kind: Kind) -> &'static str {
    match kind {
        Kind::AssertFailed => "assertion might not hold",
        Kind::PreconditionFailed => "precondition of this call might not hold",
        Kind::PostconditionFailed => "postcondition might not hold",
        Kind::InvariantNotEstablished => "loop invariant might not hold on entry",
        Kind::InvariantNotPreserved => "loop invariant might not be preserved by the body",
        Kind::JoinFailed => "join assertion might not hold on this path",
        Kind::OpenFailed => "cannot open: the predicate instance is not held",
        Kind::CloseFailed => "cannot close: the predicate body might not hold",
        Kind::Parse
        | Kind::Type
        | Kind::Internal
        | Kind::PermissionMissing
        | Kind::ReceiverNull
        | Kind::DivisionByZero
        | Kind::Termination
        | Kind::IndexOutOfBounds
        | Kind::ArraySizeNegative
        | Kind::Overflow => "verification failed",
    }
}

fn primary_label(kind: Kind) -> &'static str {
    match kind {
        Kind::PreconditionFailed => "the callee's precondition fails for this call",
        Kind::OpenFailed => "predicate instance not held here",
        Kind::CloseFailed => "predicate body does not hold here",
        _ => "might not hold",
    }
}

fn related_label(r: Related) -> &'static str {
    match r {
        Related::PredicateBody => "the predicate body",
        Related::DoBody => "this body runs once before the first test",
    }
}

/// Where the path stood when an obligation of this kind was checked (the
/// first test of a `do` loop shows its body as a related place).
fn path_end_label(kind: Kind, related: &[(Span, Related)]) -> Option<&'static str> {
    match kind {
        Kind::InvariantNotEstablished if related.iter().any(|(_, r)| *r == Related::DoBody) => {
            Some("at the first test after this")
        }
        Kind::PostconditionFailed => Some("when the method returns here"),
        Kind::InvariantNotPreserved => Some("at the end of the loop body after this"),
        Kind::InvariantNotEstablished => Some("on entry to the loop after this"),
        Kind::JoinFailed => Some("on the path reaching the join after this"),
        _ => None,
    }
}

/// A failure laid out as a diagnostic (docs/language.md section 8): without an
/// obligation, at the failure with its reason; with one, at the
/// obligation's place with its headline, the failing conjunct and the
/// reason as related places or notes.
pub fn diagnostic(f: &FailureView, names: &LimitNames) -> Diagnostic {
    let reason = f.reason.to_string();
    let span = &f.span;
    let mut diag = match &f.obligation {
        None => Diagnostic::new(f.kind, span.clone(), reason.clone()).with_label(reason.clone()),
        Some(ob) => {
            let (_, at) = f.reported();
            let mut d = Diagnostic::new(ob.kind, at.clone(), obligation_message(ob.kind))
                .with_label(primary_label(ob.kind));
            let mut reason_shown = false;
            if ob.at.is_some()
                && let Some(c) = &ob.conjunct
                && *c != at
            {
                reason_shown = c == span;
                let label = if reason_shown {
                    reason.clone()
                } else {
                    "this part does not hold".to_string()
                };
                d = d.with_related(c.clone(), label);
            }
            for (place, what) in &ob.related {
                d = d.with_related(place.clone(), related_label(*what));
            }
            if at.start <= span.start && span.end <= at.end {
                d.label = reason.clone();
            } else if !reason_shown {
                d = d.with_related(span.clone(), reason.clone());
            }
            if let (Some(label), Some(last)) = (path_end_label(ob.kind, &ob.related), &f.path_end)
                && *last != at
            {
                d = d.with_related(last.clone(), label);
            }
            d.with_note(reason)
        }
    };
    if let Some(lack) = &f.close_lack {
        diag = diag.with_note(lack.to_string());
    }
    if let Some(why) = &f.gave_up {
        diag = diag.with_note(gave_up_note(why, names));
    }
    if let Some(hint) = &f.hint {
        diag = diag.with_help(hint.to_string());
    }
    diag
}

impl fmt::Display for Before {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Before::Returning => "before returning",
            Before::TheCall => "before the call",
            Before::TheLoop => "before the loop",
            Before::TheJoin => "before the `join`",
            Before::TheAssert => "before the `assert`",
        })
    }
}

impl fmt::Display for Hint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Hint::RequireAccess { access } => write!(
                f,
                "add `requires acc({access});` to the method (or get it from a callee's `ensures`)"
            ),
            Hint::GiveBack { access, call } => write!(
                f,
                "`{call}` took `acc({access})`: give it back in the callee's `ensures`"
            ),
            Hint::AccessFirst { access } => write!(
                f,
                "put `acc({access})` before this read (in the `requires` or the predicate body)"
            ),
            Hint::AddToInvariant { what } => write!(
                f,
                "the loop body starts from its invariant only: add `{what}` to the invariant"
            ),
            Hint::OpenFirst { instance } => write!(
                f,
                "`{instance}` is held: open it first (`open {instance};`, or let inference do it)"
            ),
            Hint::CloseFirst { instance, before } => {
                write!(f, "close `{instance}` {before} (`close {instance};`)")
            }
            Hint::RequireInstance { instance } => write!(
                f,
                "add `requires {instance};` to the method (or get it from a callee's `ensures`)"
            ),
            Hint::AlreadyOpen { instance } => write!(
                f,
                "`{instance}` is already open here: its body is held, so it needs no `open`"
            ),
            Hint::UseDefinition { call } => write!(
                f,
                "this fact is about `{call}`: `use {call};` gives its definition"
            ),
            Hint::NotImplied { fact } => write!(
                f,
                "nothing on this path implies `{fact}`: the precondition (or a callee's postcondition) must say what it needs"
            ),
            Hint::CalleeNeeds { what } => write!(
                f,
                "the callee requires `{what}` (in its own terms): hold it at the call, from this method's `requires` or a callee's `ensures`"
            ),
            Hint::EstablishBeforeCall { fact } => write!(
                f,
                "the callee requires `{fact}`: make it hold before the call (or require it of this method's callers)"
            ),
            Hint::EstablishBeforeReturn { fact } => write!(
                f,
                "make `{fact}` hold on this path before returning, or weaken the `ensures`"
            ),
            Hint::EstablishBeforeLoop { fact } => write!(
                f,
                "make `{fact}` hold before the loop, or weaken the invariant"
            ),
            Hint::EstablishInFirstRun { fact } => write!(
                f,
                "make `{fact}` hold when the body's first run ends, or weaken the invariant"
            ),
            Hint::Reestablish { fact } => write!(
                f,
                "the body must make `{fact}` hold again, from the invariant and the condition alone: strengthen the invariant"
            ),
            Hint::EstablishBeforeJoin { fact } => write!(
                f,
                "every path reaching the `join` must satisfy `{fact}`: make it hold on this path, or weaken the `join`"
            ),
            Hint::EstablishBeforeClose { fact } => write!(
                f,
                "the predicate body needs `{fact}`: make it hold before the `close`"
            ),
            Hint::NonNull { receiver } => write!(
                f,
                "add `requires {receiver} != null;`, or test it: `if ({receiver} != null) {{ ... }}`"
            ),
            Hint::NonZero { divisor } => write!(
                f,
                "add `requires {divisor} != 0;`, or test it: `if ({divisor} != 0) {{ ... }}`"
            ),
            Hint::InRange { fact } => write!(
                f,
                "add `requires {fact};`, or test it: `if ({fact}) {{ ... }}`"
            ),
            Hint::InBounds { array, index } => write!(
                f,
                "make `0 <= {index} && {index} < {array}.length` hold here: require it, or test it with `if`"
            ),
            Hint::NonNegativeSize { size } => write!(
                f,
                "add `requires {size} >= 0;`, or test it: `if ({size} >= 0) {{ ... }}`"
            ),
            Hint::Decreases { callee } => write!(
                f,
                "the `decreases` measure of `{callee}` must stay at least 0 and get smaller at each recursive call: require what makes it so, or choose another measure"
            ),
            Hint::NoSelfCall { callee } => write!(
                f,
                "state what the precondition needs directly, without calling `{callee}`"
            ),
            Hint::Recursion { callee } => write!(
                f,
                "give `{callee}` a `decreases` measure that gets smaller at each call, or make the call inside `opening`"
            ),
            Hint::Terminate { cycle, unmeasured } => {
                let list = |names: &[String]| {
                    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
                    quoted.join(", ")
                };
                write!(
                    f,
                    "make the call inside `opening`, or give each pure method of its cycle ({}) a `decreases` measure that gets smaller at each call within the cycle ({} {} none)",
                    list(cycle),
                    list(unmeasured),
                    if unmeasured.len() == 1 { "has" } else { "have" }
                )
            }
            Hint::MeasureOutsideCycle { owner } => write!(
                f,
                "compute the measure of `{owner}` from its parameters and fields, or with pure methods that do not call `{owner}`"
            ),
            Hint::KeepUntouched { part } => write!(
                f,
                "the code writes `{part}`: leave it out of `untouched(...)`, or do not write it"
            ),
            Hint::HelpTheSolver => f.write_str(
                "help the solver with intermediate `assert`s, or give it more time or resources",
            ),
        }
    }
}

/// Why a concrete run stopped at a quantifier (docs/language.md section 4c):
/// an outcome of its own, never a failure.
pub const UNCHECKED_QUANTIFIER: &str =
    "cannot check concretely: the quantifier's guard does not bound every variable below and above";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::failure::{ChunkName, ObligationView};

    fn view(gave_up: Option<GaveUp>) -> FailureView {
        FailureView {
            kind: Kind::AssertFailed,
            span: 10..15,
            reason: Reason::MightNotHold {
                fact: "x > 0".into(),
            },
            obligation: None,
            path_end: None,
            close_lack: None,
            gave_up,
            hint: None,
        }
    }

    #[test]
    fn limits_are_named_by_the_front_end() {
        let flags = LimitNames {
            rlimit: Some("--rlimit".into()),
            timeout: Some("--timeout".into()),
            member_time: None,
        };
        let d = diagnostic(&view(Some(GaveUp::Timeout)), &flags);
        assert_eq!(
            d.notes,
            ["the solver gave up: the query ran past its time limit (--timeout)"]
        );
        let d = diagnostic(&view(Some(GaveUp::ResourceLimit)), &LimitNames::default());
        assert_eq!(
            d.notes,
            ["the solver gave up: the query used up its resource limit"]
        );
    }

    #[test]
    fn an_obligation_names_the_failure_and_keeps_its_reason() {
        let plain = diagnostic(&view(None), &LimitNames::default());
        assert_eq!(
            (plain.kind, plain.span.clone(), plain.message.as_str()),
            (Kind::AssertFailed, 10..15, "`x > 0` might not hold")
        );
        let mut v = view(None);
        v.obligation = Some(ObligationView {
            kind: Kind::PreconditionFailed,
            at: Some(0..20),
            conjunct: None,
            related: Vec::new(),
        });
        let d = diagnostic(&v, &LimitNames::default());
        assert_eq!(v.reported(), (Kind::PreconditionFailed, 0..20));
        assert_eq!(d.message, "precondition of this call might not hold");
        assert_eq!(d.label, "`x > 0` might not hold");
        assert_eq!(d.notes, ["`x > 0` might not hold"]);
        let step = StepKind::Failed {
            kind: Kind::PreconditionFailed,
            reason: v.reason.clone(),
            obligation: true,
            resumes: false,
        };
        assert_eq!(
            step.to_string(),
            "fails: precondition of this call might not hold"
        );
    }

    #[test]
    fn missing_chunks_are_read_from_the_reason() {
        let read = Reason::NoRead {
            access: "c.x".into(),
            field: "x".into(),
        };
        assert_eq!(
            read.missing_chunk(),
            Some((ChunkName::Field("x".into()), "c.x"))
        );
        assert_eq!(read.to_string(), "no permission to read `c.x`");
        assert_eq!(view(None).reason.missing_chunk(), None);
    }
}
