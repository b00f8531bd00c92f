//! `--partition K/N`: the shares of a run together report exactly what one
//! full run reports; bad shares are usage errors.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

fn sift(args: &[String]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sift"))
        .args(args)
        .output()
        .expect("run sift")
}

/// Every test program that gets as far as verification.
fn programs() -> Vec<String> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/programs/verify");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .expect("tests/programs/verify")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "sift"))
        .map(|p| p.display().to_string())
        .collect();
    files.sort();
    files.push(format!("{}/examples/list.sift", env!("CARGO_MANIFEST_DIR")));
    assert!(files.len() > 10);
    files
}

/// What a run reports: `(path, member, status)` and
/// `(path, kind, line, column, message)`.
type Members = BTreeSet<(String, String, String)>;
type Errors = BTreeSet<(String, String, u64, u64, String)>;

fn run(files: &[String], share: Option<&str>) -> (i32, Value, Members, Errors) {
    let mut args = vec!["verify".to_string(), "--json".to_string()];
    if let Some(s) = share {
        args.push("--partition".to_string());
        args.push(s.to_string());
    }
    args.extend(files.iter().cloned());
    let o = sift(&args);
    let doc: Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let mut members = Members::new();
    let mut errors = Errors::new();
    for f in doc["files"].as_array().unwrap() {
        let path = f["path"].as_str().unwrap().to_string();
        for m in f["methods"].as_array().unwrap() {
            let fresh = members.insert((
                path.clone(),
                m["name"].as_str().unwrap().to_string(),
                m["status"].as_str().unwrap().to_string(),
            ));
            assert!(fresh, "a member is listed once");
        }
        for e in f["errors"].as_array().unwrap() {
            errors.insert((
                path.clone(),
                e["kind"].as_str().unwrap().to_string(),
                e["line"].as_u64().unwrap(),
                e["column"].as_u64().unwrap(),
                e["message"].as_str().unwrap().to_string(),
            ));
        }
    }
    (o.status.code().expect("exit code"), doc, members, errors)
}

#[test]
fn three_shares_add_up_to_the_full_run() {
    let files = programs();
    let (full_code, _, full_members, full_errors) = run(&files, None);
    assert_eq!(full_code, 1);
    assert!(full_members.len() > 50);

    let mut members = Members::new();
    let mut errors = Errors::new();
    let mut codes = Vec::new();
    for share in ["1/3", "2/3", "3/3"] {
        let (code, doc, m, e) = run(&files, Some(share));
        assert_eq!(doc["partition"]["count"], 3);
        assert!(!m.is_empty(), "share {share} is empty");
        assert!(m.len() < full_members.len(), "share {share} has everything");
        // Exit status of the share's own members.
        let failed = m.iter().any(|(_, _, status)| status == "failed");
        assert_eq!(code, if failed { 1 } else { 0 }, "share {share}");
        for x in &m {
            assert!(members.insert(x.clone()), "{x:?} is in two shares");
        }
        for x in &e {
            assert!(
                m.iter().any(|(path, _, _)| *path == x.0),
                "an error of a file with no member in the share"
            );
        }
        errors.extend(e);
        codes.push(code);
    }
    assert_eq!(members, full_members);
    assert_eq!(errors, full_errors);
    assert_eq!(codes.into_iter().max(), Some(full_code));
}

#[test]
fn shares_are_deterministic() {
    let files = programs();
    let (_, a, _, _) = run(&files, Some("2/5"));
    let (_, b, _, _) = run(&files, Some("2/5"));
    let names = |d: &Value| -> Vec<String> {
        d["files"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|f| f["methods"].as_array().unwrap().clone())
            .map(|m| m["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(names(&a), names(&b));
    let (code, whole, _, _) = run(&files, Some("1/1"));
    let (_, full, _, _) = run(&files, None);
    assert_eq!(names(&whole), names(&full));
    assert_eq!(code, 1);
}

#[test]
fn every_share_reports_parse_and_type_errors() {
    let dir = std::env::temp_dir().join(format!("sift-partition-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let typed = dir.join("type.sift");
    std::fs::write(
        &typed,
        "class A {\n  static void m() { int x = true; }\n  static void n() { }\n}\n",
    )
    .unwrap();
    let parsed = dir.join("parse.sift");
    std::fs::write(&parsed, "class A {\n  static void m( { }\n}\n").unwrap();
    for (file, stage) in [(typed, "check"), (parsed, "parse")] {
        for share in ["1/2", "2/2"] {
            let files = [file.display().to_string()];
            let (code, doc, members, errors) = run(&files, Some(share));
            assert_eq!(code, 2, "{doc:#}");
            assert_eq!(errors.len(), 1, "{doc:#}");
            assert!(members.is_empty());
            assert_eq!(doc["files"][0]["stage"], stage);
        }
    }
}

#[test]
fn bad_shares_are_usage_errors() {
    let file = format!("{}/examples/cell.sift", env!("CARGO_MANIFEST_DIR"));
    for (share, why) in [
        ("0/3", "between 1 and N = 3"),
        ("4/3", "between 1 and N = 3"),
        ("x/y", "expected K/N"),
        ("3", "expected K/N"),
        ("1/0", "at least 1"),
        ("", "expected K/N"),
    ] {
        let o = sift(&[
            "verify".to_string(),
            "--partition".to_string(),
            share.to_string(),
            file.clone(),
        ]);
        assert_eq!(o.status.code(), Some(2), "{share}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("--partition"), "{share}: {err}");
        assert!(err.contains(why), "{share}: {err}");
        assert!(o.stdout.is_empty(), "{share}");
    }
}

#[test]
fn text_summary_names_the_share() {
    let file = format!("{}/examples/cell.sift", env!("CARGO_MANIFEST_DIR"));
    let mut seen = 0;
    for share in ["1/2", "2/2"] {
        let o = sift(&[
            "verify".to_string(),
            "--partition".to_string(),
            share.to_string(),
            file.clone(),
        ]);
        assert_eq!(o.status.code(), Some(0));
        let out = String::from_utf8_lossy(&o.stdout);
        let tail = format!(" members in share {share})");
        assert!(out.contains(&tail), "{out}");
        let n: usize = out
            .split("verified (")
            .nth(1)
            .and_then(|r| r.split(' ').next())
            .and_then(|n| n.parse().ok())
            .expect("a count");
        seen += n;
    }
    assert_eq!(seen, 5, "cell.sift has five members");
}
