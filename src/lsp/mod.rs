//! `sift lsp`: a language server on stdin/stdout.
//!
//! One thread reads frames ([`transport`]), the main loop below owns every
//! document and is the only writer of stdout, and verifications run on
//! background threads ([`worker`]) that report back through the same event
//! channel; the loop never waits for Z3.
//!
//! Changes are applied as they arrive; once no message is waiting (or a
//! request needs it), the document is parsed and checked and its parse and
//! type errors are published, so a burst of edits costs one parse. Full
//! verification (with every symbolic step kept, for hovers) runs on open,
//! on save and after a pause in typing, at most [`MAX_RUNNING`] at a time
//! (the others wait their turn). A newer text, closing or reopening cancels
//! the document's running verification; a result is shown only for the
//! exact text it was computed from. Cancellation reaches every loop of the
//! engine (`Ctx::tick`), and each member has a time limit
//! ([`MEMBER_TIME_MS`]), so no document keeps a slot for good. Diagnostics
//! and code lenses of the last verification stay, moved through later
//! edits, until the next one completes. Documents larger than [`MAX_DOCUMENT_BYTES`] get one
//! diagnostic saying so and are neither parsed nor verified.

mod definition;
mod diagnostics;
mod documents;
mod hover;
mod requests;
mod transport;

/// The `Content-Length` framing, shared with `sift dap`.
pub use transport::read_body;
mod workdone;
mod worker;

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, TryRecvError, channel};
use std::time::{Duration, Instant};

use lsp_server::{ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::{Diagnostic as LspDiagnostic, PublishDiagnosticsParams, Uri};
use serde_json::Value;

use crate::cache::Cache;
use crate::cancel::Cancel;
use crate::record::words::LimitNames;
use crate::syntax::ast::Program;
use crate::verify::{FileReport, Options};
use diagnostics::Lens;
use documents::Document;
use transport::Output;
use workdone::WorkDone;

/// Verifications running at once, over all documents (each uses the
/// configured verifier threads); more wait until one ends.
pub const MAX_RUNNING: usize = 2;

/// How long one member may take by default (`memberTimeoutMs`): two runaway
/// documents would otherwise hold both verification slots for good.
pub const MEMBER_TIME_MS: u64 = 120_000;

/// The largest document parsed and verified: the command line's limit.
pub const MAX_DOCUMENT_BYTES: usize = 4 << 20;

/// What the main loop reacts to.
pub enum Event {
    Message(Message),
    /// A frame that is not a JSON-RPC message.
    Malformed(String),
    /// The input ended (or could not be read: the reason).
    Closed(Option<String>),
    Verified(worker::Done),
    /// Members done in a running verification.
    Progress(worker::Advance),
}

/// Settings, from the client's `initializationOptions`.
#[derive(Clone, Debug)]
struct Config {
    /// Pause in typing after which a changed document is verified.
    debounce: Duration,
    /// Per-query solver timeout and verifier threads.
    timeout_ms: u32,
    jobs: usize,
    /// Ghost statement inference (setting `infer`, default on).
    infer: bool,
    /// Java's 32-bit `int` in code (setting `overflow`, default off).
    overflow: bool,
    /// The time one member may take (setting `memberTimeoutMs`): past it
    /// the member is reported not verified, and its slot freed.
    member_time_ms: u64,
}

impl Config {
    fn from_options(v: &Value) -> Config {
        let defaults = Options::default();
        let num = |key: &str| v.get(key).and_then(Value::as_u64);
        Config {
            debounce: Duration::from_millis(num("debounceMs").unwrap_or(500).min(60_000)),
            timeout_ms: num("timeoutMs")
                .map_or(defaults.timeout_ms, |t| t.clamp(1, u32::MAX as u64) as u32),
            jobs: num("jobs").map_or(defaults.jobs, |j| j.min(256) as usize),
            infer: v
                .get("infer")
                .and_then(Value::as_bool)
                .unwrap_or(defaults.infer),
            overflow: v
                .get("overflow")
                .and_then(Value::as_bool)
                .unwrap_or(defaults.overflow),
            member_time_ms: num("memberTimeoutMs").map_or(MEMBER_TIME_MS, |t| t.max(1)),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Waiting for `initialize`.
    Uninitialized,
    Running,
    /// `shutdown` was answered; waiting for `exit`.
    ShuttingDown,
}

/// An open document and what is known about it.
struct DocState {
    uri: Uri,
    doc: Document,
    /// The current text parsed and checked (`None` after a syntax error).
    program: Option<Program>,
    /// Parse and type errors of the current text.
    fast: Vec<LspDiagnostic>,
    /// Errors of the last verification, moved through later edits.
    verified: Vec<LspDiagnostic>,
    lenses: Vec<Lens>,
    /// The generation the lenses were computed for.
    lens_generation: u64,
    /// The last verification (its `source` is the text it verified).
    report: Option<Arc<FileReport>>,
    /// When to verify next.
    verify_at: Option<Instant>,
    /// The verification running for this document (perhaps cancelled and
    /// winding down: the next one waits for it, and for its cache).
    running: Option<Running>,
    /// The text changed since it was last parsed and checked.
    dirty: bool,
    /// Results of members, reused while their key is unchanged (`None`
    /// while a verification has it).
    cache: Option<Cache>,
}

struct Running {
    run: u64,
    cancel: Arc<Cancel>,
}

struct Server {
    out: Output,
    tx: Sender<Event>,
    phase: Phase,
    config: Config,
    docs: HashMap<String, DocState>,
    /// The client can be asked to refresh code lenses.
    lens_refresh: bool,
    next_request: i32,
    work_done: WorkDone,
    /// Numbers verification runs, never reused.
    next_run: u64,
    /// Verification threads alive, cancelled ones included.
    running: usize,
}

/// Runs the server until `exit`. `Ok` after a clean shutdown; `Err` on a
/// protocol error (`exit` without `shutdown`, input ended early, output
/// closed).
pub fn run() -> Result<(), String> {
    let (tx, rx) = channel();
    transport::spawn_reader(tx.clone())
        .map_err(|e| format!("cannot start the reader thread: {e}"))?;
    let mut server = Server {
        out: Output::new(),
        tx,
        phase: Phase::Uninitialized,
        config: Config::from_options(&Value::Null),
        docs: HashMap::new(),
        lens_refresh: false,
        next_request: 0,
        work_done: WorkDone::new(false),
        next_run: 0,
        running: 0,
    };
    server.main_loop(&rx)
}

fn log(msg: impl std::fmt::Display) {
    eprintln!("sift lsp: {msg}");
}

/// How the loop goes on after a message.
enum Flow {
    Continue,
    Exit(Result<(), String>),
}

impl Server {
    fn main_loop(&mut self, rx: &Receiver<Event>) -> Result<(), String> {
        loop {
            let event = match rx.try_recv() {
                Ok(event) => Ok(event),
                Err(TryRecvError::Disconnected) => Err(RecvTimeoutError::Disconnected),
                // Nothing waiting: catch up with the edits, then sleep until
                // the next message or the next verification due.
                Err(TryRecvError::Empty) => {
                    if let Err(e) = self.settle_all().and_then(|()| self.start_due()) {
                        return Err(format!("cannot write to the client: {e}"));
                    }
                    match self.next_due() {
                        Some(at) => rx.recv_timeout(at.saturating_duration_since(Instant::now())),
                        None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
                    }
                }
            };
            let flow = match event {
                Ok(Event::Message(m)) => self.message(m),
                Ok(Event::Malformed(why)) => self.malformed(&why),
                Ok(Event::Closed(why)) => Ok(Flow::Exit(self.closed(why))),
                Ok(Event::Verified(done)) => self.verified(done),
                Ok(Event::Progress(a)) => self
                    .work_done
                    .advanced(&mut self.out, &a)
                    .map(|()| Flow::Continue),
                Err(RecvTimeoutError::Timeout) => Ok(Flow::Continue),
                Err(RecvTimeoutError::Disconnected) => {
                    return Err("the input channel closed".to_string());
                }
            }
            .unwrap_or_else(|e| Flow::Exit(Err(format!("cannot write to the client: {e}"))));
            if let Flow::Exit(result) = flow {
                return result;
            }
        }
    }

    /// When the next waiting verification may start: never while all
    /// verification slots are taken (one ending wakes the loop anyway).
    fn next_due(&self) -> Option<Instant> {
        if self.running >= MAX_RUNNING {
            return None;
        }
        self.docs
            .values()
            .filter(|d| d.running.is_none())
            .filter_map(|d| d.verify_at)
            .min()
    }

    /// Parses and checks every document edited since, and publishes.
    fn settle_all(&mut self) -> std::io::Result<()> {
        let dirty: Vec<String> = self
            .docs
            .iter()
            .filter(|(_, d)| d.dirty)
            .map(|(k, _)| k.clone())
            .collect();
        for key in dirty {
            self.publish(&key)?;
        }
        Ok(())
    }

    fn closed(&self, why: Option<String>) -> Result<(), String> {
        match (why, self.phase) {
            (Some(e), _) => Err(format!("cannot read the input: {e}")),
            (None, Phase::ShuttingDown) => Ok(()),
            (None, _) => Err("the input ended without `shutdown` and `exit`".to_string()),
        }
    }

    fn malformed(&mut self, why: &str) -> std::io::Result<Flow> {
        log(format!("ignoring a malformed message: {why}"));
        let reply = serde_json::json!({
            "jsonrpc": "2.0",
            "id": null,
            "error": { "code": ErrorCode::ParseError as i32, "message": why },
        });
        self.out.send_raw(&reply)?;
        Ok(Flow::Continue)
    }

    fn message(&mut self, m: Message) -> std::io::Result<Flow> {
        match m {
            Message::Request(r) => self.request(r),
            Message::Notification(n) => self.notification(n),
            // Replies to our `window/workDoneProgress/create` and
            // `workspace/codeLens/refresh`.
            Message::Response(r) => {
                self.work_done.response(&mut self.out, &r)?;
                Ok(Flow::Continue)
            }
        }
    }

    fn reply_err(
        &mut self,
        id: RequestId,
        code: ErrorCode,
        msg: impl Into<String>,
    ) -> std::io::Result<()> {
        self.out
            .send(Response::new_err(id, code as i32, msg.into()))
    }

    fn request(&mut self, r: Request) -> std::io::Result<Flow> {
        match (self.phase, r.method.as_str()) {
            (Phase::Uninitialized, "initialize") => {
                self.initialize(r)?;
                self.phase = Phase::Running;
            }
            (Phase::Uninitialized, _) => {
                self.reply_err(
                    r.id,
                    ErrorCode::ServerNotInitialized,
                    "the server is not initialized",
                )?;
            }
            (Phase::ShuttingDown, _) => {
                self.reply_err(
                    r.id,
                    ErrorCode::InvalidRequest,
                    "the server is shutting down",
                )?;
            }
            (Phase::Running, "initialize") => {
                self.reply_err(
                    r.id,
                    ErrorCode::InvalidRequest,
                    "the server is already initialized",
                )?;
            }
            (Phase::Running, "shutdown") => {
                self.phase = Phase::ShuttingDown;
                // Nothing verified from now on is shown.
                for d in self.docs.values_mut() {
                    d.verify_at = None;
                    if let Some(r) = &d.running {
                        r.cancel.cancel();
                    }
                }
                self.out.send(Response::new_ok(r.id, Value::Null))?;
            }
            (Phase::Running, _) => {
                // Answers are about the current text.
                self.settle_all()?;
                // A bug in a handler costs one answer, not the session.
                let id = r.id.clone();
                let this = &*self;
                let response = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    requests::handle(this, r)
                }))
                .unwrap_or_else(|_| {
                    Response::new_err(
                        id,
                        ErrorCode::InternalError as i32,
                        "internal error in the server".to_string(),
                    )
                });
                self.out.send(response)?;
            }
        }
        Ok(Flow::Continue)
    }

    fn initialize(&mut self, r: Request) -> std::io::Result<()> {
        let p = &r.params;
        self.config = Config::from_options(p.get("initializationOptions").unwrap_or(&Value::Null));
        self.lens_refresh = p
            .pointer("/capabilities/workspace/codeLens/refreshSupport")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        self.work_done = WorkDone::new(
            p.pointer("/capabilities/window/workDoneProgress")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        );
        let result = requests::initialize_result();
        self.out.send(Response::new_ok(r.id, result))
    }

    fn notification(&mut self, n: Notification) -> std::io::Result<Flow> {
        if n.method == "exit" {
            return Ok(Flow::Exit(match self.phase {
                Phase::ShuttingDown => Ok(()),
                _ => Err("`exit` before `shutdown`".to_string()),
            }));
        }
        if self.phase != Phase::Running {
            return Ok(Flow::Continue);
        }
        let params = n.params;
        match n.method.as_str() {
            "textDocument/didOpen" => {
                match serde_json::from_value::<lsp_types::DidOpenTextDocumentParams>(params) {
                    Ok(p) => self.did_open(p)?,
                    Err(e) => log(format!("bad didOpen: {e}")),
                }
            }
            "textDocument/didChange" => {
                match serde_json::from_value::<lsp_types::DidChangeTextDocumentParams>(params) {
                    Ok(p) => self.did_change(p)?,
                    Err(e) => log(format!("bad didChange: {e}")),
                }
            }
            "textDocument/didSave" => {
                match serde_json::from_value::<lsp_types::DidSaveTextDocumentParams>(params) {
                    Ok(p) => {
                        if let Some(d) = self.docs.get_mut(p.text_document.uri.as_str()) {
                            analyse(d);
                            if d.fast.is_empty() {
                                d.verify_at = Some(Instant::now());
                            }
                        }
                    }
                    Err(e) => log(format!("bad didSave: {e}")),
                }
            }
            "textDocument/didClose" => {
                match serde_json::from_value::<lsp_types::DidCloseTextDocumentParams>(params) {
                    Ok(p) => {
                        if let Some(d) = self.docs.remove(p.text_document.uri.as_str()) {
                            if let Some(r) = &d.running {
                                r.cancel.cancel();
                            }
                            self.publish_params(d.uri, Vec::new(), None)?;
                        }
                    }
                    Err(e) => log(format!("bad didClose: {e}")),
                }
            }
            // `initialized`, `$/cancelRequest` (every request is answered
            // at once), `$/setTrace`, configuration changes, and anything
            // unknown.
            _ => {}
        }
        Ok(Flow::Continue)
    }

    fn did_open(&mut self, p: lsp_types::DidOpenTextDocumentParams) -> std::io::Result<()> {
        let item = p.text_document;
        let key = item.uri.as_str().to_string();
        // Reopening drops what was known; a verification still running for
        // the old text is cancelled, and its result will match no document.
        if let Some(old) = self.docs.remove(&key)
            && let Some(r) = old.running
        {
            r.cancel.cancel();
        }
        let mut d = DocState {
            uri: item.uri,
            doc: Document::new(item.text, item.version),
            program: None,
            fast: Vec::new(),
            verified: Vec::new(),
            lenses: Vec::new(),
            lens_generation: 0,
            report: None,
            verify_at: None,
            running: None,
            dirty: true,
            cache: Some(Cache::in_memory()),
        };
        analyse(&mut d);
        if d.fast.is_empty() {
            d.verify_at = Some(Instant::now());
        }
        self.docs.insert(key.clone(), d);
        self.publish(&key)
    }

    fn did_change(&mut self, p: lsp_types::DidChangeTextDocumentParams) -> std::io::Result<()> {
        let key = p.text_document.uri.as_str().to_string();
        let debounce = self.config.debounce;
        let Some(d) = self.docs.get_mut(&key) else {
            log(format!("change of a document that is not open: {key}"));
            return Ok(());
        };
        let edits = d.doc.apply(p.text_document.version, p.content_changes);
        d.verified = diagnostics::shift_diagnostics(std::mem::take(&mut d.verified), &edits);
        d.lenses = diagnostics::shift_lenses(std::mem::take(&mut d.lenses), &edits);
        // The running verification is of a text that is gone.
        if let Some(r) = &d.running {
            r.cancel.cancel();
        }
        // Parsed and checked once the burst of edits is over; verified after
        // a pause, unless that finds errors.
        d.dirty = true;
        d.verify_at = Some(Instant::now() + debounce);
        Ok(())
    }

    /// Publishes the diagnostics of a document: parse and type errors of
    /// the current text, then those of the last verification.
    fn publish(&mut self, key: &str) -> std::io::Result<()> {
        let Some(d) = self.docs.get_mut(key) else {
            return Ok(());
        };
        if d.dirty {
            analyse(d);
        }
        let mut all = d.fast.clone();
        all.extend(d.verified.iter().cloned());
        let (uri, version) = (d.uri.clone(), d.doc.version);
        self.publish_params(uri, all, Some(version))
    }

    fn publish_params(
        &mut self,
        uri: Uri,
        diagnostics: Vec<LspDiagnostic>,
        version: Option<i32>,
    ) -> std::io::Result<()> {
        let params = PublishDiagnosticsParams {
            uri,
            diagnostics,
            version,
        };
        self.out.send(Notification::new(
            "textDocument/publishDiagnostics".to_string(),
            params,
        ))
    }

    /// Starts the verifications whose time has come, longest waiting
    /// first, while fewer than [`MAX_RUNNING`] run.
    fn start_due(&mut self) -> std::io::Result<()> {
        let now = Instant::now();
        let mut due: Vec<(Instant, String)> = self
            .docs
            .iter()
            .filter(|(_, d)| d.running.is_none() && !d.dirty)
            .filter_map(|(k, d)| {
                d.verify_at
                    .filter(|&at| at <= now)
                    .map(|at| (at, k.clone()))
            })
            .collect();
        due.sort();
        for (_, key) in due {
            if self.running >= MAX_RUNNING {
                break;
            }
            let Some(d) = self.docs.get_mut(&key) else {
                continue;
            };
            d.verify_at = None;
            let opts = Options {
                timeout_ms: self.config.timeout_ms,
                jobs: self.config.jobs,
                keep_steps: d
                    .program
                    .as_ref()
                    .is_some_and(|p| worker::step_cost(p) <= worker::STEP_BUDGET),
                infer: self.config.infer,
                overflow: self.config.overflow,
                member_time_ms: Some(self.config.member_time_ms),
                limit_names: LimitNames {
                    rlimit: None,
                    timeout: Some("the `timeoutMs` setting".to_string()),
                    member_time: Some("the `memberTimeoutMs` setting".to_string()),
                },
                ..Options::default()
            };
            self.next_run += 1;
            let run = self.next_run;
            let cancel = Cancel::new();
            let job = worker::Job {
                key: key.clone(),
                run,
                text: d.doc.text.as_str().into(),
                opts,
                cache: d.cache.take().unwrap_or_else(Cache::in_memory),
                cancel: cancel.clone(),
            };
            if worker::spawn(job, self.tx.clone()) {
                self.running += 1;
                d.running = Some(Running { run, cancel });
                let title = format!("Verifying {}", file_name(d.uri.as_str()));
                self.work_done.started(&mut self.out, &key, run, title)?;
            }
        }
        Ok(())
    }

    fn verified(&mut self, done: worker::Done) -> std::io::Result<Flow> {
        self.running = self.running.saturating_sub(1);
        let (key, run) = (done.key.clone(), done.run);
        let flow = self.take_result(done)?;
        // After the diagnostics: a client that sees the end can rely on them.
        self.work_done.finished(&mut self.out, &key, run)?;
        Ok(flow)
    }

    fn take_result(&mut self, mut done: worker::Done) -> std::io::Result<Flow> {
        let Some(d) = self.docs.get_mut(&done.key) else {
            return Ok(Flow::Continue);
        };
        if d.running.as_ref().is_none_or(|r| r.run != done.run) {
            // From a document closed or reopened since.
            return Ok(Flow::Continue);
        }
        d.running = None;
        // Entries are keyed by content, so even a stale run's are right
        // (a cancelled member's result is never kept).
        if let Some(cache) = done.cache.take() {
            d.cache = Some(cache);
        }
        if done.cancelled || *done.text != *d.doc.text {
            // Of a text that is gone: verify the current one (when it is
            // free of parse and type errors and not waiting for its pause).
            if !d.dirty && d.fast.is_empty() && d.verify_at.is_none() {
                d.verify_at = Some(Instant::now());
            }
            return Ok(Flow::Continue);
        }
        match done.report {
            Ok(report) => {
                let (text, lines) = (&d.doc.text, &d.doc.lines);
                d.verified = diagnostics::errors_to_lsp(&d.uri, text, lines, &report.errors);
                d.lenses = diagnostics::lenses(text, lines, &report.members);
                d.lens_generation = d.doc.generation;
                d.report = Some(report);
            }
            Err(e) => log(format!("verification of {} failed: {e}", done.key)),
        }
        self.publish(&done.key)?;
        if self.lens_refresh {
            self.next_request += 1;
            let id = RequestId::from(format!("sift-{}", self.next_request));
            self.out.send(Request::new(
                id,
                "workspace/codeLens/refresh".to_string(),
                Value::Null,
            ))?;
        }
        Ok(Flow::Continue)
    }
}

/// The last part of a URI, for progress titles.
fn file_name(uri: &str) -> &str {
    uri.rsplit('/').next().unwrap_or(uri)
}

/// Parses and checks the current text of a document; a document with
/// errors (or too large) is not verified until it changes.
fn analyse(d: &mut DocState) {
    d.dirty = false;
    if d.doc.text.len() > MAX_DOCUMENT_BYTES {
        let too_large = crate::diag::Diagnostic::new(
            crate::diag::Kind::Parse,
            0..0,
            format!(
                "document too large: {} bytes; Sift parses and verifies documents of at most {MAX_DOCUMENT_BYTES} bytes",
                d.doc.text.len()
            ),
        )
        .with_label("this document is too large")
        .with_help("split the program into several files");
        d.program = None;
        d.verified.clear();
        d.lenses.clear();
        d.fast = vec![diagnostics::to_lsp(
            &d.uri,
            &d.doc.text,
            &d.doc.lines,
            &too_large,
            &[],
        )];
    } else {
        let (program, errors) = worker::front(&d.doc.text);
        d.program = program;
        d.fast = errors
            .iter()
            .map(|e| diagnostics::to_lsp(&d.uri, &d.doc.text, &d.doc.lines, e, &[]))
            .collect();
    }
    if !d.fast.is_empty() {
        d.verify_at = None;
    }
}
