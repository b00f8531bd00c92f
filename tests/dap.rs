//! `sift dap`: a Debug Adapter Protocol client drives the binary through
//! whole sessions, and the exact messages it gets back are checked
//! (`UPDATE_EXPECT=1 cargo test --test dap` rewrites them; review the
//! diff). Malformed input, requests out of order and a client that goes
//! away get answers or a clean exit, never a crash or a hang.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

use expect_test::{Expect, expect};
use serde_json::{Value, json};

/// The failing program of the sessions (shifted by its two comment lines).
const ACCOUNT: &str = include_str!("dap/account.sift");

/// Long enough for a loaded machine; a hang fails the test instead of
/// blocking it.
const WAIT: Duration = Duration::from_secs(120);

struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    rx: Receiver<Option<Value>>,
    seq: i64,
    dir: PathBuf,
    /// Every message received, as text, in order.
    log: String,
}

fn read_message(r: &mut impl BufRead) -> Option<Value> {
    let mut len = None;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(v) = line.strip_prefix("Content-Length: ") {
            len = v.parse::<usize>().ok();
        }
    }
    let mut body = vec![0; len?];
    r.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

impl Client {
    fn start(program: &str) -> Client {
        static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let run = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("sift-dap-{}-{run}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        std::fs::write(dir.join("account.sift"), program).expect("write program");
        let mut child = Command::new(env!("CARGO_BIN_EXE_sift"))
            .arg("dap")
            .current_dir(&dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("run sift dap");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            loop {
                let m = read_message(&mut r);
                let end = m.is_none();
                if tx.send(m).is_err() || end {
                    return;
                }
            }
        });
        Client {
            stdin: child.stdin.take(),
            child,
            rx,
            seq: 0,
            dir,
            log: String::new(),
        }
    }

    fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write to sift dap");
        stdin.flush().expect("flush");
    }

    fn send(&mut self, command: &str, arguments: Value) -> i64 {
        self.seq += 1;
        let body = json!({ "seq": self.seq, "type": "request", "command": command, "arguments": arguments })
            .to_string();
        self.send_raw(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
        self.seq
    }

    /// The next message, logged without its `seq` and with the temporary
    /// directory and fresh symbols' numbers blanked out.
    fn receive(&mut self) -> Value {
        let m = match self.rx.recv_timeout(WAIT) {
            Ok(Some(m)) => m,
            Ok(None) => panic!("sift dap closed its output; so far:\n{}", self.log),
            Err(RecvTimeoutError::Timeout) => panic!("no answer in time; so far:\n{}", self.log),
            Err(e) => panic!("{e}"),
        };
        let mut shown = m.clone();
        if let Some(o) = shown.as_object_mut() {
            o.remove("seq");
        }
        let text = norm(
            &shown
                .to_string()
                .replace(&self.dir.display().to_string(), "<dir>"),
        );
        self.log.push_str(&text);
        self.log.push('\n');
        m
    }

    /// Sends a request and receives up to its response, then `events`
    /// more messages.
    fn ask(&mut self, command: &str, arguments: Value, events: usize) -> Value {
        let seq = self.send(command, arguments);
        let response = loop {
            let m = self.receive();
            if m["type"] == "response" && m["request_seq"] == seq {
                break m;
            }
        };
        for _ in 0..events {
            self.receive();
        }
        response
    }

    /// Closes the input and waits for the exit status.
    fn finish(mut self) -> (Option<i32>, String) {
        drop(self.stdin.take());
        let deadline = std::time::Instant::now() + WAIT;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                let _ = std::fs::remove_dir_all(&self.dir);
                return (status.code(), self.log);
            }
            assert!(
                std::time::Instant::now() < deadline,
                "sift dap did not exit"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// `x@12` → `x@`: fresh names are numbered in creation order.
fn norm(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(c);
        if c == '@' {
            while chars.peek().is_some_and(|d| d.is_ascii_digit()) {
                chars.next();
            }
        }
    }
    out
}

#[track_caller]
fn same(log: &str, want: Expect) {
    want.assert_eq(log);
}

#[test]
fn a_whole_session_on_a_failing_method() {
    let mut c = Client::start(ACCOUNT);
    c.ask(
        "initialize",
        json!({ "adapterID": "sift", "linesStartAt1": true }),
        0,
    );
    c.ask(
        "launch",
        json!({ "program": "account.sift", "method": "Account.pay" }),
        2,
    );
    let path = c.dir.join("account.sift").display().to_string();
    c.ask(
        "setBreakpoints",
        json!({ "source": { "path": path }, "breakpoints": [
            { "line": 15 }, { "line": 17, "condition": "n > 5" },
            { "line": 19, "condition": "n > 0" }, { "line": 4 } ] }),
        0,
    );
    c.ask("configurationDone", json!({}), 1);
    c.ask("threads", json!({}), 0);
    c.ask("stackTrace", json!({ "threadId": 1 }), 0);
    c.ask("scopes", json!({ "frameId": 1 }), 0);
    for r in 1..=4 {
        c.ask("variables", json!({ "variablesReference": r }), 0);
    }
    c.ask("next", json!({ "threadId": 1 }), 1);
    c.ask("stackTrace", json!({ "threadId": 1 }), 0);
    c.ask("stepBack", json!({ "threadId": 1 }), 1);
    c.ask(
        "evaluate",
        json!({ "expression": "a.balance + 1", "context": "watch" }),
        0,
    );
    c.ask(
        "evaluate",
        json!({ "expression": "before", "context": "hover" }),
        0,
    );
    c.ask(
        "evaluate",
        json!({ "expression": "prove before == a.balance", "context": "repl" }),
        0,
    );
    c.ask(
        "evaluate",
        json!({ "expression": "nope + 1", "context": "watch" }),
        0,
    );
    // Along the path to the failure: the condition at line 19 cannot hold.
    c.ask("continue", json!({ "threadId": 1 }), 1);
    c.ask("exceptionInfo", json!({ "threadId": 1 }), 0);
    c.ask("stackTrace", json!({ "threadId": 1 }), 0);
    c.ask("scopes", json!({ "frameId": 1 }), 0);
    c.ask("variables", json!({ "variablesReference": 1 }), 0);
    c.ask("variables", json!({ "variablesReference": 5 }), 0);
    c.ask("stepBack", json!({ "threadId": 1 }), 1);
    c.ask("stackTrace", json!({ "threadId": 1 }), 0);
    c.ask("reverseContinue", json!({ "threadId": 1 }), 1);
    c.ask("stackTrace", json!({ "threadId": 1 }), 0);
    c.ask("branches", json!({}), 0);
    c.ask("branch", json!({ "index": 1 }), 1);
    // On the other branch the condition at line 17 may hold.
    c.ask("continue", json!({ "threadId": 1 }), 1);
    c.ask("stackTrace", json!({ "threadId": 1 }), 0);
    c.ask("stepOut", json!({ "threadId": 1 }), 1);
    c.ask("stackTrace", json!({ "threadId": 1 }), 0);
    c.ask("continue", json!({ "threadId": 1 }), 1);
    c.ask("stackTrace", json!({ "threadId": 1 }), 0);
    c.ask("disconnect", json!({}), 0);
    let (code, log) = c.finish();
    assert_eq!(code, Some(0));
    same(
        &log,
        expect![[r#"
            {"body":{"exceptionBreakpointFilters":[],"supportsConditionalBreakpoints":true,"supportsConfigurationDoneRequest":true,"supportsEvaluateForHovers":true,"supportsExceptionInfoRequest":true,"supportsRestartRequest":false,"supportsSetVariable":false,"supportsStepBack":true,"supportsTerminateRequest":true},"command":"initialize","request_seq":1,"success":true,"type":"response"}
            {"body":{},"command":"launch","request_seq":2,"success":true,"type":"response"}
            {"body":{"category":"console","output":"debugging Account.pay in account.sift: 1 error; 10 steps in the execution tree\nstopped at the first failure\n[6] line 21: fails: assertion might not hold\n  21 |     assert a.balance > before;\n     |            ^^^^^^^^^^^^^^^^^^\nthe path goes on past the failed assertion, assuming it\n"},"event":"output","type":"event"}
            {"body":{},"event":"initialized","type":"event"}
            {"body":{"breakpoints":[{"line":15,"verified":true},{"line":17,"verified":true},{"line":19,"verified":true},{"line":4,"message":"no step of `Account.pay` is on this line","verified":false}]},"command":"setBreakpoints","request_seq":3,"success":true,"type":"response"}
            {"body":{},"command":"configurationDone","request_seq":4,"success":true,"type":"response"}
            {"body":{"allThreadsStopped":true,"reason":"breakpoint","threadId":1},"event":"stopped","type":"event"}
            {"body":{"threads":[{"id":1,"name":"Account.pay"}]},"command":"threads","request_seq":5,"success":true,"type":"response"}
            {"body":{"stackFrames":[{"column":5,"endColumn":28,"endLine":15,"id":1,"line":15,"name":"Account.pay [3] int before = a.balance;","source":{"name":"account.sift","path":"<dir>/account.sift"}}],"totalFrames":1},"command":"stackTrace","request_seq":6,"success":true,"type":"response"}
            {"body":{"scopes":[{"expensive":false,"name":"Store","namedVariables":3,"presentationHint":"locals","variablesReference":1},{"expensive":false,"name":"Heap","namedVariables":1,"variablesReference":2},{"expensive":false,"name":"Path condition","namedVariables":1,"variablesReference":3},{"expensive":false,"name":"Old heap","variablesReference":4}]},"command":"scopes","request_seq":7,"success":true,"type":"response"}
            {"body":{"variables":[{"name":"a","value":"old(a)","variablesReference":0},{"name":"before","value":"a.balance","variablesReference":0},{"name":"n","value":"old(n)","variablesReference":0}]},"command":"variables","request_seq":8,"success":true,"type":"response"}
            {"body":{"variables":[{"name":"a.balance","value":"before","variablesReference":1000000}]},"command":"variables","request_seq":9,"success":true,"type":"response"}
            {"body":{"variables":[{"name":"1","value":"(null != a)","variablesReference":0}]},"command":"variables","request_seq":10,"success":true,"type":"response"}
            {"body":{"variables":[{"name":"a.balance","value":"old(a.balance)","variablesReference":2000000}]},"command":"variables","request_seq":11,"success":true,"type":"response"}
            {"body":{},"command":"next","request_seq":12,"success":true,"type":"response"}
            {"body":{"allThreadsStopped":true,"reason":"step","threadId":1},"event":"stopped","type":"event"}
            {"body":{"stackFrames":[{"column":9,"endColumn":14,"endLine":16,"id":1,"line":16,"name":"Account.pay [4] if (n > 0): else branch","source":{"name":"account.sift","path":"<dir>/account.sift"}}],"totalFrames":1},"command":"stackTrace","request_seq":13,"success":true,"type":"response"}
            {"body":{},"command":"stepBack","request_seq":14,"success":true,"type":"response"}
            {"body":{"allThreadsStopped":true,"reason":"step","threadId":1},"event":"stopped","type":"event"}
            {"body":{"result":"(before + 1)","variablesReference":0},"command":"evaluate","request_seq":15,"success":true,"type":"response"}
            {"body":{"result":"a.balance","variablesReference":0},"command":"evaluate","request_seq":16,"success":true,"type":"response"}
            {"body":{"result":"`before == a.balance` holds on this path","variablesReference":0},"command":"evaluate","request_seq":17,"success":true,"type":"response"}
            {"body":{"error":{"format":"`nope + 1` does not type-check here: cannot find value `nope` in this scope","id":1,"showUser":true}},"command":"evaluate","message":"`nope + 1` does not type-check here: cannot find value `nope` in this scope","request_seq":18,"success":false,"type":"response"}
            {"body":{"allThreadsContinued":true},"command":"continue","request_seq":19,"success":true,"type":"response"}
            {"body":{"allThreadsStopped":true,"description":"assert.failed: assertion might not hold","reason":"exception","text":"assertion might not hold\n`a.balance > before` might not hold\nhelp: nothing on this path implies `a.balance > before`: the precondition (or a callee's postcondition) must say what it needs","threadId":1},"event":"stopped","type":"event"}
            {"body":{"breakMode":"always","description":"assertion might not hold\n`a.balance > before` might not hold\nhelp: nothing on this path implies `a.balance > before`: the precondition (or a callee's postcondition) must say what it needs","details":{"message":"assertion might not hold","typeName":"assert.failed"},"exceptionId":"assert.failed"},"command":"exceptionInfo","request_seq":20,"success":true,"type":"response"}
            {"body":{"stackFrames":[{"column":12,"endColumn":30,"endLine":21,"id":1,"line":21,"name":"Account.pay [6] fails: assertion might not hold","source":{"name":"account.sift","path":"<dir>/account.sift"}}],"totalFrames":1},"command":"stackTrace","request_seq":21,"success":true,"type":"response"}
            {"body":{"scopes":[{"expensive":false,"name":"Store","namedVariables":3,"presentationHint":"locals","variablesReference":1},{"expensive":false,"name":"Heap","namedVariables":1,"variablesReference":2},{"expensive":false,"name":"Path condition","namedVariables":3,"variablesReference":3},{"expensive":false,"name":"Old heap","variablesReference":4},{"expensive":false,"name":"Counterexample","namedVariables":5,"variablesReference":5}]},"command":"scopes","request_seq":22,"success":true,"type":"response"}
            {"body":{"variables":[{"name":"a","value":"old(a) (model: object#1)","variablesReference":0},{"name":"before","value":"old(a.balance) (model: 0)","variablesReference":0},{"name":"n","value":"old(n) (model: 0)","variablesReference":0}]},"command":"variables","request_seq":23,"success":true,"type":"response"}
            {"body":{"variables":[{"name":"a","value":"object#1","variablesReference":0},{"name":"before","value":"0","variablesReference":0},{"name":"n","value":"0","variablesReference":0},{"name":"a.balance","value":"0","variablesReference":0},{"name":"old(a.balance)","value":"0","variablesReference":0}]},"command":"variables","request_seq":24,"success":true,"type":"response"}
            {"body":{},"command":"stepBack","request_seq":25,"success":true,"type":"response"}
            {"body":{"allThreadsStopped":true,"reason":"step","threadId":1},"event":"stopped","type":"event"}
            {"body":{"stackFrames":[{"column":13,"endColumn":62,"endLine":7,"id":2,"line":7,"name":"Account.deposit (precondition consumed, postcondition produced)","source":{"name":"account.sift","path":"<dir>/account.sift"}},{"column":7,"endColumn":25,"endLine":19,"id":1,"line":19,"name":"Account.pay [5] deposit(a, 0 - n);","source":{"name":"account.sift","path":"<dir>/account.sift"}}],"totalFrames":2},"command":"stackTrace","request_seq":26,"success":true,"type":"response"}
            {"body":{},"command":"reverseContinue","request_seq":27,"success":true,"type":"response"}
            {"body":{"allThreadsStopped":true,"reason":"breakpoint","threadId":1},"event":"stopped","type":"event"}
            {"body":{"stackFrames":[{"column":5,"endColumn":28,"endLine":15,"id":1,"line":15,"name":"Account.pay [3] int before = a.balance;","source":{"name":"account.sift","path":"<dir>/account.sift"}}],"totalFrames":1},"command":"stackTrace","request_seq":28,"success":true,"type":"response"}
            {"body":{"branches":[{"chosen":false,"failsAtLines":[],"index":1,"label":"if (n > 0): then branch","line":16},{"chosen":true,"failsAtLines":[21],"index":2,"label":"if (n > 0): else branch","line":16}],"split":"[3] line 15: int before = a.balance;"},"command":"branches","request_seq":29,"success":true,"type":"response"}
            {"body":{},"command":"branch","request_seq":30,"success":true,"type":"response"}
            {"body":{"allThreadsStopped":true,"reason":"step","threadId":1},"event":"stopped","type":"event"}
            {"body":{"allThreadsContinued":true},"command":"continue","request_seq":31,"success":true,"type":"response"}
            {"body":{"allThreadsStopped":true,"reason":"breakpoint","threadId":1},"event":"stopped","type":"event"}
            {"body":{"stackFrames":[{"column":13,"endColumn":62,"endLine":7,"id":2,"line":7,"name":"Account.deposit (precondition consumed, postcondition produced)","source":{"name":"account.sift","path":"<dir>/account.sift"}},{"column":7,"endColumn":21,"endLine":17,"id":1,"line":17,"name":"Account.pay [5] deposit(a, n);","source":{"name":"account.sift","path":"<dir>/account.sift"}}],"totalFrames":2},"command":"stackTrace","request_seq":32,"success":true,"type":"response"}
            {"body":{},"command":"stepOut","request_seq":33,"success":true,"type":"response"}
            {"body":{"allThreadsStopped":true,"reason":"step","threadId":1},"event":"stopped","type":"event"}
            {"body":{"stackFrames":[{"column":5,"endColumn":31,"endLine":21,"id":1,"line":21,"name":"Account.pay [6] assert a.balance > before;","source":{"name":"account.sift","path":"<dir>/account.sift"}}],"totalFrames":1},"command":"stackTrace","request_seq":34,"success":true,"type":"response"}
            {"body":{"allThreadsContinued":true},"command":"continue","request_seq":35,"success":true,"type":"response"}
            {"body":{"allThreadsStopped":true,"description":"assert.failed: assertion might not hold","reason":"exception","text":"no failure ahead on this path; the next one is on another branch\nassertion might not hold\n`a.balance > before` might not hold\nhelp: nothing on this path implies `a.balance > before`: the precondition (or a callee's postcondition) must say what it needs","threadId":1},"event":"stopped","type":"event"}
            {"body":{"stackFrames":[{"column":12,"endColumn":30,"endLine":21,"id":1,"line":21,"name":"Account.pay [6] fails: assertion might not hold","source":{"name":"account.sift","path":"<dir>/account.sift"}}],"totalFrames":1},"command":"stackTrace","request_seq":36,"success":true,"type":"response"}
            {"body":{},"command":"disconnect","request_seq":37,"success":true,"type":"response"}
        "#]],
    );
}

#[test]
fn heap_chunks_expand_and_the_old_heap_is_the_pre_state() {
    let mut c = Client::start(ACCOUNT);
    c.ask("initialize", json!({}), 0);
    c.ask(
        "launch",
        json!({ "program": "account.sift", "method": "pay", "stopOnEntry": true, "timeout": 20 }),
        2,
    );
    c.ask("configurationDone", json!({}), 1);
    c.ask("variables", json!({ "variablesReference": 4 }), 0);
    c.ask("next", json!({ "threadId": 1 }), 1);
    c.ask("variables", json!({ "variablesReference": 2 }), 0);
    c.ask("variables", json!({ "variablesReference": 1_000_000 }), 0);
    c.ask("variables", json!({ "variablesReference": 4 }), 0);
    c.ask(
        "evaluate",
        json!({ "expression": "branches", "context": "repl" }),
        0,
    );
    c.ask(
        "evaluate",
        json!({ "expression": "assume n > 0", "context": "repl" }),
        1,
    );
    c.ask("stepBack", json!({ "threadId": 1 }), 1);
    c.ask("stepBack", json!({ "threadId": 1 }), 1);
    c.ask("stepBack", json!({ "threadId": 1 }), 1);
    c.ask("disconnect", json!({}), 0);
    let (code, log) = c.finish();
    assert_eq!(code, Some(0));
    same(
        &log,
        expect![[r#"
            {"body":{"exceptionBreakpointFilters":[],"supportsConditionalBreakpoints":true,"supportsConfigurationDoneRequest":true,"supportsEvaluateForHovers":true,"supportsExceptionInfoRequest":true,"supportsRestartRequest":false,"supportsSetVariable":false,"supportsStepBack":true,"supportsTerminateRequest":true},"command":"initialize","request_seq":1,"success":true,"type":"response"}
            {"body":{},"command":"launch","request_seq":2,"success":true,"type":"response"}
            {"body":{"category":"console","output":"debugging Account.pay in account.sift: 1 error; 10 steps in the execution tree\nstopped at the first failure\n[6] line 21: fails: assertion might not hold\n  21 |     assert a.balance > before;\n     |            ^^^^^^^^^^^^^^^^^^\nthe path goes on past the failed assertion, assuming it\n"},"event":"output","type":"event"}
            {"body":{},"event":"initialized","type":"event"}
            {"body":{},"command":"configurationDone","request_seq":3,"success":true,"type":"response"}
            {"body":{"allThreadsStopped":true,"reason":"entry","threadId":1},"event":"stopped","type":"event"}
            {"body":{"variables":[{"name":"(none)","value":"no pre-state on this path yet: `old(...)` reads the heap as the precondition leaves it","variablesReference":0}]},"command":"variables","request_seq":4,"success":true,"type":"response"}
            {"body":{},"command":"next","request_seq":5,"success":true,"type":"response"}
            {"body":{"allThreadsStopped":true,"reason":"step","threadId":1},"event":"stopped","type":"event"}
            {"body":{"variables":[{"name":"a.balance","value":"old(a.balance)","variablesReference":1000000}]},"command":"variables","request_seq":6,"success":true,"type":"response"}
            {"body":{"variables":[{"name":"field","value":"balance","variablesReference":0},{"name":"receiver","value":"a","variablesReference":0},{"name":"value","value":"old(a.balance)","variablesReference":0}]},"command":"variables","request_seq":7,"success":true,"type":"response"}
            {"body":{"variables":[{"name":"a.balance","value":"old(a.balance)","variablesReference":2000000}]},"command":"variables","request_seq":8,"success":true,"type":"response"}
            {"body":{"result":"the path splits after [3] line 15: int before = a.balance;\n  1: line 16: if (n > 0): then branch [pc + (0 < n)]\n* 2: line 16: if (n > 0): else branch [pc + !(0 < n)] — fails at line 21","variablesReference":0},"command":"evaluate","request_seq":9,"success":true,"type":"response"}
            {"body":{"result":"inserted `assume n > 0;` at line 14 and verified again: Account.pay verified (before: 1 error)\n[3] line 14: assume n > 0;\n  14 |   { assume n > 0;\n     |     ^^^^^^^^^^^^^","variablesReference":0},"command":"evaluate","request_seq":10,"success":true,"type":"response"}
            {"body":{"allThreadsStopped":true,"reason":"step","threadId":1},"event":"stopped","type":"event"}
            {"body":{},"command":"stepBack","request_seq":11,"success":true,"type":"response"}
            {"body":{"allThreadsStopped":true,"reason":"step","threadId":1},"event":"stopped","type":"event"}
            {"body":{},"command":"stepBack","request_seq":12,"success":true,"type":"response"}
            {"body":{"allThreadsStopped":true,"reason":"step","threadId":1},"event":"stopped","type":"event"}
            {"body":{},"command":"stepBack","request_seq":13,"success":true,"type":"response"}
            {"body":{"allThreadsStopped":true,"description":"cannot go further this way: the session stays here","reason":"step","threadId":1},"event":"stopped","type":"event"}
            {"body":{},"command":"disconnect","request_seq":14,"success":true,"type":"response"}
        "#]],
    );
}

const CELL: &str = "\
class Cell {
  int x;
  predicate valid() { return acc(x); }
  static void bump(Cell c)
    requires c.valid();
    ensures c.valid();
  {
    open c.valid();
    c.x = c.x + 1;
    close c.valid();
    assert c.x > 0;
  }
}
";

#[test]
fn predicate_instances_in_the_heap_and_values_of_expressions() {
    let mut c = Client::start(CELL);
    c.ask("initialize", json!({}), 0);
    c.ask(
        "launch",
        json!({ "program": "account.sift", "stopOnEntry": true }),
        2,
    );
    c.ask("configurationDone", json!({}), 1);
    c.ask("next", json!({ "threadId": 1 }), 1);
    c.ask("stackTrace", json!({ "threadId": 1 }), 0);
    c.ask("variables", json!({ "variablesReference": 2 }), 0);
    c.ask("variables", json!({ "variablesReference": 1_000_000 }), 0);
    c.ask(
        "evaluate",
        json!({ "expression": "c.x", "context": "watch" }),
        0,
    );
    c.ask("next", json!({ "threadId": 1 }), 1);
    c.ask("variables", json!({ "variablesReference": 2 }), 0);
    c.ask(
        "evaluate",
        json!({ "expression": "c.x + 1", "context": "watch" }),
        0,
    );
    c.ask(
        "evaluate",
        json!({ "expression": "c.x > 0", "context": "hover" }),
        0,
    );
    c.ask(
        "evaluate",
        json!({ "expression": "c", "context": "repl" }),
        0,
    );
    c.ask(
        "evaluate",
        json!({ "expression": "prove c.x > 0", "context": "repl" }),
        0,
    );
    c.ask("continue", json!({ "threadId": 1 }), 1);
    c.ask("stackTrace", json!({ "threadId": 1 }), 0);
    c.ask("disconnect", json!({}), 0);
    let (code, log) = c.finish();
    assert_eq!(code, Some(0));
    same(
        &log,
        expect![[r#"
        {"body":{"exceptionBreakpointFilters":[],"supportsConditionalBreakpoints":true,"supportsConfigurationDoneRequest":true,"supportsEvaluateForHovers":true,"supportsExceptionInfoRequest":true,"supportsRestartRequest":false,"supportsSetVariable":false,"supportsStepBack":true,"supportsTerminateRequest":true},"command":"initialize","request_seq":1,"success":true,"type":"response"}
        {"body":{},"command":"launch","request_seq":2,"success":true,"type":"response"}
        {"body":{"category":"console","output":"debugging Cell.bump in account.sift: 1 error; 8 steps in the execution tree\nstopped at the first failure\n[7] line 11: fails: assertion might not hold\n  11 |     assert c.x > 0;\n     |            ^^^^^^^\n"},"event":"output","type":"event"}
        {"body":{},"event":"initialized","type":"event"}
        {"body":{},"command":"configurationDone","request_seq":3,"success":true,"type":"response"}
        {"body":{"allThreadsStopped":true,"reason":"entry","threadId":1},"event":"stopped","type":"event"}
        {"body":{},"command":"next","request_seq":4,"success":true,"type":"response"}
        {"body":{"allThreadsStopped":true,"reason":"step","threadId":1},"event":"stopped","type":"event"}
        {"body":{"stackFrames":[{"column":14,"endColumn":23,"endLine":5,"id":1,"line":5,"name":"Cell.bump [2] precondition produced","source":{"name":"account.sift","path":"<dir>/account.sift"}}],"totalFrames":1},"command":"stackTrace","request_seq":5,"success":true,"type":"response"}
        {"body":{"variables":[{"name":"c.valid()","value":"held","variablesReference":1000000}]},"command":"variables","request_seq":6,"success":true,"type":"response"}
        {"body":{"variables":[{"name":"predicate","value":"valid","variablesReference":0},{"name":"receiver","value":"c","variablesReference":0},{"name":"arguments","value":"","variablesReference":0}]},"command":"variables","request_seq":7,"success":true,"type":"response"}
        {"body":{"result":"c.x","variablesReference":0},"command":"evaluate","request_seq":8,"success":true,"type":"response"}
        {"body":{},"command":"next","request_seq":9,"success":true,"type":"response"}
        {"body":{"allThreadsStopped":true,"reason":"step","threadId":1},"event":"stopped","type":"event"}
        {"body":{"variables":[{"name":"c.x","value":"old(c.x)","variablesReference":1000000}]},"command":"variables","request_seq":10,"success":true,"type":"response"}
        {"body":{"result":"(c.x + 1)","variablesReference":0},"command":"evaluate","request_seq":11,"success":true,"type":"response"}
        {"body":{"result":"(0 < c.x)","variablesReference":0},"command":"evaluate","request_seq":12,"success":true,"type":"response"}
        {"body":{"result":"old(c)","variablesReference":0},"command":"evaluate","request_seq":13,"success":true,"type":"response"}
        {"body":{"result":"`c.x > 0` might not hold on this path (assertion might not hold)\n  counterexample: c = object#1, c.x = 0","variablesReference":0},"command":"evaluate","request_seq":14,"success":true,"type":"response"}
        {"body":{"allThreadsContinued":true},"command":"continue","request_seq":15,"success":true,"type":"response"}
        {"body":{"allThreadsStopped":true,"description":"assert.failed: assertion might not hold","reason":"exception","text":"assertion might not hold\n`c.x > 0` might not hold\nhelp: nothing on this path implies `c.x > 0`: the precondition (or a callee's postcondition) must say what it needs","threadId":1},"event":"stopped","type":"event"}
        {"body":{"stackFrames":[{"column":12,"endColumn":19,"endLine":11,"id":1,"line":11,"name":"Cell.bump [7] fails: assertion might not hold","source":{"name":"account.sift","path":"<dir>/account.sift"}}],"totalFrames":1},"command":"stackTrace","request_seq":16,"success":true,"type":"response"}
        {"body":{},"command":"disconnect","request_seq":17,"success":true,"type":"response"}
    "#]],
    );
}

const VERIFIED: &str = "\
class Box {
  int f;
  static void fill(Box b)
    requires acc(b.f);
    ensures acc(b.f) && b.f == 7;
  {
    b.f = 3;
    b.f = b.f + 4;
  }
}
";

#[test]
fn a_verified_member_runs_to_its_breakpoint_and_to_the_end() {
    let mut c = Client::start(VERIFIED);
    c.ask(
        "initialize",
        json!({ "linesStartAt1": false, "columnsStartAt1": false }),
        0,
    );
    std::fs::create_dir_all(c.dir.join("sub")).unwrap();
    c.ask("launch", json!({ "program": "./sub/../account.sift" }), 2);
    // Lines from 0: the client's line 7 is the second write.
    let path = c.dir.join("sub/../account.sift").display().to_string();
    c.ask(
        "setBreakpoints",
        json!({ "source": { "path": path }, "breakpoints": [{ "line": 7 }] }),
        0,
    );
    c.ask("configurationDone", json!({}), 1);
    c.ask("stackTrace", json!({ "threadId": 1 }), 0);
    c.ask("variables", json!({ "variablesReference": 2 }), 0);
    c.ask("continue", json!({ "threadId": 1 }), 1);
    c.ask("stackTrace", json!({ "threadId": 1 }), 0);
    c.ask("next", json!({ "threadId": 1 }), 1);
    c.ask("reverseContinue", json!({ "threadId": 1 }), 1);
    c.ask("stackTrace", json!({ "threadId": 1 }), 0);
    c.ask("disconnect", json!({}), 0);
    let (code, log) = c.finish();
    assert_eq!(code, Some(0));
    same(
        &log,
        expect![[r#"
        {"body":{"exceptionBreakpointFilters":[],"supportsConditionalBreakpoints":true,"supportsConfigurationDoneRequest":true,"supportsEvaluateForHovers":true,"supportsExceptionInfoRequest":true,"supportsRestartRequest":false,"supportsSetVariable":false,"supportsStepBack":true,"supportsTerminateRequest":true},"command":"initialize","request_seq":1,"success":true,"type":"response"}
        {"body":{},"command":"launch","request_seq":2,"success":true,"type":"response"}
        {"body":{"category":"console","output":"debugging Box.fill in ./sub/../account.sift: verified; 4 steps in the execution tree\nstopped at the start\n[1] line 3: method entry\n   3 |   static void fill(Box b)\n     |               ^^^^\n"},"event":"output","type":"event"}
        {"body":{},"event":"initialized","type":"event"}
        {"body":{"breakpoints":[{"line":7,"verified":true}]},"command":"setBreakpoints","request_seq":3,"success":true,"type":"response"}
        {"body":{},"command":"configurationDone","request_seq":4,"success":true,"type":"response"}
        {"body":{"allThreadsStopped":true,"reason":"breakpoint","threadId":1},"event":"stopped","type":"event"}
        {"body":{"stackFrames":[{"column":4,"endColumn":18,"endLine":7,"id":1,"line":7,"name":"Box.fill [4] b.f = b.f + 4;","source":{"name":"account.sift","path":"<dir>/sub/../account.sift"}}],"totalFrames":1},"command":"stackTrace","request_seq":5,"success":true,"type":"response"}
        {"body":{"variables":[{"name":"b.f","value":"7","variablesReference":1000000}]},"command":"variables","request_seq":6,"success":true,"type":"response"}
        {"body":{"allThreadsContinued":true},"command":"continue","request_seq":7,"success":true,"type":"response"}
        {"body":{"allThreadsStopped":true,"description":"end of the path: no failure ahead","reason":"step","threadId":1},"event":"stopped","type":"event"}
        {"body":{"stackFrames":[{"column":4,"endColumn":18,"endLine":7,"id":1,"line":7,"name":"Box.fill [4] b.f = b.f + 4;","source":{"name":"account.sift","path":"<dir>/sub/../account.sift"}}],"totalFrames":1},"command":"stackTrace","request_seq":8,"success":true,"type":"response"}
        {"body":{},"command":"next","request_seq":9,"success":true,"type":"response"}
        {"body":{"allThreadsStopped":true,"description":"cannot go further this way: the session stays here","reason":"step","threadId":1},"event":"stopped","type":"event"}
        {"body":{},"command":"reverseContinue","request_seq":10,"success":true,"type":"response"}
        {"body":{"allThreadsStopped":true,"reason":"entry","threadId":1},"event":"stopped","type":"event"}
        {"body":{"stackFrames":[{"column":14,"endColumn":18,"endLine":2,"id":1,"line":2,"name":"Box.fill [1] method entry","source":{"name":"account.sift","path":"<dir>/sub/../account.sift"}}],"totalFrames":1},"command":"stackTrace","request_seq":11,"success":true,"type":"response"}
        {"body":{},"command":"disconnect","request_seq":12,"success":true,"type":"response"}
    "#]],
    );
}

#[test]
fn malformed_messages_and_requests_out_of_order_get_errors() {
    let mut c = Client::start(ACCOUNT);
    c.ask("stackTrace", json!({ "threadId": 1 }), 0);
    c.send_raw(b"Content-Length: 9\r\n\r\n{not json");
    c.receive();
    c.send_raw(b"no header here\r\n\r\n");
    c.receive();
    c.send_raw(b"Content-Length: 2\r\n\r\n[]");
    c.receive();
    let body = r#"{"seq":70,"type":"request","command":"x","arguments":5}"#;
    c.send_raw(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
    c.receive();
    c.ask("initialize", json!({}), 0);
    c.ask("initialize", json!({}), 0);
    c.ask("next", json!({ "threadId": 1 }), 0);
    c.ask("threads", json!({}), 0);
    c.ask("setBreakpoints", json!({ "breakpoints": [] }), 0);
    c.ask("launch", json!({}), 0);
    c.ask("launch", json!({ "program": "missing.sift" }), 0);
    c.ask(
        "launch",
        json!({ "program": "account.sift", "timeout": "soon" }),
        0,
    );
    c.ask(
        "launch",
        json!({ "program": "account.sift", "method": "Account.nope" }),
        0,
    );
    c.ask("launch", json!({ "program": "account.sift" }), 2);
    c.ask("stackTrace", json!({ "threadId": 1 }), 0);
    c.ask("configurationDone", json!({}), 1);
    c.ask("launch", json!({ "program": "account.sift" }), 0);
    let path = c.dir.join("account.sift").display().to_string();
    c.ask(
        "setBreakpoints",
        json!({ "source": { "path": path }, "breakpoints": [
            { "line": 15, "condition": "n > 0; n = 1" }, { "line": 17, "condition": "m > 0" } ] }),
        0,
    );
    c.ask(
        "setBreakpoints",
        json!({ "source": { "path": path }, "breakpoints": [{ "line": "x" }] }),
        0,
    );
    c.ask(
        "setBreakpoints",
        json!({ "source": { "path": "other.sift" }, "breakpoints": [{ "line": 15 }] }),
        0,
    );
    c.ask(
        "setBreakpoints",
        json!({ "source": { "path": path }, "breakpoints": [{ "line": 19, "condition": "m > 0" }] }),
        0,
    );
    c.ask("reverseContinue", json!({ "threadId": 1 }), 2);
    c.ask("stackTrace", json!({ "threadId": 1 }), 0);
    c.ask("continue", json!({ "threadId": 1 }), 1);
    c.ask(
        "evaluate",
        json!({ "expression": "x > 0; y", "context": "watch" }),
        0,
    );
    c.ask("variables", json!({ "variablesReference": 99 }), 0);
    c.ask("variables", json!({}), 0);
    c.ask("branch", json!({ "index": 7 }), 0);
    c.ask(
        "evaluate",
        json!({ "expression": "quit", "context": "repl" }),
        0,
    );
    c.ask(
        "evaluate",
        json!({ "expression": "branch 9", "context": "repl" }),
        0,
    );
    c.ask("frobnicate", json!({}), 0);
    c.ask("disconnect", json!({}), 0);
    let (code, log) = c.finish();
    assert_eq!(code, Some(0));
    same(
        &log,
        expect![[r#"
            {"body":{"error":{"format":"`stackTrace` before `initialize`: the first request must be `initialize`","id":1,"showUser":true}},"command":"stackTrace","message":"`stackTrace` before `initialize`: the first request must be `initialize`","request_seq":1,"success":false,"type":"response"}
            {"body":{"category":"stderr","output":"sift dap: ignored a malformed message: not a JSON message: key must be a string at line 1 column 2\n"},"event":"output","type":"event"}
            {"body":{"category":"stderr","output":"sift dap: ignored a malformed message: malformed header line \"no header here\"\n"},"event":"output","type":"event"}
            {"body":{"category":"stderr","output":"sift dap: ignored a malformed message: a message must be a JSON object\n"},"event":"output","type":"event"}
            {"body":{"error":{"format":"\"arguments\" must be an object","id":1,"showUser":true}},"command":"x","message":"\"arguments\" must be an object","request_seq":70,"success":false,"type":"response"}
            {"body":{"exceptionBreakpointFilters":[],"supportsConditionalBreakpoints":true,"supportsConfigurationDoneRequest":true,"supportsEvaluateForHovers":true,"supportsExceptionInfoRequest":true,"supportsRestartRequest":false,"supportsSetVariable":false,"supportsStepBack":true,"supportsTerminateRequest":true},"command":"initialize","request_seq":2,"success":true,"type":"response"}
            {"body":{"error":{"format":"`initialize` came twice","id":1,"showUser":true}},"command":"initialize","message":"`initialize` came twice","request_seq":3,"success":false,"type":"response"}
            {"body":{"error":{"format":"`next`: no program is launched (send `launch` first)","id":1,"showUser":true}},"command":"next","message":"`next`: no program is launched (send `launch` first)","request_seq":4,"success":false,"type":"response"}
            {"body":{"threads":[]},"command":"threads","request_seq":5,"success":true,"type":"response"}
            {"body":{"error":{"format":"`setBreakpoints`: no program is launched (send `launch` first)","id":1,"showUser":true}},"command":"setBreakpoints","message":"`setBreakpoints`: no program is launched (send `launch` first)","request_seq":6,"success":false,"type":"response"}
            {"body":{"error":{"format":"`launch` needs \"program\": the .sift file to debug","id":1,"showUser":true}},"command":"launch","message":"`launch` needs \"program\": the .sift file to debug","request_seq":7,"success":false,"type":"response"}
            {"body":{"error":{"format":"cannot read `<dir>/missing.sift`: No such file or directory (os error 2)","id":1,"showUser":true}},"command":"launch","message":"cannot read `<dir>/missing.sift`: No such file or directory (os error 2)","request_seq":8,"success":false,"type":"response"}
            {"body":{"error":{"format":"\"timeout\" must be a number","id":1,"showUser":true}},"command":"launch","message":"\"timeout\" must be a number","request_seq":9,"success":false,"type":"response"}
            {"body":{"error":{"format":"`Account.nope` is not a member of `account.sift`; its members: Account.deposit, Account.pay","id":1,"showUser":true}},"command":"launch","message":"`Account.nope` is not a member of `account.sift`; its members: Account.deposit, Account.pay","request_seq":10,"success":false,"type":"response"}
            {"body":{},"command":"launch","request_seq":11,"success":true,"type":"response"}
            {"body":{"category":"console","output":"debugging Account.pay in account.sift: 1 error; 10 steps in the execution tree\nstopped at the first failure\n[6] line 21: fails: assertion might not hold\n  21 |     assert a.balance > before;\n     |            ^^^^^^^^^^^^^^^^^^\nthe path goes on past the failed assertion, assuming it\n"},"event":"output","type":"event"}
            {"body":{},"event":"initialized","type":"event"}
            {"body":{"error":{"format":"`stackTrace`: the session has not stopped yet (send `configurationDone`)","id":1,"showUser":true}},"command":"stackTrace","message":"`stackTrace`: the session has not stopped yet (send `configurationDone`)","request_seq":12,"success":false,"type":"response"}
            {"body":{},"command":"configurationDone","request_seq":13,"success":true,"type":"response"}
            {"body":{"allThreadsStopped":true,"description":"assert.failed: assertion might not hold","reason":"exception","text":"assertion might not hold\n`a.balance > before` might not hold\nhelp: nothing on this path implies `a.balance > before`: the precondition (or a callee's postcondition) must say what it needs","threadId":1},"event":"stopped","type":"event"}
            {"body":{"error":{"format":"a program is already launched","id":1,"showUser":true}},"command":"launch","message":"a program is already launched","request_seq":14,"success":false,"type":"response"}
            {"body":{"breakpoints":[{"line":15,"message":"the condition: expected a single expression (no `;`, braces or comments)","verified":false},{"line":17,"verified":true}]},"command":"setBreakpoints","request_seq":15,"success":true,"type":"response"}
            {"body":{"error":{"format":"\"line\" must be a number","id":1,"showUser":true}},"command":"setBreakpoints","message":"\"line\" must be a number","request_seq":16,"success":false,"type":"response"}
            {"body":{"breakpoints":[{"line":15,"message":"not the program being debugged","verified":false}]},"command":"setBreakpoints","request_seq":17,"success":true,"type":"response"}
            {"body":{"breakpoints":[{"line":19,"verified":true}]},"command":"setBreakpoints","request_seq":18,"success":true,"type":"response"}
            {"body":{},"command":"reverseContinue","request_seq":19,"success":true,"type":"response"}
            {"body":{"category":"stderr","output":"the condition `m > 0` of the breakpoint at line 19: `assert !(m > 0);` does not type-check here: cannot find value `m` in this scope\n"},"event":"output","type":"event"}
            {"body":{"allThreadsStopped":true,"reason":"breakpoint","threadId":1},"event":"stopped","type":"event"}
            {"body":{"stackFrames":[{"column":13,"endColumn":62,"endLine":7,"id":2,"line":7,"name":"Account.deposit (precondition consumed, postcondition produced)","source":{"name":"account.sift","path":"<dir>/account.sift"}},{"column":7,"endColumn":25,"endLine":19,"id":1,"line":19,"name":"Account.pay [5] deposit(a, 0 - n);","source":{"name":"account.sift","path":"<dir>/account.sift"}}],"totalFrames":2},"command":"stackTrace","request_seq":20,"success":true,"type":"response"}
            {"body":{"allThreadsContinued":true},"command":"continue","request_seq":21,"success":true,"type":"response"}
            {"body":{"allThreadsStopped":true,"description":"assert.failed: assertion might not hold","reason":"exception","text":"assertion might not hold\n`a.balance > before` might not hold\nhelp: nothing on this path implies `a.balance > before`: the precondition (or a callee's postcondition) must say what it needs","threadId":1},"event":"stopped","type":"event"}
            {"body":{"error":{"format":"expected a single expression (no `;`, braces or comments)","id":1,"showUser":true}},"command":"evaluate","message":"expected a single expression (no `;`, braces or comments)","request_seq":22,"success":false,"type":"response"}
            {"body":{"error":{"format":"no variables under reference 99","id":1,"showUser":true}},"command":"variables","message":"no variables under reference 99","request_seq":23,"success":false,"type":"response"}
            {"body":{"error":{"format":"the request needs \"variablesReference\"","id":1,"showUser":true}},"command":"variables","message":"the request needs \"variablesReference\"","request_seq":24,"success":false,"type":"response"}
            {"body":{"error":{"format":"there are 2 branches here: \"index\" is from 1 to 2","id":1,"showUser":true}},"command":"branch","message":"there are 2 branches here: \"index\" is from 1 to 2","request_seq":25,"success":false,"type":"response"}
            {"body":{"error":{"format":"`quit` is the editor's to do here (its stop button and breakpoints)","id":1,"showUser":true}},"command":"evaluate","message":"`quit` is the editor's to do here (its stop button and breakpoints)","request_seq":26,"success":false,"type":"response"}
            {"body":{"error":{"format":"the split after [3] line 15: int before = a.balance; has 2 branches","id":1,"showUser":true}},"command":"evaluate","message":"the split after [3] line 15: int before = a.balance; has 2 branches","request_seq":27,"success":false,"type":"response"}
            {"body":{"error":{"format":"`frobnicate` is not supported by `sift dap`","id":1,"showUser":true}},"command":"frobnicate","message":"`frobnicate` is not supported by `sift dap`","request_seq":28,"success":false,"type":"response"}
            {"body":{},"command":"disconnect","request_seq":29,"success":true,"type":"response"}
        "#]],
    );
}

#[test]
fn a_client_that_goes_away_ends_the_server() {
    // In the middle of a frame, after a launch.
    let mut c = Client::start(ACCOUNT);
    c.ask("initialize", json!({}), 0);
    c.ask("launch", json!({ "program": "account.sift" }), 2);
    c.send_raw(b"Content-Length: 80\r\n\r\n{\"seq\":");
    let (code, _) = c.finish();
    assert_eq!(code, Some(0));
    // In the middle of a header, before anything else.
    let mut c = Client::start(ACCOUNT);
    c.send_raw(b"Content-Len");
    let (code, log) = c.finish();
    assert_eq!((code, log.as_str()), (Some(0), ""));
}
