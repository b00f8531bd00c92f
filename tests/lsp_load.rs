//! The language server under load: outdated verifications are cancelled,
//! results belong to the exact text they were computed from, threads and
//! memory stay bounded, oversized documents get a clear diagnostic.

mod bounded;
mod support;

use std::time::{Duration, Instant};

use bounded::forty_splits;
use serde_json::{Value, json};
use support::*;

/// Z3 cannot decide this (nonlinear integer arithmetic): each query runs
/// until the solver's timeout, which these tests set to ten minutes, far
/// beyond any wait below. Only cancellation ends it in time.
const HOPELESS: &str = "class A {
  static void m(int x, int y, int z) {
    assume x > 0 && y > 0 && z > 0;
    assert x * x * x + y * y * y != z * z * z;
  }
}
";

/// Fails at once, on line 4 (0-based 3).
const FAILS_ON_4: &str =
    "class A {\n  static void m(int y) {\n    int x = 1;\n    int z = x / y;\n  }\n}\n";

/// Fails at once, on line 6 (0-based 5).
const FAILS_ON_6: &str =
    "class B {\n  static void m(int y) {\n    int x = 1;\n\n\n    int z = x / y;\n  }\n}\n";

const FAILURE: &str = "division.by.zero";

fn patient() -> Client {
    Client::initialized_with(json!({ "timeoutMs": 600_000, "debounceMs": 50, "jobs": 1 }))
}

fn failure_lines(diags: &[Value]) -> Vec<u64> {
    diags
        .iter()
        .filter(|d| d["code"] == FAILURE)
        .filter_map(|d| d["range"]["start"]["line"].as_u64())
        .collect()
}

fn replace_all(c: &mut Client, uri: &str, version: i32, text: &str) {
    c.notify(
        "textDocument/didChange",
        json!({
            "textDocument": { "uri": uri, "version": version },
            "contentChanges": [{ "text": text }],
        }),
    );
}

/// Every diagnostics message published for `uri` within `wait`.
fn published_within(c: &mut Client, uri: &str, wait: Duration) -> Vec<Vec<Value>> {
    let deadline = Instant::now() + wait;
    let mut out = Vec::new();
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        match c.rx.recv_timeout(left) {
            Ok(m) => {
                if m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri {
                    out.push(
                        m["params"]["diagnostics"]
                            .as_array()
                            .cloned()
                            .unwrap_or_default(),
                    );
                }
            }
            Err(_) => break,
        }
    }
    out
}

#[test]
fn close_and_reopen_while_verifying_shows_the_new_texts_results() {
    for first in [FAILS_ON_4, HOPELESS] {
        let mut c = patient();
        let uri = "file:///tmp/reopen.sift";
        c.open(uri, first);
        c.notify(
            "textDocument/didClose",
            json!({ "textDocument": { "uri": uri } }),
        );
        c.open(uri, FAILS_ON_6);
        let d = c.diagnostics(uri, VERIFY_WAIT, |d| has_code(d, FAILURE));
        assert_eq!(failure_lines(&d), [5], "{d:?}");
        // Nothing of the first text comes later.
        for later in published_within(&mut c, uri, Duration::from_secs(3)) {
            assert_eq!(failure_lines(&later), [5], "{later:?}");
        }
        assert_eq!(c.shutdown_and_exit().code(), Some(0));
    }
}

#[test]
fn a_newer_text_cancels_the_running_verification() {
    let mut c = patient();
    let uri = "file:///tmp/cancel.sift";
    c.open(uri, HOPELESS);
    std::thread::sleep(Duration::from_millis(500));
    replace_all(&mut c, uri, 2, FAILS_ON_4);
    // Without cancellation the next run would wait ten minutes for this
    // document's first one.
    let d = c.diagnostics(uri, VERIFY_WAIT, |d| has_code(d, FAILURE));
    assert_eq!(failure_lines(&d), [3], "{d:?}");
    assert_eq!(c.shutdown_and_exit().code(), Some(0));
}

/// `Threads` and `VmRSS` (in KiB) of a process, from /proc.
fn threads_and_rss(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc status");
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or_else(|| panic!("no {name} in {status}"))
    };
    (field("Threads:"), field("VmRSS:"))
}

/// Waits until the server has at most `limit` threads (cancelled runs wind
/// down on their own threads); the last count seen if it never does.
fn threads_settle(pid: u32, limit: u64) -> u64 {
    let deadline = Instant::now() + REPLY_WAIT;
    loop {
        let (threads, _) = threads_and_rss(pid);
        if threads <= limit || Instant::now() > deadline {
            return threads;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Z3's timer threads, kept in a pool for reuse: one per query running at
/// once, that is per verifier thread (`jobs: 1`) of each of the two
/// verifications that may run.
const Z3_TIMERS: u64 = 2;

/// Main and reader threads, Z3's timers, and per running verification its
/// own thread, one verifier thread and a short-lived front-end thread.
const THREAD_LIMIT: u64 = 2 + Z3_TIMERS + 3 * 2;

#[test]
fn threads_and_memory_stay_bounded_across_reopening_and_bursts() {
    let mut c = patient();
    let pid = c.child.id();
    let uri = "file:///tmp/cycles.sift";
    let mut peak_threads = 0;
    for i in 0..60 {
        c.open(uri, HOPELESS);
        // Let the verification start (the debounce is 50 ms).
        if i % 10 == 0 {
            std::thread::sleep(Duration::from_millis(300));
        }
        c.notify(
            "textDocument/didClose",
            json!({ "textDocument": { "uri": uri } }),
        );
        // Answered between the cycles: the loop is never stuck.
        let r = c.request("textDocument/hover", text_pos(uri, 0, 0));
        assert!(r.get("error").is_none(), "{r}");
        peak_threads = peak_threads.max(threads_and_rss(pid).0);
    }
    assert!(
        peak_threads <= THREAD_LIMIT + 2,
        "{peak_threads} threads during the cycles"
    );
    let settled = threads_settle(pid, 2 + Z3_TIMERS);
    assert!(
        settled <= 2 + Z3_TIMERS,
        "{settled} threads after closing everything"
    );
    // A burst of edits to one open document, each cancelling the last.
    let burst = "file:///tmp/burst.sift";
    c.open(burst, HOPELESS);
    std::thread::sleep(Duration::from_millis(300));
    for v in 2..200 {
        let text = if v % 2 == 0 { FAILS_ON_4 } else { HOPELESS };
        replace_all(&mut c, burst, v, text);
        if v % 20 == 0 {
            std::thread::sleep(Duration::from_millis(100));
            peak_threads = peak_threads.max(threads_and_rss(pid).0);
        }
    }
    // The last text fails at once and is what is shown.
    replace_all(&mut c, burst, 200, FAILS_ON_4);
    let d = c.diagnostics(burst, VERIFY_WAIT, |d| has_code(d, FAILURE));
    assert_eq!(failure_lines(&d), [3]);
    assert!(
        peak_threads <= THREAD_LIMIT + 2,
        "{peak_threads} threads during the burst"
    );
    let (threads, rss) = threads_and_rss(pid);
    assert!(threads <= THREAD_LIMIT, "{threads} threads after the burst");
    // Sixty runs kept alive would hold well over a gigabyte.
    assert!(
        rss < 400 << 10,
        "VmRSS {rss} KiB after the cycles and the burst"
    );
    assert_eq!(c.shutdown_and_exit().code(), Some(0));
}

fn close(c: &mut Client, uri: &str) {
    c.notify(
        "textDocument/didClose",
        json!({ "textDocument": { "uri": uri } }),
    );
}

#[test]
fn closing_a_runaway_document_frees_its_slot_for_the_others() {
    // No time limit that could free a slot within the test: only closing.
    let mut c = Client::initialized_with(json!({
        "timeoutMs": 600_000, "debounceMs": 50, "jobs": 1, "memberTimeoutMs": 3_600_000,
    }));
    let pid = c.child.id();
    let (first, second, third) = (
        "file:///tmp/runaway1.sift",
        "file:///tmp/runaway2.sift",
        "file:///tmp/third.sift",
    );
    c.open(first, &forty_splits("R"));
    c.open(second, &forty_splits("R"));
    // Both verification slots are taken; the third document waits.
    std::thread::sleep(Duration::from_millis(500));
    c.open(third, FAILS_ON_4);
    std::thread::sleep(Duration::from_millis(500));
    close(&mut c, first);
    let d = c.diagnostics(third, VERIFY_WAIT, |d| has_code(d, FAILURE));
    assert_eq!(failure_lines(&d), [3], "{d:?}");
    // Closing the second ends its thread too: no verification is left.
    close(&mut c, second);
    close(&mut c, third);
    let settled = threads_settle(pid, 2 + Z3_TIMERS);
    assert!(
        settled <= 2 + Z3_TIMERS,
        "{settled} threads after closing everything"
    );
    assert_eq!(c.shutdown_and_exit().code(), Some(0));
}

#[test]
fn a_runaway_member_is_stopped_by_its_time_limit() {
    let mut c = Client::initialized_with(json!({
        "timeoutMs": 600_000, "debounceMs": 50, "jobs": 1, "memberTimeoutMs": 1_000,
    }));
    let uri = "file:///tmp/runaway.sift";
    c.open(uri, &forty_splits("R"));
    let d = c.diagnostics(uri, VERIFY_WAIT, |d| has_code(d, "internal"));
    assert_eq!(d.len(), 1, "{d:?}");
    let message = d[0]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("1000 ms") && message.contains("the `memberTimeoutMs` setting"),
        "{message}"
    );
    // The slot is free again: another document is verified.
    let other = "file:///tmp/other.sift";
    c.open(other, FAILS_ON_4);
    let d = c.diagnostics(other, VERIFY_WAIT, |d| has_code(d, FAILURE));
    assert_eq!(failure_lines(&d), [3], "{d:?}");
    assert_eq!(c.shutdown_and_exit().code(), Some(0));
}

#[test]
fn a_document_over_the_size_limit_gets_one_clear_diagnostic() {
    let mut c = Client::initialized();
    let uri = "file:///tmp/huge.sift";
    let filler = "// filler\n".repeat((5 << 20) / 10);
    let huge = format!("{FAILS_ON_4}{filler}");
    c.open(uri, &huge);
    let d = c.diagnostics(uri, REPLY_WAIT, |d| !d.is_empty());
    assert_eq!(d.len(), 1, "{d:?}");
    let msg = d[0]["message"].as_str().unwrap_or_default();
    assert!(
        msg.starts_with(&format!("document too large: {} bytes", huge.len())),
        "{msg}"
    );
    assert!(msg.contains("at most 4194304 bytes"), "{msg}");
    // Requests are still answered, and a smaller text is verified again.
    let r = c.request("textDocument/hover", text_pos(uri, 3, 4));
    assert!(r.get("error").is_none(), "{r}");
    replace_all(&mut c, uri, 2, FAILS_ON_4);
    let d = c.diagnostics(uri, VERIFY_WAIT, |d| has_code(d, FAILURE));
    assert_eq!(failure_lines(&d), [3]);
    assert_eq!(c.shutdown_and_exit().code(), Some(0));
}
