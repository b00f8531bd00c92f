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
            "17 assert.failed C.m5 [c=object#1]",
            "19 postcondition.failed C.m6 [result=0 x=0]",
            "21 assert.failed C.m7 [i=1 n=0]",
            "23 assert.failed C.m8 [b=true x=7]",
            "25 assert.failed C.m9 [x=0 y=1]",
            "27 assert.failed C.m10 [a=object#1 a.f=1 b=object#2 b.f=2]",
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
