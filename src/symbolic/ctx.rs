//! The verifier's context for one member: the program, the solver, fresh
//! names, and the errors found so far. Continuations receive it as an
//! argument rather than capturing it, so they can all be plain `Fn`s.

use std::collections::HashSet;
use std::sync::Arc;

use super::program::ProgramInfo;
use super::route::Route;
use super::state::{Obligation, PathCondition, State, Step, Trace};
use super::term::{Sort, Term, VarKind};
use crate::diag::Kind;
use crate::record::StepKind;
use crate::record::failure::{CloseLack, FailureView, ObligationView, Reason, Related};
use crate::solver::{Answer, GaveUp, Solver};
use crate::syntax::ast::Span;

/// The rest of a path, given the state reached.
pub type Cont<'k> = &'k dyn Fn(&mut Ctx, State);
/// Where a statement's path goes other than to the next statement: a
/// `return` to `ret` (the method's postcondition); inside a loop body, a
/// `break` and a `continue` to the innermost loop's (`None` outside a loop,
/// which the checker rules out).
#[derive(Clone, Copy)]
pub struct Exits<'k> {
    pub ret: Cont<'k>,
    pub brk: Option<Cont<'k>>,
    pub cont: Option<Cont<'k>>,
}

impl<'k> Exits<'k> {
    /// Outside any loop: only `return`.
    pub fn method(ret: Cont<'k>) -> Exits<'k> {
        Exits {
            ret,
            brk: None,
            cont: None,
        }
    }
}

/// The rest of a path after evaluating an expression to a term.
pub type TermCont<'k> = &'k dyn Fn(&mut Ctx, State, Term);

/// What a member's check found wrong.
pub enum Found {
    /// A path failed.
    Path(Box<FailureView>),
    /// The engine met something the checker should have ruled out.
    Internal { span: Span, what: String },
}

pub struct Failure {
    pub found: Found,
    pub trace: Trace,
    pub state: State,
    pub counterexample: Vec<(String, String)>,
    /// The method's inputs in a model of the failing path, to replay it.
    pub inputs: Option<super::paths::ModelInputs>,
}

pub struct Ctx<'z> {
    pub prog: Arc<ProgramInfo>,
    pub source: Arc<str>,
    pub solver: Solver<'z>,
    pub failures: Vec<Failure>,
    seen: HashSet<(Kind, Span)>,
    next_var: u32,
    next_alloc: u32,
    /// Set while checking a pure method body: (its name, where it starts).
    pub termination: Option<(String, usize)>,
    /// The value of that method's `decreases` measure in its pre-state.
    pub measure: Option<Term>,
    /// Set while evaluating a pure method's own measure: that method.
    pub measure_of: Option<String>,
    /// Pure methods whose preconditions are being consumed, innermost last:
    /// a precondition that calls its own method again would never finish.
    pub consuming_pre: Vec<String>,
    /// Joins already continued past, per verification unit.
    pub joins_done: HashSet<(usize, u32)>,
    /// The current unit (method body or loop body) and its starting state.
    pub unit: u32,
    pub unit_base: State,
    next_unit: u32,
    /// Why the last failed proof failed, if the solver gave up.
    gave_up: Option<GaveUp>,
    /// The goal of the last proof that failed, for a counterexample.
    last_refuted: Option<Term>,
    /// Locals and parameters the current method assigns (for `join`).
    pub assigned: std::collections::BTreeSet<String>,
    /// Every recorded step of every path, when the whole execution tree is
    /// wanted (stepping, hover); failures only keep their own path otherwise.
    pub all_steps: Option<Vec<Arc<Step>>>,
    /// The task's choices at the first splits of a method body (`route`).
    pub route: Option<Route>,
    /// How many loop bodies are being verified inside each other: their
    /// splits are not routed (a task's routed path goes on after them).
    loop_depth: u32,
    /// Ghost statement inference (docs/language.md section 6) is on.
    pub infer: bool,
    /// `int` is Java's 32-bit integer in code (`--overflow`, section 4e):
    /// the state's `int`s are assumed in range (`overflow`).
    pub overflow: bool,
    /// Failures of the inferred steps being tried: (trial, state, reason).
    trial_failures: Vec<(u32, State, Reason)>,
    next_trial: u32,
    /// Path exploration for `sift test` (`paths`): loops are unrolled this
    /// many times instead of using their invariants, joins do not merge,
    /// and branch decisions are kept on the state.
    pub unroll: Option<u32>,
    /// Where each path ended, when exploring paths: the states of failures
    /// that end a path, with the failure's place and, on the path, the
    /// negation of the fact that failed (the driver adds the other ends).
    pub leaves: Option<Vec<(State, Option<Span>)>>,
    /// The method's store on entry (`this`, parameters), for the inputs a
    /// counterexample is replayed with.
    pub entry: Option<super::state::Store>,
    /// Building a failure's replay inputs (not again inside that).
    replaying: bool,
    /// The element sort of the arrays accessed so far (to show their
    /// contents in counterexamples; `array::note_sort`).
    pub elem_sorts: std::collections::HashMap<Term, Sort>,
    /// Rule applications so far (`tick`), and how many are allowed.
    work: u64,
    pub work_budget: u64,
    /// When the member must be done, if it is limited in time.
    pub deadline: Option<std::time::Instant>,
    /// Why the engine stopped exploring, once it has.
    stopped: Option<Stop>,
}

/// Why the engine stopped before every path was explored: the member is
/// then not verified (the driver reports it), whatever its paths found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The run was cancelled (`crate::cancel`).
    Cancelled,
    /// The member used up `Ctx::work_budget` rule applications.
    Budget,
    /// The member ran past `Ctx::deadline`.
    Deadline,
}

/// Rule applications (evaluations, productions, consumptions and statements,
/// each counted once) one member may take. Inference bounds every search
/// it makes, but nested searches, unfoldings and case splits multiply;
/// this keeps any member finite (the slowest test program and example
/// takes well under a hundredth of it).
pub const WORK_BUDGET: u64 = 10_000_000;

/// How many rule applications pass between looks at the cancel flag and
/// the clock.
const CANCEL_EVERY: u64 = 256;

/// Where a failed trial stopped: the path (its state) and why.
pub struct TrialFailure {
    pub state: State,
    pub reason: Reason,
}

impl<'z> Ctx<'z> {
    pub fn new(prog: Arc<ProgramInfo>, source: Arc<str>, solver: Solver<'z>) -> Ctx<'z> {
        Ctx {
            prog,
            source,
            solver,
            failures: Vec::new(),
            seen: HashSet::new(),
            next_var: 0,
            next_alloc: 0,
            termination: None,
            measure: None,
            measure_of: None,
            consuming_pre: Vec::new(),
            joins_done: HashSet::new(),
            unit: 0,
            unit_base: State::default(),
            next_unit: 1,
            gave_up: None,
            last_refuted: None,
            assigned: Default::default(),
            all_steps: None,
            route: None,
            loop_depth: 0,
            infer: true,
            overflow: false,
            trial_failures: Vec::new(),
            next_trial: 0,
            unroll: None,
            leaves: None,
            entry: None,
            replaying: false,
            elem_sorts: Default::default(),
            work: 0,
            work_budget: WORK_BUDGET,
            deadline: None,
            stopped: None,
        }
    }

    /// Counts one rule application. `false` once the run is cancelled or
    /// the member's budget is used up: the caller then ends its path, and
    /// every path after it ends at once (`stopped` says why).
    pub fn tick(&mut self) -> bool {
        if self.stopped.is_some() {
            return false;
        }
        self.work += 1;
        if self.work > self.work_budget {
            self.stopped = Some(Stop::Budget);
            return false;
        }
        if self.work.is_multiple_of(CANCEL_EVERY) {
            if self.solver.cancelled() {
                self.stopped = Some(Stop::Cancelled);
            } else if self
                .deadline
                .is_some_and(|d| std::time::Instant::now() >= d)
            {
                self.stopped = Some(Stop::Deadline);
            }
        }
        self.stopped.is_none()
    }

    /// Why the engine stopped early, if it did.
    pub fn stopped(&self) -> Option<Stop> {
        self.stopped
    }

    /// Runs `step` from `s` as a trial: on its paths, failures are not
    /// reported but end the path and are returned. `step` must hand the
    /// state back with `trial` reset (`State::trial` of `s`) before going on
    /// with the rest of the path, whose failures are real.
    pub fn attempt(&mut self, s: &State, step: &dyn Fn(&mut Ctx, State)) -> Vec<TrialFailure> {
        self.next_trial += 1;
        let id = self.next_trial;
        let mut t = s.clone();
        t.trial = Some(id);
        step(self, t);
        let (mine, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut self.trial_failures)
            .into_iter()
            .partition(|(i, _, _)| *i == id);
        self.trial_failures = rest;
        mine.into_iter()
            .map(|(_, state, reason)| TrialFailure { state, reason })
            .collect()
    }

    /// Records the state `s` reached at `span` as a step of its path.
    pub fn record(&mut self, s: &mut State, span: Span, kind: StepKind) {
        s.record(span, kind);
        if let (Some(all), Some(step)) = (self.all_steps.as_mut(), s.trace.last()) {
            all.push(step);
        }
    }

    pub fn fresh(&mut self, name: &str, sort: Sort) -> Term {
        self.next_var += 1;
        Term::var(self.next_var, name, sort, VarKind::Plain)
    }

    /// The bound variable `name` of a quantifier (`quant`).
    pub fn fresh_bound(&mut self, name: &str, sort: Sort) -> Term {
        self.next_var += 1;
        Term::var(self.next_var, name, sort, VarKind::Bound)
    }

    pub fn fresh_snap(&mut self) -> Term {
        self.fresh("s", Sort::Snap)
    }

    /// A new object: a variable with the next allocation number.
    pub fn fresh_object(&mut self, class: &str) -> (Term, i128) {
        self.next_var += 1;
        self.next_alloc += 1;
        let name = format!("new{class}");
        let t = Term::var(
            self.next_var,
            &name,
            Sort::Ref,
            VarKind::Allocated(self.next_alloc),
        );
        (t, i128::from(self.next_alloc))
    }

    /// Starts a new unit for `join` (a loop body is verified on its own).
    pub fn enter_unit(&mut self, base: &State) -> (u32, State) {
        let saved = (
            self.unit,
            std::mem::replace(&mut self.unit_base, base.clone()),
        );
        self.unit = self.next_unit;
        self.next_unit += 1;
        self.loop_depth += 1;
        saved
    }

    /// Whether a loop body is being verified (its condition included).
    pub fn in_loop_body(&self) -> bool {
        self.loop_depth > 0
    }

    pub fn leave_unit(&mut self, saved: (u32, State)) {
        self.loop_depth -= 1;
        self.unit = saved.0;
        self.unit_base = saved.1;
    }

    /// Σ ⊢ goal, trying syntax before Z3; if that fails, once more with
    /// the definitions deferred on the path (`infer::definitions`).
    pub fn prove(&mut self, s: &State, goal: &Term, why: &str) -> bool {
        if self.prove_in(&s.pc, s, goal, why) {
            return true;
        }
        match self.with_definitions(s) {
            Some(pc) => self.prove_in(&pc, s, goal, why),
            None => false,
        }
    }

    /// The path condition of `s` with its deferred definitions, if any.
    fn with_definitions(&mut self, s: &State) -> Option<PathCondition> {
        if s.deferred.is_empty() {
            return None;
        }
        let facts = super::infer::definitions(self, s);
        if facts.is_empty() {
            return None;
        }
        let mut pc = s.pc.clone();
        for f in facts {
            pc.add(f);
        }
        Some(pc)
    }

    fn prove_in(&mut self, pc: &PathCondition, s: &State, goal: &Term, why: &str) -> bool {
        let why = if self.solver.logging() {
            let line = s.trace.last().map_or(1, |step| {
                crate::diag::line_col(&self.source, step.span.start).0
            });
            format!("{why} (after line {line})")
        } else {
            String::new()
        };
        match self.solver.prove(pc, goal, &why) {
            Answer::Proved => true,
            Answer::Refuted => {
                self.gave_up = None;
                self.last_refuted = Some(goal.clone());
                false
            }
            Answer::GaveUp(reason) => {
                self.gave_up = Some(reason);
                self.last_refuted = Some(goal.clone());
                false
            }
        }
    }

    /// Whether a branch under `cond` may be reachable.
    pub fn may_hold(&mut self, s: &State, cond: &Term, why: &str) -> bool {
        if cond.is_true() {
            return !s.pc.is_known_false();
        }
        if cond.is_false() {
            return false;
        }
        // May over-approximate: a branch explored on an infeasible path
        // costs time, never soundness (`fail` checks the path first).
        if s.pc.is_open_choice(cond) && !s.pc.is_known_false() {
            return true;
        }
        // Without the deferred definitions: a branch they would rule out
        // is explored, and a failure on it is dropped by `fail`, which
        // checks the path with them.
        !self.prove_in(&s.pc, s, &Term::not(cond.clone()), why)
    }

    /// Paper's case split (Figures 6–8, conditionals): runs `f` on each side
    /// of `cond` that may be reachable, with that side's fact on the path;
    /// `f` learns which side (`true` for `cond`).
    pub fn cases(&mut self, s: &State, cond: &Term, f: &dyn Fn(&mut Ctx, State, bool)) {
        if let Some(route) = self.route.as_ref()
            && route.active()
            && self.loop_depth == 0
        {
            let neg = Term::not(cond.clone());
            let then_ok = self.may_hold(s, cond, "may the condition hold?");
            let else_ok = self.may_hold(s, &neg, "may the condition fail?");
            let second = match (then_ok, else_ok) {
                (true, true) => self.route.as_mut().is_some_and(|r| r.choose()),
                (true, false) => false,
                (false, true) => true,
                (false, false) => return,
            };
            let fact = if second { neg } else { cond.clone() };
            return f(self, s.with_fact(fact), !second);
        }
        for (c, side) in [(cond.clone(), true), (Term::not(cond.clone()), false)] {
            let why = if side {
                "may the condition hold?"
            } else {
                "may the condition fail?"
            };
            if self.may_hold(s, &c, why) {
                f(self, s.with_fact(c), side);
            }
        }
    }

    /// The source text of a span, on one line and shortened.
    pub fn text(&self, span: &Span) -> String {
        let raw = self.source.get(span.clone()).unwrap_or("");
        let one_line: String = raw.split_whitespace().collect::<Vec<_>>().join(" ");
        if one_line.chars().count() > 60 {
            let cut: String = one_line.chars().take(57).collect();
            format!("{cut}...")
        } else {
            one_line
        }
    }

    /// Reports a failure on the path of `s` (unless the path is infeasible).
    /// `kind`, `span` and `reason` describe the failure itself; an active
    /// obligation decides the kind and place reported (docs/language.md
    /// section 8). Returns the state to go on with when the failure is to be
    /// assumed (a failed `assert`), `None` when the path ends here.
    pub fn fail(&mut self, s: &State, kind: Kind, span: Span, reason: Reason) -> Option<State> {
        self.fail_noted(s, kind, span, reason, None)
    }

    /// `fail`, with what an inferred close lacked.
    pub fn fail_noted(
        &mut self,
        s: &State,
        kind: Kind,
        span: Span,
        reason: Reason,
        close_lack: Option<CloseLack>,
    ) -> Option<State> {
        let gave_up = self.gave_up.take();
        let refuted = self.last_refuted.take();
        let pc = self.with_definitions(s).unwrap_or_else(|| s.pc.clone());
        if !self.solver.feasible(&pc, "is the failing path reachable?") {
            return None;
        }
        if let Some(id) = s.trial {
            self.trial_failures.push((id, s.clone(), reason));
            return None;
        }
        let view = FailureView {
            kind,
            span,
            reason,
            obligation: s.obligation.as_ref().map(|ob| ObligationView {
                kind: ob.kind,
                at: ob.at.clone(),
                conjunct: ob.conjunct.clone(),
                related: ob.related.clone(),
            }),
            path_end: s.trace.last().map(|step| step.span.clone()),
            close_lack,
            gave_up,
            hint: None,
        };
        let lenient = s.obligation.as_ref().is_some_and(|o| o.lenient);
        let already = s.obligation.as_ref().is_some_and(|o| o.reported);
        // Every path records its failure step (for stepping through the
        // tree); the error itself is reported once.
        let (reported_kind, failed_at) = view.reported();
        let mut at_failure = s.clone();
        let step = StepKind::Failed {
            kind: reported_kind,
            reason: view.reason.clone(),
            obligation: view.obligation.is_some(),
            resumes: lenient,
        };
        self.record(&mut at_failure, failed_at.clone(), step);
        if !already && self.seen.insert((reported_kind, failed_at.clone())) {
            let mut view = view;
            view.hint = super::hint::hint(self, s, &view);
            let counterexample = self.counterexample(s, &pc, refuted.as_ref());
            let inputs = self.replay_inputs(s, refuted.as_ref());
            self.failures.push(Failure {
                found: Found::Path(Box::new(view)),
                trace: at_failure.trace.clone(),
                state: s.clone(),
                counterexample,
                inputs,
            });
        }
        if lenient {
            let mut next = s.clone();
            if let Some(o) = next.obligation.as_mut() {
                o.reported = true;
                o.failures += 1;
            }
            return Some(next);
        }
        if let Some(leaves) = self.leaves.as_mut() {
            let end = match &refuted {
                Some(goal) => s.with_fact(super::quant::refutation(goal).0),
                None => s.clone(),
            };
            leaves.push((end, Some(failed_at)));
        }
        None
    }

    /// Values of the variables and of the fields in the heap in a model of
    /// the failing path (and of the negated goal, when a fact failed).
    fn counterexample(
        &mut self,
        s: &State,
        pc: &PathCondition,
        goal: Option<&Term>,
    ) -> Vec<(String, String)> {
        let mut names = Vec::new();
        let mut terms = Vec::new();
        // For a callee's precondition or a predicate body, the variables
        // the user wrote are the caller's.
        let store = s
            .obligation
            .as_ref()
            .and_then(|o| o.outer_store.clone())
            .unwrap_or_else(|| s.store.clone());
        for (k, v) in store.iter() {
            names.push(k.to_string());
            terms.push(v.clone());
        }
        let mut arrays = Vec::new();
        for (_, c) in s.heap.iter() {
            if let super::heap::Chunk::Field { recv, field, value } = c {
                let owner = store
                    .iter()
                    .find(|(_, v)| *v == recv)
                    .map(|(k, _)| k.to_string());
                let Some(owner) = owner else { continue };
                if &**field == crate::syntax::ast::ELEMS {
                    arrays.push((owner, recv.clone(), value.clone()));
                    continue;
                }
                names.push(format!("{owner}.{}", super::heap::short_name(field)));
                terms.push(value.clone());
            }
        }
        // The pure method calls of the failing fact (`c.getX() = 3`), and
        // the fields of the pre-state (`old(c.f) = 1`).
        let entry = self.entry.as_ref().map(super::names::StoreIndex::new);
        let program_names = super::names::Names::new(
            &self.prog,
            &self.source,
            (&store, &s.heap, &s.old),
            entry.as_ref(),
        );
        if let Some(g) = goal {
            for (shown, t) in program_names.pure_calls(g) {
                names.push(shown);
                terms.push(t);
            }
        }
        let current: std::collections::HashSet<_> = s
            .heap
            .iter()
            .filter_map(|(_, c)| match c {
                super::heap::Chunk::Field { recv, field, value } => Some((recv, field, value)),
                super::heap::Chunk::Pred { .. } => None,
            })
            .collect();
        for (_, c) in s.old.iter() {
            if let super::heap::Chunk::Field { recv, field, value } = c {
                // Values the method has not changed are shown once.
                if current.contains(&(recv, field, value)) || &**field == crate::syntax::ast::ELEMS
                {
                    continue;
                }
                let Some((owner, _)) = store.iter().find(|(_, v)| *v == recv) else {
                    continue;
                };
                names.push(format!("old({owner}.{})", super::heap::short_name(field)));
                terms.push(value.clone());
            }
        }
        // A failed `forall` is shown with the value of its variable that
        // breaks it.
        let refuted = goal.map(super::quant::refutation);
        for v in refuted.iter().flat_map(|(_, witness)| witness) {
            names.push(v.to_string().split('@').next().unwrap_or("?").to_string());
            terms.push(v.clone());
        }
        let plain = terms.len();
        let named = super::array::name_contents(self, &arrays, &mut terms);
        let negated = refuted.map(|(n, _)| n);
        let extra = match (negated, named.is_empty()) {
            (n, true) => n,
            (n, false) => Some(Term::and(n.into_iter().chain(named).collect())),
        };
        let values = self.solver.model_values(pc, extra.as_ref(), &terms);
        values.map_or_else(Vec::new, |values| {
            let mut out: Vec<(String, String)> = names.into_iter().zip(values.clone()).collect();
            super::array::show_contents(&arrays, &values[plain.min(values.len())..], &mut out);
            out
        })
    }

    /// The method's inputs in a model of the failing path (and of the
    /// negated goal): its entry values, and the fields of the pre-state with
    /// the precondition's instances unfolded a few levels, the shortest
    /// shape the path allows first.
    fn replay_inputs(
        &mut self,
        s: &State,
        goal: Option<&Term>,
    ) -> Option<super::paths::ModelInputs> {
        let entry = self.entry.clone()?;
        if self.replaying {
            return None;
        }
        self.replaying = true;
        let route = self.route.take();
        let steps = self.all_steps.take();
        let leaves = self.leaves.take();
        let mut base = s.clone();
        base.heap = s.old.clone();
        base.obligation = None;
        let shapes = std::cell::RefCell::new(Vec::new());
        // As a trial: a failure while unfolding is no error of the method.
        self.attempt(&base, &|ctx, t| {
            super::paths::unfold_instances(ctx, t, super::paths::REPLAY_UNFOLDS, &|_, st| {
                shapes.borrow_mut().push((st.pc, st.heap))
            })
        });
        self.route = route;
        self.all_steps = steps;
        self.leaves = leaves;
        self.replaying = false;
        let negated = goal.map(|g| super::quant::refutation(g).0);
        for (pc, heap) in shapes.into_inner().into_iter().rev() {
            let terms = super::paths::InputTerms::new(&entry, &heap);
            let (shown, named) = super::array::name_reads(self, &terms.terms);
            let extra = Term::and(negated.iter().cloned().chain(named).collect());
            if let Some(values) = self.solver.model_values(&pc, Some(&extra), &shown) {
                return Some(terms.read(&values));
            }
        }
        None
    }

    /// An invariant of the checker was broken; reported, never a panic.
    pub fn internal(&mut self, s: &State, span: Span, what: &str) {
        if self.seen.insert((Kind::Internal, span.clone())) {
            self.failures.push(Failure {
                found: Found::Internal {
                    span,
                    what: what.to_string(),
                },
                trace: s.trace.clone(),
                state: s.clone(),
                counterexample: Vec::new(),
                inputs: None,
            });
        }
    }
}

/// An obligation located at a statement or call, with a secondary place.
pub fn obligation_at(
    kind: Kind,
    span: Span,
    related: Option<(Span, Related)>,
    caller: &State,
) -> Obligation {
    let mut ob = Obligation::at(kind, span);
    ob.outer_store = Some(caller.store.clone());
    ob.related.extend(related);
    ob
}
