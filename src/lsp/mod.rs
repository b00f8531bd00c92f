//! `sift lsp`: a language server on stdin/stdout.
//!
//! One thread reads frames ([`transport`]), the main loop below owns every
//! document and is the only writer of stdout, and verifications run on
//! background threads ([`worker`]) that report back through the same event
//! channel; the loop never waits for Z3.
//!
//! On every change the document is parsed and checked at once and its
//! parse and type errors are published. Full verification (with every
//! symbolic step kept, for hovers) runs on open, on save and after a pause
//! in typing. One verification per document runs at a time; a result for a
//! text that has changed since is dropped, and the latest text is verified
//! next. Diagnostics and code lenses of the last verification stay, moved
//! through later edits, until the next one completes.

mod definition;
mod diagnostics;
mod documents;
mod hover;
mod requests;
mod transport;
mod workdone;
mod worker;

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::time::{Duration, Instant};

use lsp_server::{ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::{Diagnostic as LspDiagnostic, PublishDiagnosticsParams, Uri};
use serde_json::Value;

use crate::cache::Cache;
use crate::syntax::ast::Program;
use crate::verify::{FileReport, Options};
use diagnostics::Lens;
use documents::Document;
use transport::Output;
use workdone::WorkDone;

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
    /// The generation being verified.
    running: Option<u64>,
    /// Verify again once the running verification ends.
    rerun: bool,
    /// Results of members, reused while their key is unchanged (`None`
    /// while a verification has it).
    cache: Option<Cache>,
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
            let next = self.docs.values().filter_map(|d| d.verify_at).min();
            let event = match next {
                Some(at) => rx.recv_timeout(at.saturating_duration_since(Instant::now())),
                None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
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
            if let Err(e) = self.start_due() {
                return Err(format!("cannot write to the client: {e}"));
            }
        }
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
                self.out.send(Response::new_ok(r.id, Value::Null))?;
            }
            (Phase::Running, _) => {
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
                        if let Some(d) = self.docs.get_mut(p.text_document.uri.as_str())
                            && d.fast.is_empty()
                        {
                            d.verify_at = Some(Instant::now());
                        }
                    }
                    Err(e) => log(format!("bad didSave: {e}")),
                }
            }
            "textDocument/didClose" => {
                match serde_json::from_value::<lsp_types::DidCloseTextDocumentParams>(params) {
                    Ok(p) => {
                        if let Some(d) = self.docs.remove(p.text_document.uri.as_str()) {
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
        // Reopening drops what was known. A verification still running for
        // the old text ends with a generation that is ignored.
        let running = self.docs.remove(&key).and_then(|d| d.running);
        let mut doc = Document::new(item.text, item.version);
        if let Some(g) = running {
            doc.generation = g + 1;
        }
        let d = self.docs.entry(key.clone()).or_insert(DocState {
            uri: item.uri,
            doc,
            program: None,
            fast: Vec::new(),
            verified: Vec::new(),
            lenses: Vec::new(),
            lens_generation: 0,
            report: None,
            verify_at: None,
            running,
            rerun: false,
            cache: Some(Cache::in_memory()),
        });
        analyse(d);
        if d.fast.is_empty() {
            d.verify_at = Some(Instant::now());
        }
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
        analyse(d);
        d.verify_at = if d.fast.is_empty() {
            Some(Instant::now() + debounce)
        } else {
            None
        };
        self.publish(&key)
    }

    /// Publishes the diagnostics of a document: parse and type errors of
    /// the current text, then those of the last verification.
    fn publish(&mut self, key: &str) -> std::io::Result<()> {
        let Some(d) = self.docs.get(key) else {
            return Ok(());
        };
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

    /// Starts the verifications whose time has come.
    fn start_due(&mut self) -> std::io::Result<()> {
        let now = Instant::now();
        let opts = Options {
            timeout_ms: self.config.timeout_ms,
            jobs: self.config.jobs,
            smt_log: false,
            keep_steps: true,
            infer: self.config.infer,
            ..Options::default()
        };
        for (key, d) in self.docs.iter_mut() {
            if d.verify_at.is_none_or(|at| at > now) {
                continue;
            }
            d.verify_at = None;
            if d.running.is_some() {
                d.rerun = true;
                continue;
            }
            let mut opts = opts.clone();
            opts.keep_steps = d
                .program
                .as_ref()
                .is_some_and(|p| worker::step_cost(p) <= worker::STEP_BUDGET);
            let job = worker::Job {
                key: key.clone(),
                generation: d.doc.generation,
                text: d.doc.text.clone(),
                opts,
                cache: d.cache.take().unwrap_or_else(Cache::in_memory),
            };
            if worker::spawn(job, self.tx.clone()) {
                d.running = Some(d.doc.generation);
                let title = format!("Verifying {}", file_name(d.uri.as_str()));
                self.work_done
                    .started(&mut self.out, key, d.doc.generation, title)?;
            }
        }
        Ok(())
    }

    fn verified(&mut self, done: worker::Done) -> std::io::Result<Flow> {
        let (key, generation) = (done.key.clone(), done.generation);
        let flow = self.take_result(done)?;
        // After the diagnostics: a client that sees the end can rely on them.
        self.work_done.finished(&mut self.out, &key, generation)?;
        Ok(flow)
    }

    fn take_result(&mut self, mut done: worker::Done) -> std::io::Result<Flow> {
        let Some(d) = self.docs.get_mut(&done.key) else {
            return Ok(Flow::Continue);
        };
        // Entries are keyed by content, so even a stale run's are right.
        if let Some(cache) = done.cache.take() {
            d.cache = Some(cache);
        }
        if d.running != Some(done.generation) {
            // From a document closed and reopened since.
            return Ok(Flow::Continue);
        }
        d.running = None;
        if std::mem::take(&mut d.rerun) && d.fast.is_empty() {
            d.verify_at = Some(Instant::now());
        }
        if done.generation != d.doc.generation {
            // The text changed meanwhile: the result is stale.
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

/// Parses and checks the current text of a document.
fn analyse(d: &mut DocState) {
    let (program, errors) = worker::front(&d.doc.text);
    d.program = program;
    d.fast = errors
        .iter()
        .map(|e| diagnostics::to_lsp(&d.uri, &d.doc.text, &d.doc.lines, e, &[]))
        .collect();
}
