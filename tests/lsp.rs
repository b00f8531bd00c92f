//! `sift lsp` over its real stdio: JSON-RPC with Content-Length framing,
//! every wait bounded so that a hang fails the test instead of blocking.

mod support;

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::*;

#[test]
fn lifecycle_exits_zero_after_shutdown() {
    let c = Client::initialized();
    let status = c.shutdown_and_exit();
    assert_eq!(status.code(), Some(0));
}

#[test]
fn exit_without_shutdown_is_an_error() {
    let mut c = Client::initialized();
    c.notify("exit", Value::Null);
    assert_eq!(c.wait_exit(REPLY_WAIT).code(), Some(1));
}

#[test]
fn end_of_input_without_exit_is_an_error() {
    let mut c = Client::initialized();
    c.close_stdin();
    assert_eq!(c.wait_exit(REPLY_WAIT).code(), Some(1));
}

#[test]
fn requests_before_initialize_are_refused() {
    let mut c = Client::start();
    let r = c.request("textDocument/hover", text_pos("file:///x.sift", 0, 0));
    assert_eq!(r["error"]["code"], -32002, "{r}");
    c.close_stdin();
    assert_not_panic(c.wait_exit(REPLY_WAIT));
}

const TYPE_ERROR: &str = "class A {\n  int f;\n  static void m() {\n    int x = true;\n  }\n}\n";

#[test]
fn type_errors_at_once_and_cleared_by_an_incremental_fix() {
    let mut c = Client::initialized();
    let uri = "file:///tmp/type_error.sift";
    c.open(uri, TYPE_ERROR);
    let diags = c.diagnostics(uri, REPLY_WAIT, |d| !d.is_empty());
    assert!(has_code(&diags, "type"), "{diags:?}");
    let d = &diags[0];
    assert_eq!(d["range"]["start"]["line"], 3, "{d}");
    assert_eq!(d["source"], "sift");
    assert_eq!(d["severity"], 1);
    // `true` (line 3, columns 12..16) becomes `1`.
    c.notify(
        "textDocument/didChange",
        json!({
            "textDocument": { "uri": uri, "version": 2 },
            "contentChanges": [{ "range": { "start": pos(3, 12), "end": pos(3, 16) }, "text": "1" }],
        }),
    );
    let diags = c.diagnostics(uri, REPLY_WAIT, |d| d.is_empty());
    assert!(diags.is_empty());
    assert_eq!(c.shutdown_and_exit().code(), Some(0));
}

#[test]
fn columns_are_utf16_code_units() {
    let mut c = Client::initialized();
    let uri = "file:///tmp/utf16.sift";
    // `é` is one UTF-16 unit (two bytes in UTF-8), `𝄞` two units (four bytes).
    let text = "class A {\n  static void m() {\n    /*é𝄞*/ int x = true;\n  }\n}\n";
    c.open(uri, text);
    let diags = c.diagnostics(uri, REPLY_WAIT, |d| !d.is_empty());
    let start = &diags[0]["range"]["start"];
    assert_eq!(
        (start["line"].as_u64(), start["character"].as_u64()),
        (Some(2), Some(20)),
        "{diags:?}"
    );
    // Replace `true` using UTF-16 columns: the result must be well-typed.
    c.notify(
        "textDocument/didChange",
        json!({
            "textDocument": { "uri": uri, "version": 2 },
            "contentChanges": [{ "range": { "start": pos(2, 20), "end": pos(2, 24) }, "text": "7" }],
        }),
    );
    c.diagnostics(uri, REPLY_WAIT, |d| d.is_empty());
    drop(c);
}

const ASSERT_FAILS: &str =
    "class A {\n  static void m() {\n    int x = 1;\n    assert x == 2;\n  }\n}\n";

/// A failure on one branch, with a counterexample.
const BRANCH_FAILS: &str =
    "class A {\n  static void m(int x) {\n    if (x > 2) {\n      assert x != 3;\n    }\n  }\n}\n";

#[test]
fn diagnostics_carry_the_explanation_the_command_line_prints() {
    let mut c = Client::initialized();
    let uri = "file:///tmp/branch.sift";
    c.open(uri, BRANCH_FAILS);
    let diags = c.diagnostics(uri, VERIFY_WAIT, |d| has_code(d, "assert.failed"));
    let message = diags[0]["message"].as_str().unwrap_or_default().to_string();
    drop(c);
    let file = std::env::temp_dir().join(format!("sift-lsp-why-{}.sift", std::process::id()));
    std::fs::write(&file, BRANCH_FAILS).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sift"))
        .args(["verify", "--json", file.to_str().unwrap()])
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&file);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let why = doc["files"][0]["errors"][0]["explanation"]
        .as_array()
        .expect("an explanation")
        .clone();
    assert_eq!(why.len(), 2, "{why:?}");
    for line in why {
        let line = line.as_str().unwrap();
        assert!(
            message.contains(&format!("\n{line}")),
            "{line:?} is not in {message:?}"
        );
    }
    assert!(
        message.contains("\non this path: line 3: if (x > 2): then branch"),
        "{message}"
    );
    assert!(message.contains("\ncounterexample: x = 3"), "{message}");
}

#[test]
fn verification_errors_hover_and_code_lens() {
    let mut c = Client::initialized();
    let uri = "file:///tmp/assert.sift";
    c.open(uri, ASSERT_FAILS);
    let diags = c.diagnostics(uri, VERIFY_WAIT, |d| has_code(d, "assert.failed"));
    let d = diags
        .iter()
        .find(|d| d["code"] == "assert.failed")
        .expect("an assert.failed diagnostic");
    assert_eq!(d["range"]["start"]["line"], 3, "{d}");

    // Hover on the failing assertion: the symbolic state there.
    let h = c.request("textDocument/hover", text_pos(uri, 3, 12));
    let md = h["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(md.contains("heap") && md.contains("store"), "{h}");
    assert!(md.contains("x ↦ 1"), "{md}");
    // Hover on the local's declaration statement: before and after.
    let h = c.request("textDocument/hover", text_pos(uri, 2, 6));
    let md = h["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(md.contains("Before") && md.contains("After"), "{md}");

    let lenses = c.request(
        "textDocument/codeLens",
        json!({ "textDocument": { "uri": uri } }),
    );
    let titles: Vec<String> = lenses["result"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|l| l["command"]["title"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    assert!(
        titles.iter().any(|t| t.starts_with("✗ 1 error")),
        "{lenses}"
    );
    assert_eq!(c.shutdown_and_exit().code(), Some(0));
}

const ARRAY_WRITE: &str = "class A {\n  static void m() {\n    int[] a = new int[2];\n    a[1] = 5;\n    assert a[1] == 6;\n  }\n}\n";

/// Hovers show an array's elements as one chunk.
#[test]
fn hover_shows_the_elements_chunk() {
    let mut c = Client::initialized();
    let uri = "file:///tmp/array.sift";
    c.open(uri, ARRAY_WRITE);
    c.diagnostics(uri, VERIFY_WAIT, |d| has_code(d, "assert.failed"));
    let h = c.request("textDocument/hover", text_pos(uri, 3, 6));
    let md = h["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(md.contains("heap   a.elems ↦ [0, …][1 := 5]"), "{md}");
    assert_eq!(c.shutdown_and_exit().code(), Some(0));
}

#[test]
fn stale_results_are_dropped_and_the_latest_text_verified() {
    let mut c = Client::initialized();
    let uri = "file:///tmp/stale.sift";
    c.open(uri, ASSERT_FAILS);
    // At once, before the verification of version 1 can finish: fix it.
    c.notify(
        "textDocument/didChange",
        json!({
            "textDocument": { "uri": uri, "version": 2 },
            "contentChanges": [{ "range": { "start": pos(3, 16), "end": pos(3, 17) }, "text": "1" }],
        }),
    );
    let deadline = Instant::now() + VERIFY_WAIT;
    loop {
        let lenses = c.request(
            "textDocument/codeLens",
            json!({ "textDocument": { "uri": uri } }),
        );
        let titles: Vec<String> = lenses["result"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|l| l["command"]["title"].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        if titles
            .iter()
            .any(|t| t.starts_with('✓') && !t.contains("outdated"))
        {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the fixed text was never verified: {titles:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // No diagnostics published for version 2 may carry the stale error.
    let pending = std::mem::take(&mut c.pending);
    for m in &pending {
        if m["method"] == "textDocument/publishDiagnostics" && m["params"]["version"] == 2 {
            let d = m["params"]["diagnostics"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            assert!(
                !has_code(&d, "assert.failed"),
                "a stale result was published: {m}"
            );
        }
    }
    assert_eq!(c.shutdown_and_exit().code(), Some(0));
}

const DEFINITIONS: &str = "class Cell {
  int val;
  Cell(int v)
    ensures acc(val) && val == v;
  {
    val = v;
  }
  pure int get()
    requires acc(val);
  { return val; }
  static void main() {
    Cell c = new Cell(3);
    int y = c.val;
    assert y == c.get();
  }
}
";

fn definition_line_col(c: &mut Client, uri: &str, line: u32, col: u32) -> (u64, u64) {
    let r = c.request("textDocument/definition", text_pos(uri, line, col));
    let loc = if r["result"].is_array() {
        r["result"][0].clone()
    } else {
        r["result"].clone()
    };
    assert_eq!(loc["uri"], uri, "{r}");
    let s = &loc["range"]["start"];
    (
        s["line"].as_u64().unwrap_or(99),
        s["character"].as_u64().unwrap_or(99),
    )
}

#[test]
fn go_to_definition() {
    let mut c = Client::initialized();
    let uri = "file:///tmp/defs.sift";
    c.open(uri, DEFINITIONS);
    // `c.val` on line 12 -> the field `val` (line 1, column 6).
    assert_eq!(definition_line_col(&mut c, uri, 12, 15), (1, 6));
    // `val = v;` in the constructor (a bare field name) -> the field.
    assert_eq!(definition_line_col(&mut c, uri, 5, 4), (1, 6));
    // `v` -> the parameter.
    assert_eq!(definition_line_col(&mut c, uri, 5, 10), (2, 11));
    // `c.get()` -> the pure method; `c` -> the local.
    assert_eq!(definition_line_col(&mut c, uri, 13, 19), (7, 11));
    assert_eq!(definition_line_col(&mut c, uri, 13, 16), (11, 9));
    // `new Cell(3)` -> the constructor; the type `Cell` -> the class.
    assert_eq!(definition_line_col(&mut c, uri, 11, 18), (2, 2));
    assert_eq!(definition_line_col(&mut c, uri, 11, 5), (0, 6));
    // `y` in the assertion -> the local `y`.
    assert_eq!(definition_line_col(&mut c, uri, 13, 11), (12, 8));
    // Nothing to go to on a keyword.
    let r = c.request("textDocument/definition", text_pos(uri, 13, 5));
    assert!(r["result"].is_null(), "{r}");
    // Hover on a name shows its declaration.
    let h = c.request("textDocument/hover", text_pos(uri, 12, 15));
    let md = h["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        md.contains("int val;") && md.contains("field of class `Cell`"),
        "{md}"
    );
    assert_eq!(c.shutdown_and_exit().code(), Some(0));
}

#[test]
fn survives_garbage_and_unknown_methods() {
    let mut c = Client::initialized();
    let uri = "file:///tmp/robust.sift";
    c.open(uri, "class A { int f; }\n");
    c.diagnostics(uri, REPLY_WAIT, |_| true);
    // Not a header at all.
    c.send_raw(b"this is not a header\r\n\r\n");
    // A frame whose body is not JSON, one that is JSON but not a message,
    // and one that is not UTF-8.
    c.send_raw(b"Content-Length: 9\r\n\r\n{not json");
    c.send_raw(b"Content-Length: 7\r\n\r\n[1,2,3]");
    c.send_raw(b"Content-Length: 2\r\n\r\n\xff\xfe");
    // A bad Content-Length.
    c.send_raw(b"Content-Length: lots\r\n\r\n");
    // Unknown request and notification, request with bad params.
    let r = c.request("sift/unknownRequest", json!({}));
    assert_eq!(r["error"]["code"], -32601, "{r}");
    c.notify("sift/unknownNotification", json!({ "x": 1 }));
    let r = c.request("textDocument/hover", json!({ "nonsense": true }));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    // Changes and requests for documents that are not open.
    c.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": "file:///nope.sift", "version": 2 }, "contentChanges": [{ "text": "x" }] }),
    );
    let r = c.request("textDocument/hover", text_pos("file:///nope.sift", 0, 0));
    assert!(r["result"].is_null(), "{r}");
    // Positions out of range and half-typed programs.
    let r = c.request("textDocument/definition", text_pos(uri, 9999, 9999));
    assert!(r.get("error").is_none(), "{r}");
    c.notify(
        "textDocument/didChange",
        json!({
            "textDocument": { "uri": uri, "version": 2 },
            "contentChanges": [{ "range": { "start": pos(0, 17), "end": pos(99, 0) }, "text": " void m() { int x = ; } " }],
        }),
    );
    let diags = c.diagnostics(uri, REPLY_WAIT, |d| !d.is_empty());
    assert!(has_code(&diags, "parse"), "{diags:?}");
    let r = c.request("textDocument/hover", text_pos(uri, 0, 30));
    assert!(r.get("error").is_none(), "{r}");
    // The malformed frames were answered with parse errors (null id).
    let errors = c
        .pending
        .iter()
        .filter(|m| m["id"].is_null() && m["error"]["code"] == -32700)
        .count();
    assert!(
        errors >= 3,
        "expected parse error replies: {:#?}",
        c.pending
    );
    assert_eq!(c.shutdown_and_exit().code(), Some(0));
}

/// Fermat's last theorem for cubes: Z3 cannot decide it and gives up only
/// at the query timeout (two seconds here), so verification takes a while.
const SLOW: &str = "class A {
  static void m(int x, int y, int z) {
    assume x > 0 && y > 0 && z > 0;
    assert x * x * x + y * y * y != z * z * z;
  }
}
";

#[test]
fn the_main_loop_answers_while_verifying() {
    let mut c = Client::initialized();
    let uri = "file:///tmp/busy.sift";
    c.open(uri, SLOW);
    std::thread::sleep(Duration::from_millis(300));
    for _ in 0..5 {
        let start = Instant::now();
        let r = c.request("textDocument/definition", text_pos(uri, 3, 11));
        assert_eq!(r["result"]["range"]["start"]["line"], 1, "{r}");
        assert!(
            start.elapsed() < Duration::from_secs(1),
            "a request waited for the verifier"
        );
    }
    let published_early = c.pending.iter().any(|m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["diagnostics"]
                .as_array()
                .is_some_and(|d| has_code(d, "assert.failed"))
    });
    assert!(
        !published_early,
        "the verification was expected to be still running"
    );
    // The verification ends in its own time, with the solver giving up.
    c.diagnostics(uri, VERIFY_WAIT, |d| has_code(d, "assert.failed"));
    assert_eq!(c.shutdown_and_exit().code(), Some(0));
}

#[test]
fn shutdown_while_verifying_exits_cleanly() {
    let mut c = Client::initialized();
    c.open("file:///tmp/exit.sift", SLOW);
    std::thread::sleep(Duration::from_millis(300));
    let start = Instant::now();
    let status = c.shutdown_and_exit();
    assert_eq!(status.code(), Some(0), "{status:?}");
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "exit waited for the verifier"
    );
}

#[test]
fn every_prefix_of_a_program_is_handled() {
    let mut c = Client::initialized();
    let uri = "file:///tmp/prefixes.sift";
    c.open(uri, "");
    let text = format!("{DEFINITIONS}{ASSERT_FAILS}");
    let chars: Vec<char> = text.chars().collect();
    let mut line = 0u32;
    let mut col = 0u32;
    for (i, ch) in chars.iter().enumerate() {
        // Type one character at the end, as an incremental change.
        c.notify(
            "textDocument/didChange",
            json!({
                "textDocument": { "uri": uri, "version": i + 2 },
                "contentChanges": [{ "range": { "start": pos(line, col), "end": pos(line, col) }, "text": ch.to_string() }],
            }),
        );
        if *ch == '\n' {
            line += 1;
            col = 0;
        } else {
            col += ch.len_utf16() as u32;
        }
        if i % 7 == 0 {
            let back = col.saturating_sub(2);
            let r = c.request("textDocument/hover", text_pos(uri, line, back));
            assert!(r.get("error").is_none(), "{r}");
            let r = c.request("textDocument/definition", text_pos(uri, line, back));
            assert!(r.get("error").is_none(), "{r}");
        }
    }
    // The whole text arrived intact: its verification error is reported.
    c.diagnostics(uri, VERIFY_WAIT, |d| has_code(d, "assert.failed"));
    assert_eq!(c.shutdown_and_exit().code(), Some(0));
}

#[test]
fn saving_verifies_at_once() {
    // With a one-minute pause before verifying changes, only the save can
    // start the verification in time.
    let mut c = Client::initialized_with(json!({ "timeoutMs": 2000, "debounceMs": 60000 }));
    let uri = "file:///tmp/save.sift";
    let fixed = ASSERT_FAILS.replace("x == 2", "x == 1");
    c.open(uri, &fixed);
    c.diagnostics(uri, REPLY_WAIT, |d| d.is_empty());
    c.notify(
        "textDocument/didChange",
        json!({
            "textDocument": { "uri": uri, "version": 2 },
            "contentChanges": [{ "range": { "start": pos(3, 16), "end": pos(3, 17) }, "text": "2" }],
        }),
    );
    c.notify(
        "textDocument/didSave",
        json!({ "textDocument": { "uri": uri } }),
    );
    let diags = c.diagnostics(uri, VERIFY_WAIT, |d| has_code(d, "assert.failed"));
    assert_eq!(diags[0]["range"]["start"]["line"], 3, "{diags:?}");
    assert_eq!(c.shutdown_and_exit().code(), Some(0));
}

/// Members whose results the server's cache keeps: the error of `client`
/// has a related label in the contract of `set`.
const CACHED: &str = "class Cell {
  int x;
  Cell(int v) requires v >= 0; ensures acc(x) && x == v; { x = v; }
  void set(int v) requires acc(x) && v > 0; ensures acc(x) && x == v; { x = v; }
  static void first(int k) {
    int a = k + 1;
    assert a > k;
  }
  static void client(int k) {
    Cell c = new Cell(1);
    c.set(k);
  }
  static void wrong(int v) ensures v > 0; { int w = v; }
}
";

/// Inserted at the start of line 6 of `CACHED`, inside the body of
/// `first`: every later member moves down three lines.
const INSERTED: &str = "    a = a + 0;\n\n    // more\n";

fn with_progress() -> Client {
    Client::initialized_with_capabilities(
        json!({ "timeoutMs": 2000, "debounceMs": 50 }),
        json!({ "window": { "workDoneProgress": true } }),
    )
}

/// Answers the server's request for a progress token; the token.
fn accept_progress_token(c: &mut Client) -> Value {
    let req = c.wait_for(VERIFY_WAIT, "a progress token request", |m| {
        m["method"] == "window/workDoneProgress/create" && m.get("id").is_some()
    });
    c.send(&json!({ "jsonrpc": "2.0", "id": req["id"], "result": null }));
    req["params"]["token"].clone()
}

/// The `$/progress` values for `token`, in the order they arrive, up to
/// its end.
fn progress_until_end(c: &mut Client, token: &Value) -> Vec<Value> {
    let mut values = Vec::new();
    loop {
        let m = c.wait_for(VERIFY_WAIT, "progress", |m| {
            m["method"] == "$/progress" && m["params"]["token"] == *token
        });
        let v = m["params"]["value"].clone();
        let end = v["kind"] == "end";
        values.push(v);
        if end {
            return values;
        }
    }
}

fn assert_begin_reports_end(values: &[Value]) {
    let kinds: Vec<&str> = values.iter().map(|v| v["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds.first(), Some(&"begin"), "{values:?}");
    assert_eq!(kinds.last(), Some(&"end"), "{values:?}");
    assert!(
        kinds[1..kinds.len() - 1].iter().all(|k| *k == "report"),
        "{values:?}"
    );
}

/// The last diagnostics published for `uri` so far.
fn last_published(c: &mut Client, uri: &str) -> Vec<Value> {
    let last = c
        .pending
        .iter()
        .rev()
        .find(|m| m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri)
        .expect("diagnostics were published");
    last["params"]["diagnostics"].as_array().cloned().unwrap()
}

#[test]
fn work_done_progress_and_reverifying_only_the_edited_member() {
    let mut c = with_progress();
    let uri = "file:///tmp/cached.sift";
    c.open(uri, CACHED);
    let token = accept_progress_token(&mut c);
    let values = progress_until_end(&mut c, &token);
    assert_begin_reports_end(&values);
    assert_eq!(values[0]["title"], "Verifying cached.sift");
    assert_eq!(values.last().unwrap()["message"], "5 members, 0 reused");
    let before = last_published(&mut c, uri);
    assert_eq!(before.len(), 2, "{before:?}");

    c.notify(
        "textDocument/didChange",
        json!({
            "textDocument": { "uri": uri, "version": 2 },
            "contentChanges": [{ "range": { "start": pos(6, 0), "end": pos(6, 0) }, "text": INSERTED }],
        }),
    );
    let again = accept_progress_token(&mut c);
    assert_ne!(again, token);
    let values = progress_until_end(&mut c, &again);
    assert_begin_reports_end(&values);
    assert_eq!(values.last().unwrap()["message"], "5 members, 4 reused");
    let after = last_published(&mut c, uri);
    let hover = c.request("textDocument/hover", text_pos(uri, 13, 6));

    // A fresh server verifying the edited text says the same.
    let edited = {
        let mut lines: Vec<&str> = CACHED.split_inclusive('\n').collect();
        lines.insert(6, INSERTED);
        lines.concat()
    };
    let mut fresh = with_progress();
    fresh.open(uri, &edited);
    let t = accept_progress_token(&mut fresh);
    let values = progress_until_end(&mut fresh, &t);
    assert_eq!(values.last().unwrap()["message"], "5 members, 0 reused");
    assert_eq!(after, last_published(&mut fresh, uri));
    let lines = |d: &[Value]| -> Vec<u64> {
        d.iter()
            .map(|d| d["range"]["start"]["line"].as_u64().unwrap())
            .collect()
    };
    assert_eq!(
        lines(&after),
        lines(&before).iter().map(|l| l + 3).collect::<Vec<_>>()
    );
    // The cached execution tree moved too: hovers in a reused member.
    let fresh_hover = fresh.request("textDocument/hover", text_pos(uri, 13, 6));
    assert!(
        hover["result"]["contents"]["value"]
            .as_str()
            .is_some_and(|md| md.contains("store")),
        "{hover}"
    );
    assert_eq!(hover["result"], fresh_hover["result"]);
    assert_eq!(fresh.shutdown_and_exit().code(), Some(0));
    assert_eq!(c.shutdown_and_exit().code(), Some(0));
}

#[test]
fn a_refused_progress_token_gets_no_progress() {
    let mut c = with_progress();
    let uri = "file:///tmp/refused.sift";
    c.open(uri, ASSERT_FAILS);
    let req = c.wait_for(VERIFY_WAIT, "a progress token request", |m| {
        m["method"] == "window/workDoneProgress/create"
    });
    c.send(
        &json!({ "jsonrpc": "2.0", "id": req["id"], "error": { "code": -32603, "message": "no" } }),
    );
    c.diagnostics(uri, VERIFY_WAIT, |d| has_code(d, "assert.failed"));
    // Round trip: everything the server sent before this answer is here.
    c.request(
        "textDocument/codeLens",
        json!({ "textDocument": { "uri": uri } }),
    );
    assert!(
        !c.pending.iter().any(|m| m["method"] == "$/progress"),
        "{:#?}",
        c.pending
    );
    assert_eq!(c.shutdown_and_exit().code(), Some(0));
}

#[test]
fn no_work_done_progress_without_the_capability() {
    let mut c = Client::initialized();
    let uri = "file:///tmp/noprogress.sift";
    c.open(uri, ASSERT_FAILS);
    c.diagnostics(uri, VERIFY_WAIT, |d| has_code(d, "assert.failed"));
    c.request(
        "textDocument/codeLens",
        json!({ "textDocument": { "uri": uri } }),
    );
    assert!(
        !c.pending.iter().any(|m| {
            m["method"] == "$/progress" || m["method"] == "window/workDoneProgress/create"
        }),
        "{:#?}",
        c.pending
    );
}

/// `static int f(int x)` ending in an `if` with `n` `else if` links; the
/// last link holds an assertion that fails (on line `n + 2`, 0-based).
fn long_chain(n: usize) -> String {
    let mut src =
        String::from("class A {\n  static int f(int x) {\n    if (x == 0) { return 0; }\n");
    for i in 1..n {
        src.push_str(&format!("    else if (x == {i}) {{ return {i}; }}\n"));
    }
    src.push_str(&format!(
        "    else if (x == {n}) {{ assert x == 0; return {n}; }}\n    else {{ return -1; }}\n  }}\n}}\n"
    ));
    src
}

#[test]
fn long_else_if_chains_are_checked_verified_and_navigated() {
    let mut c = Client::initialized();
    let uri = "file:///tmp/chain.sift";
    let n = 1_000;
    c.open(uri, &long_chain(n));
    // The verifier went down the whole chain: the failure in the last link.
    let diags = c.diagnostics(uri, VERIFY_WAIT, |d| has_code(d, "assert.failed"));
    assert_eq!(diags.len(), 1, "{diags:?}");
    let last = n as u32 + 2;
    assert_eq!(diags[0]["range"]["start"]["line"], last, "{diags:?}");
    // `x` in the last link's condition -> the parameter.
    let col = 4 + "else if (".len() as u32;
    assert_eq!(definition_line_col(&mut c, uri, last, col), (1, 19));
    // The state at the failing assertion, reached through every link.
    let h = c.request(
        "textDocument/hover",
        text_pos(
            uri,
            last,
            col + 2 + format!("== {n}) {{ assert ").len() as u32,
        ),
    );
    let md = h["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(md.contains("store"), "{h}");
    // A chain one link longer than the limit: a clear parse error.
    let too_long = "file:///tmp/too_long.sift";
    c.open(too_long, &long_chain(10_001));
    let diags = c.diagnostics(too_long, REPLY_WAIT, |d| has_code(d, "parse"));
    let message = diags[0]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("`else if` chain too long: more than 10000 links"),
        "{message}"
    );
    assert_eq!(diags[0]["range"]["start"]["line"], 10_003, "{diags:?}");
    assert_eq!(c.shutdown_and_exit().code(), Some(0));
}

/// The setting `overflow: true` is `--overflow` (docs/language.md section
/// 4.6): Java's `abs` fails at the unary minus; without it, it verifies.
#[test]
fn the_overflow_setting_checks_java_integers() {
    const ABS: &str = "class M {\n  static int abs(int x) ensures result >= 0; {\n    return x < 0 ? -x : x;\n  }\n}\n";
    let mut c = Client::initialized_with(json!({ "overflow": true, "debounceMs": 0 }));
    let uri = "file:///tmp/abs.sift";
    c.open(uri, ABS);
    let diags = c.diagnostics(uri, VERIFY_WAIT, |d| has_code(d, "overflow"));
    assert_eq!(diags[0]["range"]["start"]["line"], 2, "{diags:?}");
    assert_eq!(c.shutdown_and_exit().code(), Some(0));
    let mut c = Client::initialized_with(json!({ "debounceMs": 0 }));
    c.open(uri, ABS);
    c.diagnostics(uri, VERIFY_WAIT, |d| d.is_empty());
    assert_eq!(c.shutdown_and_exit().code(), Some(0));
}
