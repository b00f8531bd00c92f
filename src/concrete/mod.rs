//! Concrete execution (issue 9): runs a method of the checked program on
//! concrete values and checks at run time what the verifier checks
//! statically — contracts, `assert`, loop invariants, joins, pure calls,
//! null receivers, division by zero and permissions. Each activation owns
//! a set of locations and predicate instances ([`perms`]); a call moves
//! the footprint of the callee's precondition to the callee and the one of
//! its postcondition back. The first failed check stops the run, with the
//! kind and place the verifier would report (docs/language.md section 8).

mod array;
mod assertion;
pub mod cli;
mod eval;
mod exec;
pub mod heap;
pub mod inputs;
pub mod perms;
mod quant;
pub mod replay;
pub mod testing;

use std::collections::{BTreeMap, HashMap};

use crate::diag::Kind;
use crate::symbolic::program::{MethodInfo, ProgramInfo};
use crate::syntax::ast::Span;
pub use heap::{Heap, Value};
use perms::Perms;

/// Bounds that turn non-termination into a report.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Expressions evaluated and statements executed.
    pub steps: u64,
    /// Nested calls (methods and pure methods).
    pub depth: u32,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            steps: 1_000_000,
            depth: 400,
        }
    }
}

/// A failed check.
#[derive(Clone, Debug)]
pub struct Failure {
    pub kind: Kind,
    pub span: Span,
    pub message: String,
    /// The store of the code being checked, `name = value`, in name order.
    pub store: Vec<(String, String)>,
    /// Every object with its fields.
    pub heap: Vec<String>,
    /// What the failing activation held.
    pub held: Vec<String>,
    /// The inputs do not satisfy the entry method's own precondition.
    pub at_entry: bool,
}

#[derive(Clone, Debug)]
pub enum Outcome {
    /// The method returned (its value, for a non-void method); the final
    /// heap is in `Run::heap`.
    Returned(Option<Value>),
    Failed(Failure),
    /// A budget ran out (steps, call depth, integer range).
    Limit(String),
    /// An `assume` was false: this run is outside what the method's
    /// verification considers.
    AssumeFalse(Span),
    /// A quantifier whose guard does not bound its variables was met: the
    /// run cannot check it, which is no failure (docs/language.md
    /// section 4c).
    Unchecked(Span),
}

#[derive(Clone, Debug)]
pub struct Run {
    pub outcome: Outcome,
    pub heap: Heap,
}

/// The inputs of a run: `this` (instance methods), the arguments and the
/// objects they reach. The caller owns every field of every object.
#[derive(Clone, Debug, Default)]
pub struct Inputs {
    pub this: Option<Value>,
    pub args: Vec<Value>,
    pub heap: Heap,
}

/// Why a run stopped early.
pub(crate) enum Stop {
    Fail(Failure),
    Limit(String),
    Assume(Span),
    /// A quantifier that cannot be checked by enumeration.
    Unchecked(Span),
    /// A broken invariant of the interpreter or checker.
    Internal(String),
}

pub(crate) type R<T> = Result<T, Stop>;

/// The obligation being consumed: it decides the reported kind and place
/// of any failure inside it (docs/language.md section 8); the outermost wins.
#[derive(Clone, Debug)]
pub(crate) struct Obligation {
    pub kind: Kind,
    /// Where to report; `None`: at the failing conjunct.
    pub at: Option<Span>,
}

/// The pre-state of a method: the values of the locations its
/// precondition gave it, and what it held then.
pub(crate) struct OldState {
    pub values: HashMap<heap::Loc, Value>,
    pub perms: Perms,
}

pub(crate) type Store = BTreeMap<String, Value>;

pub(crate) struct Machine<'p> {
    pub prog: &'p ProgramInfo,
    pub source: &'p str,
    pub heap: Heap,
    /// Ghost statement inference (docs/language.md section 6): reads through held
    /// instances, opens for writes, closes on demand.
    pub infer: bool,
    limits: Limits,
    steps: u64,
    pub depth: u32,
    pub ob: Option<Obligation>,
    /// Consumptions nested in the active obligation's.
    pub nested: u32,
    pub conjunct: Option<Span>,
    /// Predicate instances being closed on demand, innermost last.
    pub closing: u32,
}

/// Runs `class.method` on `inputs`, on a thread with a large stack (the
/// interpreter recurses once per nested call and expression; the depth
/// budget keeps it well inside that stack).
pub fn run_method(
    prog: &ProgramInfo,
    source: &str,
    class: &str,
    method: &str,
    inputs: Inputs,
    limits: Limits,
    infer: bool,
) -> Run {
    crate::stack::with_big_stack(|| {
        crate::stack::with_budget(crate::stack::WALK_STACK_BUDGET, || {
            run_here(prog, source, class, method, inputs, limits, infer)
        })
    })
}

fn run_here(
    prog: &ProgramInfo,
    source: &str,
    class: &str,
    method: &str,
    inputs: Inputs,
    limits: Limits,
    infer: bool,
) -> Run {
    let mut m = Machine {
        prog,
        source,
        heap: inputs.heap,
        infer,
        limits,
        steps: 0,
        depth: 0,
        ob: None,
        nested: 0,
        conjunct: None,
        closing: 0,
    };
    let outcome = match prog.method(class, method) {
        None => Outcome::Limit(format!("no method `{class}.{method}`")),
        Some(mi) => match m.enter(mi, inputs.this, &inputs.args) {
            Ok(v) => Outcome::Returned(v),
            Err(Stop::Fail(f)) => Outcome::Failed(f),
            Err(Stop::Limit(why)) => Outcome::Limit(why),
            Err(Stop::Assume(span)) => Outcome::AssumeFalse(span),
            Err(Stop::Unchecked(span)) => Outcome::Unchecked(span),
            Err(Stop::Internal(why)) => Outcome::Limit(format!("internal error: {why}")),
        },
    };
    Run {
        outcome,
        heap: m.heap,
    }
}

impl Machine<'_> {
    /// The caller of the entry method owns every field of every object.
    fn enter(&mut self, mi: &MethodInfo, this: Option<Value>, args: &[Value]) -> R<Option<Value>> {
        let mut world = Perms::default();
        for (o, obj) in self.heap.objects.iter().enumerate() {
            for f in obj.fields.keys() {
                world.locs.insert((o, f.clone()));
            }
            if array::is_array(&self.heap, o) {
                world
                    .locs
                    .insert((o, crate::syntax::ast::ELEMS.to_string()));
            }
        }
        // The environment closes the instances the precondition asks for.
        let infer = std::mem::replace(&mut self.infer, true);
        let (_, result) = self.invoke(mi, this, args, None, &mut world, infer)?;
        Ok(result)
    }

    pub fn step(&mut self) -> R<()> {
        self.steps += 1;
        if self.steps > self.limits.steps {
            return Err(Stop::Limit(format!(
                "step budget exhausted after {} steps (an infinite loop or recursion?)",
                self.limits.steps
            )));
        }
        Ok(())
    }

    pub fn enter_call(&mut self) -> R<()> {
        self.depth += 1;
        if self.depth > self.limits.depth {
            return Err(Stop::Limit(format!(
                "call depth budget exhausted: more than {} nested calls (deep or infinite recursion?)",
                self.limits.depth
            )));
        }
        // `--max-depth` may be set beyond what the stack holds.
        if crate::stack::exhausted() {
            return Err(Stop::Limit(format!(
                "call depth budget exhausted: the interpreter's stack is full after {} nested calls (deep or infinite recursion?)",
                self.depth
            )));
        }
        Ok(())
    }

    /// The source text of a span, on one line.
    pub fn text(&self, span: &Span) -> String {
        let raw = self.source.get(span.clone()).unwrap_or("");
        raw.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    /// A failed check: the active obligation decides kind and place.
    pub fn fail(
        &self,
        kind: Kind,
        span: Span,
        reason: String,
        store: &Store,
        held: &Perms,
    ) -> Stop {
        let (kind, span) = match &self.ob {
            None => (kind, span),
            Some(ob) => (
                ob.kind,
                ob.at
                    .clone()
                    .or_else(|| self.conjunct.clone())
                    .unwrap_or(span),
            ),
        };
        Stop::Fail(Failure {
            kind,
            span,
            message: reason,
            store: store
                .iter()
                .map(|(k, v)| (k.clone(), self.heap.show(*v)))
                .collect(),
            heap: self.heap.render(),
            held: held.describe(&|v| self.heap.show(v)),
            at_entry: self.depth == 0,
        })
    }
}

pub fn overflow() -> String {
    "an integer left the interpreter's range (128-bit)".to_string()
}
