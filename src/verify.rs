//! The library API every front end uses: source text in, a report out.
//!
//! Members are verified in parallel, as tasks on a shared queue; a method's
//! paths may be split into several tasks (`symbolic::route`). Each task runs
//! in a Z3 context of its own, so its answers never depend on scheduling or
//! on the thread count, on threads with large stacks (continuations nest
//! once per block and per rule).

use std::collections::{HashMap, VecDeque};
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;

use crate::cache::Cache;
use crate::cancel::Cancel;
use crate::diag::{Diagnostic, Kind};
use crate::partition::Partition;
use crate::solver::{DEFAULT_RLIMIT, DEFAULT_TIMEOUT_MS, Limits};
use crate::symbolic::ctx::{Ctx, Failure};
use crate::symbolic::program::ProgramInfo;
use crate::symbolic::route::{Donate, Route};
use crate::symbolic::state::Step;
use crate::symbolic::validity;
use crate::syntax::ast::Span;

/// Stack for verifier threads; untouched pages cost nothing.
const STACK_BYTES: usize = 1 << 30;

/// Stack that walks bounded at run time (`crate::stack`) may use on a
/// thread of `with_big_stack`: half of it, the rest is margin.
pub const WALK_STACK_BUDGET: usize = STACK_BYTES / 2;

#[derive(Clone, Debug)]
pub struct Options {
    /// Per-query Z3 resource limit (deterministic; `solver::Limits`).
    pub rlimit: u32,
    /// Per-query wall-clock backstop in milliseconds.
    pub timeout_ms: u32,
    /// Verifier threads (0: one per core).
    pub jobs: usize,
    /// Keep the SMT-LIB text of every query.
    pub smt_log: bool,
    /// Keep every step of every path (`MemberReport::tree`), for stepping
    /// through the execution and for hovers; errors always keep their path.
    pub keep_steps: bool,
    /// Infer the ghost statements left out (LANGUAGE.md section 4b).
    pub infer: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            rlimit: DEFAULT_RLIMIT,
            timeout_ms: DEFAULT_TIMEOUT_MS,
            jobs: 0,
            smt_log: false,
            keep_steps: false,
            infer: true,
        }
    }
}

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
    pub what: String,
    pub heap: Vec<String>,
    /// Variable and value, in name order.
    pub store: Vec<(String, String)>,
    pub pc: Vec<String>,
    /// The state at this step was left out (heap, store and path condition
    /// empty): a long path shows the states of its last steps only, so that
    /// its report stays linear in the path's length.
    pub elided: bool,
}

/// A step in the symbolic execution tree of a member.
#[derive(Clone, Debug)]
pub struct TreeNode {
    pub parent: Option<usize>,
    pub step: TraceStep,
}

#[derive(Clone, Debug)]
pub struct ErrorReport {
    pub diag: Diagnostic,
    /// `Class.member` where the error was found (empty for parse errors).
    pub member: String,
    pub trace: Vec<TraceStep>,
    /// Values from a Z3 model of the failing path, in program terms
    /// (`x` → `5`, `c.f` → `null`), for facts that might not hold.
    pub counterexample: Vec<(String, String)>,
    /// The failing method run concretely on the inputs of a model of the
    /// failing path (verification errors of methods and constructors).
    pub replay: Option<crate::concrete::replay::Replay>,
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

/// Told how a verification advances (the progress bar, LSP work-done
/// progress), on the thread that called [`verify_source_with`].
pub trait Progress {
    /// The members of `path` that will be reported: `total`, of which
    /// `reused` come from the cache at once.
    fn start(&self, path: &str, total: usize, reused: usize);
    /// One member was verified.
    fn member_done(&self, report: &MemberReport);
}

/// What a run does besides verifying every member of a file.
#[derive(Default)]
pub struct Hooks<'a> {
    /// Verify and report only the members of this share.
    pub partition: Option<Partition>,
    /// Reuse the results it holds and keep the new ones.
    pub cache: Option<&'a mut Cache>,
    pub progress: Option<&'a dyn Progress>,
    /// Stops the run when raised; the members it stopped report so.
    pub cancel: Option<Arc<Cancel>>,
}

/// Parses, checks and verifies one file.
pub fn verify_source(path: &str, source: &str, opts: &Options) -> FileReport {
    verify_source_with(path, source, opts, &mut Hooks::default())
}

/// [`verify_source`] with a partition, a cache or progress reports.
pub fn verify_source_with(
    path: &str,
    source: &str,
    opts: &Options,
    hooks: &mut Hooks,
) -> FileReport {
    let (program, mut report) = match checked_program(path, source) {
        Ok(p) => p,
        Err(report) => return report,
    };
    report.members = verify_members(path, program, source, opts, hooks);
    let errors: Vec<ErrorReport> = report
        .members
        .iter()
        .flat_map(|m| m.errors.iter().cloned())
        .collect();
    report.errors = file_errors(errors, &report.members);
    report
}

/// Parses and checks a file: the checked program and an empty report to
/// fill, or the report of its parse or type errors.
pub fn checked_program(
    path: &str,
    source: &str,
) -> Result<(crate::syntax::ast::Program, FileReport), FileReport> {
    let src = source.to_string();
    let front = on_big_stack(move || {
        let mut program = crate::syntax::parse(&src).map_err(|d| vec![d])?;
        let errors = crate::check::check(&mut program);
        if errors.is_empty() {
            Ok(program)
        } else {
            Err(errors)
        }
    });
    let mut report = FileReport {
        path: path.to_string(),
        source: source.to_string(),
        stage: Stage::Verified,
        errors: Vec::new(),
        members: Vec::new(),
    };
    match front {
        Ok(Ok(p)) => Ok((p, report)),
        Ok(Err(errors)) => {
            report.stage = if errors.iter().any(|d| d.kind == Kind::Parse) {
                Stage::Parse
            } else {
                Stage::Check
            };
            report.errors = errors.into_iter().map(plain_error).collect();
            Err(report)
        }
        Err(msg) => {
            report.stage = Stage::Check;
            report
                .errors
                .push(plain_error(Diagnostic::new(Kind::Type, 0..0, msg)));
            Err(report)
        }
    }
}

/// The file's errors: each (kind, place) once, in source order, but every
/// failed member keeps one error of its own, so that no member is "failed"
/// without a reason naming it (an ill-defined callee contract, say, fails
/// the callee and each caller at the same place).
fn file_errors(mut errors: Vec<ErrorReport>, members: &[MemberReport]) -> Vec<ErrorReport> {
    errors.sort_by_key(|e| (e.diag.span.start, e.diag.kind));
    errors.dedup_by(|a, b| a.diag.kind == b.diag.kind && a.diag.span == b.diag.span);
    for m in members {
        if !errors.iter().any(|e| e.member == m.name)
            && let Some(own) = m.errors.first()
        {
            errors.push(own.clone());
        }
    }
    errors.sort_by_key(|e| (e.diag.span.start, e.diag.kind));
    errors
}

fn plain_error(diag: Diagnostic) -> ErrorReport {
    ErrorReport {
        diag,
        member: String::new(),
        trace: Vec::new(),
        counterexample: Vec::new(),
        replay: None,
    }
}

/// Runs `f` on a thread with a large stack; a panic becomes an error message.
fn on_big_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Result<T, String> {
    let handle = std::thread::Builder::new()
        .stack_size(STACK_BYTES)
        .spawn(f)
        .map_err(|e| format!("cannot start a verifier thread: {e}"))?;
    handle
        .join()
        .map_err(|p| format!("internal error: {}", panic_message(&p)))
}

/// Runs `f` on a thread with a large stack and returns its result; on the
/// caller's stack if no thread can be started. A panic goes on in the caller.
pub(crate) fn with_big_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    let mut f = Some(f);
    let mut out = None;
    std::thread::scope(|s| {
        let spawned = std::thread::Builder::new()
            .stack_size(STACK_BYTES)
            .spawn_scoped(s, || f.take().map(|f| f()));
        if let Ok(handle) = spawned {
            match handle.join() {
                Ok(v) => out = v,
                Err(p) => std::panic::resume_unwind(p),
            }
        }
    });
    match (out, f) {
        (Some(v), _) => v,
        (None, Some(f)) => f(),
        // `f` was taken by the thread, which returned its value.
        (None, None) => unreachable!("the thread ran `f` and returned its value"),
    }
}

fn panic_message(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".to_string())
}

#[derive(Clone)]
pub(crate) struct Member {
    pub name: String,
    pub kind: MemberKind,
    pub span: Span,
    /// The body of a method or constructor.
    pub body: Option<Span>,
    class: String,
    member: String,
}

pub(crate) fn members(info: &ProgramInfo) -> Vec<Member> {
    let mut out = Vec::new();
    for class in &info.program.classes {
        let c = &class.name.name;
        for m in &class.methods {
            out.push(Member {
                name: format!("{c}.{}", m.name.name),
                kind: if m.is_constructor {
                    MemberKind::Constructor
                } else {
                    MemberKind::Method
                },
                span: m.span.clone(),
                body: Some(m.body.span.clone()),
                class: c.clone(),
                member: m.name.name.clone(),
            });
        }
        for p in &class.pures {
            out.push(Member {
                name: format!("{c}.{}", p.name.name),
                kind: MemberKind::Pure,
                span: p.span.clone(),
                body: None,
                class: c.clone(),
                member: p.name.name.clone(),
            });
        }
        for q in &class.predicates {
            out.push(Member {
                name: format!("{c}.{}", q.name.name),
                kind: MemberKind::Predicate,
                span: q.span.clone(),
                body: None,
                class: c.clone(),
                member: q.name.name.clone(),
            });
        }
    }
    out.sort_by_key(|m| m.span.start);
    out
}

/// One unit of work: a member, or (for a method whose paths are split
/// between threads, `symbolic::route`) the part of it below `route`.
struct Task {
    member: usize,
    route: Option<Vec<bool>>,
}

/// What one task found.
struct TaskOutput {
    route: Vec<bool>,
    report: MemberReport,
}

/// Tasks waiting, and how many are running (a running task may add more).
struct Queue {
    state: Mutex<(VecDeque<Task>, usize)>,
    changed: Condvar,
}

impl Queue {
    fn push(&self, t: Task) {
        if let Ok(mut q) = self.state.lock() {
            q.0.push_back(t);
        }
        self.changed.notify_one();
    }

    /// The next task, or `None` when every task is done.
    fn next(&self) -> Option<Task> {
        let mut q = self.state.lock().ok()?;
        loop {
            if let Some(t) = q.0.pop_front() {
                q.1 += 1;
                return Some(t);
            }
            if q.1 == 0 {
                self.changed.notify_all();
                return None;
            }
            q = self.changed.wait(q).ok()?;
        }
    }

    fn done(&self) {
        if let Ok(mut q) = self.state.lock() {
            q.1 -= 1;
        }
        self.changed.notify_all();
    }
}

/// Whether a member's paths are split between tasks: a method body without
/// `join` (whose merged continuation every task would explore again), when
/// neither the whole tree nor one SMT log per member is wanted.
fn splits_paths(info: &ProgramInfo, m: &Member, opts: &Options) -> bool {
    matches!(m.kind, MemberKind::Method | MemberKind::Constructor)
        && !opts.keep_steps
        && !opts.smt_log
        && info
            .method(&m.class, &m.member)
            .is_some_and(|mi| !has_join(&mi.decl.body.stmts))
}

fn has_join(stmts: &[crate::syntax::ast::Stmt]) -> bool {
    use crate::syntax::ast::StmtKind;
    stmts.iter().any(|s| match &s.kind {
        StmtKind::Join(_) => true,
        StmtKind::If { then, els, .. } => {
            has_join(&then.stmts) || els.as_ref().is_some_and(|b| has_join(&b.stmts))
        }
        StmtKind::While { body, .. } => has_join(&body.stmts),
        _ => false,
    })
}

/// Verifies every member of a checked program; reports in source order.
pub fn verify_program(
    program: crate::syntax::ast::Program,
    source: &str,
    opts: &Options,
) -> Vec<MemberReport> {
    verify_members("", program, source, opts, &mut Hooks::default())
}

/// Verifies the members of a checked program that `hooks` select (all but
/// other shares' members) and do not find in the cache; reports in source
/// order.
fn verify_members(
    path: &str,
    program: crate::syntax::ast::Program,
    source: &str,
    opts: &Options,
    hooks: &mut Hooks,
) -> Vec<MemberReport> {
    // Building the tables walks every method body recursively, once per
    // nested block, and an `else if` chain nests one block per link: not on
    // the caller's stack, which may be a small one (the language server's).
    let info = Arc::new(with_big_stack(move || ProgramInfo::new(program)));
    let all = members(&info);
    // Keys for every member, not only this share's: the cache keeps the
    // entries of other shares that are still current.
    let layout = hooks
        .cache
        .as_ref()
        .and_then(|_| crate::cache::Layout::new(source, &all, opts));
    let chosen: Vec<usize> = (0..all.len())
        .filter(|&i| {
            hooks
                .partition
                .is_none_or(|p| p.contains(path, &all[i].name))
        })
        .collect();
    let mut reports: Vec<Option<MemberReport>> = chosen
        .iter()
        .map(|&i| match (hooks.cache.as_deref_mut(), &layout) {
            (Some(cache), Some(layout)) => cache.get(path, layout, &all[i], i),
            _ => None,
        })
        .collect();
    let todo: Vec<usize> = (0..chosen.len())
        .filter(|&j| reports[j].is_none())
        .collect();
    if let Some(p) = hooks.progress {
        p.start(path, chosen.len(), chosen.len() - todo.len());
    }
    let fresh = run_members(
        &info,
        todo.iter().map(|&j| all[chosen[j]].clone()).collect(),
        source,
        opts,
        hooks.progress,
        hooks.cancel.clone(),
    );
    for (&j, report) in todo.iter().zip(fresh) {
        reports[j] = Some(report);
    }
    let reports: Vec<MemberReport> = reports.into_iter().flatten().collect();
    if let (Some(cache), Some(layout)) = (hooks.cache.as_deref_mut(), &layout) {
        for (&i, report) in chosen.iter().zip(&reports) {
            if !report.cached {
                cache.put(path, layout, &all[i], i, report);
            }
        }
        cache.save(path, layout);
    }
    reports
}

/// Verifies `members` on verifier threads; reports in the given order.
fn run_members(
    info: &Arc<ProgramInfo>,
    members: Vec<Member>,
    source: &str,
    opts: &Options,
    progress: Option<&dyn Progress>,
    cancel: Option<Arc<Cancel>>,
) -> Vec<MemberReport> {
    if members.is_empty() {
        return Vec::new();
    }
    let members = Arc::new(members);
    let source: Arc<str> = source.into();
    let outputs: Arc<Mutex<Vec<Vec<TaskOutput>>>> =
        Arc::new(Mutex::new((0..members.len()).map(|_| Vec::new()).collect()));
    let queue = Arc::new(Queue {
        state: Mutex::new((VecDeque::new(), 0)),
        changed: Condvar::new(),
    });
    for (i, m) in members.iter().enumerate() {
        let route = splits_paths(info, m, opts).then(Vec::new);
        queue.push(Task { member: i, route });
    }
    let (done_tx, done_rx) = std::sync::mpsc::channel::<(usize, MemberReport)>();
    let jobs = match opts.jobs {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
    .max(1);
    let funs = Arc::new(info.fun_decls());
    let mut handles = Vec::new();
    let mut unverified = "the verifier thread stopped".to_string();
    for _ in 0..jobs {
        let (info, members, source, outputs, queue, funs, opts, done_tx, cancel) = (
            info.clone(),
            members.clone(),
            source.clone(),
            outputs.clone(),
            queue.clone(),
            funs.clone(),
            opts.clone(),
            done_tx.clone(),
            cancel.clone(),
        );
        let spawned = std::thread::Builder::new()
            .stack_size(STACK_BYTES)
            .spawn(move || {
                while let Some(task) = queue.next() {
                    let m = &members[task.member];
                    let donate_to = queue.clone();
                    let member = task.member;
                    let donate: Donate = Arc::new(move |route| {
                        donate_to.push(Task {
                            member,
                            route: Some(route),
                        })
                    });
                    let route = task.route.map(|r| Route::new(r, donate));
                    let first = route.as_ref().is_none_or(|r| r.choices().is_empty());
                    let out =
                        verify_member(&info, &source, &funs, m, route, &opts, cancel.as_ref());
                    // A member's first task stands for it in the progress
                    // shown (the others are parts of it).
                    if first {
                        let _ = done_tx.send((task.member, out.report.clone()));
                    }
                    if let Ok(mut o) = outputs.lock() {
                        o[task.member].push(out);
                    }
                    queue.done();
                }
            });
        match spawned {
            Ok(h) => handles.push(h),
            // The threads already started verify every member; with none,
            // each member is reported unverified with this reason.
            Err(e) => {
                unverified = format!("cannot start a verifier thread: {e}");
                break;
            }
        }
    }
    // Each thread holds a sender until it ends, so this loop ends with the
    // last of them (also when one panics).
    drop(done_tx);
    for (_, report) in done_rx {
        if let Some(p) = progress {
            p.member_done(&report);
        }
    }
    for h in handles {
        let _ = h.join();
    }
    let outputs = outputs
        .lock()
        .map(|mut o| std::mem::take(&mut *o))
        .unwrap_or_default();
    outputs
        .into_iter()
        .zip(members.iter())
        .map(|(tasks, m)| merge_tasks(tasks).unwrap_or_else(|| unverified_report(m, &unverified)))
        .collect()
}

/// One member's report from those of its tasks: an error reached by
/// several tasks' paths (their common prefix, or the same place on two
/// paths) is kept from the path a single depth-first run meets first.
fn merge_tasks(mut tasks: Vec<TaskOutput>) -> Option<MemberReport> {
    tasks.sort_by(|a, b| a.route.cmp(&b.route));
    let mut tasks = tasks.into_iter();
    let mut report = tasks.next()?.report;
    for t in tasks {
        for e in t.report.errors {
            let seen = report
                .errors
                .iter()
                .any(|f| f.diag.kind == e.diag.kind && f.diag.span == e.diag.span);
            if !seen {
                report.errors.push(e);
            }
        }
        report.millis += t.report.millis;
        report.queries += t.report.queries;
        report.reusable &= t.report.reusable;
    }
    report.errors.sort_by_key(|e| e.diag.span.start);
    Some(report)
}

/// Why a member stopped by `Hooks::cancel` is not verified.
const CANCELLED: &str = "the verification was cancelled";

/// The report of a member that was not verified, with the reason.
fn unverified_report(m: &Member, why: &str) -> MemberReport {
    MemberReport {
        name: m.name.clone(),
        kind: m.kind,
        span: m.span.clone(),
        errors: vec![internal_error(m, why)],
        tree: Vec::new(),
        millis: 0.0,
        queries: 0,
        smt_log: None,
        cached: false,
        reusable: false,
    }
}

fn internal_error(m: &Member, why: &str) -> ErrorReport {
    ErrorReport {
        diag: Diagnostic::new(
            Kind::Type,
            m.span.clone(),
            format!("internal error while verifying `{}`: {why}", m.name),
        ),
        member: m.name.clone(),
        trace: Vec::new(),
        counterexample: Vec::new(),
        replay: None,
    }
}

/// Verifies a member (or a task's part of it) in a Z3 context of its own,
/// so that nothing another member or task did can change its answers.
fn verify_member(
    info: &Arc<ProgramInfo>,
    source: &Arc<str>,
    funs: &[crate::solver::FunDecl],
    m: &Member,
    route: Option<Route>,
    opts: &Options,
    cancel: Option<&Arc<Cancel>>,
) -> TaskOutput {
    let start = Instant::now();
    let cancelled = || cancel.is_some_and(|c| c.is_cancelled());
    if cancelled() {
        return TaskOutput {
            route: route.map(|r| r.choices().to_vec()).unwrap_or_default(),
            report: unverified_report(m, CANCELLED),
        };
    }
    let limits = Limits {
        rlimit: opts.rlimit,
        timeout_ms: opts.timeout_ms,
    };
    crate::solver::with_solver(funs, limits, opts.smt_log, cancel, |solver| {
        let mut ctx = Ctx::new(info.clone(), source.clone(), solver);
        ctx.route = route;
        ctx.infer = opts.infer;
        if opts.keep_steps {
            ctx.all_steps = Some(Vec::new());
        }
        let run = std::panic::catch_unwind(AssertUnwindSafe(|| match m.kind {
            MemberKind::Method | MemberKind::Constructor => {
                if let Some(mi) = info.method(&m.class, &m.member) {
                    validity::check_method(&mut ctx, mi);
                }
            }
            MemberKind::Pure => {
                if let Some(p) = info.pure_method(&m.class, &m.member) {
                    validity::check_pure(&mut ctx, p);
                }
            }
            MemberKind::Predicate => {
                if let Some(q) = info.predicate(&m.class, &m.member) {
                    validity::check_predicate(&mut ctx, q);
                }
            }
        }));
        // Pure methods and predicates are not run (`not-run`).
        let replayed = matches!(m.kind, MemberKind::Method | MemberKind::Constructor);
        let mut errors: Vec<ErrorReport> = ctx
            .failures
            .drain(..)
            .map(|f| {
                let replay = Some(if !replayed {
                    crate::concrete::replay::not_run("only methods and constructors are run")
                } else {
                    crate::concrete::replay::replay(
                        info,
                        source,
                        &m.class,
                        &m.member,
                        (f.diag.kind, &f.diag.span),
                        f.inputs.as_ref(),
                        opts.infer,
                    )
                });
                let mut e = render_failure(&m.name, f);
                e.replay = replay;
                e
            })
            .collect();
        let reusable = run.is_ok() && ctx.solver.gave_up == 0 && !cancelled();
        if let Err(p) = run {
            errors.push(internal_error(m, &panic_message(&p)));
        }
        if cancelled() {
            errors.push(internal_error(m, CANCELLED));
        }
        errors.sort_by_key(|e| e.diag.span.start);
        let tree = ctx
            .all_steps
            .take()
            .map(|steps| render_tree(&steps))
            .unwrap_or_default();
        let queries = ctx.solver.queries;
        let smt_log = ctx
            .solver
            .take_log()
            .map(|log| format!("; Sift: {}\n{log}", m.name));
        let route = ctx
            .route
            .as_ref()
            .map(|r| r.choices().to_vec())
            .unwrap_or_default();
        TaskOutput {
            route,
            report: MemberReport {
                name: m.name.clone(),
                kind: m.kind,
                span: m.span.clone(),
                errors,
                tree,
                millis: start.elapsed().as_secs_f64() * 1000.0,
                queries,
                smt_log,
                cached: false,
                reusable,
            },
        }
    })
}

/// How many heap chunks, store entries and facts the states of one error's
/// trace may show in all (the last steps' states are kept; far beyond what
/// a person reads, but a 100,000-step path with 100,000 variables would
/// otherwise render 10^10 of them).
const TRACE_STATE_ITEMS: usize = 200_000;

fn render_step(step: &Step) -> TraceStep {
    TraceStep {
        span: step.span.clone(),
        what: step.what.clone(),
        heap: step.heap.iter().map(|(_, c)| c.to_string()).collect(),
        store: step
            .store
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        pc: step.pc.facts().iter().map(|t| t.to_string()).collect(),
        elided: false,
    }
}

/// A step without its state (see `TRACE_STATE_ITEMS`).
fn elided_step(step: &Step) -> TraceStep {
    TraceStep {
        span: step.span.clone(),
        what: step.what.clone(),
        heap: Vec::new(),
        store: Vec::new(),
        pc: Vec::new(),
        elided: true,
    }
}

/// The trace of a failure, with the states of its last steps while they fit
/// in `TRACE_STATE_ITEMS` (the last step's always).
fn render_trace(steps: &[Arc<Step>]) -> Vec<TraceStep> {
    let mut budget = TRACE_STATE_ITEMS;
    let mut out: Vec<TraceStep> = Vec::with_capacity(steps.len());
    for (i, step) in steps.iter().enumerate().rev() {
        let items = step.heap.len() + step.store.len() + step.pc.len();
        if items <= budget || i + 1 == steps.len() {
            budget = budget.saturating_sub(items);
            out.push(render_step(step));
        } else {
            budget = 0;
            out.push(elided_step(step));
        }
    }
    out.reverse();
    out
}

fn render_failure(member: &str, f: Failure) -> ErrorReport {
    ErrorReport {
        diag: f.diag,
        member: member.to_string(),
        trace: render_trace(&f.trace.steps()),
        counterexample: f.counterexample,
        replay: None,
    }
}

/// Numbers the recorded steps; a parent always precedes its children
/// because a step is recorded after the one it extends.
fn render_tree(steps: &[Arc<Step>]) -> Vec<TreeNode> {
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
            step: render_step(step),
        });
    }
    out
}
