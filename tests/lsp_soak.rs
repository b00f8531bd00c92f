//! The language server under random use for a while: edit sequences (some
//! splitting a UTF-16 surrogate pair, some with CRLF or lone CR line ends,
//! some with ranges outside the text), bursts of edits, requests about
//! unknown documents, close and reopen, shutdown while verifying, and the
//! input ending abruptly.
//!
//! Properties: the server answers every request and never dies, its memory
//! (VmRSS) stays below `MAX_RSS_KB`, and once the last edit has settled the
//! diagnostics it publishes are those `sift verify --json` reports for the
//! final text (kinds and lines).
//!
//! `cargo test` runs `DEFAULT_ROUNDS` rounds from a fixed seed;
//! `SIFT_SOAK=N` runs N, from `SIFT_SOAK_SEED=S`.

mod bounded;
mod support;

use std::collections::BTreeSet;
use std::time::Duration;

use bounded::Rng;
use serde_json::{Value, json};
use support::{Client, REPLY_WAIT, VERIFY_WAIT, assert_not_panic, pos};

const DEFAULT_ROUNDS: u64 = 4;
const DEFAULT_SEED: u64 = 0x50AC;
/// The server's resident memory may not exceed this (a debug build holding
/// a few small documents and their execution trees).
const MAX_RSS_KB: u64 = 1 << 20;

/// Small programs the rounds start from and end with: verified, failing at
/// a known place, with a type error, with a parse error.
const TEXTS: [&str; 5] = [
    "class A {\n  int f;\n\n  void set(int v)\n    requires acc(f);\n    ensures acc(f) && f == v;\n  {\n    f = v;\n  }\n}\n",
    "class B {\n  static void m(int y) {\n    int x = 1;\n    int z = x / y;\n  }\n}\n",
    "class C {\n  static int m(int a)\n    requires a > 0;\n    ensures result > a;\n  {\n    return a;\n  }\n}\n",
    "class D {\n  static void m() {\n    int x = true;\n  }\n}\n",
    "class E {\n  static void m() {\n    int x = ;\n  }\n}\n",
];

/// Snippets inserted by edits.
const SNIPPETS: [&str; 14] = [
    "",
    "x",
    ";",
    "}",
    "{",
    "\n",
    "int y = 1;\n",
    "assert false;",
    "\r\n",
    "\r",
    "😀",
    "é",
    "class Z { }\n",
    "/* ",
];

fn rss_kb(c: &Client) -> u64 {
    let status =
        std::fs::read_to_string(format!("/proc/{}/status", c.child.id())).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// What `sift verify --json` reports for `text`: (kind, 0-based line).
fn expected(text: &str, name: &str) -> BTreeSet<(String, u64)> {
    let path = bounded::write_temp("soak", name, text);
    let out = bounded::sift(
        &[
            "verify",
            "--json",
            "--timeout",
            "20",
            path.to_str().unwrap_or(""),
        ],
        "",
        VERIFY_WAIT,
    );
    assert_eq!(out.crash(), None);
    let v: Value = serde_json::from_str(&out.stdout).expect("JSON");
    v["files"][0]["errors"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| {
            (
                e["kind"].as_str().unwrap_or("").to_string(),
                e["line"].as_u64().unwrap_or(0).saturating_sub(1),
            )
        })
        .collect()
}

fn published(diags: &[Value]) -> BTreeSet<(String, u64)> {
    diags
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap_or("").to_string(),
                d["range"]["start"]["line"].as_u64().unwrap_or(u64::MAX),
            )
        })
        .collect()
}

/// How long the diagnostics of a final text must stay as they are.
const SETTLE: Duration = Duration::from_secs(3);

/// The diagnostics published for `uri` during `wait` (others are dropped).
fn publishes_within(c: &mut Client, uri: &str, wait: Duration) -> Vec<Vec<Value>> {
    let deadline = std::time::Instant::now() + wait;
    let mut out = Vec::new();
    while let Some(left) = deadline.checked_duration_since(std::time::Instant::now()) {
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

fn change(c: &mut Client, uri: &str, version: i32, changes: Vec<Value>) {
    c.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri, "version": version }, "contentChanges": changes }),
    );
}

/// A random edit; ranges may fall outside the text, end before they start,
/// or split a character (the server clamps them).
fn random_edit(rng: &mut Rng, lines: usize) -> Value {
    let mut p = || {
        let line = rng.below(lines + 3) as u32;
        let ch = if rng.below(10) == 0 {
            10_000
        } else {
            rng.below(30) as u32
        };
        pos(line, ch)
    };
    let (a, b) = (p(), p());
    let text = SNIPPETS[rng.below(SNIPPETS.len())];
    json!({ "range": { "start": a, "end": b }, "text": text })
}

/// Runs one round on `c`; the final text of the round's document.
fn round(c: &mut Client, rng: &mut Rng, r: u64) -> (String, String, i32) {
    let uri = format!("file:///soak{}.sift", r % 3);
    let mut text = TEXTS[rng.below(TEXTS.len())].to_string();
    match rng.below(3) {
        0 => text = text.replace('\n', "\r\n"),
        1 => text = text.replace('\n', "\r"),
        _ => {}
    }
    c.open(&uri, &text);
    let mut version = 1;
    for _ in 0..10 + rng.below(20) {
        version += 1;
        match rng.below(8) {
            // A burst of edits in one message or in many.
            0 => {
                let edits = (0..1 + rng.below(10))
                    .map(|_| random_edit(rng, 12))
                    .collect();
                change(c, &uri, version, edits);
            }
            1 => {
                for _ in 0..rng.below(15) {
                    let e = random_edit(rng, 12);
                    change(c, &uri, version, vec![e]);
                    version += 1;
                }
            }
            // Requests and notifications about documents never opened.
            2 => {
                let unknown = "file:///never-opened.sift";
                let r = c.request("textDocument/hover", support::text_pos(unknown, 0, 0));
                assert!(r.get("id").is_some(), "{r}");
                let r = c.request("textDocument/definition", support::text_pos(unknown, 3, 1));
                assert!(r.get("id").is_some(), "{r}");
                change(c, unknown, 5, vec![json!({ "text": "class U { }" })]);
            }
            // Close and reopen with other text.
            3 => {
                c.notify(
                    "textDocument/didClose",
                    json!({ "textDocument": { "uri": uri } }),
                );
                let t = TEXTS[rng.below(TEXTS.len())];
                c.open(&uri, t);
            }
            // Requests at random places of the document.
            4 => {
                let (l, ch) = (rng.below(14) as u32, rng.below(40) as u32);
                for m in ["textDocument/hover", "textDocument/definition"] {
                    let r = c.request(m, support::text_pos(&uri, l, ch));
                    assert!(r.get("id").is_some(), "{r}");
                }
            }
            // An emoji, then an edit inside its surrogate pair.
            5 => {
                change(
                    c,
                    &uri,
                    version,
                    vec![
                        json!({ "range": { "start": pos(0, 0), "end": pos(0, 0) }, "text": "//😀\n" }),
                        json!({ "range": { "start": pos(0, 3), "end": pos(0, 4) }, "text": "x" }),
                    ],
                );
            }
            // Let some verification start.
            6 => std::thread::sleep(Duration::from_millis(rng.below(300) as u64)),
            _ => {
                let e = random_edit(rng, 12);
                change(c, &uri, version, vec![e]);
            }
        }
    }
    // The final text, sent whole, with random line ends.
    let mut last = TEXTS[rng.below(TEXTS.len())].to_string();
    match rng.below(3) {
        0 => last = last.replace('\n', "\r\n"),
        1 => last = last.replace('\n', "\r"),
        _ => {}
    }
    change(c, &uri, version + 1, vec![json!({ "text": last })]);
    (uri, last, version + 1)
}

#[test]
fn soak_the_language_server() {
    let rounds = std::env::var("SIFT_SOAK")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(DEFAULT_ROUNDS);
    let seed = std::env::var("SIFT_SOAK_SEED")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(DEFAULT_SEED);
    let mut rng = Rng::new(seed);
    let mut c =
        Client::initialized_with(json!({ "timeoutMs": 20_000, "debounceMs": 30, "jobs": 1 }));
    let mut max_rss = 0;
    for r in 0..rounds {
        let (uri, text, version) = round(&mut c, &mut rng, r);
        let want = expected(&text, &format!("round-{seed}-{r}.sift"));
        let settled = c.wait_for(VERIFY_WAIT, "the final diagnostics", |m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri.as_str()
                && m["params"]["version"] == version
                && m["params"]["diagnostics"]
                    .as_array()
                    .is_some_and(|d| published(d) == want)
        });
        // The fast diagnostics come first; the verifier's may follow (these
        // small programs verify within the window in a debug build).
        let later = publishes_within(&mut c, &uri, SETTLE);
        for d in later {
            assert_eq!(published(&d), want, "seed {seed}, round {r}: {settled}");
        }
        max_rss = max_rss.max(rss_kb(&c));
        assert!(
            max_rss < MAX_RSS_KB,
            "seed {seed}, round {r}: {max_rss} kB resident"
        );
        // Received and not asked for: dropped, so memory stays bounded here too.
        c.pending.clear();
    }
    eprintln!("soak: {rounds} rounds from seed {seed}, at most {max_rss} kB resident");
    // Shutdown while a verification runs.
    c.open(
        "file:///slow.sift",
        "class S {\n  static void m(int x, int y, int z) {\n    assume x > 0 && y > 0 && z > 0;\n    assert x * x * x + y * y * y != z * z * z;\n  }\n}\n",
    );
    std::thread::sleep(Duration::from_millis(300));
    let status = c.shutdown_and_exit();
    assert_not_panic(status);
    assert!(status.success(), "{status:?}");
}

/// The input ends in the middle of a burst (and of a message): the server
/// exits on its own, without a panic.
#[test]
fn abrupt_end_of_input_mid_burst() {
    let mut c = Client::initialized();
    c.open("file:///a.sift", TEXTS[1]);
    let mut rng = Rng::new(7);
    for v in 2..40 {
        let e = random_edit(&mut rng, 8);
        change(&mut c, "file:///a.sift", v, vec![e]);
    }
    c.send_raw(b"Content-Length: 500\r\n\r\n{\"jsonrpc\": \"2.0\", \"method\": \"textDo");
    c.close_stdin();
    let status = c.wait_exit(REPLY_WAIT);
    assert_not_panic(status);
}
