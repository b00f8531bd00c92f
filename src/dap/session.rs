//! The adapter's state between requests, and the order requests must come
//! in: `initialize` first, `launch` once, then the rest.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::{Value, json};

use super::protocol::Request;
use crate::debug::Session;
use crate::record::StepKind;

/// What answering a request gives: the response's body (or an error), the
/// events to send after it, and whether the server ends.
pub struct Reply {
    pub body: Result<Value, String>,
    pub events: Vec<(&'static str, Value)>,
    pub end: bool,
}

impl Reply {
    pub fn ok(body: Value) -> Reply {
        Reply {
            body: Ok(body),
            events: Vec::new(),
            end: false,
        }
    }

    pub fn err(message: impl Into<String>) -> Reply {
        Reply {
            body: Err(message.into()),
            events: Vec::new(),
            end: false,
        }
    }

    pub fn then(mut self, event: &'static str, body: Value) -> Reply {
        self.events.push((event, body));
        self
    }
}

impl From<Result<Value, String>> for Reply {
    fn from(body: Result<Value, String>) -> Reply {
        Reply {
            body,
            events: Vec::new(),
            end: false,
        }
    }
}

/// A launched program.
pub struct Launched {
    pub session: Session,
    /// The program file as the client named it, made absolute.
    pub file: PathBuf,
    pub stop_on_entry: bool,
    /// Line breakpoints (lines from 1) and their conditions.
    pub breaks: BTreeMap<usize, Option<String>>,
    /// Whether the session has stopped once (after `configurationDone`).
    pub stopped: bool,
}

#[derive(Default)]
pub struct Adapter {
    pub initialized: bool,
    /// The client counts lines and columns from 0 (`linesStartAt1: false`).
    pub lines_from_0: bool,
    pub columns_from_0: bool,
    pub launched: Option<Launched>,
    /// `configurationDone` came before `launch`.
    pub configured_early: bool,
}

pub const THREAD: i64 = 1;

impl Adapter {
    pub fn handle(&mut self, req: &Request) -> Reply {
        let cmd = req.command.as_str();
        if !self.initialized && cmd != "initialize" {
            return Reply::err(format!(
                "`{cmd}` before `initialize`: the first request must be `initialize`"
            ));
        }
        match cmd {
            "initialize" => self.initialize(&req.arguments),
            "launch" => self.launch(&req.arguments),
            "attach" => Reply::err("`sift dap` launches programs; it cannot attach"),
            "disconnect" | "terminate" => {
                let mut r = Reply::ok(json!({}));
                if cmd == "terminate" {
                    r = r.then("terminated", json!({}));
                }
                r.end = cmd == "disconnect";
                r
            }
            "threads" => Reply::ok(json!({ "threads": self.threads() })),
            "configurationDone" => self.configuration_done(),
            "setBreakpoints" => self.set_breakpoints(&req.arguments),
            "setExceptionBreakpoints" => Reply::ok(json!({ "breakpoints": [] })),
            "setFunctionBreakpoints" => Reply::ok(json!({ "breakpoints": [] })),
            _ => match self.stopped_session() {
                Err(e) => Reply::err(format!("`{cmd}`: {e}")),
                Ok(()) => self.when_stopped(cmd, &req.arguments),
            },
        }
    }

    fn initialize(&mut self, args: &Value) -> Reply {
        if self.initialized {
            return Reply::err("`initialize` came twice");
        }
        self.initialized = true;
        self.lines_from_0 = args.get("linesStartAt1") == Some(&Value::Bool(false));
        self.columns_from_0 = args.get("columnsStartAt1") == Some(&Value::Bool(false));
        Reply::ok(json!({
            "supportsConfigurationDoneRequest": true,
            "supportsStepBack": true,
            "supportsConditionalBreakpoints": true,
            "supportsEvaluateForHovers": true,
            "supportsExceptionInfoRequest": true,
            "supportsTerminateRequest": true,
            "supportsRestartRequest": false,
            "supportsSetVariable": false,
            "exceptionBreakpointFilters": [],
        }))
    }

    fn threads(&self) -> Value {
        match &self.launched {
            Some(l) => json!([{ "id": THREAD, "name": l.session.run().member().name }]),
            None => json!([]),
        }
    }

    /// `Ok` when a program is launched and the session has stopped.
    fn stopped_session(&self) -> Result<(), String> {
        match &self.launched {
            None => Err("no program is launched (send `launch` first)".to_string()),
            Some(l) if !l.stopped => {
                Err("the session has not stopped yet (send `configurationDone`)".to_string())
            }
            Some(_) => Ok(()),
        }
    }

    pub fn launched(&mut self) -> &mut Launched {
        self.launched
            .as_mut()
            .expect("checked by stopped_session before")
    }

    /// A line as the client counts.
    pub fn client_line(&self, line: usize) -> usize {
        line - usize::from(self.lines_from_0)
    }

    pub fn client_column(&self, col: usize) -> usize {
        col - usize::from(self.columns_from_0)
    }

    /// A line from the client, counted from 1.
    pub fn our_line(&self, line: i64) -> Option<usize> {
        let line = line + i64::from(self.lines_from_0);
        usize::try_from(line).ok().filter(|l| *l > 0)
    }
}

/// The `stopped` event for where the session stands: an exception at a
/// failure (with its message and help), else `reason`.
pub fn stopped(session: &Session, reason: &str, note: Option<&str>) -> Value {
    let run = session.run();
    let at = session.at();
    let step = run.tree.step(at);
    if let StepKind::Failed { kind, .. } = &step.kind {
        let (message, text) = failure_text(session);
        let mut text = text;
        if let Some(n) = note {
            text = format!("{n}\n{text}");
        }
        return json!({
            "reason": "exception",
            "description": format!("{kind}: {message}"),
            "text": text,
            "threadId": THREAD,
            "allThreadsStopped": true,
        });
    }
    let mut body = json!({
        "reason": reason,
        "threadId": THREAD,
        "allThreadsStopped": true,
    });
    if let Some(n) = note {
        body["description"] = json!(n);
    }
    body
}

/// The failure at the session's step: its message, and the message with
/// notes and help.
pub fn failure_text(session: &Session) -> (String, String) {
    let run = session.run();
    let step = run.tree.step(session.at());
    let report = run
        .member()
        .errors
        .iter()
        .find(|e| e.diag.span == step.span);
    match report {
        Some(e) => {
            let mut text = e.diag.message.clone();
            for n in &e.diag.notes {
                text.push_str(&format!("\n{n}"));
            }
            if let Some(h) = &e.diag.help {
                text.push_str(&format!("\nhelp: {h}"));
            }
            (e.diag.message.clone(), text)
        }
        None => {
            let m = step.kind.to_string();
            (m.clone(), m)
        }
    }
}
