//! The library API every front end uses: source text in, a report out.
//!
//! Members are verified in parallel, as tasks on a shared queue; a method's
//! paths may be split into several tasks (`symbolic::route`). Each task runs
//! in a Z3 context of its own, so its answers never depend on scheduling or
//! on the thread count, on threads with large stacks (continuations nest
//! once per block and per rule).

use std::collections::VecDeque;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;

use crate::cache::Cache;
use crate::cancel::Cancel;
use crate::diag::{Diagnostic, Kind};
use crate::partition::Partition;
use crate::record::words::{self, LimitNames};
use crate::solver::{DEFAULT_RLIMIT, DEFAULT_TIMEOUT_MS, Limits};
use crate::stack::with_big_stack;
use crate::stack::{VERIFIER_STACK, on_thread, panic_message};
use crate::symbolic::ctx::{Ctx, Stop, WORK_BUDGET};
use crate::symbolic::names::StoreIndex;
use crate::symbolic::program::ProgramInfo;
use crate::symbolic::recorded;
use crate::symbolic::route::{Donate, Route};
use crate::symbolic::validity;
use crate::syntax::ast::Span;

pub use crate::record::{
    ErrorReport, FileReport, MemberKind, MemberReport, Stage, TraceStep, TreeNode,
};

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
    /// Infer the ghost statements left out (docs/language.md section 6).
    pub infer: bool,
    /// `int` is Java's 32-bit integer in code (`--overflow`, section 4e).
    pub overflow: bool,
    /// How the front end names the solver's limits, for the note on a
    /// proof the solver gave up on (the core names no flag or setting).
    pub limit_names: LimitNames,
    /// Rule applications one member may take (`ctx::WORK_BUDGET`): past
    /// them the member is reported not verified. Deterministic.
    pub work_budget: u64,
    /// Milliseconds one member may take, if limited (the language server
    /// limits it, so that one document cannot keep a verification slot).
    pub member_time_ms: Option<u64>,
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
            overflow: false,
            limit_names: LimitNames::default(),
            work_budget: WORK_BUDGET,
            member_time_ms: None,
        }
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
    let (program, mut report) = match checked_program_with(path, source, opts.overflow) {
        Ok(p) => p,
        Err(report) => return report,
    };
    report.members = verify_members(path, program, source, opts, hooks);
    let errors: Vec<ErrorReport> = report
        .members
        .iter()
        .flat_map(|m| m.errors.iter().cloned())
        .collect();
    report.errors = file_errors(errors);
    report
}

/// Parses and checks a file: the checked program and an empty report to
/// fill, or the report of its parse or type errors.
pub fn checked_program(
    path: &str,
    source: &str,
) -> Result<(crate::syntax::ast::Program, FileReport), FileReport> {
    checked_program_with(path, source, false)
}

/// [`checked_program`]; with `overflow` (`--overflow`, section 4e) a
/// literal above `int`'s range in code is a type error and code's
/// operations are checked against the range.
pub fn checked_program_with(
    path: &str,
    source: &str,
    overflow: bool,
) -> Result<(crate::syntax::ast::Program, FileReport), FileReport> {
    let front = on_thread("sift-front", VERIFIER_STACK, || {
        let mut program = crate::syntax::parse_all(source)
            .map_err(|d| (Stage::Parse, d.into_iter().map(plain_error).collect()))?;
        let mut errors = crate::check::check(&mut program);
        if errors.is_empty() && overflow {
            errors = crate::check::literals::out_of_range(&program);
        }
        if errors.is_empty() {
            crate::lower::program(&mut program, source, overflow);
            Ok(program)
        } else {
            Err((Stage::Check, in_members(&program, errors)))
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
        Ok(Err((stage, errors))) => {
            report.stage = stage;
            report.errors = errors;
            Err(report)
        }
        Err(payload) => {
            report.stage = Stage::Check;
            let msg = format!("internal error: {}", panic_message(&*payload));
            report
                .errors
                .push(plain_error(Diagnostic::new(Kind::Internal, 0..0, msg)));
            Err(report)
        }
    }
}

/// The file's errors: each (kind, place) once, in source order, however
/// many members reach it (an ill-defined callee contract fails the callee
/// and each caller at the same place; the members keep their own lists).
fn file_errors(mut errors: Vec<ErrorReport>) -> Vec<ErrorReport> {
    // Stable: of the same (kind, place), the first member's is kept.
    errors.sort_by_key(|e| (e.diag.span.start, e.diag.kind));
    errors.dedup_by(|a, b| a.diag.kind == b.diag.kind && a.diag.span == b.diag.span);
    errors
}

/// Type errors, each with the member it is in (`Class.name`), if any.
fn in_members(program: &crate::syntax::ast::Program, errors: Vec<Diagnostic>) -> Vec<ErrorReport> {
    let members: Vec<(Span, String)> = program
        .classes
        .iter()
        .flat_map(|c| {
            c.members().map(move |m| {
                (
                    m.span().clone(),
                    format!("{}.{}", c.name.name, m.name().name),
                )
            })
        })
        .collect();
    errors
        .into_iter()
        .map(|d| {
            let inside = |s: &Span| s.start <= d.span.start && d.span.end <= s.end;
            let member = members.iter().find(|(s, _)| inside(s));
            let member = member.map(|(_, name)| name.clone()).unwrap_or_default();
            ErrorReport {
                member,
                ..plain_error(d)
            }
        })
        .collect()
}

fn plain_error(diag: Diagnostic) -> ErrorReport {
    ErrorReport {
        diag,
        reason: None,
        member: String::new(),
        trace: Vec::new(),
        counterexample: Vec::new(),
        replay: None,
        inputs: None,
    }
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
    use crate::syntax::ast::MemberDecl;
    let mut out = Vec::new();
    for class in &info.program.classes {
        let c = &class.name.name;
        for decl in class.members() {
            let (kind, body) = match decl {
                MemberDecl::Method(m) if m.is_constructor => {
                    (MemberKind::Constructor, Some(m.body.span.clone()))
                }
                MemberDecl::Method(m) => (MemberKind::Method, Some(m.body.span.clone())),
                MemberDecl::Pure(_) => (MemberKind::Pure, None),
                MemberDecl::Predicate(_) => (MemberKind::Predicate, None),
            };
            let name = &decl.name().name;
            out.push(Member {
                name: format!("{c}.{name}"),
                kind,
                span: decl.span().clone(),
                body,
                class: c.clone(),
                member: name.clone(),
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
    crate::syntax::walk::statements(stmts).any(|s| matches!(s.kind, StmtKind::Join(_)))
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
    // A cached error's replay runs again, on a big stack like a fresh
    // one's (the concrete interpreter recurses once per nested call). Should
    // it panic, the member is verified afresh, as if it were not cached.
    let mut reports: Vec<Option<MemberReport>> = match (hooks.cache.as_deref_mut(), &layout) {
        (Some(cache), Some(layout)) => with_big_stack(|| {
            chosen
                .iter()
                .map(|&i| {
                    let m = &all[i];
                    let replay = |e: &ErrorReport| replay_error(&info, source, m, e, opts.infer);
                    std::panic::catch_unwind(AssertUnwindSafe(|| {
                        cache.get(path, layout, m, i, &replay)
                    }))
                    .unwrap_or(None)
                })
                .collect()
        }),
        _ => vec![None; chosen.len()],
    };
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
            .stack_size(VERIFIER_STACK)
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

/// Runs the member of error `e` concretely on the inputs of its model.
/// Also called for a cached error (the cache keeps the inputs, never the
/// outcome): the run executes the callees' bodies, which the member's
/// cache key does not cover.
fn replay_error(
    info: &ProgramInfo,
    source: &str,
    m: &Member,
    e: &ErrorReport,
    infer: bool,
) -> crate::record::Replay {
    match m.kind {
        MemberKind::Method | MemberKind::Constructor => crate::concrete::replay::replay(
            info,
            source,
            &m.class,
            &m.member,
            (e.diag.kind, &e.diag.span),
            e.inputs.as_ref(),
            infer,
        ),
        MemberKind::Pure | MemberKind::Predicate => {
            crate::concrete::replay::not_run("only methods and constructors are run")
        }
    }
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
    not_verified(
        m,
        format!("internal error while verifying `{}`: {why}", m.name),
    )
}

/// An error of kind `internal` at the member: it was not verified.
fn not_verified(m: &Member, message: String) -> ErrorReport {
    ErrorReport {
        diag: Diagnostic::new(Kind::Internal, m.span.clone(), message),
        reason: None,
        member: m.name.clone(),
        trace: Vec::new(),
        counterexample: Vec::new(),
        replay: None,
        inputs: None,
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
    crate::solver::with_solver(
        funs,
        info.theories(),
        limits,
        opts.smt_log,
        cancel,
        |solver| {
            let mut ctx = Ctx::new(info.clone(), source.clone(), solver);
            ctx.route = route;
            ctx.infer = opts.infer;
            ctx.overflow = opts.overflow;
            ctx.work_budget = opts.work_budget;
            ctx.deadline = opts
                .member_time_ms
                .map(|ms| start + std::time::Duration::from_millis(ms));
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
            let entry = ctx.entry.clone();
            let naming = recorded::Naming {
                prog: info,
                source,
                entry: entry.as_ref().map(StoreIndex::new),
            };
            let mut errors: Vec<ErrorReport> = ctx
                .failures
                .drain(..)
                .map(|f| {
                    let mut e = recorded::error_report(&m.name, f, &opts.limit_names, &naming);
                    e.replay = Some(replay_error(info, source, m, &e, opts.infer));
                    e
                })
                .collect();
            let stopped = ctx.stopped();
            let reusable =
                run.is_ok() && ctx.solver.gave_up == 0 && !cancelled() && stopped.is_none();
            if let Err(p) = run {
                errors.push(internal_error(m, &panic_message(&*p)));
            }
            match stopped {
                Some(Stop::Budget) => errors.push(not_verified(
                    m,
                    words::work_budget_exhausted(ctx.work_budget),
                )),
                Some(Stop::Deadline) => {
                    let ms = opts.member_time_ms.unwrap_or_default();
                    let why = words::member_time_exhausted(ms, &opts.limit_names);
                    errors.push(not_verified(m, why))
                }
                // Reported below, as every cancelled member is.
                Some(Stop::Cancelled) | None => {}
            }
            if cancelled() {
                errors.push(internal_error(m, CANCELLED));
            }
            errors.sort_by_key(|e| e.diag.span.start);
            let tree = ctx
                .all_steps
                .take()
                .map(|steps| recorded::tree(&steps, &naming))
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
        },
    )
}
