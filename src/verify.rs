//! The library API every front end uses: source text in, a report out.
//!
//! Members are verified in parallel, one Z3 context per thread and a fresh
//! solver per member (so results never depend on scheduling), on threads
//! with large stacks: continuations nest once per block and per rule.

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::diag::{Diagnostic, Kind};
use crate::solver::Solver;
use crate::symbolic::ctx::{Ctx, Failure};
use crate::symbolic::program::ProgramInfo;
use crate::symbolic::state::Step;
use crate::symbolic::validity;
use crate::syntax::ast::Span;

/// Stack for verifier threads; untouched pages cost nothing.
const STACK_BYTES: usize = 1 << 30;

#[derive(Clone, Debug)]
pub struct Options {
    /// Per-query Z3 timeout in milliseconds.
    pub timeout_ms: u32,
    /// Verifier threads (0: one per core).
    pub jobs: usize,
    /// Keep the SMT-LIB text of every query.
    pub smt_log: bool,
    /// Keep every step of every path (`MemberReport::tree`), for stepping
    /// through the execution and for hovers; errors always keep their path.
    pub keep_steps: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            timeout_ms: 5000,
            jobs: 0,
            smt_log: false,
            keep_steps: false,
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

/// Parses, checks and verifies one file.
pub fn verify_source(path: &str, source: &str, opts: &Options) -> FileReport {
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
    let program = match front {
        Ok(Ok(p)) => p,
        Ok(Err(errors)) => {
            report.stage = if errors.iter().any(|d| d.kind == Kind::Parse) {
                Stage::Parse
            } else {
                Stage::Check
            };
            report.errors = errors.into_iter().map(plain_error).collect();
            return report;
        }
        Err(msg) => {
            report.stage = Stage::Check;
            report
                .errors
                .push(plain_error(Diagnostic::new(Kind::Type, 0..0, msg)));
            return report;
        }
    };
    report.members = verify_program(program, source, opts);
    let mut errors: Vec<ErrorReport> = report
        .members
        .iter()
        .flat_map(|m| m.errors.iter().cloned())
        .collect();
    errors.sort_by_key(|e| (e.diag.span.start, e.diag.kind));
    errors.dedup_by(|a, b| a.diag.kind == b.diag.kind && a.diag.span == b.diag.span);
    report.errors = errors;
    report
}

fn plain_error(diag: Diagnostic) -> ErrorReport {
    ErrorReport {
        diag,
        member: String::new(),
        trace: Vec::new(),
        counterexample: Vec::new(),
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
fn with_big_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
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

struct Member {
    name: String,
    kind: MemberKind,
    span: Span,
    class: String,
    member: String,
}

fn members(info: &ProgramInfo) -> Vec<Member> {
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
                class: c.clone(),
                member: m.name.name.clone(),
            });
        }
        for p in &class.pures {
            out.push(Member {
                name: format!("{c}.{}", p.name.name),
                kind: MemberKind::Pure,
                span: p.span.clone(),
                class: c.clone(),
                member: p.name.name.clone(),
            });
        }
        for q in &class.predicates {
            out.push(Member {
                name: format!("{c}.{}", q.name.name),
                kind: MemberKind::Predicate,
                span: q.span.clone(),
                class: c.clone(),
                member: q.name.name.clone(),
            });
        }
    }
    out.sort_by_key(|m| m.span.start);
    out
}

/// Verifies every member of a checked program; reports in source order.
pub fn verify_program(
    program: crate::syntax::ast::Program,
    source: &str,
    opts: &Options,
) -> Vec<MemberReport> {
    // Building the tables walks every method body recursively, once per
    // nested block, and an `else if` chain nests one block per link: not on
    // the caller's stack, which may be a small one (the language server's).
    let info = Arc::new(with_big_stack(move || ProgramInfo::new(program)));
    let members = Arc::new(members(&info));
    let source: Arc<str> = source.into();
    let results: Arc<Mutex<Vec<Option<MemberReport>>>> =
        Arc::new(Mutex::new(vec![None; members.len()]));
    let next = Arc::new(AtomicUsize::new(0));
    let jobs = match opts.jobs {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
    .clamp(1, members.len().max(1));
    let mut handles = Vec::new();
    let mut unverified = "the verifier thread stopped".to_string();
    for _ in 0..jobs {
        let (info, members, source, results, next, opts) = (
            info.clone(),
            members.clone(),
            source.clone(),
            results.clone(),
            next.clone(),
            opts.clone(),
        );
        let spawned = std::thread::Builder::new()
            .stack_size(STACK_BYTES)
            .spawn(move || {
                let z3 = z3::Context::new(&z3::Config::new());
                let funs = info.fun_decls();
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(m) = members.get(i) else { break };
                    let report = verify_member(&z3, &info, &source, &funs, m, &opts);
                    if let Ok(mut r) = results.lock() {
                        r[i] = Some(report);
                    }
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
    for h in handles {
        let _ = h.join();
    }
    let results = results.lock().map(|r| r.clone()).unwrap_or_default();
    results
        .into_iter()
        .zip(members.iter())
        .map(|(r, m)| {
            r.unwrap_or_else(|| MemberReport {
                name: m.name.clone(),
                kind: m.kind,
                span: m.span.clone(),
                errors: vec![internal_error(m, &unverified)],
                tree: Vec::new(),
                millis: 0.0,
                queries: 0,
                smt_log: None,
            })
        })
        .collect()
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
    }
}

fn verify_member(
    z3: &z3::Context,
    info: &Arc<ProgramInfo>,
    source: &Arc<str>,
    funs: &[crate::solver::FunDecl],
    m: &Member,
    opts: &Options,
) -> MemberReport {
    let start = Instant::now();
    let solver = Solver::new(z3, funs, opts.timeout_ms, opts.smt_log);
    let mut ctx = Ctx::new(info.clone(), source.clone(), solver);
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
    let mut errors: Vec<ErrorReport> = ctx
        .failures
        .drain(..)
        .map(|f| render_failure(&m.name, f))
        .collect();
    if let Err(p) = run {
        errors.push(internal_error(m, &panic_message(&p)));
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
    MemberReport {
        name: m.name.clone(),
        kind: m.kind,
        span: m.span.clone(),
        errors,
        tree,
        millis: start.elapsed().as_secs_f64() * 1000.0,
        queries,
        smt_log,
    }
}

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
    }
}

fn render_failure(member: &str, f: Failure) -> ErrorReport {
    ErrorReport {
        diag: f.diag,
        member: member.to_string(),
        trace: f.trace.steps().iter().map(|s| render_step(s)).collect(),
        counterexample: f.counterexample,
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
