//! The command line: exit codes, JSON shape, hostile inputs, the SMT log.

use std::path::PathBuf;
use std::process::{Command, Output};

fn sift(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sift"))
        .args(args)
        .output()
        .expect("run sift")
}

fn temp_file(name: &str, contents: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sift-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let p = dir.join(name);
    std::fs::write(&p, contents).expect("write temp file");
    p
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn example(name: &str) -> String {
    format!("{}/examples/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn verified_program_exits_zero() {
    let o = sift(&["verify", &example("cell.sift")]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("verified (5 of 5 members)"));
}

#[test]
fn verification_error_exits_one_with_rustc_style_text() {
    let p = temp_file(
        "fail.sift",
        b"class A {\n  static void m(int x) {\n    assert x > 0;\n  }\n}\n",
    );
    let o = sift(&["verify", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("[assert.failed] Error: assertion might not hold"),
        "{err}"
    );
    assert!(err.contains("fail.sift:3:12"), "{err}");
    assert!(err.contains("assert x > 0;"), "{err}");
}

/// A type error inside a member names it (`Class.name`); one outside any
/// member names none.
#[test]
fn type_errors_name_their_member() {
    let p = temp_file(
        "type_member.sift",
        b"class D {\n  int f;\n  void m() {\n    int x = true;\n  }\n}\nclass D { }\n",
    );
    let o = sift(&["verify", "--json", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
    let got: Vec<(u64, String)> = doc["files"][0]["errors"]
        .as_array()
        .expect("errors")
        .iter()
        .map(|e| {
            (
                e["line"].as_u64().unwrap(),
                e["method"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(got, [(4, "D.m".to_string()), (7, String::new())]);
}

#[test]
fn json_document_has_the_documented_shape() {
    let p = temp_file(
        "json.sift",
        b"class A {\n  static void m(int x) {\n    assert x > 0;\n  }\n  static void n() { }\n}\n",
    );
    let o = sift(&["verify", "--json", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
    let file = &doc["files"][0];
    assert_eq!(file["path"], p.to_str().unwrap());
    let e = &file["errors"][0];
    assert_eq!(e["kind"], "assert.failed");
    assert_eq!(e["line"], 3);
    assert_eq!(e["column"], 12);
    assert_eq!(e["method"], "A.m");
    assert!(e["message"].is_string());
    let trace = e["trace"].as_array().unwrap();
    assert!(!trace.is_empty());
    for step in trace {
        for key in [
            "line",
            "column",
            "description",
            "heap",
            "store",
            "path_condition",
            "added",
            "removed",
        ] {
            assert!(!step[key].is_null(), "trace step without `{key}`: {step}");
        }
    }
    let last = trace.last().unwrap();
    assert_eq!(last["line"], 3);
    assert!(last["description"].as_str().unwrap().starts_with("fails: "));
    assert_eq!(
        e["counterexample"]["x"]
            .as_str()
            .unwrap()
            .parse::<i64>()
            .map(|x| x <= 0),
        Ok(true)
    );
    assert_eq!(file["methods"][0]["name"], "A.m");
    assert_eq!(file["methods"][0]["status"], "failed");
    assert_eq!(file["methods"][1]["name"], "A.n");
    assert_eq!(file["methods"][1]["status"], "verified");
}

#[test]
fn type_errors_exit_two_and_are_all_reported() {
    let p = temp_file(
        "types.sift",
        b"class A {\n  void m() {\n    int x = true;\n    bool y = 1;\n  }\n}\n",
    );
    let o = sift(&["verify", "--json", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let lines: Vec<i64> = doc["files"][0]["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["line"].as_i64().unwrap())
        .collect();
    assert_eq!(lines, vec![3, 4]);
}

#[test]
fn syntax_errors_of_later_members_are_reported_too() {
    let p = temp_file(
        "syntax.sift",
        b"class A {\n  int x;\n  void m() { x = ; }\n  void n() { x = 1; }\n  void k() { x = 2 }\n}\n",
    );
    let o = sift(&["verify", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let summary = String::from_utf8_lossy(&o.stdout);
    assert!(
        summary.contains("syntax.sift: 2 syntax errors; nothing was verified"),
        "{summary}"
    );
    let text = stderr(&o);
    assert!(text.contains(":3:"), "{text}");
    assert!(text.contains(":5:"), "{text}");
}

fn assert_clear_error(o: &Output, needle: &str) {
    assert_eq!(o.status.code(), Some(2), "stderr: {}", stderr(o));
    let err = stderr(o);
    assert!(err.contains(needle), "expected `{needle}` in: {err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn hostile_inputs_get_a_clear_error_and_status_two() {
    let empty = temp_file("empty.sift", b"");
    assert_clear_error(&sift(&["verify", empty.to_str().unwrap()]), "parse");
    let binary = temp_file("binary.sift", b"class A { \xff\xfe }");
    assert_clear_error(
        &sift(&["verify", binary.to_str().unwrap()]),
        "not valid UTF-8",
    );
    let big = temp_file("big.sift", &vec![b'x'; 5 * 1024 * 1024]);
    assert_clear_error(&sift(&["verify", big.to_str().unwrap()]), "too large");
    let parens = format!(
        "class A {{ static void m() {{ int x = {}1{}; }} }}",
        "(".repeat(10_000),
        ")".repeat(10_000)
    );
    let parens = temp_file("parens.sift", parens.as_bytes());
    assert_clear_error(&sift(&["verify", parens.to_str().unwrap()]), "nesting");
    let ifs = format!(
        "class A {{ static void m(int x) {{ {} }} }}",
        "if (x > 0) {".repeat(10_000) + &"}".repeat(10_000)
    );
    let ifs = temp_file("ifs.sift", ifs.as_bytes());
    assert_clear_error(&sift(&["verify", ifs.to_str().unwrap()]), "nesting");
    let comment = temp_file("comment.sift", b"class A { /* never closed\n");
    assert_clear_error(
        &sift(&["verify", comment.to_str().unwrap()]),
        "unterminated",
    );
    assert_clear_error(&sift(&["verify", "/nonexistent/x.sift"]), "cannot read");
    assert_clear_error(&sift(&["verify", "--frobnicate", "x.sift"]), "--frobnicate");
    assert_clear_error(&sift(&["verify"]), "FILE");
    assert_clear_error(
        &sift(&["verify", "--timeout=0", &example("cell.sift")]),
        "--timeout",
    );
    let dir = std::env::temp_dir();
    assert_clear_error(&sift(&["verify", dir.to_str().unwrap()]), "directory");
}

#[test]
fn help_explains_every_flag() {
    let o = sift(&["verify", "--help"]);
    assert_eq!(o.status.code(), Some(0));
    let out = String::from_utf8_lossy(&o.stdout);
    for flag in [
        "--json",
        "--timeout",
        "--smt-log",
        "--trace",
        "--jobs",
        "--cache",
        "--partition",
        "--overflow",
        "Exit status",
    ] {
        assert!(out.contains(flag), "missing {flag} in:\n{out}");
    }
}

#[test]
fn smt_log_is_written_and_replays_in_z3() {
    let log = std::env::temp_dir().join(format!("sift-smt-{}.smt2", std::process::id()));
    let p = temp_file(
        "smt.sift",
        b"class A {\n  static void m(int x) requires x > 0; {\n    assert x >= 1;\n  }\n}\n",
    );
    let o = sift(&[
        "verify",
        "--smt-log",
        log.to_str().unwrap(),
        &example("cell.sift"),
        p.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(&log).expect("log written");
    assert!(text.contains("(declare-sort Snap 0)"));
    assert!(text.contains("(check-sat)"), "{text}");
    assert!(text.contains("; does `x >= 1` hold?"), "{text}");
    assert!(text.contains("; Sift: Client.main"));
    assert!(text.contains("|Cell.getX|"));
    // Replaying needs the z3 binary; every query the verifier proved must be unsat.
    if let Ok(out) = Command::new("z3").arg(&log).output() {
        let answers = String::from_utf8_lossy(&out.stdout);
        assert!(!answers.contains("error"), "{answers}");
        assert!(answers.contains("unsat"), "{answers}");
    }
}

#[test]
fn a_long_straight_line_method_verifies() {
    let body = "    x = x + 1;\n".repeat(10_000);
    let src = format!(
        "class A {{\n  static void m() {{\n    int x = 0;\n{body}    assert x == 10000;\n  }}\n}}\n"
    );
    let p = temp_file("long.sift", src.as_bytes());
    let o = sift(&["verify", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// The JSON report without the timings, which vary from run to run.
fn json_without_times(o: &Output) -> serde_json::Value {
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
    v
}

#[test]
fn reports_are_the_same_whatever_the_thread_count() {
    let file = format!(
        "{}/tests/programs/verify/split_paths.sift",
        env!("CARGO_MANIFEST_DIR")
    );
    let runs: Vec<serde_json::Value> = ["1", "2", "3"]
        .iter()
        .map(|j| {
            let o = sift(&["verify", "--json", "--jobs", j, &file]);
            assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
            json_without_times(&o)
        })
        .collect();
    assert_eq!(runs[0], runs[1]);
    assert_eq!(runs[0], runs[2]);
    let lines: Vec<u64> = runs[0]["files"][0]["errors"]
        .as_array()
        .expect("errors")
        .iter()
        .map(|e| e["line"].as_u64().expect("line"))
        .collect();
    assert_eq!(lines, vec![7, 9, 16, 23]);
}

/// `static int f(int x)` ending in an `if` with `n` `else if` links, which
/// verifies (the postcondition holds on every link).
fn long_chain(n: usize) -> String {
    let links: String = (1..=n)
        .map(|i| format!("    else if (x == {i}) {{ return {i}; }}\n"))
        .collect();
    format!(
        "class A {{\n  static int f(int x)\n    ensures x == 0 ==> result == 0;\n    ensures x < 0 ==> result == -1;\n  {{\n    if (x == 0) {{ return 0; }}\n{links}    else {{ return -1; }}\n  }}\n}}\n"
    )
}

#[test]
fn a_long_else_if_chain_verifies() {
    let p = temp_file("chain.sift", long_chain(1_000).as_bytes());
    let o = sift(&["verify", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("verified (1 of 1 members)"));
    // One link more than the parser accepts: a parse error naming the limit.
    let p = temp_file("chain_too_long.sift", long_chain(10_001).as_bytes());
    let o = sift(&["verify", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("[parse] Error: `else if` chain too long: more than 10000 links"),
        "{err}"
    );
    assert!(err.contains("chain_too_long.sift:10007:5"), "{err}");
}

#[test]
fn inferred_steps_are_in_the_trace_and_no_infer_turns_them_off() {
    let p = temp_file(
        "infer.sift",
        b"class C {\n  int x;\n  predicate valid() { return acc(x) && x >= 0; }\n  static void breaks(C c)\n    requires c.valid();\n    ensures c.valid();\n  {\n    c.x = -7;\n  }\n}\n",
    );
    let o = sift(&["verify", "--json", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let e = &v["files"][0]["errors"][0];
    assert_eq!(e["kind"], "postcondition.failed");
    assert_eq!(e["line"], 6);
    let steps: Vec<&str> = e["trace"]
        .as_array()
        .expect("trace")
        .iter()
        .map(|s| s["description"].as_str().expect("description"))
        .collect();
    assert!(
        steps.contains(&"inferred: open `c.valid()` for `c.x`"),
        "{steps:?}"
    );
    let notes = e["notes"].to_string();
    assert!(
        notes.contains("could not close `c.valid()`: `x >= 0` might not hold"),
        "{notes}"
    );
    // Without inference the write itself has no permission.
    let o = sift(&["verify", "--json", "--no-infer", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let kinds: Vec<(String, u64)> = v["files"][0]["errors"]
        .as_array()
        .expect("errors")
        .iter()
        .map(|e| {
            (
                e["kind"].as_str().unwrap().to_string(),
                e["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(kinds, vec![("permission.missing".to_string(), 8)]);
}

/// A `return` inside a loop body: the trace shows the loop's frame coming
/// back at the `return`, with the chunk the loop set aside.
#[test]
fn the_trace_shows_the_loop_frame_back_at_a_return() {
    let p = temp_file(
        "loop_return.sift",
        b"class O { int f; }\nclass A {\n  static void m(O o, int n) requires acc(o.f); ensures acc(o.f) && o.f == 5; {\n    int i = 0;\n    while (i < n) { if (i == 3) { return; } i = i + 1; }\n    o.f = 5;\n  }\n}\n",
    );
    let o = sift(&["verify", "--json", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let e = &v["files"][0]["errors"][0];
    assert_eq!(
        (e["kind"].as_str(), e["line"].as_u64()),
        (Some("postcondition.failed"), Some(3))
    );
    let steps = trace_steps(e);
    let at = steps
        .iter()
        .position(|(_, d, _)| *d == "returning: the frame of the loop (while i < n) is back")
        .unwrap_or_else(|| panic!("{steps:?}"));
    assert_eq!(steps[at - 1].1, "return;", "{steps:?}");
    assert_eq!(steps[at - 1].2, "[]", "{steps:?}");
    assert_eq!(steps[at].0, 5, "{steps:?}");
    assert_eq!(steps[at].2, r#"["o.f ↦ old(o.f)"]"#, "{steps:?}");
}

/// The steps of an error's `--json` trace: line, description and heap.
fn trace_steps(e: &serde_json::Value) -> Vec<(u64, &str, String)> {
    e["trace"]
        .as_array()
        .expect("trace")
        .iter()
        .map(|s| {
            (
                s["line"].as_u64().expect("line"),
                s["description"].as_str().expect("description"),
                s["heap"].to_string(),
            )
        })
        .collect()
}

/// A `break`: the trace shows the state at the `break` going on after the
/// loop with the frame back (the chunk set aside beside the one the
/// iteration held), and then the code after the loop.
#[test]
fn the_trace_shows_the_loop_frame_back_at_a_break() {
    let p = temp_file(
        "loop_break.sift",
        b"class O { int f; }\nclass A {\n  static void m(O o, O p, int n) requires acc(o.f) && acc(p.f); ensures acc(o.f) && acc(p.f) && o.f == 5; {\n    int i = 0;\n    while (i < n) invariant acc(p.f); { p.f = i; if (i == 3) { break; } i = i + 1; }\n    assert p.f == 3;\n  }\n}\n",
    );
    let o = sift(&["verify", "--json", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let errors = v["files"][0]["errors"].as_array().expect("errors");
    let kinds: Vec<(&str, u64)> = errors
        .iter()
        .map(|e| (e["kind"].as_str().unwrap(), e["line"].as_u64().unwrap()))
        .collect();
    // The exit path knows nothing of `p.f` (the assertion fails there);
    // the `break` path knows `p.f == 3`, and `o.f` from the frame with its
    // value on entry, which need not be 5.
    assert_eq!(
        kinds,
        [("postcondition.failed", 3), ("assert.failed", 6)],
        "{errors:?}"
    );
    let e = &errors[0];
    let steps = trace_steps(e);
    let at = steps
        .iter()
        .position(|(_, d, _)| *d == "leaving the loop (while i < n) by `break`: its frame is back")
        .unwrap_or_else(|| panic!("{steps:?}"));
    assert_eq!(steps[at - 1].1, "break;", "{steps:?}");
    assert_eq!(steps[at].0, 5, "{steps:?}");
    assert!(steps[at].2.contains("o.f ↦ old(o.f)"), "{steps:?}");
    assert!(steps[at].2.contains("p.f ↦ i"), "{steps:?}");
    assert_eq!(steps[at + 1].1, "assert p.f == 3;", "{steps:?}");
}

/// Java's line ends: `\n`, `\r\n` and a lone `\r` each end a line, in the
/// text report, in JSON (error, end and trace positions) and for `//`
/// comments; a U+2028 in a comment does not.
#[test]
fn lone_carriage_returns_end_lines_in_text_and_json() {
    let lines = [
        "class A { // a comment that must end here",
        "  static void m(int x) {",
        "    /* \u{2028} */ assert x > 0;",
        "  }",
        "}",
        "",
    ];
    for (name, nl) in [("lf", "\n"), ("crlf", "\r\n"), ("cr", "\r")] {
        let p = temp_file(&format!("ends_{name}.sift"), lines.join(nl).as_bytes());
        let o = sift(&["verify", p.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(1), "{name}: {}", stderr(&o));
        let err = stderr(&o);
        let at = format!("ends_{name}.sift:3:20");
        assert!(err.contains(&at), "{name}: no {at} in\n{err}");
        let o = sift(&["verify", "--json", p.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(1), "{name}");
        let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
        let e = &doc["files"][0]["errors"][0];
        assert_eq!(e["kind"], "assert.failed", "{name}");
        assert_eq!(
            (&e["line"], &e["column"]),
            (&3.into(), &20.into()),
            "{name}"
        );
        assert_eq!(e["end_line"], 3, "{name}");
        let last = e["trace"].as_array().and_then(|t| t.last()).cloned();
        assert_eq!(last.map(|s| s["line"].clone()), Some(3.into()), "{name}");
    }
}

/// `--overflow` (docs/language.md section 4.6): `verify` reports Java's
/// `abs` failing at the unary minus with the precondition that rules it
/// out, and `run` raises the same error on the input that overflows.
#[test]
fn overflow_is_checked_by_verify_and_by_run() {
    let src = b"class M {\n  static int abs(int x) ensures result >= 0; {\n    return x < 0 ? -x : x;\n  }\n}\n";
    let file = temp_file("abs.sift", src);
    let path = file.to_str().unwrap();
    let plain = sift(&["verify", path]);
    assert_eq!(plain.status.code(), Some(0), "{}", stderr(&plain));
    let checked = sift(&["verify", "--overflow", path]);
    assert_eq!(checked.status.code(), Some(1));
    let out = String::from_utf8_lossy(&checked.stdout).into_owned() + &stderr(&checked);
    assert!(out.contains("[overflow]"), "{out}");
    assert!(out.contains("abs.sift:3:20"), "{out}");
    assert!(
        out.contains("Help: add `requires x > -2147483648;`"),
        "{out}"
    );
    let run = sift(&["run", path, "--method", "M.abs", "--", "-2147483648"]);
    assert_eq!(run.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&run.stdout).contains("returned 2147483648"));
    let run = sift(&[
        "run",
        "--overflow",
        path,
        "--method",
        "M.abs",
        "--",
        "-2147483648",
    ]);
    assert_eq!(run.status.code(), Some(1));
    let out = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(
        out.contains("abs.sift:3:20: overflow: `-x` is 2147483648, outside Java's `int` range"),
        "{out}"
    );
    let run = sift(&[
        "run",
        "--overflow",
        path,
        "--method",
        "M.abs",
        "--",
        "-2147483647",
    ]);
    assert_eq!(run.status.code(), Some(0));
    // `sift test` finds the input that overflows.
    let test = sift(&["test", "--overflow", path]);
    assert_eq!(test.status.code(), Some(1));
    let out = String::from_utf8_lossy(&test.stdout).into_owned();
    assert!(
        out.contains("inputs: x = -2147483648 -> overflow at line 3"),
        "{out}"
    );
}
