//! Analyses: the fast front end (parse and check) run on every change, and
//! full verification on a background thread that reports back through the
//! server's event channel.

use std::cell::Cell;
use std::sync::Arc;
use std::sync::mpsc::Sender;

use super::Event;
use crate::cache::Cache;
use crate::cancel::Cancel;
use crate::diag::Diagnostic;
use crate::syntax::ast::{Program, Stmt, StmtKind};
use crate::verify::{FileReport, Hooks, MemberReport, Options, Progress};

/// Parses and checks `text`: the resolved program (also after type errors,
/// resolved as far as the checker got) and the parse or type errors.
pub fn front(text: &str) -> (Option<Program>, Vec<Diagnostic>) {
    match crate::syntax::parse_all(text) {
        Err(errors) => (None, errors),
        Ok(mut program) => {
            let errors = crate::check::check(&mut program);
            (Some(program), errors)
        }
    }
}

/// Estimated size of the recorded execution tree above which steps are not
/// kept (hovers then show no states): every step stores the whole store,
/// so a method costs about its statements times its variables.
pub const STEP_BUDGET: u64 = 1_000_000;

/// The estimated size of the execution trees of `program`.
pub fn step_cost(program: &Program) -> u64 {
    // A work list, not recursion: an `else if` chain nests one block per
    // link, and may have many thousand links.
    fn count(body: &[Stmt], n_stmts: &mut u64, n_locals: &mut u64) {
        for st in crate::syntax::walk::statements(body) {
            *n_stmts += 1;
            if matches!(st.kind, StmtKind::Local { .. }) {
                *n_locals += 1;
            }
        }
    }
    let mut total: u64 = 0;
    for m in program.classes.iter().flat_map(|c| &c.methods) {
        let (mut stmts, mut locals) = (0, 0);
        count(&m.body.stmts, &mut stmts, &mut locals);
        let vars = locals + m.params.len() as u64 + 16;
        total = total.saturating_add((stmts + 4).saturating_mul(vars));
    }
    total
}

/// A verification to run.
pub struct Job {
    /// The document's key (its URI).
    pub key: String,
    /// The run's number, unique for the server's lifetime.
    pub run: u64,
    /// The exact text verified: a result is only ever shown for it.
    pub text: Arc<str>,
    pub opts: Options,
    /// The document's results so far (moved back in `Done`).
    pub cache: Cache,
    /// Raised when a newer text (or closing) makes the run useless.
    pub cancel: Arc<Cancel>,
}

/// A finished verification.
pub struct Done {
    pub key: String,
    pub run: u64,
    pub text: Arc<str>,
    /// The run was cancelled: its report is incomplete.
    pub cancelled: bool,
    /// `Err` if the verifier could not run (its message).
    pub report: Result<Arc<FileReport>, String>,
    /// The cache with this run's results; `None` after a panic, which may
    /// have left it half updated.
    pub cache: Option<Cache>,
}

/// Members done so far in a running verification.
pub struct Advance {
    pub key: String,
    pub run: u64,
    pub done: usize,
    pub total: usize,
    /// Of `done`, the members whose results came from the cache.
    pub reused: usize,
}

/// Sends an `Advance` to the server as members finish.
struct Reporter<'a> {
    tx: &'a Sender<Event>,
    key: &'a str,
    run: u64,
    done: Cell<usize>,
    total: Cell<usize>,
    reused: Cell<usize>,
}

impl Reporter<'_> {
    fn send(&self) {
        let _ = self.tx.send(Event::Progress(Advance {
            key: self.key.to_string(),
            run: self.run,
            done: self.done.get(),
            total: self.total.get(),
            reused: self.reused.get(),
        }));
    }
}

impl Progress for Reporter<'_> {
    fn start(&self, _path: &str, total: usize, reused: usize) {
        self.total.set(total);
        self.done.set(reused);
        self.reused.set(reused);
        self.send();
    }

    fn member_done(&self, _report: &MemberReport) {
        self.done.set(self.done.get() + 1);
        self.send();
    }
}

/// Runs `job` on a thread of its own; the result arrives as
/// `Event::Verified`. Returns false if no thread could be started.
pub fn spawn(job: Job, tx: Sender<Event>) -> bool {
    let Job {
        key,
        run: run_id,
        text,
        opts,
        mut cache,
        cancel,
    } = job;
    let spawned = std::thread::Builder::new()
        .name("sift-lsp-verify".to_string())
        .spawn(move || {
            let reporter = Reporter {
                tx: &tx,
                key: &key,
                run: run_id,
                done: Cell::new(0),
                total: Cell::new(0),
                reused: Cell::new(0),
            };
            let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let mut hooks = Hooks {
                    partition: None,
                    cache: Some(&mut cache),
                    progress: Some(&reporter),
                    cancel: Some(cancel.clone()),
                };
                crate::verify::verify_source_with(&key, &text, &opts, &mut hooks)
            }));
            let (report, cache) = match run {
                Ok(r) => (Ok(Arc::new(r)), Some(cache)),
                Err(_) => (
                    Err("internal error: the verifier panicked".to_string()),
                    None,
                ),
            };
            // The server may be gone (shutting down): nothing to do then.
            let _ = tx.send(Event::Verified(Done {
                key,
                run: run_id,
                text,
                cancelled: cancel.is_cancelled(),
                report,
                cache,
            }));
        });
    match spawned {
        Ok(_) => true,
        Err(e) => {
            eprintln!("sift lsp: cannot start a verification thread: {e}");
            false
        }
    }
}
