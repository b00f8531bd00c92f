//! Symbolic states (paper Definition 2): heap H, old heap G, store Γ and
//! path condition Σ — plus the trace of steps that led here and the
//! obligation being consumed, both of which travel with the path.

use std::sync::{Arc, OnceLock};

use imbl::{HashSet, OrdMap, Vector};

use super::heap::{ForeignRefs, Heap};
use super::term::Term;
use crate::diag::Kind;
pub use crate::logic::path::{PathCondition, PcNode};
use crate::record::StepKind;
use crate::record::failure::Related;
use crate::syntax::ast::Span;

/// The variables and their values, with the references among the values
/// that were not allocated on this path counted (`State::existing_refs`
/// lists them without a walk over every variable). Reads go through the
/// map itself.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Store {
    vars: OrdMap<Arc<str>, Term>,
    foreign: ForeignRefs,
}

impl std::ops::Deref for Store {
    type Target = OrdMap<Arc<str>, Term>;

    fn deref(&self) -> &Self::Target {
        &self.vars
    }
}

impl Store {
    pub fn insert(&mut self, name: Arc<str>, value: Term) -> Option<Term> {
        self.foreign.add(&value);
        let old = self.vars.insert(name, value)?;
        self.foreign.forget(&old);
        Some(old)
    }

    /// The values that are references not allocated on this path.
    pub fn foreign(&self) -> impl Iterator<Item = &Term> {
        self.foreign.iter()
    }
}

impl FromIterator<(Arc<str>, Term)> for Store {
    fn from_iter<I: IntoIterator<Item = (Arc<str>, Term)>>(iter: I) -> Store {
        let mut store = Store::default();
        for (k, v) in iter {
            store.insert(k, v);
        }
        store
    }
}

/// What is being consumed when a failure happens: it decides the reported
/// kind and place (docs/language.md section 8). The outermost obligation wins.
#[derive(Clone, Debug)]
pub struct Obligation {
    pub kind: Kind,
    /// Where to report, for obligations located at a statement or call.
    pub at: Option<Span>,
    /// The conjunct being checked (the location for per-conjunct kinds).
    pub conjunct: Option<Span>,
    /// How many consumptions nested inside this one are under way; only the
    /// outermost moves `conjunct`.
    pub nested: u32,
    /// An `assert`: a failure is reported once, then assumed.
    pub lenient: bool,
    pub reported: bool,
    /// The facts of the top-level conjuncts (and branch conditions) whose
    /// evaluation did not fail, whether they hold or not: all that a failed
    /// lenient consumption leaves on the path.
    pub assumed: Vec<Term>,
    /// How many failures this obligation met on this path.
    pub failures: u32,
    /// Secondary places to show (e.g. the callee's `requires`).
    pub related: Vec<(Span, Related)>,
    /// The store of the code that must establish the assertion, when the
    /// assertion is evaluated in a callee's store (for counterexamples).
    pub outer_store: Option<Store>,
}

impl Obligation {
    pub fn at(kind: Kind, span: Span) -> Obligation {
        Obligation {
            kind,
            at: Some(span),
            conjunct: None,
            nested: 0,
            lenient: false,
            reported: false,
            assumed: Vec::new(),
            failures: 0,
            related: Vec::new(),
            outer_store: None,
        }
    }

    pub fn per_conjunct(kind: Kind) -> Obligation {
        Obligation {
            at: None,
            ..Obligation::at(kind, 0..0)
        }
    }
}

/// One recorded step: the state a statement or rule produced.
pub struct Step {
    pub span: Span,
    pub kind: StepKind,
    pub heap: Heap,
    /// The old heap (`old(...)` reads it): named values of the pre-state.
    pub old: Heap,
    pub store: Store,
    pub pc: PathCondition,
    pub parent: Option<Arc<Step>>,
}

#[derive(Clone, Default)]
pub struct Trace(Option<Arc<Step>>);

impl Trace {
    pub fn last(&self) -> Option<Arc<Step>> {
        self.0.clone()
    }

    /// Steps oldest first.
    pub fn steps(&self) -> Vec<Arc<Step>> {
        let mut out = Vec::new();
        let mut node = self.0.clone();
        while let Some(n) = node {
            node = n.parent.clone();
            out.push(n);
        }
        out.reverse();
        out
    }
}

#[derive(Clone, Default)]
pub struct State {
    pub heap: Heap,
    pub old: Heap,
    pub store: Store,
    pub pc: PathCondition,
    pub trace: Trace,
    pub obligation: Option<Obligation>,
    /// Inside the body of an `opening` (for the termination check).
    pub opening_depth: u32,
    /// Evaluating the body of a pure method for `use` or `using`: calls in
    /// it are not unfolded again, and belong to that method's own
    /// termination check, not to the one of the code being verified.
    pub unfolding: bool,
    /// Inside how many inferred unfoldings (`infer::definitions`) the
    /// evaluation is: calls there are deferred in turn up to
    /// `infer::NESTED_UNFOLDS` levels.
    pub unfold_depth: u8,
    /// Inside an inferred step being tried (`Ctx::attempt`): a failure ends
    /// the path quietly and the step is given up on that path.
    pub trial: Option<u32>,
    /// How many inferred opens or closes are nested here (bounded).
    pub infer_depth: u8,
    /// How many opens on demand consumptions on this path went on from
    /// (`infer::opened_while_consuming`).
    pub consumed_opens: u32,
    /// Branch decisions taken, in `sift test`'s exploration only
    /// (`Ctx::unroll`): the condition's start and the side taken.
    pub decisions: imbl::Vector<(usize, bool)>,
    /// Definitions of pure calls inferred on this path but not unfolded
    /// yet (`infer::use_on_eval`): a proof that fails without them is tried
    /// again with them (`Ctx::prove`).
    pub deferred: Vector<Arc<Deferred>>,
    /// The calls of `deferred`.
    pub deferred_calls: HashSet<Term>,
}

/// A pure call's definition, to unfold at most once (every path through
/// the call shares it). It holds terms only: the body is evaluated from the
/// call's snapshot alone, not in the caller's heap (`infer::definitions`).
pub struct Deferred {
    /// The call term `C.p(snapshot, receiver, args)`.
    pub call: Term,
    /// The snapshot of the precondition consumed by the call.
    pub snap: Term,
    pub class: String,
    pub name: String,
    pub recv: Option<Term>,
    pub args: Vec<Term>,
    /// A condition under which the call was evaluated that the path which
    /// carries it does not know (an arm of a conditional): the facts hold
    /// only under it.
    pub guard: Option<Term>,
    /// The `unfold_depth` of the state that evaluated the call.
    pub depth: u8,
    /// The definition's facts (the call equals its body, and what
    /// evaluating the body learned); `None` where unfolding failed.
    pub facts: OnceLock<Option<Vec<Term>>>,
}

impl State {
    /// The references the state mentions that were not allocated on this
    /// path (allocated ones differ from a new one by their numbers): those
    /// chunks hold (receivers, field values) and those of the store. Each
    /// denotes an object that exists now, so a new object differs from all
    /// of them.
    pub fn existing_refs(&self) -> Vec<Term> {
        let mut seen = std::collections::HashSet::new();
        let stored = self.store.foreign();
        let mut out: Vec<Term> = self
            .heap
            .foreign()
            .chain(stored)
            .filter(|t| seen.insert(*t))
            .cloned()
            .collect();
        // The sets iterate in a random order; the facts and the steps that
        // show them must not.
        out.sort_by_cached_key(|t| {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            t.hash(&mut h);
            (h.finish(), t.to_string())
        });
        out
    }

    /// Carries the definitions deferred in `arm` since `from` (how many
    /// `deferred` had) onto this state, guarded by the arm's condition.
    pub fn carry_deferred(&mut self, arm: &State, from: usize, guard: &Term) {
        for d in arm.deferred.iter().skip(from) {
            let guard = match &d.guard {
                Some(g) => Term::and(vec![guard.clone(), g.clone()]),
                None => guard.clone(),
            };
            self.deferred_calls.insert(d.call.clone());
            self.deferred.push_back(Arc::new(Deferred {
                call: d.call.clone(),
                snap: d.snap.clone(),
                class: d.class.clone(),
                name: d.name.clone(),
                recv: d.recv.clone(),
                args: d.args.clone(),
                guard: Some(guard),
                depth: d.depth,
                facts: OnceLock::new(),
            }));
        }
    }

    pub fn assume(&mut self, fact: Term) {
        self.pc.add(fact);
    }

    pub fn with_fact(&self, fact: Term) -> State {
        let mut s = self.clone();
        s.pc.add(fact);
        s
    }

    pub fn record(&mut self, span: Span, kind: StepKind) {
        let step = Step {
            span,
            kind,
            heap: self.heap.clone(),
            old: self.old.clone(),
            store: self.store.clone(),
            pc: self.pc.clone(),
            parent: self.trace.0.take(),
        };
        self.trace = Trace(Some(Arc::new(step)));
    }

    /// What holds in every one of `states` (which agree on the values of
    /// the variables a `join` keeps): their common facts and old-heap
    /// chunks, with an empty heap.
    pub fn common(states: &[State]) -> State {
        let Some(first) = states.first() else {
            return State::default();
        };
        let mut base = first.clone();
        base.heap = Heap::new();
        base.pc = PathCondition::common(&states.iter().map(|s| &s.pc).collect::<Vec<_>>());
        base.old = Heap::common(&states.iter().map(|s| &s.old).collect::<Vec<_>>());
        base.deferred = first
            .deferred
            .iter()
            .filter(|d| {
                states
                    .iter()
                    .all(|s| s.deferred.iter().any(|e| Arc::ptr_eq(d, e)))
            })
            .cloned()
            .collect();
        base.deferred_calls = base.deferred.iter().map(|d| d.call.clone()).collect();
        base
    }

    /// This state again after evaluating something in a derived one (another
    /// heap or store): what was learned and what failed come back.
    pub fn resume(&self, inner: &State) -> State {
        let mut out = self.clone();
        out.pc = inner.pc.clone();
        out.obligation = inner.obligation.clone();
        out.deferred = inner.deferred.clone();
        out.deferred_calls = inner.deferred_calls.clone();
        out
    }

    /// How many failures the active obligation met on this path.
    pub fn failures(&self) -> u32 {
        self.obligation.as_ref().map_or(0, |o| o.failures)
    }

    /// Notes a top-level fact of a lenient consumption for
    /// `Obligation::assumed`, unless its evaluation failed (when the
    /// obligation met failures since `before`): such a fact would be made
    /// of values invented to go on.
    pub fn note_fact(&mut self, fact: &Term, before: u32) {
        if let Some(o) = self.obligation.as_mut()
            && o.lenient
            && o.nested == 0
            && o.failures == before
        {
            o.assumed.push(fact.clone());
        }
    }

    pub fn var(&self, name: &str) -> Option<Term> {
        self.store.get(name).cloned()
    }
}
