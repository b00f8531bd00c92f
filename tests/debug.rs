//! `sift debug`: scripted sessions on small programs, with the exact text
//! they print (fresh symbols' `@N` suffixes are blanked out).

use std::io::Write;
use std::process::{Command, Stdio};

use expect_test::{Expect, expect};

struct Out {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs `sift debug NAME ARGS` in a temporary directory holding `program`
/// as NAME, with `script` on standard input.
fn debug(name: &str, program: &str, args: &[&str], script: &str) -> Out {
    // A directory per run: tests run in parallel and several write a file
    // of the same name (one truncating it while another reads it).
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let run = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("sift-debug-{}-{run}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join(name), program).expect("write program");
    let mut child = Command::new(env!("CARGO_BIN_EXE_sift"))
        .arg("debug")
        .arg(name)
        .args(args)
        .current_dir(&dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run sift debug");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(script.as_bytes())
        .expect("write script");
    let o = child.wait_with_output().expect("wait for sift");
    Out {
        code: o.status.code(),
        stdout: norm(&String::from_utf8_lossy(&o.stdout)),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// `x@12` → `x@`: fresh names are numbered in creation order, which these
/// tests do not pin down.
fn norm(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(c);
        if c == '@' {
            while chars.peek().is_some_and(|d| d.is_ascii_digit()) {
                chars.next();
            }
        }
    }
    out
}

/// The exact transcript: `UPDATE_EXPECT=1 cargo test --test debug`
/// rewrites the expected texts in this file (then review the diff).
#[track_caller]
fn same(got: &Out, want: Expect) {
    assert_eq!(got.code, Some(0), "stderr: {}", got.stderr);
    want.assert_eq(&got.stdout);
}

const STRAIGHT: &str = "\
class Box {
  int f;
  static void ok() {
    int a = 1;
    int b = a + 2;
    assert b == 3;
  }
  static void fill() {
    Box b = new Box();
    b.f = 7;
    assert b.f == 7;
  }
}
";

const LEAK: &str = "\
class A {
  int f;
  static void n(A a)
    requires acc(a.f);
  {
    a.f = 1;
    leak(a);
    a.f = 2;
  }
  static void leak(A a) requires acc(a.f); { }
}
";

const PICK: &str = "\
class P {
  static void pick(int x) {
    int y = 0;
    if (x > 0) {
      y = x;
    } else {
      y = 1;
    }
    assert y > 0;
    assert y > 1;
  }
}
";

#[test]
fn step_and_back_from_the_start_of_a_verified_method() {
    let o = debug(
        "straight.sift",
        STRAIGHT,
        &[],
        "step\nstep\nstore\nstep 2\nback\nback 9\nback\nstep 9\nstep\n",
    );
    same(
        &o,
        expect![[r#"
        debugging Box.ok in straight.sift: verified; 5 steps in the execution tree
        stopped at the start
        [1] line 3: method entry
           3 |   static void ok() {
             |               ^^
        [2] line 3: precondition produced
           3 |   static void ok() {
             |               ^^
        [3] line 4: int a = 1;
           4 |     int a = 1;
             |     ^^^^^^^^^^
        store (1 variable):
          a ↦ 1
        [5] line 6: assert b == 3;
           6 |     assert b == 3;
             |     ^^^^^^^^^^^^^^
        end of this path
        [4] line 5: int b = a + 2;
           5 |     int b = a + 2;
             |     ^^^^^^^^^^^^^^
        [1] line 3: method entry
           3 |   static void ok() {
             |               ^^
        at the first step: nothing before it
        [5] line 6: assert b == 3;
           6 |     assert b == 3;
             |     ^^^^^^^^^^^^^^
        end of this path
        end of the path: no step after [5] line 6: assert b == 3;
    "#]],
    );
}

#[test]
fn heap_store_pc_and_diff() {
    let script = "step 2\nheap\nstore\npc\ndiff\nstep\ndiff\nback 3\ndiff\n";
    let o = debug("straight.sift", STRAIGHT, &["--method", "Box.fill"], script);
    same(
        &o,
        expect![[r#"
            debugging Box.fill in straight.sift: verified; 5 steps in the execution tree
            stopped at the start
            [1] line 8: method entry
               8 |   static void fill() {
                 |               ^^^^
            [3] line 9: Box b = new Box();
               9 |     Box b = new Box();
                 |     ^^^^^^^^^^^^^^^^^^
            heap (1 chunk):
              b.f ↦ 0
            store (1 variable):
              b ↦ object#1
            path condition: empty (true)
            changes since [2] line 8: precondition produced
              heap  + b.f ↦ 0
              store + b ↦ object#1
            [4] line 10: b.f = 7;
              10 |     b.f = 7;
                 |     ^^^^^^^^
            changes since [3] line 9: Box b = new Box();
              heap  − b.f ↦ 0
              heap  + b.f ↦ 7
            [1] line 8: method entry
               8 |   static void fill() {
                 |               ^^^^
            no step before this one: it is the first of the member
        "#]],
    );
}

#[test]
fn a_failing_method_starts_at_its_failure_and_branches_switch() {
    let script = "why\nbranches\nbranch 2\nstep\nbranches\nstep 4\nback 4\nstep\n";
    let o = debug("pick.sift", PICK, &[], script);
    same(
        &o,
        expect![[r#"
            debugging P.pick in pick.sift: 1 error; 13 steps in the execution tree
            stopped at the first failure
            [7] line 10: fails: assertion might not hold
              10 |     assert y > 1;
                 |            ^^^^^
            the path goes on past the failed assertion, assuming it
            assert.failed: assertion might not hold
              `y > 1` might not hold
              on this path: line 4: if (x > 0): then branch
              counterexample: x = 1, y = 1
              help: nothing on this path implies `y > 1`: the precondition (or a callee's postcondition) must say what it needs
            the path splits after [3] line 3: int y = 0;
            * 1: line 4: if (x > 0): then branch [pc + (0 < x)] — fails at line 10
              2: line 4: if (x > 0): else branch [pc + !(0 < x)] — fails at line 10
            [4] line 4: if (x > 0): else branch (branch 2 of 2)
               4 |     if (x > 0) {
                 |         ^^^^^
            [5] line 7: y = 1;
               7 |       y = 1;
                 |       ^^^^^^
            the path splits after [3] line 3: int y = 0;
              1: line 4: if (x > 0): then branch [pc + (0 < x)] — fails at line 10
            * 2: line 4: if (x > 0): else branch [pc + !(0 < x)] — fails at line 10
            [7] line 10: assert y > 1;
              10 |     assert y > 1;
                 |     ^^^^^^^^^^^^^
            end of this path
            [3] line 3: int y = 0;
               3 |     int y = 0;
                 |     ^^^^^^^^^^
            the path splits here into 2 branches (`branches` lists them)
            [4] line 4: if (x > 0): else branch (branch 2 of 2)
               4 |     if (x > 0) {
                 |         ^^^^^
        "#]],
    );
}

#[test]
fn breakpoints_continue_and_run_to() {
    let script = "back 9\nbreak 9\nbreak 99\nbreak\ncontinue\ncontinue\ncontinue\ncontinue\nback 9\ndelete 9\ndelete 9\nrun-to 5\nrun-to 7\n";
    let o = debug("pick.sift", PICK, &[], script);
    same(
        &o,
        expect![[r#"
            debugging P.pick in pick.sift: 1 error; 13 steps in the execution tree
            stopped at the first failure
            [7] line 10: fails: assertion might not hold
              10 |     assert y > 1;
                 |            ^^^^^
            the path goes on past the failed assertion, assuming it
            [1] line 2: method entry
               2 |   static void pick(int x) {
                 |               ^^^^
            breakpoint at line 9
            error: line 99 is past the end of the file (12 lines)
            breakpoints at lines 9
            breakpoint at line 9
            [6] line 9: assert y > 0;
               9 |     assert y > 0;
                 |     ^^^^^^^^^^^^^
            [7] line 10: fails: assertion might not hold
              10 |     assert y > 1;
                 |            ^^^^^
            the path goes on past the failed assertion, assuming it
            no failure ahead on this path; the next one is on another branch
            [7] line 10: fails: assertion might not hold
              10 |     assert y > 1;
                 |            ^^^^^
            the path goes on past the failed assertion, assuming it
            [7] line 10: assert y > 1;
              10 |     assert y > 1;
                 |     ^^^^^^^^^^^^^
            end of this path
            [1] line 2: method entry
               2 |   static void pick(int x) {
                 |               ^^^^
            deleted the breakpoint at line 9
            error: no breakpoint at line 9
            [7] line 10: fails: assertion might not hold
              10 |     assert y > 1;
                 |            ^^^^^
            the path goes on past the failed assertion, assuming it
            line 7 is not reached on this path
            [7] line 10: assert y > 1;
              10 |     assert y > 1;
                 |     ^^^^^^^^^^^^^
            end of this path
        "#]],
    );
}

#[test]
fn save_and_restore() {
    let script = "save here\nback 3\nsave\nrestore nowhere\nrestore here\n";
    let o = debug("pick.sift", PICK, &[], script);
    same(
        &o,
        expect![[r#"
        debugging P.pick in pick.sift: 1 error; 13 steps in the execution tree
        stopped at the first failure
        [7] line 10: fails: assertion might not hold
          10 |     assert y > 1;
             |            ^^^^^
        the path goes on past the failed assertion, assuming it
        saved `here` at [7] line 10: fails: assertion might not hold
        [4] line 4: if (x > 0): then branch (branch 1 of 2)
           4 |     if (x > 0) {
             |         ^^^^^
        error: usage: save NAME (letters, digits, `_` or `-`)
        error: nothing saved as `nowhere` (saved: here)
        restored `here`
        [7] line 10: fails: assertion might not hold
          10 |     assert y > 1;
             |            ^^^^^
        the path goes on past the failed assertion, assuming it
    "#]],
    );
}

#[test]
fn assume_removes_a_failure_and_restore_undoes_it() {
    let program =
        "class A {\n  static void m(int x) {\n    int y = x;\n    assert y > 0;\n  }\n}\n";
    let script =
        "save before\nassume x > true\nassume x > 0\nstep\nlist 1\nrestore before\nlist 0\n";
    let o = debug("assume.sift", program, &[], script);
    same(
        &o,
        expect![[r#"
        debugging A.m in assume.sift: 1 error; 5 steps in the execution tree
        stopped at the first failure
        [4] line 4: fails: assertion might not hold
           4 |     assert y > 0;
             |            ^^^^^
        the path goes on past the failed assertion, assuming it
        saved `before` at [4] line 4: fails: assertion might not hold
        error: `assume x > true;` does not type-check; the program is unchanged
          line 4:16: type: mismatched types: expected `int`, found `bool`
        inserted `assume x > 0;` at line 4 and verified again: A.m verified (before: 1 error)
        [4] line 4: assume x > 0;
           4 |     assume x > 0; assert y > 0;
             |     ^^^^^^^^^^^^^
        [5] line 4: assert y > 0;
           4 |     assume x > 0; assert y > 0;
             |                   ^^^^^^^^^^^^^
        end of this path
             3 |     int y = x;
        >    4 |     assume x > 0; assert y > 0;
             5 |   }
        restored `before`
        [4] line 4: fails: assertion might not hold
           4 |     assert y > 0;
             |            ^^^^^
        the path goes on past the failed assertion, assuming it
        >    4 |     assert y > 0;
    "#]],
    );
}

#[test]
fn assume_before_a_split_leaves_one_branch() {
    let script = "back 4\nassume x > 5\nstep\nstore\nbranches\n";
    let o = debug("pick.sift", PICK, &[], script);
    same(
        &o,
        expect![[r#"
            debugging P.pick in pick.sift: 1 error; 13 steps in the execution tree
            stopped at the first failure
            [7] line 10: fails: assertion might not hold
              10 |     assert y > 1;
                 |            ^^^^^
            the path goes on past the failed assertion, assuming it
            [3] line 3: int y = 0;
               3 |     int y = 0;
                 |     ^^^^^^^^^^
            the path splits here into 2 branches (`branches` lists them)
            inserted `assume x > 5;` at line 3 and verified again: P.pick verified (before: 1 error)
            [4] line 3: assume x > 5;
               3 |     int y = 0; assume x > 5;
                 |                ^^^^^^^^^^^^^
            [5] line 4: if (x > 0): then branch
               4 |     if (x > 0) {
                 |         ^^^^^
            store (2 variables):
              x ↦ old(x)
              y ↦ 0
            the path does not split
        "#]],
    );
}

#[test]
fn unknown_commands_and_bad_arguments_are_reported_and_the_session_goes_on() {
    let o = debug(
        "straight.sift",
        STRAIGHT,
        &[],
        "frobnicate\nstep x\nbranch 0\nbranches\nwhere extra\nwhy\nold\nquit\nstep\n",
    );
    same(
        &o,
        expect![[r#"
            debugging Box.ok in straight.sift: verified; 5 steps in the execution tree
            stopped at the start
            [1] line 3: method entry
               3 |   static void ok() {
                 |               ^^
            error: unknown command `frobnicate` (`help` lists the commands)
            error: `x` is not a count (a positive number)
            error: usage: branch N (`0` is not a branch number (a positive number))
            the path does not split
            error: `where` takes no argument
            no failure at this step (`continue` goes to the next one)
            no old heap yet: `old(...)` reads the heap as the precondition leaves it, [2] line 3: precondition produced
        "#]],
    );
}

const JOIN: &str = "\
class J {
  int f;
  void j(int x)
    requires acc(f) && f > 0;
    ensures acc(f) && f > old(f);
  {
    int n = 0;
    if (x > 0) { n = 1; }
    join acc(f) && f > 0 && n >= 0;
    f = f + n;
  }
  static void k() { }
}
";

/// `old` shows the pre-state's heap; a path that reaches a `join` after
/// the first goes on in the merged state; `continue` finds the next
/// failure on another branch; `member` lists and switches members.
#[test]
fn old_join_continue_elsewhere_and_member() {
    let script = "where\nold\nbranches\nbranch 2\nstep\nstep\nstep\ncontinue\nmember\nmember k\nmember nope\n";
    let o = debug("join.sift", JOIN, &[], script);
    same(
        &o,
        expect![[r#"
            debugging J.j in join.sift: 1 error; 10 steps in the execution tree
            stopped at the first failure
            [8] line 5: fails: postcondition might not hold
               5 |     ensures acc(f) && f > old(f);
                 |                       ^^^^^^^^^^
            [8] line 5: fails: postcondition might not hold
               5 |     ensures acc(f) && f > old(f);
                 |                       ^^^^^^^^^^
            old heap (1 chunk; as the precondition left it, [2] line 4: precondition produced):
              this.f ↦ old(this.f)
            the path splits after [3] line 7: int n = 0;
            * 1: line 8: if (x > 0): then branch [pc + (0 < x)] — fails at line 5
              2: line 8: if (x > 0): else branch [pc + !(0 < x)]
            [4] line 8: if (x > 0): else branch (branch 2 of 2)
               8 |     if (x > 0) { n = 1; }
                 |         ^^^^^
            [5] line 9: join acc(f) && f > 0 && n >= 0;
               9 |     join acc(f) && f > 0 && n >= 0;
                 |     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            the paths merge at this `join`: `step` goes on from the merged state, [6] line 9: join acc(f) && f > 0 && n >= 0;
            [6] line 9: join acc(f) && f > 0 && n >= 0;
               9 |     join acc(f) && f > 0 && n >= 0;
                 |     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            [7] line 10: f = f + n;
              10 |     f = f + n;
                 |     ^^^^^^^^^^
            [8] line 5: fails: postcondition might not hold
               5 |     ensures acc(f) && f > old(f);
                 |                       ^^^^^^^^^^
            * J.j: 1 error
              J.k: verified
            debugging J.k in join.sift: verified; 2 steps in the execution tree
            stopped at the start
            [1] line 12: method entry
              12 |   static void k() { }
                 |               ^
            error: `nope` is not a member of `join.sift`; its members: J.j, J.k
        "#]],
    );
}

#[test]
fn prove_answers_for_the_path_of_the_session() {
    let script = "prove y >= 1\nprove y > 1\nback 3\nprove x > 0\nprove nope\nprove\n";
    let o = debug("pick.sift", PICK, &[], script);
    same(
        &o,
        expect![[r#"
        debugging P.pick in pick.sift: 1 error; 13 steps in the execution tree
        stopped at the first failure
        [7] line 10: fails: assertion might not hold
          10 |     assert y > 1;
             |            ^^^^^
        the path goes on past the failed assertion, assuming it
        `y >= 1` holds on this path
        `y > 1` might not hold on this path (assertion might not hold)
          counterexample: x = 1, y = 1
        [4] line 4: if (x > 0): then branch (branch 1 of 2)
           4 |     if (x > 0) {
             |         ^^^^^
        `x > 0` holds on this path
        error: `assert nope;` does not type-check here: cannot find value `nope` in this scope
        error: usage: prove EXPR
    "#]],
    );
}

#[test]
fn help_lists_every_command() {
    let o = debug("straight.sift", STRAIGHT, &[], "help\n");
    for cmd in [
        "step", "back", "continue", "run-to", "break", "delete", "branches", "branch N", "where",
        "list", "path", "heap", "store", "pc", "old", "diff", "why", "save", "restore", "assume",
        "prove", "member", "quit",
    ] {
        assert!(
            o.stdout.contains(&format!("\n  {cmd}")),
            "`{cmd}` missing from help:\n{}",
            o.stdout
        );
    }
}

#[test]
fn an_unknown_method_is_bad_usage_and_lists_the_members() {
    let o = debug("straight.sift", STRAIGHT, &["--method", "Box.nope"], "");
    assert_eq!(o.code, Some(2));
    assert_eq!(o.stdout, "");
    assert_eq!(
        o.stderr,
        "error: `Box.nope` is not a member of `straight.sift`; its members: Box.ok, Box.fill\n"
    );
}

#[test]
fn a_short_method_name_is_enough_when_unique() {
    let o = debug("straight.sift", STRAIGHT, &["--method", "fill"], "");
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert!(
        o.stdout
            .starts_with("debugging Box.fill in straight.sift: verified"),
        "{}",
        o.stdout
    );
}

#[test]
fn a_program_with_type_errors_is_not_debugged() {
    let o = debug(
        "bad.sift",
        "class A { static void m() { int x = true; } }\n",
        &[],
        "step\n",
    );
    assert_eq!(o.code, Some(2));
    assert_eq!(o.stdout, "");
    assert!(o.stderr.contains("[type] Error"), "{}", o.stderr);
}

#[test]
fn a_missing_file_is_bad_usage() {
    let missing = Command::new(env!("CARGO_BIN_EXE_sift"))
        .args(["debug", "/nonexistent/nothing.sift"])
        .stdin(Stdio::null())
        .output()
        .expect("run sift");
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).starts_with("error: cannot read"));
}

#[test]
fn why_explains_a_missing_chunk_with_the_step_that_took_it() {
    let program = LEAK;
    let o = debug("leak.sift", program, &[], "why\nback\ndiff\n");
    same(
        &o,
        expect![[r#"
            debugging A.n in leak.sift: 1 error; 5 steps in the execution tree
            stopped at the first failure
            [5] line 8: fails: no permission to write `a.f`
               8 |     a.f = 2;
                 |     ^^^
            permission.missing: no permission to write `a.f`
              `a.f` is missing: at the failure the heap was empty
              `a.f ↦ 1` left the heap at line 7: consumed by `leak(a);`
              counterexample: a = object#1, old(a.f) = 0
              help: `leak(a)` took `acc(a.f)`: give it back in the callee's `ensures`
            [4] line 7: leak(a);
               7 |     leak(a);
                 |     ^^^^^^^^
            changes since [3] line 6: a.f = 1;
              heap  − a.f ↦ 1
        "#]],
    );
}

/// The explanations of `sift verify` (text notes, JSON fields) and the
/// marks of `--trace`, on the same programs.
#[test]
fn reports_explain_failures() {
    let dir = std::env::temp_dir().join(format!("sift-debug-{}-explain", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join("leak.sift"), LEAK).expect("write");
    std::fs::write(dir.join("pick.sift"), PICK).expect("write");
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_sift"))
            .args(args)
            .current_dir(&dir)
            .output()
            .expect("run sift")
    };
    let o = run(&["verify", "--trace", "leak.sift", "pick.sift"]);
    assert_eq!(o.status.code(), Some(1));
    let err = norm(&String::from_utf8_lossy(&o.stderr));
    for want in [
        "why:",
        "`a.f` is missing: at the failure the heap was empty",
        "`a.f ↦ 1` left the heap at line 7: consumed by `leak(a);`",
        "on this path: line 4: if (x > 0): then branch",
        "counterexample: x = 1, y = 1",
        "       heap:  {}\n              − a.f ↦ 1\n",
        "       pc:    {(0 < x)}\n              + (0 < x)\n",
    ] {
        assert!(err.contains(want), "missing {want:?} in:\n{err}");
    }
    let o = run(&["verify", "--json", "pick.sift"]);
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let e = &doc["files"][0]["errors"][0];
    assert_eq!(
        e["explanation"],
        serde_json::json!([
            "on this path: line 4: if (x > 0): then branch",
            "counterexample: x = 1, y = 1"
        ])
    );
    assert_eq!(e["counterexample"], serde_json::json!({"x": "1", "y": "1"}));
}

/// A `for` loop is debugged as the `while` loop it stands for: its body is
/// a branch, `assume` goes to the start of the body, and the update is a
/// step at the header.
#[test]
fn for_loops_branch_and_take_assumptions_in_their_body() {
    let program = "\
class A {
  static void m(int n) {
    int s = 0;
    for (int i = 0; i < n; i++)
      invariant i >= 0;
    {
      s += i;
    }
    assert s >= 0;
  }
}
";
    let script = "back 1\nbranch 1\nassume s >= 0\nstep 2\nstore\n";
    let o = debug("for.sift", program, &[], script);
    same(
        &o,
        expect![[r#"
            debugging A.m in for.sift: 1 error; 10 steps in the execution tree
            stopped at the first failure
            [6] line 9: fails: assertion might not hold
               9 |     assert s >= 0;
                 |            ^^^^^^
            the path goes on past the failed assertion, assuming it
            [5] line 4: after the loop (while i < n) (branch 2 of 2)
               4 |     for (int i = 0; i < n; i++)
                 |                     ^^^^^
            [5] line 4: loop body (while i < n) (branch 1 of 2)
               4 |     for (int i = 0; i < n; i++)
                 |                     ^^^^^
            inserted `assume s >= 0;` at line 6 and verified again: A.m 1 error (before: 1 error)
            [6] line 6: assume s >= 0;
               6 |     { assume s >= 0;
                 |       ^^^^^^^^^^^^^^
            [8] line 4: i++
               4 |     for (int i = 0; i < n; i++)
                 |                            ^^^
            end of this path
            store (3 variables):
              i ↦ (i′ + 1)
              n ↦ old(n)
              s ↦ (s′ + i′)
        "#]],
    );
}

/// Quantified facts on the path read as the program writes them, and a
/// failed `forall` names the index that breaks it.
#[test]
fn quantified_facts_read_as_written() {
    const FILL: &str = "class Fill {
  static void fillShort(int[] a, int c)
    requires acc(a.elems);
    ensures acc(a.elems) && (forall int i :: 0 <= i && i < a.length ==> a[i] == c);
  {
    int j = 0;
    while (j < a.length - 1)
      invariant acc(a.elems) && 0 <= j && j <= a.length;
      invariant forall int i :: 0 <= i && i < j ==> a[i] == c;
    {
      a[j] = c;
      j = j + 1;
    }
  }
}
";
    let o = debug("fill.sift", FILL, &[], "pc\nwhy\n");
    same(
        &o,
        expect![[r#"
        debugging Fill.fillShort in fill.sift: 1 error; 8 steps in the execution tree
        stopped at the first failure
        [5] line 4: fails: postcondition might not hold
           4 |     ensures acc(a.elems) && (forall int i :: 0 <= i && i < a.length ==> a[i] == c);
             |                             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
        path condition (5 facts):
          (null != a)
          (0 <= j′)
          (j′ <= a.length)
          (forall i :: (((0 <= i) && (i < j′)) ==> (a[i] == c)))
          !(j′ < (a.length - 1))
        postcondition.failed: postcondition might not hold
          `(forall int i :: 0 <= i && i < a.length ==> a[i] == c)` might not hold
          on this path: line 7: after the loop (while j < a.length - 1)
          counterexample: a = [11, 11, 11, 11, 11, 11, 11, 12], c = 11, i = 7
          help: make `(forall int i :: 0 <= i && i < a.length ==> a[i] == c)` hold on this path before returning, or weaken the `ensures`
    "#]],
    );
}
