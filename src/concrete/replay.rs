//! Replayed counterexamples: the inputs of a verification error's model are
//! built and the method is run concretely. A run that fails at the reported
//! place confirms a bug in the code; one that does not fail points at a
//! specification too weak for the proof (contract, callee, loop invariant).

use super::{Limits, Outcome, inputs, run_method};
use crate::diag::{Kind, line_col};
pub use crate::record::{Replay, ReplayStatus};
use crate::symbolic::paths::ModelInputs;
use crate::symbolic::program::ProgramInfo;
use crate::syntax::ast::Span;

impl ReplayStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ReplayStatus::Confirmed => "confirmed",
            ReplayStatus::NotReproduced => "not-reproduced",
            ReplayStatus::NotRun => "not-run",
        }
    }
}

impl Replay {
    fn new(status: ReplayStatus, detail: impl Into<String>) -> Replay {
        Replay {
            status,
            detail: detail.into(),
        }
    }

    /// The line a text report shows.
    pub fn text(&self) -> String {
        let head = match self.status {
            ReplayStatus::Confirmed => "confirmed",
            ReplayStatus::NotReproduced => "not reproduced concretely",
            ReplayStatus::NotRun => "not replayed",
        };
        format!("{head}: {}", self.detail)
    }
}

/// A replay that was not run, and why.
pub fn not_run(why: &str) -> Replay {
    Replay::new(ReplayStatus::NotRun, why)
}

/// Budgets of a replay: a counterexample is a small input.
const REPLAY_LIMITS: Limits = Limits {
    steps: 200_000,
    depth: 200,
};

/// Replays the error (the details name no lines: a cached report keeps
/// them when the code moves) `kind` at `span` found in `class.member` (a method or
/// constructor) with the inputs of its model.
pub fn replay(
    info: &ProgramInfo,
    source: &str,
    class: &str,
    member: &str,
    (kind, span): (Kind, &Span),
    model: Option<&ModelInputs>,
    infer: bool,
) -> Replay {
    let Some(mi) = info.method(class, member) else {
        return not_run("only methods and constructors are run");
    };
    let Some(model) = model else {
        return Replay::new(ReplayStatus::NotRun, "no model of the failing path");
    };
    let entry = model.entry.iter().cloned().collect();
    let built = match inputs::from_model(info, mi, &entry, &model.fields) {
        Ok(b) => b,
        Err(why) => {
            return Replay::new(
                ReplayStatus::NotRun,
                format!("cannot build the inputs: {why}"),
            );
        }
    };
    let shown: Vec<String> = super::testing::describe_inputs(mi, &built)
        .into_iter()
        .map(|(k, v)| format!("{k} = {v}"))
        .collect();
    let shown = if shown.is_empty() {
        "no inputs".to_string()
    } else {
        shown.join(", ")
    };
    let run = run_method(info, source, class, member, built, REPLAY_LIMITS, infer);
    let line = line_col(source, span.start).0;
    match run.outcome {
        Outcome::Failed(f) if f.at_entry => Replay::new(
            ReplayStatus::NotRun,
            format!(
                "the inputs built from the model ({shown}) do not satisfy the precondition: {}",
                f.message
            ),
        ),
        Outcome::Failed(f) if f.kind == kind && line_col(source, f.span.start).0 == line => {
            Replay::new(
                ReplayStatus::Confirmed,
                format!(
                    "a concrete run with these inputs fails here ({shown}): {}",
                    f.message
                ),
            )
        }
        Outcome::Failed(f) => Replay::new(
            ReplayStatus::NotReproduced,
            format!(
                "with these inputs ({shown}) the run fails elsewhere first: {}: {}",
                f.kind, f.message
            ),
        ),
        Outcome::Returned(_) => Replay::new(
            ReplayStatus::NotReproduced,
            format!(
                "with these inputs ({shown}) the code does not fail; the contract, a callee's postcondition or a loop invariant may be too weak"
            ),
        ),
        Outcome::Limit(why) => Replay::new(
            ReplayStatus::NotRun,
            format!("the run with these inputs ({shown}) stopped: {why}"),
        ),
        Outcome::AssumeFalse(s) => Replay::new(
            ReplayStatus::NotRun,
            format!(
                "with these inputs ({shown}) `{}` is false",
                source.get(s).unwrap_or("assume").trim()
            ),
        ),
    }
}
