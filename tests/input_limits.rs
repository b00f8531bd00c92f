//! Inputs that must be refused before they cost anything: special files,
//! endless devices, and an SMT log that would overwrite a program. Every
//! run has a deadline, so a command that blocks fails the test instead of
//! hanging it.

#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Far above what a refusal takes; only a hang gets near it.
const DEADLINE: Duration = Duration::from_secs(60);

fn sift_guarded(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sift"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run sift");
    let start = Instant::now();
    while child.try_wait().expect("wait for sift").is_none() {
        if start.elapsed() > DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            panic!("`sift {}` still running after {DEADLINE:?}", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("sift output")
}

fn temp_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sift-input-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn assert_refused(o: &Output, needle: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "stderr: {err}");
    assert!(err.contains(needle), "expected `{needle}` in: {err}");
    assert!(!err.contains("panicked"), "{err}");
}

fn mkfifo(path: &Path) {
    let ok = Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("run mkfifo");
    assert!(ok.success(), "mkfifo {}", path.display());
}

const PROGRAM: &str =
    "class A {\n  static void m(int x) requires x > 0; {\n    assert x >= 1;\n  }\n}\n";

#[test]
fn endless_devices_are_refused_without_reading() {
    for dev in ["/dev/zero", "/dev/urandom"] {
        let o = sift_guarded(&["verify", dev]);
        assert_refused(
            &o,
            &format!("cannot read `{dev}`: it is a character device"),
        );
        let o = sift_guarded(&["verify", "--json", dev]);
        assert_eq!(o.status.code(), Some(2));
        let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
        assert_eq!(doc["files"][0]["stage"], "read", "{doc}");
        let msg = doc["files"][0]["error"].as_str().unwrap_or("");
        assert!(msg.contains("not a regular file"), "{doc}");
        let o = sift_guarded(&["debug", dev]);
        assert_refused(&o, "it is a character device, not a regular file");
    }
}

#[test]
fn a_fifo_input_is_refused_without_blocking() {
    let dir = temp_dir("fifo-in");
    let fifo = dir.join("prog.sift");
    mkfifo(&fifo);
    let f = fifo.to_str().unwrap();
    let o = sift_guarded(&["verify", f]);
    assert_refused(&o, "it is a named pipe (FIFO), not a regular file");
    let o = sift_guarded(&["debug", f]);
    assert_refused(&o, "it is a named pipe (FIFO), not a regular file");
}

#[test]
fn a_fifo_smt_log_is_refused_before_verifying() {
    let dir = temp_dir("fifo-log");
    let prog = dir.join("a.sift");
    std::fs::write(&prog, PROGRAM).unwrap();
    let fifo = dir.join("log.smt2");
    mkfifo(&fifo);
    let o = sift_guarded(&[
        "verify",
        "--smt-log",
        fifo.to_str().unwrap(),
        prog.to_str().unwrap(),
    ]);
    assert_refused(&o, "--smt-log: cannot write");
    assert_refused(&o, "it is a named pipe (FIFO), not a regular file");
    assert!(o.stdout.is_empty(), "nothing verified");
}

#[test]
fn an_smt_log_onto_an_input_is_refused_and_the_input_kept() {
    let dir = temp_dir("log-onto-input");
    let prog = dir.join("a.sift");
    let other = dir.join("b.sift");
    std::fs::write(&prog, PROGRAM).unwrap();
    std::fs::write(&other, PROGRAM).unwrap();
    let link = dir.join("link.smt2");
    std::os::unix::fs::symlink(&prog, &link).unwrap();
    let spelled_otherwise = dir.join(".").join("a.sift");
    for log in [&prog, &link, &spelled_otherwise] {
        let o = sift_guarded(&[
            "verify",
            "--smt-log",
            log.to_str().unwrap(),
            other.to_str().unwrap(),
            prog.to_str().unwrap(),
        ]);
        assert_refused(
            &o,
            &format!(
                "--smt-log: `{}` is the input file `{}`; refusing to overwrite it",
                log.display(),
                prog.display()
            ),
        );
        assert!(o.stdout.is_empty(), "nothing verified");
        assert_eq!(std::fs::read_to_string(&prog).unwrap(), PROGRAM);
    }
    // A log beside the inputs is still written, replacing what was there.
    let log = dir.join("log.smt2");
    std::fs::write(&log, "x".repeat(1 << 20)).unwrap();
    let o = sift_guarded(&[
        "verify",
        "--smt-log",
        log.to_str().unwrap(),
        prog.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.starts_with("(reset)\n"), "{}", &text[..40]);
    assert!(!text.contains("xxx"));
}

#[test]
fn a_file_over_the_limit_is_refused_and_one_at_the_limit_read() {
    let dir = temp_dir("size");
    let big = dir.join("big.sift");
    std::fs::write(&big, vec![b' '; (4 << 20) + 1]).unwrap();
    let o = sift_guarded(&["verify", big.to_str().unwrap()]);
    assert_refused(
        &o,
        "is too large (4194305 bytes; Sift reads source files of at most 4194304 bytes)",
    );
    let o = sift_guarded(&["debug", big.to_str().unwrap()]);
    assert_refused(&o, "is too large");
    // Exactly at the limit: read, and a program padded with blanks verifies.
    let mut at_limit = PROGRAM.as_bytes().to_vec();
    at_limit.resize(4 << 20, b' ');
    let exact = dir.join("exact.sift");
    std::fs::write(&exact, at_limit).unwrap();
    let o = sift_guarded(&["verify", exact.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}
