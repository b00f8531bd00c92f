//! The engine's steps and failures as the record's types (`crate::record`):
//! what `verify` hands to the front ends.

use std::collections::HashMap;
use std::sync::Arc;

use super::ctx::{Failure, Found};
use super::heap::{Chunk, short_name};
use super::names::{Names, StoreIndex};
use super::program::ProgramInfo;
use super::state::Step;
use crate::diag::{Diagnostic, Kind};
use crate::record::words::{self, LimitNames};
use crate::record::{ChunkName, ChunkView, ErrorReport, TraceStep, TreeNode};

/// How many heap chunks, store entries and facts the states of one error's
/// trace may show in all (the last steps' states are kept; far beyond what
/// a person reads, but a 100,000-step path with 100,000 variables would
/// otherwise render 10^10 of them).
const TRACE_STATE_ITEMS: usize = 200_000;

/// What the values of a member's steps are named with: its program and
/// the store on entry (for `old(p)`).
pub struct Naming<'a> {
    pub prog: &'a ProgramInfo,
    pub source: &'a str,
    pub entry: Option<StoreIndex<'a>>,
}

fn render_step(step: &Step, naming: &Naming) -> TraceStep {
    let names = Names::of_step(naming.prog, naming.source, step, naming.entry.as_ref());
    TraceStep {
        span: step.span.clone(),
        kind: step.kind.clone(),
        heap: step
            .heap
            .iter()
            .map(|(_, c)| chunk_view(c, &names))
            .collect(),
        store: step
            .store
            .iter()
            .map(|(k, v)| (k.to_string(), names.value_of(k, v)))
            .collect(),
        pc: names.facts(&step.pc.facts()),
        elided: false,
    }
}

fn chunk_view(c: &Chunk, names: &Names) -> ChunkView {
    let of = match c {
        Chunk::Field { field, .. } => ChunkName::Field(short_name(field).to_string()),
        Chunk::Pred { pred, .. } => ChunkName::Predicate(short_name(pred).to_string()),
    };
    ChunkView {
        of,
        text: names.chunk(c),
    }
}

/// A step without its state (see `TRACE_STATE_ITEMS`).
fn elided_step(step: &Step) -> TraceStep {
    TraceStep {
        span: step.span.clone(),
        kind: step.kind.clone(),
        heap: Vec::new(),
        store: Vec::new(),
        pc: Vec::new(),
        elided: true,
    }
}

/// The trace of a failure, with the states of its last steps while they fit
/// in `TRACE_STATE_ITEMS` (the last step's always).
fn render_trace(steps: &[Arc<Step>], naming: &Naming) -> Vec<TraceStep> {
    let mut budget = TRACE_STATE_ITEMS;
    let mut out: Vec<TraceStep> = Vec::with_capacity(steps.len());
    for (i, step) in steps.iter().enumerate().rev() {
        let items = step.heap.len() + step.store.len() + step.pc.len();
        if items <= budget || i + 1 == steps.len() {
            budget = budget.saturating_sub(items);
            out.push(render_step(step, naming));
        } else {
            budget = 0;
            out.push(elided_step(step));
        }
    }
    out.reverse();
    out
}

/// A failure's error report (the diagnostic laid out, the reason kept,
/// the inputs to replay it with; not yet replayed).
pub fn error_report(member: &str, f: Failure, names: &LimitNames, naming: &Naming) -> ErrorReport {
    let (diag, reason) = match f.found {
        Found::Path(view) => (words::diagnostic(&view, names), Some(view.reason.clone())),
        Found::Internal { span, what } => (
            Diagnostic::new(
                Kind::Internal,
                span,
                format!("internal error: {what} (please report this)"),
            ),
            None,
        ),
    };
    ErrorReport {
        diag,
        reason,
        member: member.to_string(),
        trace: render_trace(&f.trace.steps(), naming),
        counterexample: f.counterexample,
        replay: None,
        inputs: f.inputs,
    }
}

/// Numbers the recorded steps; a parent always precedes its children
/// because a step is recorded after the one it extends.
pub fn tree(steps: &[Arc<Step>], naming: &Naming) -> Vec<TreeNode> {
    let mut index: HashMap<usize, usize> = HashMap::new();
    let mut out = Vec::with_capacity(steps.len());
    for step in steps {
        let key = Arc::as_ptr(step) as usize;
        if index.contains_key(&key) {
            continue;
        }
        let parent = step
            .parent
            .as_ref()
            .and_then(|p| index.get(&(Arc::as_ptr(p) as usize)).copied());
        index.insert(key, out.len());
        out.push(TreeNode {
            parent,
            step: render_step(step, naming),
        });
    }
    out
}
