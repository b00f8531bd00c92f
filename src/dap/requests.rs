//! Launching, breakpoints, moving and the Debug Console.

use std::path::Path;

use serde_json::{Value, json};

use super::protocol::Args;
use super::session::{Adapter, Launched, Reply, failure_text, stopped};
use crate::debug::{Prober, Proof, Run, Session, Stop};
use crate::record::StepKind;
use crate::record::words::LimitNames;
use crate::verify::Options;

/// The `sift debug` commands the Debug Console runs as they are (full
/// words only: one-letter aliases are variable names too).
const CONSOLE_COMMANDS: &[&str] = &[
    "step", "next", "back", "continue", "run-to", "branches", "branch", "where", "list", "path",
    "heap", "store", "pc", "old", "diff", "why", "save", "restore", "assume", "prove", "member",
    "help",
];

impl Adapter {
    pub(super) fn launch(&mut self, args: &Value) -> Reply {
        if self.launched.is_some() {
            return Reply::err("a program is already launched");
        }
        match self.open(args) {
            Ok((launched, intro)) => {
                self.launched = Some(launched);
                let mut r = Reply::ok(json!({}))
                    .then("output", json!({ "category": "console", "output": intro }))
                    .then("initialized", json!({}));
                if self.configured_early {
                    r.events.extend(self.first_stop());
                }
                r
            }
            Err(e) => Reply::err(e),
        }
    }

    fn open(&self, args: &Value) -> Result<(Launched, String), String> {
        let a = Args(args);
        let program = a
            .str("program")?
            .ok_or("`launch` needs \"program\": the .sift file to debug")?;
        let method = a.str("method")?;
        let infer = a.bool("infer")?.unwrap_or(true);
        let secs = a.num("timeout")?.unwrap_or(10.0);
        if !(secs.is_finite() && secs > 0.0) {
            return Err("\"timeout\" must be a positive number of seconds".to_string());
        }
        let stop_on_entry = a.bool("stopOnEntry")?.unwrap_or(false);
        let file = std::path::absolute(Path::new(program))
            .map_err(|e| format!("cannot read `{program}`: {e}"))?;
        let source = crate::input::read_program(&file)?;
        let opts = Options {
            timeout_ms: (secs * 1000.0).min(u32::MAX as f64) as u32,
            infer,
            limit_names: LimitNames {
                rlimit: None,
                timeout: Some("the launch configuration's \"timeout\"".to_string()),
                member_time: None,
            },
            ..Options::default()
        };
        let (session, intro) = Session::open(program, &source, method, &opts)?;
        Ok((
            Launched {
                session,
                file,
                stop_on_entry,
                breaks: Default::default(),
                stopped: false,
            },
            intro,
        ))
    }

    pub(super) fn configuration_done(&mut self) -> Reply {
        if self.launched.is_none() {
            self.configured_early = true;
            return Reply::ok(json!({}));
        }
        let mut r = Reply::ok(json!({}));
        r.events.extend(self.first_stop());
        r
    }

    /// Where the session stops first: the entry (`stopOnEntry`); with
    /// breakpoints, the first breakpoint or failure from the entry along
    /// the path to the first failure; else that failure, or the entry of a
    /// member that verifies.
    fn first_stop(&mut self) -> Vec<(&'static str, Value)> {
        let l = self.launched();
        if l.stopped {
            return Vec::new();
        }
        l.stopped = true;
        let s = &mut l.session;
        let failing = s.run().tree.is_failure(s.at());
        if failing && l.breaks.is_empty() && !l.stop_on_entry {
            return vec![("stopped", stopped(s, "exception", None))];
        }
        s.back_by(usize::MAX);
        if l.stop_on_entry || l.breaks.is_empty() {
            let note = (!failing).then_some("no failure: the member verifies");
            return vec![("stopped", stopped(s, "entry", note))];
        }
        self.go_on()
    }

    pub(super) fn set_breakpoints(&mut self, args: &Value) -> Reply {
        let Some(l) = &self.launched else {
            return Reply::err("`setBreakpoints`: no program is launched (send `launch` first)");
        };
        let path = args
            .get("source")
            .and_then(|s| s.get("path"))
            .and_then(Value::as_str);
        let ours = path.is_some_and(|p| same_file(Path::new(p), &l.file));
        let Some(list) = args.get("breakpoints").and_then(Value::as_array) else {
            return Reply::err(
                "`setBreakpoints` needs \"breakpoints\": a list of {line, condition?}",
            );
        };
        let mut answers = Vec::new();
        let mut breaks = std::collections::BTreeMap::new();
        for b in list {
            let a = Args(b);
            let line = match a.need_int("line").map(|n| self.our_line(n)) {
                Ok(Some(n)) => n,
                Ok(None) => return Reply::err("a breakpoint's \"line\" is before the first line"),
                Err(e) => return Reply::err(e),
            };
            let cond = match a.str("condition") {
                Ok(c) => c.map(str::trim).filter(|c| !c.is_empty()),
                Err(e) => return Reply::err(e),
            };
            let bad_cond = cond.and_then(|c| crate::debug::clean_expr(c).err());
            let run = l.session.run();
            let (verified, message) = if !ours {
                (false, Some("not the program being debugged".to_string()))
            } else if let Some(e) = bad_cond {
                (false, Some(format!("the condition: {e}")))
            } else if (0..run.tree.nodes.len()).any(|n| run.line(n) == line) {
                (true, None)
            } else {
                let m = &run.member().name;
                (false, Some(format!("no step of `{m}` is on this line")))
            };
            if ours && verified {
                breaks.insert(line, cond.map(str::to_string));
            }
            let mut answer = json!({ "verified": verified, "line": self.client_line(line) });
            if let Some(m) = message {
                answer["message"] = json!(m);
            }
            answers.push(answer);
        }
        if ours {
            self.launched().breaks = breaks;
        }
        Reply::ok(json!({ "breakpoints": answers }))
    }

    pub(super) fn when_stopped(&mut self, cmd: &str, args: &Value) -> Reply {
        match cmd {
            "stackTrace" => self.stack_trace().into(),
            "scopes" => self.scopes(args).into(),
            "variables" => self.variables(args).into(),
            "next" | "stepIn" => self.moved(|s| s.forward_by(1) > 0, "step"),
            "stepBack" => self.moved(|s| s.back_by(1) > 0, "step"),
            "stepOut" => self.step_out(),
            "continue" => {
                let events = self.go_on();
                let mut r = Reply::ok(json!({ "allThreadsContinued": true }));
                r.events = events;
                r
            }
            "reverseContinue" => self.go_back(),
            "pause" => Reply::ok(json!({})),
            "evaluate" => self.evaluate(args),
            "exceptionInfo" => self.exception_info(),
            "branches" => Ok(self.branches()).into(),
            "branch" => match Args(args).need_int("index") {
                Ok(i) => self.branch(i),
                Err(e) => Reply::err(e),
            },
            _ => Reply::err(format!("`{cmd}` is not supported by `sift dap`")),
        }
    }

    /// A move that sends `stopped` with `reason`, or says that it could not
    /// move (and stops where it is).
    fn moved(&mut self, go: impl FnOnce(&mut Session) -> bool, reason: &str) -> Reply {
        let s = &mut self.launched().session;
        let note = (!go(s)).then_some("cannot go further this way: the session stays here");
        Reply::ok(json!({})).then("stopped", stopped(s, reason, note))
    }

    /// `continue`: to the next failure, or a breakpoint whose condition may
    /// hold; past the end of the path to a failure on another branch.
    pub(super) fn go_on(&mut self) -> Vec<(&'static str, Value)> {
        let l = self.launched();
        let prober = l.session.prober();
        let breaks = l.breaks.clone();
        let mut notes = Vec::new();
        let mut hit = |run: &Run, n: usize| breaks_here(&prober, &breaks, run, n, &mut notes);
        let a = l.session.advance(None, &mut hit);
        let mut events: Vec<(&'static str, Value)> = notes
            .into_iter()
            .map(|n| ("output", json!({ "category": "stderr", "output": n })))
            .collect();
        let s = &l.session;
        let body = match a.stop {
            Stop::Breakpoint(_) => stopped(s, "breakpoint", None),
            Stop::End => stopped(s, "step", Some("end of the path: no failure ahead")),
            Stop::Failure if a.elsewhere => stopped(
                s,
                "exception",
                Some("no failure ahead on this path; the next one is on another branch"),
            ),
            Stop::Failure | Stop::Target => stopped(s, "exception", None),
        };
        events.push(("stopped", body));
        events
    }

    /// `reverseContinue`: back to the nearest failure or breakpoint behind,
    /// else to the first step.
    fn go_back(&mut self) -> Reply {
        let l = self.launched();
        let prober = l.session.prober();
        let breaks = l.breaks.clone();
        let mut notes = Vec::new();
        let mut hit = |run: &Run, n: usize| {
            let entering = run
                .tree
                .parent(n)
                .is_none_or(|p| run.line(p) != run.line(n));
            run.tree.is_failure(n)
                || (entering && breaks_here(&prober, &breaks, run, n, &mut notes))
        };
        let moved = l.session.retreat(&mut hit);
        let s = &l.session;
        let at_start = s.run().tree.parent(s.at()).is_none();
        let reason = if at_start { "entry" } else { "breakpoint" };
        let note = (!moved).then_some("at the first step: nothing before it");
        let mut r = Reply::ok(json!({}));
        for n in notes {
            r = r.then("output", json!({ "category": "stderr", "output": n }));
        }
        r.then("stopped", stopped(s, reason, note))
    }

    /// `stepOut`: forward to the first step past the conditional or loop
    /// the current step is in (or to the end of the path), stopping at a
    /// failure on the way.
    fn step_out(&mut self) -> Reply {
        let s = &mut self.launched().session;
        let end = super::frames::enclosing_end(s.run(), s.at());
        let mut moved = false;
        loop {
            if s.forward_by(1) == 0 {
                break;
            }
            moved = true;
            let run = s.run();
            let step = run.tree.step(s.at());
            let out = end.is_some_and(|e| step.span.start >= e)
                || matches!(
                    step.kind,
                    StepKind::LoopAfter { .. } | StepKind::Join { .. }
                );
            if run.tree.is_failure(s.at()) || out {
                break;
            }
        }
        let note = (!moved).then_some("end of the path: no step after this one");
        Reply::ok(json!({})).then("stopped", stopped(s, "step", note))
    }

    fn exception_info(&mut self) -> Reply {
        let s = &self.launched().session;
        let step = s.run().tree.step(s.at());
        let StepKind::Failed { kind, .. } = &step.kind else {
            return Reply::err("no failure at this step");
        };
        let (message, text) = failure_text(s);
        Reply::ok(json!({
            "exceptionId": kind.to_string(),
            "description": text,
            "breakMode": "always",
            "details": { "message": message, "typeName": kind.to_string() },
        }))
    }

    fn branches(&mut self) -> Value {
        let from_0 = usize::from(self.lines_from_0);
        let s = &self.launched().session;
        let run = s.run();
        let Some(split) = s.split() else {
            return json!({ "branches": [] });
        };
        let t = &run.tree;
        let chosen = t.next(split, s.choices());
        let list: Vec<Value> = t.children[split]
            .iter()
            .enumerate()
            .map(|(i, &c)| {
                let fails: std::collections::BTreeSet<usize> = t
                    .failures_below(c)
                    .into_iter()
                    .map(|f| run.line(f))
                    .collect();
                json!({
                    "index": i + 1,
                    "label": t.step(c).kind.to_string(),
                    "line": run.line(c) - from_0,
                    "chosen": Some(c) == chosen,
                    "failsAtLines": fails.into_iter().map(|l| l - from_0).collect::<Vec<_>>(),
                })
            })
            .collect();
        json!({
            "split": crate::debug::render::header(run, split),
            "branches": list,
        })
    }

    fn branch(&mut self, i: i64) -> Reply {
        let s = &mut self.launched().session;
        let Some(split) = s.split() else {
            return Reply::err("the path does not split");
        };
        let n = s.run().tree.children[split].len();
        let ok = usize::try_from(i)
            .ok()
            .filter(|i| (1..=n).contains(i))
            .is_some_and(|i| s.choose(split, i - 1));
        if !ok {
            return Reply::err(format!(
                "there are {n} branches here: \"index\" is from 1 to {n}"
            ));
        }
        Reply::ok(json!({})).then("stopped", stopped(s, "step", None))
    }

    /// The Debug Console runs `sift debug`'s commands (`prove e`, `assume
    /// e`, `branch N`, ...); anything else, and every watch and hover, is
    /// an expression whose symbolic value at the step is the answer.
    fn evaluate(&mut self, args: &Value) -> Reply {
        let a = Args(args);
        let expr = match a.str("expression") {
            Ok(Some(e)) => e.trim().to_string(),
            Ok(None) => return Reply::err("`evaluate` needs \"expression\""),
            Err(e) => return Reply::err(e),
        };
        let repl = matches!(a.str("context"), Ok(Some("repl")));
        let s = &mut self.launched().session;
        let word = expr.split_whitespace().next().unwrap_or("");
        let is_var = s
            .run()
            .tree
            .step(s.at())
            .store
            .iter()
            .any(|(k, _)| *k == expr);
        if repl && !is_var && CONSOLE_COMMANDS.contains(&word) {
            let before = (s.run_rc(), s.at());
            let (text, _) = s.execute(&expr);
            if let Some(e) = text.strip_prefix("error: ") {
                return Reply::err(e.trim_end());
            }
            let moved = !std::rc::Rc::ptr_eq(&before.0, &s.run_rc()) || before.1 != s.at();
            let r = Reply::ok(json!({ "result": text.trim_end(), "variablesReference": 0 }));
            return if moved {
                r.then("stopped", stopped(s, "step", None))
            } else {
                r
            };
        }
        if repl && ["quit", "break", "delete"].contains(&word) {
            return Reply::err(format!(
                "`{word}` is the editor's to do here (its stop button and breakpoints)"
            ));
        }
        match s.prober().value(s.run(), s.at(), &expr) {
            Ok(v) => Reply::ok(json!({ "result": v, "variablesReference": 0 })),
            Err(e) => Reply::err(e),
        }
    }
}

/// Whether two paths name one file (symbolic links and `..` resolved when
/// the file exists).
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => std::path::absolute(a).is_ok_and(|a| a == b),
    }
}

/// Whether the session stops at step `n`, which enters its line: a
/// breakpoint is on the line, and its condition (if any) may hold there,
/// i.e. its negation cannot be proved. A condition that cannot be checked
/// stops, with a note for the console.
fn breaks_here(
    prober: &Prober,
    breaks: &std::collections::BTreeMap<usize, Option<String>>,
    run: &Run,
    n: usize,
    notes: &mut Vec<String>,
) -> bool {
    match breaks.get(&run.line(n)) {
        None => false,
        Some(None) => true,
        Some(Some(cond)) => match prober.prove(run, n, &format!("!({cond})")) {
            Ok(Proof::Holds) => false,
            Ok(_) => true,
            Err(e) => {
                notes.push(format!(
                    "the condition `{cond}` of the breakpoint at line {}: {e}\n",
                    run.line(n)
                ));
                true
            }
        },
    }
}
