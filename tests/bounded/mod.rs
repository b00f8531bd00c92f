//! Running the built `sift` on a file with a time limit, and the properties
//! every run must have whatever the input: an exit status of 0, 1 or 2, no
//! panic or stack overflow, JSON of the documented shape (docs/language.md section 10).
//! Shared by the deep-input, fuzz, soak, engine-bound and server-load
//! tests, with their random numbers and a program no engine run finishes.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

pub struct Outcome {
    /// `None`: killed after the time limit.
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
}

/// Runs `sift ARGS` with `stdin` as its input, killing it after `limit`.
pub fn sift(args: &[&str], stdin: &str, limit: Duration) -> Outcome {
    let start = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_sift"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cannot start sift");
    let mut input = child.stdin.take().expect("stdin is piped");
    let stdin = stdin.to_string();
    // Written from a thread: a child that stops reading must not block us.
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(stdin.as_bytes());
    });
    let mut out = child.stdout.take().expect("stdout is piped");
    let mut err = child.stderr.take().expect("stderr is piped");
    let reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = out.read_to_end(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = err.read_to_end(&mut s);
        s
    });
    let code = loop {
        if let Some(status) = child.try_wait().expect("wait for sift") {
            break Some(status);
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let _ = writer.join();
    let stdout = String::from_utf8_lossy(&reader.join().unwrap_or_default()).into_owned();
    let stderr = String::from_utf8_lossy(&err_reader.join().unwrap_or_default()).into_owned();
    Outcome {
        // A signal (abort on stack overflow) has no code: reported as 134+.
        code: code.map(|s| s.code().unwrap_or(128 + 6)),
        stdout,
        stderr,
        elapsed: start.elapsed(),
    }
}

impl Outcome {
    /// Why this run breaks the properties every run must have, if it does.
    pub fn crash(&self) -> Option<String> {
        let text = format!("{}{}", self.stdout, self.stderr);
        match self.code {
            None => Some(format!("no answer within {:?}", self.elapsed)),
            Some(c) if !(0..=2).contains(&c) => Some(format!("exit status {c}")),
            _ if text.contains("panicked") => Some("a panic".to_string()),
            _ if text.contains("overflowed") => Some("a stack overflow".to_string()),
            _ if text.contains("internal error") => Some("an internal error".to_string()),
            _ => None,
        }
        .map(|why| {
            format!(
                "{why}\n--- stdout (end) ---\n{}\n--- stderr (end) ---\n{}",
                tail(&self.stdout),
                tail(&self.stderr)
            )
        })
    }
}

fn tail(s: &str) -> &str {
    let mut cut = s.len().saturating_sub(3000);
    while !s.is_char_boundary(cut) {
        cut += 1;
    }
    &s[cut..]
}

/// Checks the JSON document of `sift verify --json` against docs/language.md
/// section 10 and the exit status; returns it.
pub fn check_json(text: &str, code: i32) -> Result<Value, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}\n{text}"))?;
    let files = v["files"].as_array().ok_or("no `files` array")?;
    let mut any_error = false;
    let mut any_failed = false;
    for f in files {
        f["path"].as_str().ok_or("a file without `path`")?;
        for e in f["errors"].as_array().ok_or("a file without `errors`")? {
            any_error = true;
            let kind = e["kind"].as_str().ok_or("an error without `kind`")?;
            e["message"].as_str().ok_or("an error without `message`")?;
            for n in ["line", "column"] {
                if e[n].as_u64().is_none_or(|l| l < 1) {
                    return Err(format!("an error without a 1-based `{n}`: {e}"));
                }
            }
            // Errors outside any member (parse, type) have no method name.
            if !e["method"].is_string() && !e["method"].is_null() {
                return Err(format!("an error with a bad `method`: {e}"));
            }
            if matches!(kind, "parse" | "type") {
                any_failed = true;
            }
        }
        for m in f["methods"].as_array().ok_or("a file without `methods`")? {
            m["name"].as_str().ok_or("a method without `name`")?;
            match m["status"].as_str() {
                Some("verified") => {}
                Some("failed") => any_failed = true,
                other => return Err(format!("a method with status {other:?}")),
            }
        }
    }
    let expected = if !any_error && !any_failed {
        0
    } else if files
        .iter()
        .flat_map(|f| f["errors"].as_array().into_iter().flatten())
        .any(|e| matches!(e["kind"].as_str(), Some("parse" | "type")))
    {
        2
    } else {
        1
    };
    if code != expected {
        return Err(format!(
            "exit status {code} for this JSON (expected {expected})"
        ));
    }
    Ok(v)
}

/// The JSON document without what differs between runs of the same input
/// (times, cache use).
pub fn without_times(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| !k.contains("time") && !k.ends_with("_ms") && *k != "cached")
                .map(|(k, x)| (k.clone(), without_times(x)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(without_times).collect()),
        x => x.clone(),
    }
}

/// Writes `text` to a fresh file under the target directory.
pub fn write_temp(dir: &str, name: &str, text: &str) -> std::path::PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(dir);
    std::fs::create_dir_all(&dir).expect("create the temporary directory");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write the program");
    path
}

/// xorshift64*: small, seeded, good enough to pick grammar rules and edits.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        // Spread nearby seeds apart; never zero.
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// A class `class` with a predicate of 2^40 paths through one production
/// (each conditional permission splits the path): finite, but far beyond
/// any work budget or time. It never reaches a statement or a solver query
/// that could not finish, so only the engine's own bounds (the work budget,
/// cancellation, a member's deadline) stop it.
pub fn forty_splits(class: &str) -> String {
    let n = 40;
    let fields: String = (0..n).map(|i| format!(" int a{i}; int b{i};")).collect();
    let body: Vec<String> = (0..n)
        .map(|i| format!("acc(a{i}) && (a{i} > 0 ==> acc(b{i}))"))
        .collect();
    format!(
        "class {class} {{\n {fields}\n  predicate p() {{ return {}; }}\n}}\n",
        body.join(" && ")
    )
}
