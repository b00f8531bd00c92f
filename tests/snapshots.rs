//! The exact reports `sift verify` prints, as text with `--trace` and as
//! JSON, for programs whose failures cover the shapes of the record:
//! missing chunks, obligations with related places, loop and branch steps,
//! inferred steps and what an inferred close lacked.
//!
//! The expected outputs live in `tests/snapshots/`. After a deliberate
//! change, regenerate them with
//! `UPDATE_EXPECT=1 cargo test --test snapshots` and review the diff.

use std::process::Command;

use expect_test::{ExpectFile, expect_file};

/// `sift verify ARGS FILE`: its standard output and error, one after the
/// other.
fn verify(args: &[&str], file: &str) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_sift"))
        .arg("verify")
        .args(args)
        .arg(file)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run sift");
    assert_eq!(o.status.code(), Some(1), "{file} must fail to verify");
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The JSON report with the run's timings and query counts blanked (they
/// depend on the machine and on how paths were split between threads).
fn json(file: &str) -> String {
    let mut doc: serde_json::Value =
        serde_json::from_str(&verify(&["--json"], file)).expect("one JSON document");
    for f in doc["files"].as_array_mut().expect("files") {
        for m in f["methods"].as_array_mut().expect("methods") {
            m["time_ms"] = serde_json::Value::Null;
            m["queries"] = serde_json::Value::Null;
        }
    }
    serde_json::to_string_pretty(&doc).expect("printable") + "\n"
}

fn check(program: &str, text: ExpectFile, as_json: ExpectFile) {
    let file = format!("tests/programs/{program}.sift");
    text.assert_eq(&verify(&["--trace"], &file));
    as_json.assert_eq(&json(&file));
}

#[test]
fn missing_permissions() {
    check(
        "verify/permission",
        expect_file!["snapshots/permission.txt"],
        expect_file!["snapshots/permission.json"],
    );
}

#[test]
fn open_and_close() {
    check(
        "verify/open_close",
        expect_file!["snapshots/open_close.txt"],
        expect_file!["snapshots/open_close.json"],
    );
}

#[test]
fn loops() {
    check(
        "verify/loops",
        expect_file!["snapshots/loops.txt"],
        expect_file!["snapshots/loops.json"],
    );
}

#[test]
fn inferred_closes() {
    check(
        "infer/close_on_demand",
        expect_file!["snapshots/close_on_demand.txt"],
        expect_file!["snapshots/close_on_demand.json"],
    );
}

#[test]
fn inferred_opens() {
    check(
        "infer/open_on_demand",
        expect_file!["snapshots/open_on_demand.txt"],
        expect_file!["snapshots/open_on_demand.json"],
    );
}

#[test]
fn inferred_uses() {
    check(
        "infer/use_on_eval",
        expect_file!["snapshots/use_on_eval.txt"],
        expect_file!["snapshots/use_on_eval.json"],
    );
}
