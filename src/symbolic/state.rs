//! Symbolic states (paper Definition 2): heap H, old heap G, store Γ and
//! path condition Σ — plus the trace of steps that led here and the
//! obligation being consumed, both of which travel with the path.

use std::fmt;
use std::sync::{Arc, OnceLock};

use imbl::{HashSet, OrdMap, Vector};

use super::heap::Heap;
use super::term::Term;
use crate::diag::{Kind, Label};
use crate::syntax::ast::Span;

pub type Store = OrdMap<Arc<str>, Term>;

/// Σ as a persistent list: paths that share a prefix share its nodes, which
/// lets the solver keep its push/pop stack aligned with the path (a node is
/// the same object on both sides of a branch).
#[derive(Clone, Default)]
pub struct PathCondition {
    head: Option<Arc<PcNode>>,
    facts: HashSet<Term>,
    /// Every variable some fact mentions: a condition over none of them is
    /// decided without the solver (`Term::is_free_choice`).
    vars: HashSet<u32>,
    /// Pure calls whose definition is on the path (`define`).
    defined: HashSet<Term>,
}

pub struct PcNode {
    pub fact: Term,
    pub parent: Option<Arc<PcNode>>,
    /// Number of facts up to and including this one.
    pub len: usize,
}

impl PathCondition {
    pub fn len(&self) -> usize {
        self.head.as_ref().map_or(0, |n| n.len)
    }

    pub fn is_empty(&self) -> bool {
        self.head.is_none()
    }

    pub fn head(&self) -> Option<&Arc<PcNode>> {
        self.head.as_ref()
    }

    /// Adds a fact (conjunctions are split, `true` and repeats dropped).
    pub fn add(&mut self, fact: Term) {
        if fact.is_true() || self.facts.contains(&fact) {
            return;
        }
        if let super::term::Op::And = fact.op() {
            for f in fact.args().to_vec() {
                self.add(f);
            }
            return;
        }
        self.facts.insert(fact.clone());
        fact.for_each_var(&mut |id| {
            self.vars.insert(id);
        });
        let len = self.len() + 1;
        self.head = Some(Arc::new(PcNode {
            fact,
            parent: self.head.take(),
            len,
        }));
    }

    pub fn with(&self, fact: Term) -> PathCondition {
        let mut pc = self.clone();
        pc.add(fact);
        pc
    }

    /// Whether the fact is literally on the path (no solver needed).
    pub fn contains(&self, fact: &Term) -> bool {
        fact.is_true() || self.facts.contains(fact)
    }

    /// Adds the equation of a pure call and its unfolded body.
    pub fn define(&mut self, call: Term, body: Term) {
        self.add(Term::eq(call.clone(), body));
        self.defined.insert(call);
    }

    /// Whether the definition of this pure call is already on the path.
    pub fn is_defined(&self, call: &Term) -> bool {
        self.defined.contains(call)
    }

    /// Whether `cond` and its negation may both hold wherever the path is
    /// feasible, decided without the solver: its variables are
    /// unconstrained by the path and it is a free choice over them.
    pub fn is_open_choice(&self, cond: &Term) -> bool {
        if !cond.is_free_choice() {
            return false;
        }
        let mut free = true;
        cond.for_each_var(&mut |id| free &= !self.vars.contains(&id));
        free
    }

    /// Whether `false` was added: the path is known infeasible.
    pub fn is_known_false(&self) -> bool {
        self.facts.contains(&Term::bool(false))
    }

    /// Facts oldest first.
    pub fn facts(&self) -> Vec<Term> {
        self.facts_since(0)
    }

    /// The facts every one of `pcs` holds (in the order of the first): what
    /// is known on all paths that a `join` merges.
    pub fn common(pcs: &[&PathCondition]) -> PathCondition {
        let mut out = PathCondition::default();
        if let Some((first, rest)) = pcs.split_first() {
            for f in first.facts() {
                if rest.iter().all(|pc| pc.contains(&f)) {
                    out.add(f);
                }
            }
        }
        out
    }

    /// Facts added after the first `base` ones, oldest first.
    pub fn facts_since(&self, base: usize) -> Vec<Term> {
        let mut out = Vec::new();
        let mut node = self.head.as_ref();
        while let Some(n) = node {
            if n.len <= base {
                break;
            }
            out.push(n.fact.clone());
            node = n.parent.as_ref();
        }
        out.reverse();
        out
    }
}

/// What is being consumed when a failure happens: it decides the reported
/// kind and place (LANGUAGE.md section 6). The outermost obligation wins.
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
    pub related: Vec<Label>,
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
    pub what: String,
    pub heap: Heap,
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
    /// Inside an inferred step being tried (`Ctx::attempt`): a failure ends
    /// the path quietly and the step is given up on that path.
    pub trial: Option<u32>,
    /// How many inferred opens or closes are nested here (bounded).
    pub infer_depth: u8,
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
    /// The definition's facts (the call equals its body, and what
    /// evaluating the body learned); `None` where unfolding failed.
    pub facts: OnceLock<Option<Vec<Term>>>,
}

impl State {
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

    pub fn record(&mut self, span: Span, what: impl Into<String>) {
        let step = Step {
            span,
            what: what.into(),
            heap: self.heap.clone(),
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

impl fmt::Display for PathCondition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let items: Vec<String> = self.facts().iter().map(|t| t.to_string()).collect();
        write!(f, "{{{}}}", items.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbolic::term::{Sort, VarKind};

    #[test]
    fn path_conditions_share_prefixes() {
        let x = Term::var(1, "x", Sort::Int, VarKind::Plain);
        let mut a = PathCondition::default();
        a.add(Term::lt(Term::int(0), x.clone()));
        let mut b = a.clone();
        b.add(Term::eq(x.clone(), Term::int(3)));
        a.add(Term::bool(true));
        assert_eq!(a.len(), 1);
        assert_eq!(b.len(), 2);
        assert!(Arc::ptr_eq(
            b.head().unwrap().parent.as_ref().unwrap(),
            a.head().unwrap()
        ));
        assert_eq!(b.facts_since(1), vec![Term::eq(x.clone(), Term::int(3))]);
        assert!(b.contains(&Term::eq(Term::int(3), x)));
    }

    #[test]
    fn open_choices_are_decided_without_the_solver() {
        let x = Term::var(1, "x", Sort::Int, VarKind::Plain);
        let y = Term::var(2, "y", Sort::Int, VarKind::Plain);
        let b = Term::var(3, "b", Sort::Bool, VarKind::Plain);
        let r = Term::var(4, "r", Sort::Ref, VarKind::Plain);
        let mut pc = PathCondition::default();
        let x_zero = Term::eq(x.clone(), Term::int(0));
        assert!(pc.is_open_choice(&x_zero));
        assert!(pc.is_open_choice(&Term::not(x_zero.clone())));
        assert!(pc.is_open_choice(&Term::lt(x.clone(), y.clone())));
        assert!(pc.is_open_choice(&b));
        // Not free choices: references, arithmetic, a variable against itself.
        assert!(!pc.is_open_choice(&Term::eq(r, Term::null())));
        assert!(!pc.is_open_choice(&Term::eq(Term::add(x.clone(), y.clone()), Term::int(1))));
        assert!(!pc.is_open_choice(&Term::le(x.clone(), x.clone())));
        // Once the path mentions a variable, the solver decides.
        pc.add(Term::lt(Term::int(5), y.clone()));
        assert!(pc.is_open_choice(&x_zero));
        assert!(!pc.is_open_choice(&Term::lt(x.clone(), y)));
        pc.add(Term::not(x_zero.clone()));
        assert!(!pc.is_open_choice(&x_zero));
    }
}
