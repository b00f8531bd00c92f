//! The termination check never aborts or runs without end (issue 21, item
//! 3): measures that call their own method or its cycle, preconditions
//! and predicate bodies that call back into the pure methods using them.
//! Each program runs in the built `sift`, which must answer with exit
//! status 1 and the expected kind; a stack overflow (status 134) or a run
//! past the limit fails. The limit only catches a run that never ends: it
//! is no timing assertion (each of these takes well under a second).

mod bounded;

use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(120);

/// (what, program, a kind the answer must contain)
const CASES: &[(&str, &str, &str)] = &[
    (
        "a measure that calls its own method",
        "class A {\n  static pure int f(int n) decreases f(n); { return n; }\n}\n",
        "[termination]",
    ),
    (
        "a measure that unfolds its own method",
        "class A {\n  static pure int f(int n) decreases using f(n) in n; { return n; }\n}\n",
        "[termination]",
    ),
    (
        "a measure that calls its own recursive method",
        "class A {\n  static pure int f(int n) requires n >= 0; decreases f(n); { return n == 0 ? 0 : f(n - 1); }\n}\n",
        "[termination]",
    ),
    (
        "a measure that calls another method of its cycle",
        "class A {\n  static pure int f(int n) requires n >= 0; decreases g(n); { return n == 0 ? 0 : g(n - 1); }\n  static pure int g(int n) requires n >= 0; decreases n; { return f(n); }\n}\n",
        "[termination]",
    ),
    (
        "a precondition that calls its own method, with a measure",
        "class A {\n  static pure int f(int n) requires f(n) >= 0 && n >= 0; decreases f(n); { return n == 0 ? 0 : f(n - 1); }\n}\n",
        "[termination]",
    ),
    (
        "a precondition and a body that call each other",
        "class A {\n  static pure int f(int n) requires g(n) >= 0; { return n; }\n  static pure int g(int n) { return f(n); }\n}\n",
        "[termination]",
    ),
    (
        "a predicate body that calls a pure method requiring the predicate",
        "class P {\n  int v;\n  predicate ok() { return acc(v) && get() >= 0; }\n  pure int get() requires ok(); { return opening ok() in v; }\n  void m() requires ok(); { assert get() >= 0; }\n}\n",
        "[precondition.failed]",
    ),
    (
        "a cycle through a predicate body",
        "class N {\n  int v;\n  N next;\n  predicate ok() { return acc(v) && acc(next) && (next != null ==> next.ok()) && len() >= 0; }\n  pure int depth() requires ok(); { return opening ok() in len(); }\n  pure int len() requires acc(v) && acc(next) && (next != null ==> next.ok()); { return next == null ? 0 : next.depth() + 1; }\n}\n",
        "[termination]",
    ),
    (
        "the measures and the text order in one cycle",
        "class A {\n  static pure int f(int n) decreases n; { return n <= 0 ? 0 : g(n - 1) + 1; }\n  static pure int g(int n) decreases n; { return f(n + 1); }\n  static void main() { assert f(1) == f(1) + 1; assert false; }\n}\n",
        "[termination]",
    ),
];

#[test]
fn termination_errors_are_answers_not_crashes() {
    let dir = std::env::temp_dir().join(format!("sift-termination-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut failures = Vec::new();
    for (i, (what, src, kind)) in CASES.iter().enumerate() {
        let path = dir.join(format!("case{i}.sift"));
        std::fs::write(&path, src).expect("write a case");
        for mode in [None, Some("--no-infer")] {
            let mut args = vec!["verify"];
            args.extend(mode);
            args.push(path.to_str().expect("a UTF-8 path"));
            let out = bounded::sift(&args, "", LIMIT);
            if let Some(why) = out.crash() {
                failures.push(format!("{what} ({mode:?}): {why}"));
            } else if out.code != Some(1) || !out.stderr.contains(kind) {
                failures.push(format!(
                    "{what} ({mode:?}): status {:?}, no {kind}:\n{}",
                    out.code, out.stderr
                ));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
