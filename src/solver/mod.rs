//! The only module that talks to Z3.
//!
//! One `Solver` per verifier thread (each with its own Z3 context). Terms stay
//! in Sift's representation and are translated on first use, cached per
//! context. The solver's push/pop stack follows the path condition: before a
//! query the stack is popped back to the longest prefix it shares with the
//! path being asked about, and only the new facts are asserted.

mod config;
mod degree;
mod list;
mod smtlib;
mod watchdog;

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use z3::ast::{Ast, Bool, Dynamic, Int};
use z3::{Context, FuncDecl, Params, SatResult, Sort as ZSort, Symbol};

use crate::cancel::Cancel;
use crate::logic::path::{PathCondition, PcNode};
use crate::logic::term::{Op, Sort, Term};

pub use config::{DEFAULT_RLIMIT, DEFAULT_TIMEOUT_MS, Limits};
use list::ListFuns;
pub use smtlib::to_smtlib;
use smtlib::to_smtlib_in;
use watchdog::Watchdog;

/// The snapshot theory of paper section 3.2.2.
pub const PRELUDE: &str = include_str!("../../prelude.smt2");
/// The sequence theory, loaded only where sequences are used
/// (`Theories::sequences`).
pub const SEQ_PRELUDE: &str = include_str!("../../prelude_seq.smt2");

/// Which optional parts of the prelude a context holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Theories {
    /// `prelude_seq.smt2`. Without it, sequence terms (`Sort::List`) still
    /// translate, but `fromList` and `seqAt` are bare functions: a proof
    /// may fail for want of their laws, never succeed wrongly.
    pub sequences: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    Proved,
    /// A model of the path condition falsifies the goal.
    Refuted,
    /// Z3 gave up; never a proof.
    GaveUp(GaveUp),
}

/// Why Z3 answered neither yes nor no.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GaveUp {
    /// The query used up its resource units (`Limits::rlimit`).
    ResourceLimit,
    /// The query ran past the wall-clock backstop (`Limits::timeout_ms`).
    Timeout,
    /// Anything else Z3 reported (memory, ...), in its words.
    Other(String),
}

/// A program-specific uninterpreted function (a pure method).
#[derive(Clone, Debug)]
pub struct FunDecl {
    pub name: String,
    pub args: Vec<Sort>,
    pub ret: Sort,
}

pub struct Solver<'z> {
    z: &'z Context,
    s: z3::Solver<'z>,
    /// Int, Bool, Ref, Snap, the array sort, then `(Seq Snap)` once
    /// `ensure_list` has run.
    sorts: Vec<ZSort<'z>>,
    /// Z3's sequence functions over `(Seq Snap)`, made on first use: even
    /// unused, their template would change Z3's search in this context.
    list: Option<ListFuns<'z>>,
    /// The solver `list` parses its template into.
    templates: &'z z3::Solver<'z>,
    decls: HashMap<String, FuncDecl<'z>>,
    cache: HashMap<Term, Dynamic<'z>>,
    /// Polynomial degrees of the products met (`degree`).
    degrees: HashMap<Term, u64>,
    /// The products given to Z3 as fresh constants, with their names.
    abstracted: HashMap<Term, String>,
    /// The top path-condition node of each push level, bottom first.
    levels: Vec<Arc<PcNode>>,
    log: Option<String>,
    dog: Watchdog,
    logged_vars: HashSet<String>,
    pub queries: u64,
    rlimit: u32,
    /// What the last `unknown` answer meant (`classify_unknown`).
    last_unknown: Answer,
    /// Answers given up (timeout, resource limit): results that another
    /// run might not reproduce.
    pub gave_up: u64,
    /// Raised when the run's results are no longer wanted.
    cancel: Option<Arc<Cancel>>,
}

/// Runs `f` with a solver of its own: a fresh Z3 context (so nothing done
/// elsewhere changes its answers) holding the prelude and the program's pure
/// functions, and a watchdog for the wall-clock limit.
/// Raising `cancel` interrupts its queries and makes later ones give up.
pub fn with_solver<R>(
    funs: &[FunDecl],
    theories: Theories,
    limits: Limits,
    log: bool,
    cancel: Option<&Arc<Cancel>>,
    f: impl FnOnce(Solver<'_>) -> R,
) -> R {
    config::configure();
    let z = Context::new(&z3::Config::new());
    std::thread::scope(|scope| {
        let dog = Watchdog::start(scope, z.handle(), limits.timeout_ms);
        // Holds the sequence templates whose declarations the solver uses.
        let templates = z3::Solver::new(&z);
        let mut solver = Solver::new(&z, &templates, (funs, theories), limits, log, dog);
        match cancel {
            Some(c) => {
                solver.set_cancel(c.clone());
                c.interruptible(&z, || f(solver))
            }
            None => f(solver),
        }
    })
}

impl<'z> Solver<'z> {
    fn new(
        z: &'z Context,
        templates: &'z z3::Solver<'z>,
        (funs, theories): (&[FunDecl], Theories),
        limits: Limits,
        log: bool,
        dog: Watchdog,
    ) -> Solver<'z> {
        let s = z3::Solver::new(z);
        let mut params = Params::new(z);
        params.set_u32("rlimit", limits.rlimit);
        s.set_params(&params);
        // One text: a parse does not see the declarations of another.
        if theories.sequences {
            s.from_string(format!("{PRELUDE}\n{SEQ_PRELUDE}"));
        } else {
            s.from_string(PRELUDE);
        }
        let snap = ZSort::uninterpreted(z, Symbol::String("Snap".into()));
        let rf = ZSort::uninterpreted(z, Symbol::String("Ref".into()));
        let seq = ZSort::array(z, &ZSort::int(z), &snap);
        let sorts = vec![ZSort::int(z), ZSort::bool(z), rf, snap, seq];
        let mut solver = Solver {
            z,
            s,
            sorts,
            list: None,
            templates,
            decls: HashMap::new(),
            cache: HashMap::new(),
            degrees: HashMap::new(),
            abstracted: HashMap::new(),
            levels: Vec::new(),
            log: log.then(String::new),
            dog,
            logged_vars: HashSet::new(),
            queries: 0,
            rlimit: limits.rlimit,
            last_unknown: Answer::Refuted,
            gave_up: 0,
            cancel: None,
        };
        if let Some(l) = solver.log.as_mut() {
            // The replay must use the solver's own settings.
            l.push_str(&config::smtlib_preamble(limits));
            l.push_str(PRELUDE);
            l.push('\n');
            if theories.sequences {
                l.push_str(SEQ_PRELUDE);
                l.push('\n');
            }
        }
        for f in funs {
            let _ = solver.declare(&f.name, &f.args, f.ret);
            if let Some(l) = solver.log.as_mut() {
                l.push_str(&smtlib::declare_fun(&f.name, &f.args, f.ret));
            }
        }
        solver
    }

    fn sort(&self, s: Sort) -> &ZSort<'z> {
        &self.sorts[match s {
            Sort::Int => 0,
            Sort::Bool => 1,
            Sort::Ref => 2,
            Sort::Snap => 3,
            Sort::Seq => 4,
            Sort::List => 5,
        }]
    }

    /// Makes the sequence functions and sort (`list`).
    fn ensure_list(&mut self) {
        if self.list.is_none() {
            self.list = Some(self.make_list());
        }
    }

    fn make_list(&mut self) -> ListFuns<'z> {
        let funs = ListFuns::new(self.templates, &self.sorts[3]);
        self.sorts.truncate(5);
        self.sorts.push(funs.sort());
        funs
    }

    fn declare(&mut self, name: &str, args: &[Sort], ret: Sort) -> &FuncDecl<'z> {
        if !self.decls.contains_key(name) {
            if ret == Sort::List || args.contains(&Sort::List) {
                self.ensure_list();
            }
            let domain: Vec<&ZSort<'z>> = args.iter().map(|s| self.sort(*s)).collect();
            let d = FuncDecl::new(self.z, name, &domain, self.sort(ret));
            self.decls.insert(name.to_string(), d);
        }
        &self.decls[name]
    }

    /// Queries give up once `cancel` is raised (the one running too, if
    /// it runs inside `Cancel::interruptible`).
    pub fn set_cancel(&mut self, cancel: Arc<Cancel>) {
        self.cancel = Some(cancel);
    }

    /// Whether the run's results are no longer wanted.
    pub fn cancelled(&self) -> bool {
        self.cancel.as_ref().is_some_and(|c| c.is_cancelled())
    }

    pub fn logging(&self) -> bool {
        self.log.is_some()
    }

    /// The SMT-LIB text of every command sent so far, if logging.
    pub fn take_log(&mut self) -> Option<String> {
        self.log.take()
    }

    fn log(&mut self, text: &str) {
        if let Some(l) = self.log.as_mut() {
            l.push_str(text);
            l.push('\n');
        }
    }

    fn translate(&mut self, t: &Term) -> Dynamic<'z> {
        if let Some(d) = self.cache.get(t) {
            return d.clone();
        }
        // Every term with a sequence operand has one of these below it.
        if t.sort() == Sort::List || matches!(t.op(), Op::List(_)) {
            self.ensure_list();
        }
        if matches!(t.op(), Op::Mul | Op::Div | Op::Mod)
            && degree::degree(t, &mut self.degrees) > degree::MAX_DEGREE
        {
            // Sound abstraction (see `degree`): one fresh constant per term.
            let name = format!("nonlinear!{}", self.abstracted.len());
            if self.log.is_some() {
                let sort = t.sort().name();
                self.log(&format!("(declare-const {} {sort})", smtlib::quote(&name)));
            }
            let d = FuncDecl::new(self.z, name.as_str(), &[], self.sort(t.sort())).apply(&[]);
            self.cache.insert(t.clone(), d.clone());
            self.abstracted.insert(t.clone(), name);
            return d;
        }
        let args: Vec<Dynamic<'z>> = t.args().iter().map(|a| self.translate(a)).collect();
        let z = self.z;
        let int = |i: usize| args[i].as_int().expect("int operand");
        let boolean = |i: usize| args[i].as_bool().expect("bool operand");
        let ints = || {
            args.iter()
                .map(|a| a.as_int().expect("int operand"))
                .collect::<Vec<Int>>()
        };
        let bools = || {
            args.iter()
                .map(|a| a.as_bool().expect("bool operand"))
                .collect::<Vec<Bool>>()
        };
        let d: Dynamic<'z> = match t.op() {
            Op::Var { .. } => {
                let name = smtlib::var_name(t);
                if self.log.is_some() && self.logged_vars.insert(name.clone()) {
                    self.log(&format!(
                        "(declare-const {} {})",
                        smtlib::quote(&name),
                        t.sort().name()
                    ));
                }
                let decl = FuncDecl::new(z, name.as_str(), &[], self.sort(t.sort()));
                decl.apply(&[])
            }
            Op::Int(v) => match i64::try_from(*v) {
                Ok(v) => Int::from_i64(z, v).into(),
                Err(_) => Int::from_str(z, &v.to_string())
                    .expect("integer literal")
                    .into(),
            },
            Op::BigInt(digits) => Int::from_str(z, digits).expect("integer literal").into(),
            Op::True => Bool::from_bool(z, true).into(),
            Op::False => Bool::from_bool(z, false).into(),
            Op::Null => self.declare("null", &[], Sort::Ref).apply(&[]),
            Op::Unit => self.declare("unit", &[], Sort::Snap).apply(&[]),
            Op::App(name) => {
                let sorts: Vec<Sort> = t.args().iter().map(|a| a.sort()).collect();
                let decl = self.declare(name, &sorts, t.sort());
                let refs: Vec<&dyn Ast<'z>> = args.iter().map(|a| a as &dyn Ast<'z>).collect();
                decl.apply(&refs)
            }
            Op::Ite => boolean(0).ite(&args[1], &args[2]),
            Op::Not => boolean(0).not().into(),
            Op::And => {
                let b = bools();
                Bool::and(z, &b.iter().collect::<Vec<_>>()).into()
            }
            Op::Or => {
                let b = bools();
                Bool::or(z, &b.iter().collect::<Vec<_>>()).into()
            }
            Op::Implies => boolean(0).implies(&boolean(1)).into(),
            Op::Eq => args[0]._eq(&args[1]).into(),
            Op::Add => {
                let i = ints();
                Int::add(z, &i.iter().collect::<Vec<_>>()).into()
            }
            Op::Sub => {
                let i = ints();
                Int::sub(z, &i.iter().collect::<Vec<_>>()).into()
            }
            Op::Mul => {
                let i = ints();
                Int::mul(z, &i.iter().collect::<Vec<_>>()).into()
            }
            Op::Div => int(0).div(&int(1)).into(),
            Op::Mod => int(0).modulo(&int(1)).into(),
            Op::Neg => int(0).unary_minus().into(),
            Op::Lt => int(0).lt(&int(1)).into(),
            Op::Le => int(0).le(&int(1)).into(),
            Op::Select => args[0].as_array().expect("seq operand").select(&int(1)),
            Op::Store => args[0]
                .as_array()
                .expect("seq operand")
                .store(&int(1), &args[2])
                .into(),
            Op::ConstSeq => z3::ast::Array::const_array(z, &ZSort::int(z), &args[0]).into(),
            Op::List(k) => {
                let refs: Vec<&dyn Ast<'z>> = args.iter().map(|a| a as &dyn Ast<'z>).collect();
                let funs = self.list.take().unwrap_or_else(|| self.make_list());
                let d = funs.apply(*k, &refs);
                self.list = Some(funs);
                d
            }
            Op::Quant { forall, vars } => {
                let n = usize::try_from(*vars).unwrap_or(0).min(args.len());
                let bounds: Vec<&dyn Ast<'z>> =
                    args[..n].iter().map(|a| a as &dyn Ast<'z>).collect();
                let body = boolean(n);
                let terms: Vec<&dyn Ast<'z>> =
                    args[n + 1..].iter().map(|a| a as &dyn Ast<'z>).collect();
                let pattern = (!terms.is_empty()).then(|| z3::Pattern::new(z, &terms));
                let patterns: Vec<&z3::Pattern<'z>> = pattern.iter().collect();
                if *forall {
                    z3::ast::forall_const(z, &bounds, &patterns, &body).into()
                } else {
                    z3::ast::exists_const(z, &bounds, &patterns, &body).into()
                }
            }
        };
        self.cache.insert(t.clone(), d.clone());
        d
    }

    /// Makes Z3's assertion stack equal to `pc`, popping only what differs.
    fn sync(&mut self, pc: &PathCondition) {
        let target_len = pc.len();
        let mut cursor = pc.head().cloned();
        while let Some(top) = self.levels.last() {
            while cursor.as_ref().is_some_and(|n| n.len > top.len) {
                cursor = cursor.and_then(|n| n.parent.clone());
            }
            if cursor.as_ref().is_some_and(|n| Arc::ptr_eq(n, top)) {
                break;
            }
            self.levels.pop();
            self.s.pop(1);
            self.log("(pop 1)");
        }
        let base = self.levels.last().map_or(0, |n| n.len);
        if target_len == base {
            return;
        }
        let Some(head) = pc.head().cloned() else {
            return;
        };
        self.s.push();
        self.log("(push 1)");
        for fact in pc.facts_since(base) {
            let b = self.translate(&fact).as_bool().expect("fact is boolean");
            if self.log.is_some() {
                let text = to_smtlib_in(&fact, &self.abstracted);
                self.log(&format!("(assert {text})"));
            }
            self.s.assert(&b);
        }
        self.levels.push(head);
    }

    /// Z3's `check-sat`, counting the answers it gave up on (feasibility
    /// checks included, where `unknown` silently keeps a path).
    fn check_sat(&mut self) -> SatResult {
        if self.cancelled() {
            self.gave_up += 1;
            self.last_unknown = Answer::GaveUp(GaveUp::Other("cancelled".to_string()));
            return SatResult::Unknown;
        }
        let (r, interrupted) = self.dog.run(|| self.s.check());
        if r == SatResult::Unknown {
            self.last_unknown = self.classify_unknown(interrupted);
            if self.last_unknown != Answer::Refuted {
                self.gave_up += 1;
            }
        }
        // The answer as `z3 FILE` prints it, so a replay can be compared.
        self.log(match r {
            SatResult::Sat => "; answer: sat",
            SatResult::Unsat => "; answer: unsat",
            SatResult::Unknown => "; answer: unknown",
        });
        r
    }

    fn check(&mut self, pc: &PathCondition, extra: Option<&Term>, why: &str) -> SatResult {
        self.queries += 1;
        self.sync(pc);
        if self.log.is_some() {
            self.log(&format!("; {why}"));
        }
        match extra {
            None => {
                self.log("(check-sat)");
                self.check_sat()
            }
            Some(extra) => {
                let b = self.translate(extra).as_bool().expect("goal is boolean");
                self.s.push();
                self.s.assert(&b);
                if self.log.is_some() {
                    self.log(&format!(
                        "(push 1)\n(assert {})\n(check-sat)\n(pop 1)",
                        to_smtlib_in(extra, &self.abstracted)
                    ));
                }
                let r = self.check_sat();
                self.s.pop(1);
                r
            }
        }
    }

    /// Σ ⊢ goal?
    pub fn prove(&mut self, pc: &PathCondition, goal: &Term, why: &str) -> Answer {
        if pc.contains(goal) || pc.is_known_false() {
            return Answer::Proved;
        }
        if goal.is_false() {
            // Only an inconsistent path proves `false`.
            return match self.check(pc, None, why) {
                SatResult::Unsat => Answer::Proved,
                SatResult::Sat => Answer::Refuted,
                SatResult::Unknown => self.unknown(),
            };
        }
        match self.check(pc, Some(&Term::not(goal.clone())), why) {
            SatResult::Unsat => Answer::Proved,
            SatResult::Sat => Answer::Refuted,
            SatResult::Unknown => self.unknown(),
        }
    }

    /// Whether Σ may be satisfiable (`unknown` counts as possibly).
    pub fn feasible(&mut self, pc: &PathCondition, why: &str) -> bool {
        if pc.is_known_false() {
            return false;
        }
        self.check(pc, None, why) != SatResult::Unsat
    }

    /// Values of `terms` in a model of Σ (and `extra`), printed as program
    /// values: integers, booleans, `null` or `object#k`. `None` if Z3 finds
    /// no model.
    pub fn model_values(
        &mut self,
        pc: &PathCondition,
        extra: Option<&Term>,
        terms: &[Term],
    ) -> Option<Vec<String>> {
        self.queries += 1;
        self.sync(pc);
        let goal = match extra {
            Some(e) => Some(self.translate(e).as_bool()?),
            None => None,
        };
        self.s.push();
        self.log("; a model of the path, for a counterexample\n(push 1)");
        if let (Some(b), Some(e)) = (&goal, extra) {
            self.s.assert(b);
            if self.log.is_some() {
                let text = to_smtlib_in(e, &self.abstracted);
                self.log(&format!("(assert {text})"));
            }
        }
        self.log("(check-sat)");
        let result = self.check_sat();
        let candidate = match result {
            SatResult::Sat => true,
            SatResult::Unsat => false,
            SatResult::Unknown => self.unknown() == Answer::Refuted,
        };
        let extra_z3 = extra.map(|e| self.translate(e));
        let values = if !candidate {
            None
        } else {
            self.s
                .get_model()
                .filter(|model| {
                    // A candidate model from an incomplete search may not
                    // falsify the goal: show only one that does.
                    extra_z3.as_ref().is_none_or(|e| {
                        model
                            .eval(e, true)
                            .and_then(|v| v.as_bool())
                            .and_then(|b| b.as_bool())
                            == Some(true)
                    })
                })
                .map(|model| {
                    let null = self.translate(&Term::null());
                    let null_value = model.eval(&null, true).map(|v| v.to_string());
                    let mut objects: Vec<String> = Vec::new();
                    terms
                        .iter()
                        .map(|t| {
                            let d = self.translate(t);
                            let Some(v) = model.eval(&d, true) else {
                                return "?".to_string();
                            };
                            let text = v.to_string();
                            match t.sort() {
                                Sort::Ref if Some(&text) == null_value.as_ref() => {
                                    "null".to_string()
                                }
                                Sort::Ref => {
                                    let k = objects.iter().position(|o| *o == text).unwrap_or_else(
                                        || {
                                            objects.push(text.clone());
                                            objects.len() - 1
                                        },
                                    );
                                    format!("object#{}", k + 1)
                                }
                                Sort::Int => smt_int(&text),
                                _ => text,
                            }
                        })
                        .collect()
                })
        };
        self.s.pop(1);
        self.log("(pop 1)");
        values
    }

    /// What the last `unknown` from `check_sat` means.
    fn unknown(&self) -> Answer {
        self.last_unknown.clone()
    }

    /// With model-based instantiation off, Z3 says `unknown` ("incomplete
    /// quantifiers") where it has a candidate model: that is a plain "no".
    /// Anything else (a limit, memory) means it gave up.
    fn classify_unknown(&self, interrupted: bool) -> Answer {
        let reason = self
            .s
            .get_reason_unknown()
            .unwrap_or_else(|| "unknown".to_string());
        if interrupted {
            Answer::GaveUp(GaveUp::Timeout)
        } else if reason.contains("incomplete") {
            Answer::Refuted
        } else if reason.contains("resource") || self.spent_rlimit() {
            Answer::GaveUp(GaveUp::ResourceLimit)
        } else {
            Answer::GaveUp(GaveUp::Other(reason))
        }
    }

    /// Whether the context has spent at least one query's resource units.
    /// Z3 4.8's API reports a query stopped by `rlimit` only as "unknown";
    /// the context's count is cumulative, so this is necessary for a query
    /// to have hit the limit, and asked only when Z3 gave up.
    fn spent_rlimit(&self) -> bool {
        let count = match self.s.get_statistics().value("rlimit count") {
            Some(z3::StatisticsValue::UInt(n)) => u64::from(n),
            Some(z3::StatisticsValue::Double(d)) => d as u64,
            None => 0,
        };
        count >= u64::from(self.rlimit)
    }
}

/// `(- 5)` → `-5`.
fn smt_int(text: &str) -> String {
    match text.strip_prefix("(- ").and_then(|r| r.strip_suffix(')')) {
        Some(n) => format!("-{n}"),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logic::term::VarKind;

    fn with_solver(f: impl FnOnce(&mut Solver)) {
        super::with_solver(
            &[],
            Theories::default(),
            Limits::default(),
            true,
            None,
            |mut s| f(&mut s),
        );
    }

    fn v(id: u32, sort: Sort) -> Term {
        Term::var(id, "v", sort, VarKind::Plain)
    }

    #[test]
    fn prelude_declarations_are_shared_with_the_api() {
        with_solver(|s| {
            let (a, b, snap) = (v(1, Sort::Snap), v(2, Sort::Snap), v(3, Sort::Snap));
            let mut pc = PathCondition::default();
            pc.add(Term::eq(snap.clone(), Term::combine(a.clone(), b)));
            assert_eq!(
                s.prove(&pc, &Term::eq(Term::first(snap), a), "test"),
                Answer::Proved
            );
            let r = v(4, Sort::Ref);
            let back = Term::from_snap(v(5, Sort::Snap), Sort::Ref);
            pc.add(Term::eq(Term::to_snap(r.clone()), v(5, Sort::Snap)));
            assert_eq!(s.prove(&pc, &Term::eq(back, r), "test"), Answer::Proved);
        });
    }

    /// The array laws (`fromSeq`, `length`) are shared with the API's
    /// terms, decide reads over writes, and leave `false` unprovable.
    #[test]
    fn array_laws_prove_what_they_should_and_no_more() {
        with_solver(|s| {
            let (seq, r, i, j) = (
                v(1, Sort::Seq),
                v(2, Sort::Ref),
                v(3, Sort::Int),
                v(4, Sort::Int),
            );
            let mut pc = PathCondition::default();
            pc.add(Term::neq(i.clone(), j.clone()));
            let written = Term::store(seq.clone(), i.clone(), Term::to_snap(Term::int(7)));
            let read =
                |at: &Term| Term::from_snap(Term::select(written.clone(), at.clone()), Sort::Int);
            let old_j = Term::from_snap(Term::select(seq.clone(), j.clone()), Sort::Int);
            let goals = [
                Term::eq(read(&i), Term::int(7)),
                Term::eq(read(&j), old_j),
                Term::le(Term::int(0), Term::length(r.clone())),
            ];
            for g in goals {
                assert_eq!(s.prove(&pc, &g, "test"), Answer::Proved, "{g}");
            }
            assert!(s.feasible(&pc, "test"));
            assert_eq!(s.prove(&pc, &Term::bool(false), "test"), Answer::Refuted);
            assert_eq!(
                s.prove(&pc, &Term::eq(read(&j), Term::int(7)), "test"),
                Answer::Refuted
            );
            // fromSeq is injective: the same snapshot, the same sequence.
            let other = v(5, Sort::Seq);
            pc.add(Term::eq(
                Term::to_snap(other.clone()),
                Term::to_snap(seq.clone()),
            ));
            assert_eq!(s.prove(&pc, &Term::eq(other, seq), "test"), Answer::Proved);
        });
    }

    #[test]
    fn the_prelude_is_consistent_and_refutes() {
        with_solver(|s| {
            let pc = PathCondition::default();
            assert!(s.feasible(&pc, "test"));
            let x = v(1, Sort::Int);
            assert_eq!(
                s.prove(&pc, &Term::lt(Term::int(0), x), "test"),
                Answer::Refuted
            );
        });
    }

    #[test]
    fn the_stack_follows_branching_paths() {
        with_solver(|s| {
            let x = v(1, Sort::Int);
            let mut base = PathCondition::default();
            base.add(Term::lt(Term::int(0), x.clone()));
            let then = base.with(Term::eq(x.clone(), Term::int(1)));
            let els = base.with(Term::not(Term::eq(x.clone(), Term::int(1))));
            assert_eq!(
                s.prove(&then, &Term::eq(x.clone(), Term::int(1)), "t"),
                Answer::Proved
            );
            assert_eq!(
                s.prove(&els, &Term::lt(Term::int(1), x.clone()), "e"),
                Answer::Proved
            );
            assert_eq!(
                s.prove(&base, &Term::lt(Term::int(1), x.clone()), "b"),
                Answer::Refuted
            );
            assert_eq!(
                s.prove(&then, &Term::lt(Term::int(1), x), "t2"),
                Answer::Refuted
            );
            let log = s.take_log().unwrap();
            assert!(log.contains("(pop 1)"), "{log}");
        });
    }

    /// Pigeonhole: `n + 1` pigeons in `n` holes, unsatisfiable and hard for
    /// Z3's SAT core, as the facts of a path; proving `false` from it takes
    /// far longer than the limits the tests below give it.
    fn pigeonhole(n: u32) -> PathCondition {
        let at = |p: u32, h: u32| Term::var(p * 100 + h, "at", Sort::Bool, VarKind::Plain);
        let mut pc = PathCondition::default();
        for p in 0..=n {
            pc.add(Term::or((0..n).map(|h| at(p, h)).collect()));
        }
        for h in 0..n {
            for p in 0..=n {
                for q in p + 1..=n {
                    pc.add(Term::not(Term::and(vec![at(p, h), at(q, h)])));
                }
            }
        }
        pc
    }

    fn hard_then_easy(limits: Limits) -> (Answer, Answer, u64) {
        super::with_solver(&[], Theories::default(), limits, false, None, |mut s| {
            let hard = s.prove(&pigeonhole(10), &Term::bool(false), "hard");
            let x = v(1, Sort::Int);
            let mut pc = PathCondition::default();
            pc.add(Term::lt(Term::int(1), x.clone()));
            let easy = s.prove(&pc, &Term::lt(Term::int(0), x), "easy");
            (hard, easy, s.gave_up)
        })
    }

    #[test]
    fn a_query_past_its_resource_limit_gives_up_and_says_so() {
        let limits = Limits {
            rlimit: 10_000,
            timeout_ms: 60_000,
        };
        let (hard, easy, gave_up) = hard_then_easy(limits);
        assert_eq!(hard, Answer::GaveUp(GaveUp::ResourceLimit));
        assert_eq!(easy, Answer::Proved);
        assert_eq!(gave_up, 1);
    }

    #[test]
    fn the_watchdog_stops_a_query_past_its_time_and_the_next_one_runs() {
        let limits = Limits {
            rlimit: u32::MAX,
            timeout_ms: 200,
        };
        let (hard, easy, gave_up) = hard_then_easy(limits);
        assert_eq!(hard, Answer::GaveUp(GaveUp::Timeout));
        assert_eq!(easy, Answer::Proved);
        assert_eq!(gave_up, 1);
    }
}
