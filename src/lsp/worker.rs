//! Analyses: the fast front end (parse and check) run on every change, and
//! full verification on a background thread that reports back through the
//! server's event channel.

use std::sync::Arc;
use std::sync::mpsc::Sender;

use super::Event;
use crate::diag::Diagnostic;
use crate::syntax::ast::{Program, Stmt, StmtKind};
use crate::verify::{FileReport, Options};

/// Parses and checks `text`: the resolved program (also after type errors,
/// resolved as far as the checker got) and the parse or type errors.
pub fn front(text: &str) -> (Option<Program>, Vec<Diagnostic>) {
    match crate::syntax::parse(text) {
        Err(d) => (None, vec![d]),
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
        let mut work = vec![body];
        while let Some(stmts) = work.pop() {
            for st in stmts {
                *n_stmts += 1;
                match &st.kind {
                    StmtKind::Local { .. } => *n_locals += 1,
                    StmtKind::If { then, els, .. } => {
                        work.push(&then.stmts);
                        work.extend(els.iter().map(|e| e.stmts.as_slice()));
                    }
                    StmtKind::While { body, .. } => work.push(&body.stmts),
                    _ => {}
                }
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
    /// The document's generation when the job started.
    pub generation: u64,
    pub text: String,
    pub opts: Options,
}

/// A finished verification.
pub struct Done {
    pub key: String,
    pub generation: u64,
    /// `Err` if the verifier could not run (its message).
    pub report: Result<Arc<FileReport>, String>,
}

/// Runs `job` on a thread of its own; the result arrives as
/// `Event::Verified`. Returns false if no thread could be started.
pub fn spawn(job: Job, tx: Sender<Event>) -> bool {
    let Job {
        key,
        generation,
        text,
        opts,
    } = job;
    let spawned = std::thread::Builder::new()
        .name("sift-lsp-verify".to_string())
        .spawn(move || {
            let run = std::panic::catch_unwind(|| crate::verify::verify_source(&key, &text, &opts));
            let report = match run {
                Ok(r) => Ok(Arc::new(r)),
                Err(_) => Err("internal error: the verifier panicked".to_string()),
            };
            // The server may be gone (shutting down): nothing to do then.
            let _ = tx.send(Event::Verified(Done {
                key,
                generation,
                report,
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
