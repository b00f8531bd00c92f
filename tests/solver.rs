//! The solver's configuration seen from the command line: failures come back
//! as failures with counterexamples (never as a solver that gave up), the
//! same in every run and with any thread count; the resource limit is
//! reported as such; the SMT log replays with the verifier's own answers.

use std::process::{Command, Output};

fn sift(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sift"))
        .args(args)
        .output()
        .expect("run sift")
}

fn program(name: &str) -> String {
    format!(
        "{}/tests/programs/verify/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// The JSON document without its timings, as text.
fn json_without_times(o: &Output) -> String {
    fn strip(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(m) => {
                m.remove("time_ms");
                m.values_mut().for_each(strip);
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    strip(&mut v);
    v.to_string()
}

#[test]
fn failures_come_back_as_failures_with_counterexamples() {
    // With a 2 s backstop, a query that ran into it would show as a note.
    let o = sift(&[
        "verify",
        "--json",
        "--timeout",
        "2",
        &program("fast_failures.sift"),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let errors = v["files"][0]["errors"].as_array().expect("errors");
    let got: Vec<String> = errors
        .iter()
        .map(|e| {
            let cex: Vec<String> = e["counterexample"]
                .as_object()
                .expect("counterexample")
                .iter()
                .map(|(k, v)| format!("{k}={}", v.as_str().expect("value")))
                .collect();
            format!(
                "{} {} {} [{}]",
                e["line"],
                e["kind"].as_str().unwrap(),
                e["method"].as_str().unwrap(),
                cex.join(" ")
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            "9 assert.failed C.m1 []",
            "11 assert.failed C.m2 [x=0]",
            "13 assert.failed C.m3 [x=0 y=1]",
            "15 assert.failed C.m4 [c=object#1 c.f=3]",
            "17 assert.failed C.m5 [c=object#1 c.get()=2]",
            "19 postcondition.failed C.m6 [result=0 x=0]",
            "21 assert.failed C.m7 [i=1 n=0]",
            "23 assert.failed C.m8 [b=true x=7]",
            "25 assert.failed C.m9 [x=0 y=1]",
            "27 assert.failed C.m10 [a=object#1 a.f=1 b=object#2 b.f=2 old(a.f)=2]",
            "29 assert.failed C.m11 [x=5 y=10]",
            "31 assert.failed C.m12 [x=-1 y=2]",
        ]
    );
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(!text.contains("gave up"), "{text}");
}

#[test]
fn reports_are_identical_in_ten_runs_with_two_threads() {
    let file = program("fast_failures.sift");
    let first = json_without_times(&sift(&["verify", "--json", "--jobs", "2", &file]));
    for _ in 0..9 {
        let again = json_without_times(&sift(&["verify", "--json", "--jobs", "2", &file]));
        assert_eq!(again, first);
    }
    let one = json_without_times(&sift(&["verify", "--json", "--jobs", "1", &file]));
    assert_eq!(one, first);
}

#[test]
fn a_query_that_reaches_the_resource_limit_is_a_failure_that_says_so() {
    let dir = std::env::temp_dir().join(format!("sift-solver-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("limit.sift");
    std::fs::write(
        &p,
        "class A {\n  static void m(int x) requires x > 1; {\n    assert x > 0;\n  }\n}\n",
    )
    .unwrap();
    let file = p.to_str().unwrap();
    let o = sift(&["verify", "--rlimit", "1", file]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("[assert.failed]"), "{err}");
    assert!(
        err.contains("the solver gave up: the query used up its resource limit (--rlimit)"),
        "{err}"
    );
    let o = sift(&["verify", file]);
    assert_eq!(o.status.code(), Some(0));
    let o = sift(&["verify", "--rlimit", "0", file]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn the_smt_log_replays_with_the_verifiers_answers() {
    let log = std::env::temp_dir().join(format!("sift-solver-{}.smt2", std::process::id()));
    let o = sift(&[
        "verify",
        "--json",
        "--smt-log",
        log.to_str().unwrap(),
        &program("fast_failures.sift"),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let queries: u64 = v["files"][0]["methods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["queries"].as_u64().unwrap())
        .sum();
    let text = std::fs::read_to_string(&log).expect("log");
    assert!(text.contains("(set-option :auto_config false)"), "{text}");
    assert_eq!(text.matches("(check-sat)").count() as u64, queries);
    let Ok(out) = Command::new("z3").arg(&log).output() else {
        return; // the z3 binary is optional; .ci/run installs it
    };
    let answers: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(answers.len() as u64, queries, "{answers:?}");
    assert_eq!(answers, logged_answers(&text));
    // Every answer is a yes or a no (`unknown` is Z3's "incomplete
    // quantifiers", a candidate model), never a limit or an error; the
    // verifier's twelve proofs are the `unsat` ones.
    assert!(
        answers
            .iter()
            .all(|a| ["unsat", "sat", "unknown"].contains(&a.as_str())),
        "{answers:?}"
    );
    assert_eq!(answers.iter().filter(|a| *a == "unsat").count(), 12);
}

/// The answers the verifier got, as the log records them after each query.
fn logged_answers(log: &str) -> Vec<String> {
    log.lines()
        .filter_map(|l| l.strip_prefix("; answer: "))
        .map(str::to_string)
        .collect()
}

/// Every `.sift` file under `dir`, recursively, in a fixed order.
fn sift_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            sift_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "sift") {
            out.push(path);
        }
    }
}

/// `--smt-log` replays faithfully on every example and test program: each
/// query in the log has its `check-sat`, and `z3 FILE` gives, query by
/// query, the answer the verifier got (recorded as `; answer: ...`).
#[test]
fn every_programs_smt_log_replays_with_the_same_answers() {
    if Command::new("z3").arg("-version").output().is_err() {
        eprintln!("SKIPPED: the z3 binary is not installed (.ci/run installs it)");
        return;
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    sift_files(&root.join("examples"), &mut files);
    sift_files(&root.join("tests/programs"), &mut files);
    assert!(files.len() > 50, "{files:?}");
    let scratch = std::env::temp_dir().join(format!("sift-replay-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    let replay = |(i, file): (usize, &std::path::PathBuf)| -> Option<String> {
        let log = scratch.join(format!("{i}.smt2"));
        let o = sift(&["verify", "--smt-log", log.to_str()?, file.to_str()?]);
        let code = o.status.code();
        if code == Some(2) {
            return None; // a parse or type error: nothing was asked
        }
        let text = std::fs::read_to_string(&log).ok()?;
        let asked = text.lines().filter(|l| *l == "(check-sat)").count();
        let logged = logged_answers(&text);
        let z3 = Command::new("z3").arg(&log).output().expect("run z3");
        let replayed: Vec<String> = String::from_utf8_lossy(&z3.stdout)
            .lines()
            .map(str::to_string)
            .collect();
        (asked != logged.len() || logged != replayed).then(|| {
            format!(
                "{}: {asked} queries, verifier {logged:?}, z3 {replayed:?}",
                file.display()
            )
        })
    };
    let half = files.len().div_ceil(2);
    let failures: Vec<String> = std::thread::scope(|s| {
        let parts: Vec<_> = files
            .chunks(half)
            .enumerate()
            .map(|(k, part)| {
                s.spawn(move || {
                    part.iter()
                        .enumerate()
                        .filter_map(|(i, f)| replay((k * half + i, f)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        parts.into_iter().flat_map(|p| p.join().unwrap()).collect()
    });
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
