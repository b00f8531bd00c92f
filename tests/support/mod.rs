//! A client for `sift lsp` over its real stdio, shared by the language
//! server's tests: JSON-RPC with Content-Length framing, every wait bounded
//! so that a hang fails the test instead of blocking.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// Generous: verification runs Z3 in a debug build, on a loaded machine.
pub const VERIFY_WAIT: Duration = Duration::from_secs(120);
pub const REPLY_WAIT: Duration = Duration::from_secs(20);

pub struct Client {
    pub child: Child,
    pub stdin: Option<ChildStdin>,
    pub rx: Receiver<Value>,
    /// Messages received but not yet asked for.
    pub pending: Vec<Value>,
    pub next_id: i64,
}

pub fn read_frame(r: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':')?;
        if name.eq_ignore_ascii_case("content-length") {
            length = value.trim().parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    r.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

impl Client {
    pub fn start() -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_sift"))
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("cannot start `sift lsp`");
        let stdout = child.stdout.take().expect("stdout is piped");
        let stdin = child.stdin.take();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            while let Some(v) = read_frame(&mut r) {
                if tx.send(v).is_err() {
                    break;
                }
            }
        });
        Client {
            child,
            stdin,
            rx,
            pending: Vec::new(),
            next_id: 0,
        }
    }

    /// Starts a server and initializes it (solver queries time out after
    /// two seconds, changes are verified after 200 ms).
    pub fn initialized() -> Client {
        Client::initialized_with(json!({ "timeoutMs": 2000, "debounceMs": 200 }))
    }

    pub fn initialized_with(options: Value) -> Client {
        Client::initialized_with_capabilities(options, json!({}))
    }

    pub fn initialized_with_capabilities(options: Value, capabilities: Value) -> Client {
        let mut c = Client::start();
        let init = c.request(
            "initialize",
            json!({
                "processId": null,
                "rootUri": null,
                "capabilities": capabilities,
                "initializationOptions": options,
            }),
        );
        let caps = &init["result"]["capabilities"];
        assert_eq!(
            caps["textDocumentSync"]["change"], 2,
            "incremental sync: {init}"
        );
        assert_eq!(caps["hoverProvider"], true);
        assert_eq!(caps["definitionProvider"], true);
        c.notify("initialized", json!({}));
        c
    }

    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(bytes).expect("write to the server");
        stdin.flush().expect("flush");
    }

    pub fn send(&mut self, v: &Value) {
        let body = v.to_string();
        self.send_raw(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    pub fn send_request(&mut self, method: &str, params: Value) -> i64 {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        id
    }

    /// Sends a request and waits for its response.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send_request(method, params);
        self.wait_for(REPLY_WAIT, &format!("the reply to `{method}`"), |m| {
            m["id"] == id && m.get("method").is_none()
        })
    }

    /// The first message (received or pending) satisfying `pred`.
    pub fn wait_for(
        &mut self,
        limit: Duration,
        what: &str,
        pred: impl Fn(&Value) -> bool,
    ) -> Value {
        if let Some(i) = self.pending.iter().position(&pred) {
            return self.pending.remove(i);
        }
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(m) if pred(&m) => return m,
                Ok(m) => self.pending.push(m),
                Err(RecvTimeoutError::Timeout) => panic!(
                    "timed out waiting for {what}; received: {:#?}",
                    self.pending
                ),
                Err(RecvTimeoutError::Disconnected) => {
                    panic!(
                        "the server closed its output while we waited for {what}; received: {:#?}",
                        self.pending
                    )
                }
            }
        }
    }

    /// The next diagnostics published for `uri` that satisfy `pred`.
    pub fn diagnostics(
        &mut self,
        uri: &str,
        limit: Duration,
        pred: impl Fn(&[Value]) -> bool,
    ) -> Vec<Value> {
        let m = self.wait_for(limit, &format!("diagnostics for {uri}"), |m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri
                && m["params"]["diagnostics"]
                    .as_array()
                    .is_some_and(|d| pred(d))
        });
        m["params"]["diagnostics"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    pub fn open(&mut self, uri: &str, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri, "languageId": "sift", "version": 1, "text": text } }),
        );
    }

    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    pub fn wait_exit(&mut self, limit: Duration) -> ExitStatus {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait for the server") {
                return status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("the server did not exit");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn shutdown_and_exit(mut self) -> ExitStatus {
        let r = self.request("shutdown", Value::Null);
        assert!(r.get("error").is_none(), "shutdown failed: {r}");
        self.notify("exit", Value::Null);
        self.wait_exit(REPLY_WAIT)
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn has_code(diags: &[Value], code: &str) -> bool {
    diags.iter().any(|d| d["code"] == code)
}

pub fn pos(line: u32, character: u32) -> Value {
    json!({ "line": line, "character": character })
}

pub fn text_pos(uri: &str, line: u32, character: u32) -> Value {
    json!({ "textDocument": { "uri": uri }, "position": pos(line, character) })
}

pub fn assert_not_panic(status: ExitStatus) {
    assert_ne!(status.code(), Some(101), "the server panicked");
    assert!(
        status.code().is_some(),
        "the server was killed by a signal: {status:?}"
    );
}
