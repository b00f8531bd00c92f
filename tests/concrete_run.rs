//! The concrete interpreter (`sift run`): every check fails with the kind
//! and at the line the verifier would report, and passes where it holds.

use std::process::Command;

use sift::concrete::{Inputs, Limits, Outcome, Value, run_method};
use sift::diag::{Kind, line_col};
use sift::symbolic::program::ProgramInfo;

const CHECKS: &str = include_str!("concrete/checks.sift");

fn run(class: &str, method: &str, args: &[Value], this: bool) -> (Outcome, String) {
    let (program, _) = sift::verify::checked_program("checks.sift", CHECKS)
        .unwrap_or_else(|r| panic!("{:?}", r.errors.first().map(|e| &e.diag)));
    let prog = ProgramInfo::new(program);
    let mut inputs = Inputs {
        args: args.to_vec(),
        ..Inputs::default()
    };
    if this {
        let o = sift::concrete::inputs::fresh_object(&prog, &mut inputs.heap, class);
        inputs.this = Some(Value::Ref(o));
    }
    let r = run_method(
        &prog,
        CHECKS,
        class,
        method,
        inputs,
        Limits::default(),
        true,
    );
    let shown = match &r.outcome {
        Outcome::Returned(Some(v)) => r.heap.show(*v),
        _ => String::new(),
    };
    (r.outcome, shown)
}

fn fails(class: &str, method: &str, args: &[Value], this: bool, kind: Kind, line: usize) {
    match run(class, method, args, this).0 {
        Outcome::Failed(f) => {
            assert_eq!(
                (f.kind, line_col(CHECKS, f.span.start).0),
                (kind, line),
                "{class}.{method}: {}",
                f.message
            )
        }
        other => panic!("{class}.{method}: expected {kind} at line {line}, got {other:?}"),
    }
}

fn returns(class: &str, method: &str, args: &[Value], this: bool, shown: &str) {
    let (outcome, s) = run(class, method, args, this);
    assert!(
        matches!(outcome, Outcome::Returned(_)),
        "{class}.{method}: {outcome:?}"
    );
    assert_eq!(s, shown, "{class}.{method}");
}

use Value::{Int, Null};

#[test]
fn arithmetic_truncates_and_division_by_zero_fails() {
    returns("A", "div", &[Int(7), Int(-2)], false, "-3");
    returns("A", "div", &[Int(-7), Int(2)], false, "-3");
    fails(
        "A",
        "div",
        &[Int(3), Int(0)],
        false,
        Kind::DivisionByZero,
        3,
    );
}

#[test]
fn preconditions_are_checked_at_the_call_and_on_entry() {
    fails(
        "A",
        "callpos",
        &[Int(0)],
        false,
        Kind::PreconditionFailed,
        5,
    );
    returns("A", "callpos", &[Int(1)], false, "");
    fails("A", "pos", &[Int(0)], false, Kind::PreconditionFailed, 4);
}

#[test]
fn budgets_stop_infinite_loops_and_deep_recursion() {
    match run("A", "loop", &[Int(0)], false).0 {
        Outcome::Limit(why) => assert!(why.contains("step budget"), "{why}"),
        other => panic!("{other:?}"),
    }
    match run("A", "rec", &[Int(0)], false).0 {
        Outcome::Limit(why) => assert!(why.contains("call depth"), "{why}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn permissions_old_and_postconditions() {
    fails("A", "noPerm", &[], true, Kind::PermissionMissing, 8);
    returns("A", "ok", &[], true, "");
    fails("A", "wrongPost", &[], true, Kind::PostconditionFailed, 10);
    fails("A", "nullcall", &[Null], false, Kind::ReceiverNull, 17);
}

#[test]
fn loop_invariants_are_checked_after_each_iteration() {
    fails(
        "A",
        "inv",
        &[Int(3)],
        false,
        Kind::InvariantNotPreserved,
        13,
    );
    returns("A", "inv", &[Int(4)], false, "4");
}

#[test]
fn a_return_inside_a_loop_body_has_the_frame_back() {
    returns("L", "early", &[Int(5)], true, "");
    returns("L", "earlyWrong", &[Int(2)], true, "");
    fails(
        "L",
        "earlyWrong",
        &[Int(5)],
        true,
        Kind::PostconditionFailed,
        109,
    );
}

/// `break` leaves the innermost loop, `continue` goes to the next test
/// (in a `for` loop after the update), and the invariant is checked there:
/// at the first test of a `do` as `invariant.not.established`.
#[test]
fn break_continue_and_do() {
    // n = 4: the `while` counts the odd i in 1..4 (2), the `for` adds 10
    // for k = 0, 2, 3 (its `continue` at k = 1 runs `k++`).
    returns("J", "jumps", &[Int(4)], false, "32");
    returns("J", "jumps", &[Int(0)], false, "0");
    fails(
        "J",
        "continueBreaks",
        &[Int(5)],
        false,
        Kind::InvariantNotPreserved,
        142,
    );
    returns("J", "continueBreaks", &[Int(1)], false, "1");
    returns("J", "counts", &[Int(0), Int(1)], false, "1");
    returns("J", "counts", &[Int(3), Int(3)], false, "3");
    fails(
        "J",
        "counts",
        &[Int(3), Int(0)],
        false,
        Kind::InvariantNotEstablished,
        151,
    );
    fails(
        "J",
        "counts",
        &[Int(3), Int(2)],
        false,
        Kind::InvariantNotPreserved,
        151,
    );
    // The body's first run ends at the `break` (n = 5, i = 3) or at the
    // test: `f` is held throughout.
    returns("J", "keeps", &[Int(5)], true, "");
    returns("J", "keeps", &[Int(0)], true, "");
}

#[test]
fn predicates_own_their_footprint() {
    // Two lists sharing a tail: the second close opens the first list to
    // take `a.list()` (inference), as the verifier does, so only the
    // postcondition `false` fails.
    fails("P", "twice", &[], false, Kind::PostconditionFailed, 35);
    // A cycle cannot be a list: closing on demand meets `a.v` twice.
    fails("P", "cycle", &[], false, Kind::CloseFailed, 61);
    returns("P", "two", &[], false, "P#1");
    // `acc(a.v) && acc(a.v)` needs two disjoint permissions.
    fails("P", "callSep", &[], false, Kind::PreconditionFailed, 47);
    fails("P", "nullOpen", &[], false, Kind::OpenFailed, 48);
    // Writing inside a held instance opens it (inference); it is not held
    // afterwards, but can be closed again on demand from its fields.
    returns("P", "writeInside", &[], false, "");
}

#[test]
fn joins_are_checked() {
    fails("P", "joined", &[Int(0)], false, Kind::JoinFailed, 52);
    returns("P", "joined", &[Int(-3)], false, "3");
}

fn sift(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_sift"))
        .args(args)
        .output()
        .expect("run sift")
}

fn example(name: &str) -> String {
    format!("{}/examples/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn checks_file() -> String {
    format!("{}/tests/concrete/checks.sift", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn run_prints_the_result_or_the_failed_check_with_exit_codes() {
    let o = sift(&["run", &checks_file(), "--method", "A.div", "7", "-2"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "A.div(7, -2) returned -3\n"
    );
    let o = sift(&["run", &checks_file(), "--method", "A.div", "3", "0"]);
    assert_eq!(o.status.code(), Some(1));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("checks.sift:3:41: division.by.zero"), "{out}");
    assert!(out.contains("store: y = 0"), "{out}");
    let o = sift(&["run", &checks_file(), "--method", "A.rec", "0"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stdout).contains("call depth budget exhausted"));
}

#[test]
fn run_rejects_bad_arguments_with_exit_two() {
    for (args, msg) in [
        (
            vec!["A.div", "3"],
            "`A.div` takes 2 arguments (int x, int y), 1 given",
        ),
        (vec!["A.div", "3", "true"], "`true` is not an integer"),
        (vec!["A.nope"], "no method `A.nope`"),
        (
            vec!["A.leak", "x"],
            "objects cannot be given on the command line",
        ),
    ] {
        let mut all = vec!["run", "CHECKS", "--method"];
        let file = checks_file();
        all[1] = &file;
        all.extend(args.iter());
        let o = sift(&all);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(msg), "{args:?}: {err}");
    }
}

#[test]
fn every_example_main_runs() {
    for (file, method, result) in [
        ("cell.sift", "Client.main", "Client.main() returned"),
        (
            "cell_inferred.sift",
            "Client.main",
            "Client.main() returned",
        ),
        ("list.sift", "Client.main", "Client.main() returned"),
        (
            "list_inferred.sift",
            "Client.main",
            "Client.main() returned",
        ),
        ("swap.sift", "Client.main", "Client.main() returned"),
        ("join.sift", "Counter.client", "Counter.client() returned"),
        ("counter.sift", "Counter.main", "Counter.main() returned"),
    ] {
        let o = sift(&["run", &example(file), "--method", method]);
        assert_eq!(o.status.code(), Some(0), "{file}: {:?}", o);
        assert!(
            String::from_utf8_lossy(&o.stdout).starts_with(result),
            "{file}"
        );
    }
}

#[test]
fn bounded_quantifiers_are_enumerated_and_unbounded_ones_stop_the_run() {
    returns("Q", "fill", &[Int(4), Int(7)], false, "4");
    returns("Q", "fill", &[Int(0), Int(7)], false, "0");
    fails("Q", "wrongFill", &[Int(3)], false, Kind::AssertFailed, 88);
    // The guard lets `i` reach the length: the read fails, as in `verify`.
    fails("Q", "outside", &[Int(2)], false, Kind::AssertFailed, 95);
    match run("Q", "unbounded", &[Int(0)], false).0 {
        Outcome::Unchecked(span) => assert_eq!(line_col(CHECKS, span.start).0, 100),
        other => panic!("expected a quantifier that cannot be checked, got {other:?}"),
    }
}
