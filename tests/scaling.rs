//! Large generated programs still get exact answers: long straight-line
//! methods, many locals and parameters, values built by doubling, and a
//! failure at the end of a long path (whose trace keeps the states of its
//! last steps only). Sizes are moderate; speed is measured in `bench/`.

use std::process::{Command, Output};

fn sift(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sift"))
        .args(args)
        .output()
        .expect("run sift")
}

fn write(name: &str, src: &str) -> String {
    let dir = std::env::temp_dir().join(format!("sift-scaling-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let p = dir.join(name);
    std::fs::write(&p, src).expect("write program");
    p.to_str().unwrap().to_string()
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "bad JSON ({e}); stderr: {}",
            String::from_utf8_lossy(&o.stderr)
        )
    })
}

/// (kind, line) of every error of the only file.
fn errors(doc: &serde_json::Value) -> Vec<(String, i64)> {
    doc["files"][0]["errors"]
        .as_array()
        .expect("errors")
        .iter()
        .map(|e| {
            (
                e["kind"].as_str().unwrap().to_string(),
                e["line"].as_i64().unwrap(),
            )
        })
        .collect()
}

/// `x = x + 1; assert x > 0;` n times over a parameter, with `extra`
/// inserted after pair `at` (line numbers: the pairs start on line 3).
fn counter(n: usize, at: usize, extra: &str) -> String {
    let mut body = String::new();
    for i in 0..n {
        body.push_str("    x = x + 1;\n    assert x > 0;\n");
        if i + 1 == at {
            body.push_str(extra);
        }
    }
    format!("class A {{\n  static void m(int x) requires x >= 0; {{\n{body}  }}\n}}\n")
}

#[test]
fn a_long_counter_verifies_and_its_failing_twin_fails_at_the_exact_line() {
    let good = write(
        "counter.sift",
        &counter(3000, 1500, "    assert x >= 1500;\n"),
    );
    let o = sift(&["verify", "--json", &good]);
    assert_eq!(o.status.code(), Some(0), "{}", json(&o));
    // After 1500 increments of x >= 0, `x > 1500` fails (x = 0 at entry):
    // line 2 + 2 * 1500 + 1.
    let bad = write(
        "counter-bad.sift",
        &counter(3000, 1500, "    assert x > 1500;\n"),
    );
    let o = sift(&["verify", "--json", &bad]);
    assert_eq!(o.status.code(), Some(1));
    let doc = json(&o);
    assert_eq!(errors(&doc), vec![("assert.failed".to_string(), 3003)]);
    assert_eq!(doc["files"][0]["errors"][0]["counterexample"]["x"], "1500");
    // Counting down past the start is caught the same way.
    let down = "    x = x - 1;\n    assert x > 0;\n".repeat(2000);
    let src = format!(
        "class A {{\n  static void m(int x) requires x > 2000; {{\n{down}    assert x == 0;\n  }}\n}}\n"
    );
    let o = sift(&["verify", "--json", &write("down.sift", &src)]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(errors(&json(&o)), vec![("assert.failed".to_string(), 4003)]);
}

#[test]
fn many_locals_and_parameters_are_checked_exactly() {
    let n: usize = 5000;
    let mut body: String = (0..n).map(|i| format!("    int x{i} = {i};\n")).collect();
    body.push_str("    int x1234 = 0;\n    assert x4999 == 4999;\n");
    let src = format!("class A {{\n  static void m() {{\n{body}  }}\n}}\n");
    let o = sift(&["verify", "--json", &write("locals.sift", &src)]);
    assert_eq!(o.status.code(), Some(2));
    let doc = json(&o);
    assert_eq!(errors(&doc), vec![("type".to_string(), n as i64 + 3)]);
    let related = &doc["files"][0]["errors"][0]["related"][0];
    assert_eq!(related["line"], 1234 + 3);

    let mut params: Vec<String> = (0..n).map(|i| format!("int p{i}")).collect();
    params.push("int p4321".into());
    let src = format!(
        "class A {{\n  static void m({}) {{\n    assert p0 == p0;\n  }}\n}}\n",
        params.join(", ")
    );
    let o = sift(&["verify", "--json", &write("params.sift", &src)]);
    assert_eq!(o.status.code(), Some(2));
    let doc = json(&o);
    let e = &doc["files"][0]["errors"][0];
    assert_eq!(errors(&doc), vec![("type".to_string(), 2)]);
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("`p4321` is bound more than once"),
        "{e}"
    );

    params.pop();
    let src = format!(
        "class A {{\n  static void m({}) requires p4999 > 0; {{\n    assert p4999 >= 1;\n  }}\n}}\n",
        params.join(", ")
    );
    let o = sift(&["verify", &write("params-ok.sift", &src)]);
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn a_value_built_by_doubling_is_verified_and_printed_in_bounded_size() {
    let body = "    x = x + x;\n".repeat(40);
    let ok = format!(
        "class A {{\n  static void m(int x) requires x >= 0; {{\n{body}    assert x >= 0;\n  }}\n}}\n"
    );
    let o = sift(&["verify", &write("double.sift", &ok)]);
    assert_eq!(o.status.code(), Some(0));
    let bad = ok.replace("assert x >= 0;", "assert x >= 1;");
    let o = sift(&["verify", "--json", &write("double-bad.sift", &bad)]);
    assert_eq!(o.status.code(), Some(1));
    let doc = json(&o);
    assert_eq!(errors(&doc), vec![("assert.failed".to_string(), 43)]);
    let trace = doc["files"][0]["errors"][0]["trace"].as_array().unwrap();
    let x = trace.last().unwrap()["store"]["x"].as_str().unwrap();
    assert!(x.ends_with('…') && x.len() < 5000, "{} bytes", x.len());
}

#[test]
fn a_failure_after_a_long_path_keeps_the_last_states_of_its_trace() {
    let n: usize = 3000;
    let body: String = (0..n)
        .map(|i| format!("    int y{i} = x + {i};\n"))
        .collect();
    let src = format!(
        "class A {{\n  static void m(int x) requires x >= 0; {{\n{body}    assert y2999 > 3000;\n  }}\n}}\n"
    );
    let path = write("long-fail.sift", &src);
    let o = sift(&["verify", "--json", &path]);
    assert_eq!(o.status.code(), Some(1));
    let doc = json(&o);
    assert_eq!(
        errors(&doc),
        vec![("assert.failed".to_string(), n as i64 + 3)]
    );
    let trace = doc["files"][0]["errors"][0]["trace"].as_array().unwrap();
    // Every statement is a step, with its line.
    assert!(trace.len() > n, "{} steps", trace.len());
    let lines: Vec<i64> = trace.iter().map(|s| s["line"].as_i64().unwrap()).collect();
    assert!(lines.contains(&3) && lines.contains(&(n as i64 + 2)));
    // The last steps show their whole state; the early ones are marked.
    let last = trace.last().unwrap();
    assert_eq!(last["store"].as_object().unwrap().len(), n + 1);
    assert_eq!(last["store"]["y2999"], "(x + 2999)");
    assert!(last.get("state_omitted").is_none());
    assert_eq!(trace[1]["state_omitted"], true);
    assert_eq!(trace[1]["store"].as_object().unwrap().len(), 0);
    let kept = trace
        .iter()
        .filter(|s| s.get("state_omitted").is_none())
        .count();
    assert!((2..200).contains(&kept), "{kept} steps with their state");
    // Text mode says which steps are shown without their state.
    let o = sift(&["verify", "--trace", &path]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("(state not shown: the trace is long"),
        "{}",
        &err[..500]
    );
}
