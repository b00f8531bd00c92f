//! The record of what the verifier did: the reports every front end
//! renders (text, JSON, `--trace`, the debugger, the language server).
//! Plain data: the engine fills it, the renderers word it.

pub mod failure;
pub mod hint;
pub mod step;
pub mod words;

use serde::{Deserialize, Serialize};

use crate::diag::{Diagnostic, Span};

pub use failure::{ChunkName, ChunkView, Reason};
pub use step::StepKind;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Stopped at a syntax error.
    Parse,
    /// Stopped at name or type errors.
    Check,
    /// Verification ran.
    Verified,
}

#[derive(Clone, Debug)]
pub struct TraceStep {
    pub span: Span,
    pub kind: StepKind,
    pub heap: Vec<ChunkView>,
    /// Variable and value, in name order.
    pub store: Vec<(String, String)>,
    pub pc: Vec<String>,
    /// The state at this step was left out (heap, store and path condition
    /// empty): a long path shows the states of its last steps only, so that
    /// its report stays linear in the path's length.
    pub elided: bool,
}

/// A step in the symbolic execution tree of a member.
impl TraceStep {
    /// The texts of the heap's chunks, in order.
    pub fn heap_texts(&self) -> Vec<String> {
        self.heap.iter().map(|c| c.text.clone()).collect()
    }
}

#[derive(Clone, Debug)]
pub struct TreeNode {
    pub parent: Option<usize>,
    pub step: TraceStep,
}

#[derive(Clone, Debug)]
pub struct ErrorReport {
    pub diag: Diagnostic,
    /// Why the path failed (`None` for errors without a path: parse,
    /// type and internal errors).
    pub reason: Option<Reason>,
    /// `Class.member` where the error was found (empty for parse errors).
    pub member: String,
    pub trace: Vec<TraceStep>,
    /// Values from a Z3 model of the failing path, in program terms
    /// (`x` → `5`, `c.f` → `null`), for facts that might not hold.
    pub counterexample: Vec<(String, String)>,
    /// The failing method run concretely on the inputs of a model of the
    /// failing path (verification errors of methods and constructors).
    pub replay: Option<Replay>,
    /// Those inputs. The replay runs the callees' bodies, which a cached
    /// result's key does not cover, so the cache keeps the inputs and runs
    /// the replay again rather than keeping its outcome.
    pub inputs: Option<ModelInputs>,
}

/// The inputs of a method in a model: the values of `this` and the
/// parameters on entry, and of the fields the precondition gave access to
/// (`object#k`, qualified field, value), as `Solver::model_values` prints
/// them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelInputs {
    pub entry: Vec<(String, String)>,
    pub fields: Vec<(String, String, String)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemberKind {
    Method,
    Constructor,
    Pure,
    Predicate,
}

#[derive(Clone, Debug)]
pub struct MemberReport {
    pub name: String,
    pub kind: MemberKind,
    pub span: Span,
    pub errors: Vec<ErrorReport>,
    /// The execution tree, parents before children (empty unless
    /// `Options::keep_steps`).
    pub tree: Vec<TreeNode>,
    pub millis: f64,
    pub queries: u64,
    pub smt_log: Option<String>,
    /// Taken from the cache (`millis` and `queries` are then those of the
    /// run that verified it).
    pub cached: bool,
    /// Whether a fresh run would report the same: not when the solver gave
    /// up (a timeout depends on the machine's load) or the verifier failed.
    /// Only such results are cached.
    pub reusable: bool,
}

impl MemberReport {
    pub fn verified(&self) -> bool {
        self.errors.is_empty()
    }
}

#[derive(Clone, Debug)]
pub struct FileReport {
    pub path: String,
    pub source: String,
    pub stage: Stage,
    /// Every error, in source order (members' errors included).
    pub errors: Vec<ErrorReport>,
    pub members: Vec<MemberReport>,
}

impl FileReport {
    pub fn ok(&self) -> bool {
        self.errors.is_empty()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReplayStatus {
    Confirmed,
    NotReproduced,
    NotRun,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replay {
    pub status: ReplayStatus,
    pub detail: String,
}
