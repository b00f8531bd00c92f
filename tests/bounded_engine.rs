//! The engine always ends (docs/language.md sections 6 and 10): inference
//! bounds every search it makes, and a work budget per member bounds every
//! other loop of the engine; a member that uses it up, or its time where
//! that is limited, is reported as not verified, never as verified.
//!
//! The programs below used to make `sift verify` and `sift debug` run
//! without end (opening an instance to read inside its own body, again and
//! again). The time limit only guards the test: a run that ends normally
//! with the right errors passes, whatever it took.

mod bounded;

use std::time::Duration;

use bounded::{check_json, forty_splits, sift, write_temp};
use sift::diag::Kind;
use sift::{Options, verify_source};

/// Far beyond what any of these takes; only a run without end reaches it.
const GUARD: Duration = Duration::from_secs(300);

/// A predicate reading an array element before it holds the elements,
/// while it holds an instance of itself that would give them.
const ARRAY_BEFORE_ACC: &str = "class P {
  P f; int[] g;
  predicate P() { return acc(f) && acc(g) && (f != null ==> f.P()) && g[0] > 0 && acc(g.elems); }
}
";

/// The same through a field, and between two classes.
const FIELD_BEFORE_ACC: &str = "class R {
  R n; int v;
  predicate p() { return acc(n) && (n != null ==> n.p()) && v > 0 && acc(v); }
}
class A {
  B b; int x;
  predicate p() { return acc(b) && (b != null ==> b.q()) && x > 0 && acc(x); }
}
class B {
  A a; int y;
  predicate q() { return acc(a) && (a != null ==> a.p()) && y > 0 && acc(y); }
}
";

/// The (kind, line) of every error of `sift verify --json` on `source`, in
/// both inference modes, checked to end within the guard.
fn errors(name: &str, source: &str, infer: bool) -> Vec<(String, u64)> {
    let path = write_temp("bounded_engine", name, source);
    let path = path.to_str().expect("a UTF-8 path");
    let mut args = vec!["verify", "--json", path];
    if !infer {
        args.push("--no-infer");
    }
    let out = sift(&args, "", GUARD);
    let code = out
        .code
        .unwrap_or_else(|| panic!("{name}: no answer within {GUARD:?}"));
    let v = check_json(&out.stdout, code).unwrap_or_else(|e| panic!("{name}: {e}"));
    v["files"][0]["errors"]
        .as_array()
        .expect("errors")
        .iter()
        .map(|e| {
            let kind = e["kind"].as_str().unwrap_or_default().to_string();
            (kind, e["line"].as_u64().unwrap_or_default())
        })
        .collect()
}

#[test]
fn reading_before_the_permission_inside_recursive_predicates_ends() {
    for infer in [true, false] {
        assert_eq!(
            errors("array.sift", ARRAY_BEFORE_ACC, infer),
            [("permission.missing".to_string(), 3)],
            "infer: {infer}"
        );
        let missing = |line| ("permission.missing".to_string(), line);
        assert_eq!(
            errors("field.sift", FIELD_BEFORE_ACC, infer),
            [missing(3), missing(7), missing(11)],
            "infer: {infer}"
        );
    }
}

#[test]
fn the_debugger_on_such_a_predicate_ends() {
    let source = format!(
        "{}class M {{\n  static void m(P p) requires p != null && p.P(); {{ P q = p.f; }}\n}}\n",
        ARRAY_BEFORE_ACC
    );
    let path = write_temp("bounded_engine", "debug.sift", &source);
    let path = path.to_str().expect("a UTF-8 path");
    let out = sift(
        &["debug", path, "--method", "M.m"],
        "continue\nquit\n",
        GUARD,
    );
    assert_eq!(out.code, Some(0), "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("debugging M.m"), "{}", out.stdout);
}

#[test]
fn a_member_past_its_work_budget_is_not_verified() {
    let source = forty_splits("C");
    let opts = Options {
        work_budget: 20_000,
        ..Options::default()
    };
    let report = verify_source("splits.sift", &source, &opts);
    let member = &report.members[0];
    assert_eq!(member.name, "C.p");
    assert_eq!(member.errors.len(), 1, "{:?}", member.errors);
    let e = &member.errors[0].diag;
    assert_eq!(e.kind, Kind::Internal);
    assert!(
        e.message.contains("20000 steps, its work budget"),
        "{}",
        e.message
    );
    assert!(!member.reusable);
    // The same budget is enough for a small member.
    let small = "class C { int a; int b; predicate p() { return acc(a) && (a > 0 ==> acc(b)); } }";
    let report = verify_source("small.sift", small, &opts);
    assert!(report.errors.is_empty(), "{:?}", report.errors);
}

#[test]
fn a_member_past_its_time_is_not_verified() {
    let source = forty_splits("C");
    let opts = Options {
        member_time_ms: Some(300),
        ..Options::default()
    };
    let report = verify_source("splits.sift", &source, &opts);
    let member = &report.members[0];
    assert_eq!(member.errors.len(), 1, "{:?}", member.errors);
    let e = &member.errors[0].diag;
    assert_eq!(e.kind, Kind::Internal);
    assert!(
        e.message.contains("300 ms, the time one member may take"),
        "{}",
        e.message
    );
    assert!(!member.reusable);
}
