//! Every verification error kind comes with a help line that suggests the
//! likely fix in the program's own terms (JSON `help`, the text report's
//! `Help:`, the language server's message, the debugger's `why`).

use std::process::Command;

/// (what the case shows, extra flags, program, kind, line, help).
type Case = (
    &'static str,
    &'static [&'static str],
    &'static str,
    &'static str,
    u64,
    &'static str,
);

const CASES: &[Case] = &[
    (
        "a fact nothing implies",
        &[],
        "class A {\n  static void m(int x) {\n    assert x > 0;\n  }\n}\n",
        "assert.failed",
        3,
        "nothing on this path implies `x > 0`: the precondition (or a callee's postcondition) must say what it needs",
    ),
    (
        "a fact the loop body forgot",
        &[],
        "class A {\n  static void m() {\n    int i = 0;\n    while (i < 3) invariant i <= 3; {\n      assert i >= 0;\n      i = i + 1;\n    }\n  }\n}\n",
        "assert.failed",
        5,
        "the loop body starts from its invariant only: add `i >= 0` to the invariant",
    ),
    (
        "a pure call without its definition",
        &["--no-infer"],
        "class Cell {\n  int x;\n  predicate valid() { return acc(x); }\n  pure int get() requires valid(); { return opening valid() in x; }\n  static void m(Cell c) requires c.valid(); {\n    assert c.get() == c.get() + 0 && c.get() > 0;\n  }\n}\n",
        "assert.failed",
        6,
        "this fact is about `c.get()`: `use c.get();` gives its definition",
    ),
    (
        "a callee's fact",
        &[],
        "class A {\n  static void need(int v) requires v > 0; { }\n  static void m(int x) {\n    need(x);\n  }\n}\n",
        "precondition.failed",
        4,
        "the callee requires `v > 0`: make it hold before the call (or require it of this method's callers)",
    ),
    (
        "a callee's permission, named through the receiver",
        &[],
        "class A {\n  int x;\n  void need() requires acc(x); { }\n  static void m(A a) requires a != null; {\n    a.need();\n  }\n}\n",
        "precondition.failed",
        5,
        "add `requires acc(a.x);` to the method (or get it from a callee's `ensures`)",
    ),
    (
        "a callee's instance while its body is held",
        &["--no-infer"],
        "class Cell {\n  int x;\n  predicate valid() { return acc(x); }\n  void need() requires valid(); { }\n  static void m(Cell c) requires c.valid(); {\n    open c.valid();\n    c.need();\n  }\n}\n",
        "precondition.failed",
        7,
        "close `c.valid()` before the call (`close c.valid();`)",
    ),
    (
        "a postcondition's fact",
        &[],
        "class A {\n  static int m(int x) ensures result > x; {\n    return x;\n  }\n}\n",
        "postcondition.failed",
        2,
        "make `result > x` hold on this path before returning, or weaken the `ensures`",
    ),
    (
        "a postcondition's permission at a return inside a loop (the frame is back there)",
        &[],
        "class O { int f; }\nclass A {\n  static void m(O o, int n) ensures acc(o.f); {\n    int i = 0;\n    while (i < n) { if (i == 3) { return; } i = i + 1; }\n  }\n}\n",
        "postcondition.failed",
        3,
        "add `requires acc(o.f);` to the method (or get it from a callee's `ensures`)",
    ),
    (
        "an instance left open",
        &["--no-infer"],
        "class Cell {\n  int x;\n  predicate valid() { return acc(x); }\n  void m() requires valid(); ensures valid(); {\n    open valid();\n    x = 1;\n  }\n}\n",
        "postcondition.failed",
        4,
        "close `valid()` before returning (`close valid();`)",
    ),
    (
        "a permission never held",
        &[],
        "class A {\n  int f;\n  static void m(A a) requires a != null; {\n    a.f = 1;\n  }\n}\n",
        "permission.missing",
        4,
        "add `requires acc(a.f);` to the method (or get it from a callee's `ensures`)",
    ),
    (
        "a permission a call took",
        &[],
        "class A {\n  int f;\n  static void take(A a) requires acc(a.f); { }\n  static void m(A a) requires acc(a.f); {\n    take(a);\n    a.f = 2;\n  }\n}\n",
        "permission.missing",
        6,
        "`take(a)` took `acc(a.f)`: give it back in the callee's `ensures`",
    ),
    (
        "a permission inside a held instance",
        &["--no-infer"],
        "class Cell {\n  int x;\n  predicate valid() { return acc(x); }\n  static void m(Cell c) requires c.valid(); {\n    c.x = 1;\n  }\n}\n",
        "permission.missing",
        5,
        "`c.valid()` is held: open it first (`open c.valid();`, or let inference do it)",
    ),
    (
        "a permission a loop body lacks",
        &[],
        "class A {\n  int f;\n  void m() requires acc(f); {\n    while (f < 3) invariant true; {\n      f = f + 1;\n    }\n  }\n}\n",
        "permission.missing",
        4,
        "the loop body starts from its invariant only: add `acc(f)` to the invariant",
    ),
    (
        "a pure method reading what it does not hold",
        &[],
        "class A {\n  int f;\n  pure int get() { return f; }\n}\n",
        "permission.missing",
        3,
        "put `acc(f)` before this read (in the `requires` or the predicate body)",
    ),
    (
        "a receiver that might be null",
        &[],
        "class A {\n  void k() { }\n  static void m(A a) {\n    a.k();\n  }\n}\n",
        "receiver.null",
        4,
        "add `requires a != null;`, or test it: `if (a != null) { ... }`",
    ),
    (
        "an instance not held",
        &[],
        "class Cell {\n  int x;\n  predicate valid() { return acc(x); }\n  static void m(Cell c) requires c != null; {\n    open c.valid();\n  }\n}\n",
        "open.failed",
        5,
        "add `requires c.valid();` to the method (or get it from a callee's `ensures`)",
    ),
    (
        "an instance already open",
        &["--no-infer"],
        "class Cell {\n  int x;\n  predicate valid() { return acc(x); }\n  static void m(Cell c) requires c.valid(); {\n    open c.valid();\n    open c.valid();\n  }\n}\n",
        "open.failed",
        6,
        "`c.valid()` is already open here: its body is held, so it needs no `open`",
    ),
    (
        "a close without the body's permission",
        &[],
        "class Cell {\n  int x;\n  predicate valid() { return acc(x); }\n  void m() {\n    close valid();\n  }\n}\n",
        "close.failed",
        5,
        "add `requires acc(x);` to the method (or get it from a callee's `ensures`)",
    ),
    (
        "a close without the body's fact",
        &[],
        "class Cell {\n  int x;\n  predicate pos() { return acc(x) && x > 0; }\n  void m() requires acc(x); {\n    close pos();\n  }\n}\n",
        "close.failed",
        5,
        "the predicate body needs `x > 0`: make it hold before the `close`",
    ),
    (
        "an invariant that does not hold on entry",
        &[],
        "class A {\n  static void m(int n) {\n    int i = 0;\n    while (i < n) invariant i <= n; {\n      i = i + 1;\n    }\n  }\n}\n",
        "invariant.not.established",
        4,
        "make `i <= n` hold before the loop, or weaken the invariant",
    ),
    (
        "an invariant that does not hold at a do loop's first test",
        &[],
        "class A {\n  static void m(int n) {\n    int i = 0;\n    do {\n      i = i + 1;\n    } while (i < n) invariant i >= 2;\n  }\n}\n",
        "invariant.not.established",
        6,
        "make `i >= 2` hold when the body's first run ends, or weaken the invariant",
    ),
    (
        "an invariant a continue breaks",
        &[],
        "class A {\n  static void m() {\n    int i = 0;\n    while (i < 3) invariant i >= 0; {\n      i = i + 1;\n      if (i == 2) { i = -1; continue; }\n    }\n  }\n}\n",
        "invariant.not.preserved",
        4,
        "the body must make `i >= 0` hold again, from the invariant and the condition alone: strengthen the invariant",
    ),
    (
        "an invariant the body breaks",
        &[],
        "class A {\n  static void m() {\n    int i = 0;\n    while (i < 3) invariant i >= 0; {\n      i = i - 1;\n    }\n  }\n}\n",
        "invariant.not.preserved",
        4,
        "the body must make `i >= 0` hold again, from the invariant and the condition alone: strengthen the invariant",
    ),
    (
        "a join some path does not satisfy",
        &[],
        "class A {\n  static void m(int x) {\n    int y = 0;\n    if (x > 0) { y = 1; }\n    join y == 1;\n  }\n}\n",
        "join.failed",
        5,
        "every path reaching the `join` must satisfy `y == 1`: make it hold on this path, or weaken the `join`",
    ),
    (
        "a divisor that might be zero",
        &[],
        "class A {\n  static int m(int x, int y) {\n    return x / y;\n  }\n}\n",
        "division.by.zero",
        3,
        "add `requires y != 0;`, or test it: `if (y != 0) { ... }`",
    ),
    (
        "recursion without a measure",
        &[],
        "class A {\n  static pure int f(int n) { return n == 0 ? 0 : f(n - 1); }\n}\n",
        "termination",
        2,
        "give `f` a `decreases` measure that gets smaller at each call, or make the call inside `opening`",
    ),
    (
        "an index outside the array",
        &[],
        "class A {\n  static int get(int[] a, int i) requires acc(a.elems); {\n    return a[i];\n  }\n}\n",
        "index.out.of.bounds",
        3,
        "make `0 <= i && i < a.length` hold here: require it, or test it with `if`",
    ),
    (
        "a size that might be negative",
        &[],
        "class A {\n  static int[] make(int n) {\n    int[] a = new int[n];\n    return a;\n  }\n}\n",
        "array.size.negative",
        3,
        "add `requires n >= 0;`, or test it: `if (n >= 0) { ... }`",
    ),
    (
        "the elements of an array",
        &[],
        "class A {\n  static int get(int[] a) requires a != null && a.length > 0; {\n    return a[0];\n  }\n}\n",
        "permission.missing",
        3,
        "add `requires acc(a.elems);` to the method (or get it from a callee's `ensures`)",
    ),
    (
        "an array that might be null",
        &[],
        "class A {\n  static int len(int[] a) {\n    return a.length;\n  }\n}\n",
        "receiver.null",
        3,
        "add `requires a != null;`, or test it: `if (a != null) { ... }`",
    ),
    (
        "a measure that does not decrease",
        &[],
        "class A {\n  static pure int sum(int[] a, int i) requires acc(a.elems) && 0 <= i && i <= a.length; decreases i; {\n    return i == 0 ? 0 : a[i - 1] + sum(a, i);\n  }\n}\n",
        "termination",
        3,
        "the `decreases` measure of `sum` must stay at least 0 and get smaller at each recursive call: require what makes it so, or choose another measure",
    ),
    (
        "an increment that might overflow",
        &["--overflow"],
        "class A {\n  static int inc(int x) {\n    return x + 1;\n  }\n}\n",
        "overflow",
        3,
        "add `requires x < 2147483647;`, or test it: `if (x < 2147483647) { ... }`",
    ),
    (
        "a negation that might overflow (Java's abs)",
        &["--overflow"],
        "class A {\n  static int abs(int x) ensures result >= 0; {\n    return x < 0 ? -x : x;\n  }\n}\n",
        "overflow",
        3,
        "add `requires x > -2147483648;`, or test it: `if (x > -2147483648) { ... }`",
    ),
    (
        "a decrement that might overflow",
        &["--overflow"],
        "class A {\n  static void down(int n) {\n    n--;\n  }\n}\n",
        "overflow",
        3,
        "add `requires n > -2147483648;`, or test it: `if (n > -2147483648) { ... }`",
    ),
    (
        "a quotient that might overflow",
        &["--overflow"],
        "class A {\n  static int q(int a, int b) requires b != 0; {\n    return a / b;\n  }\n}\n",
        "overflow",
        3,
        "add `requires a != -2147483648 || b != -1;`, or test it: `if (a != -2147483648 || b != -1) { ... }`",
    ),
    (
        "a product that might overflow",
        &["--overflow"],
        "class A {\n  static int sq(int a) {\n    return a * a;\n  }\n}\n",
        "overflow",
        3,
        "add `requires a * a <= 2147483647;`, or test it: `if (a * a <= 2147483647) { ... }`",
    ),
    (
        "a cycle of pure methods, one without a measure",
        &[],
        "class A {\n  static pure int f(int n) { return n <= 0 ? 0 : g(n - 1); }\n  static pure int g(int n) decreases n; { return f(n); }\n}\n",
        "termination",
        2,
        "make the call inside `opening`, or give each pure method of its cycle (`f`, `g`) a `decreases` measure that gets smaller at each call within the cycle (`f` has none)",
    ),
    (
        "a measure that calls its own method",
        &[],
        "class A {\n  static pure int f(int n)\n    decreases f(n);\n  { return n; }\n}\n",
        "termination",
        3,
        "compute the measure of `f` from its parameters and fields, or with pure methods that do not call `f`",
    ),
];

#[test]
fn every_verification_error_kind_has_a_help_line() {
    let dir = std::env::temp_dir().join(format!("sift-help-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut failures = Vec::new();
    let mut kinds = std::collections::BTreeSet::new();
    for (i, (what, flags, program, kind, line, help)) in CASES.iter().enumerate() {
        let file = dir.join(format!("case{i}.sift"));
        std::fs::write(&file, program).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_sift"))
            .arg("verify")
            .arg("--json")
            .args(*flags)
            .arg(&file)
            .output()
            .expect("run sift");
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        let errors = doc["files"][0]["errors"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let got: Vec<(String, u64, String)> = errors
            .iter()
            .map(|e| {
                (
                    e["kind"].as_str().unwrap_or("").to_string(),
                    e["line"].as_u64().unwrap_or(0),
                    e["help"].as_str().unwrap_or("(no help)").to_string(),
                )
            })
            .collect();
        let want = vec![(kind.to_string(), *line, help.to_string())];
        if got != want {
            failures.push(format!("{what}:\n  want {want:?}\n  got  {got:?}"));
        }
        kinds.insert(*kind);
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Every kind of docs/language.md section 8 that verification reports.
    for kind in [
        "assert.failed",
        "precondition.failed",
        "postcondition.failed",
        "permission.missing",
        "receiver.null",
        "open.failed",
        "close.failed",
        "invariant.not.established",
        "invariant.not.preserved",
        "join.failed",
        "division.by.zero",
        "termination",
        "index.out.of.bounds",
        "array.size.negative",
        "overflow",
    ] {
        assert!(kinds.contains(kind), "no case for {kind}");
    }
}
