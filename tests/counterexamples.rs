//! Counterexamples must really falsify what failed: the values reported for
//! a method's parameters are substituted back (as `assume`s at the method's
//! entry) and the negation of the failing assertion must then verify.

use sift::diag::Kind;
use sift::{Options, verify_source};

/// A method `C.m` with an `assert` that fails; `params` are its parameters.
fn check(program: &str, method: &str, params: &[&str]) {
    let opts = Options::default();
    let report = verify_source("cex.sift", program, &opts);
    let errors: Vec<_> = report
        .errors
        .iter()
        .filter(|e| e.member == method)
        .collect();
    assert_eq!(
        errors.len(),
        1,
        "expected one error in {method}: {:#?}",
        report.errors
    );
    let e = errors[0];
    assert_eq!(e.diag.kind, Kind::AssertFailed);
    let values: Vec<(String, String)> = e
        .counterexample
        .iter()
        .filter(|(k, _)| params.contains(&k.as_str()))
        .cloned()
        .collect();
    assert_eq!(
        values.len(),
        params.len(),
        "counterexample {:?}",
        e.counterexample
    );
    // The failing assertion's text, from `assert` to `;` on its line.
    let start = e.diag.span.start;
    let line_start = program[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = program[start..]
        .find('\n')
        .map_or(program.len(), |i| start + i);
    let line = &program[line_start..line_end];
    let assert_at = line.find("assert ").expect("an assert line");
    let cond = line[assert_at + 7..].trim().trim_end_matches(';');
    let negated_line = format!("{}assert !({cond});", &line[..assert_at]);
    let assumes: String = values
        .iter()
        .map(|(k, v)| format!(" assume {k} == {v};"))
        .collect();
    let with_assumes = |text: &str| {
        // The assumptions go right after the method body's opening brace.
        let mut t = text.to_string();
        let header = t
            .find(&format!("void {}(", method.rsplit('.').next().unwrap()))
            .expect("method header");
        let brace = header + t[header..].find('{').expect("body");
        t.insert_str(brace + 1, &assumes);
        t
    };
    // Under the assumptions the path is still there and still fails...
    let same = verify_source("cex1.sift", &with_assumes(program), &opts);
    assert!(
        same.errors
            .iter()
            .any(|x| x.member == method && x.diag.kind == Kind::AssertFailed),
        "with {values:?} the assertion should still fail"
    );
    // ...and the assertion's negation holds on it.
    let negated = format!(
        "{}{negated_line}{}",
        &program[..line_start],
        &program[line_end..]
    );
    let substituted = with_assumes(&negated);
    let again = verify_source("cex2.sift", &substituted, &opts);
    let left: Vec<_> = again.errors.iter().filter(|e| e.member == method).collect();
    assert!(
        left.is_empty(),
        "with {values:?} the negated assertion should hold:\n{substituted}\n{left:#?}"
    );
}

#[test]
fn arithmetic_counterexample_falsifies_the_assertion() {
    check(
        "class C {\n  static void m(int x, int y) {\n    int z = x * 2 + y;\n    assert z != 7 || x < 0;\n  }\n}\n",
        "C.m",
        &["x", "y"],
    );
}

#[test]
fn branch_counterexample_falsifies_the_assertion() {
    check(
        "class C {\n  static void m(int a, bool b) {\n    int r = 0;\n    if (b && a > 3) { r = a - 3; } else { r = 1; }\n    assert r != 2;\n  }\n}\n",
        "C.m",
        &["a", "b"],
    );
}

#[test]
fn division_counterexample_falsifies_the_assertion() {
    check(
        "class C {\n  static void m(int a, int d) {\n    if (d != 0) {\n      assert a / d * d == a;\n    }\n  }\n}\n",
        "C.m",
        &["a", "d"],
    );
}

#[test]
fn field_counterexamples_name_program_locations() {
    let program = "class C {\n  int f;\n  static void m(C c)\n    requires acc(c.f);\n  {\n    assert c.f > 0;\n  }\n}\n";
    let report = verify_source("f.sift", program, &Options::default());
    let e = &report.errors[0];
    let f = e
        .counterexample
        .iter()
        .find(|(k, _)| k == "c.f")
        .expect("c.f in the counterexample");
    let v: i64 = f.1.parse().expect("an integer");
    assert!(v <= 0, "c.f = {v} does not falsify c.f > 0");
    let c = e.counterexample.iter().find(|(k, _)| k == "c").expect("c");
    assert!(c.1.starts_with("object#"), "{c:?}");
}

#[test]
fn postfix_update_counterexample_falsifies_the_assertion() {
    check(
        "class C {\n  static void m(int a, int b) {\n    int i = a;\n    int x = i + i++ * b;\n    assert x != 13 || i > 100;\n  }\n}\n",
        "C.m",
        &["a", "b"],
    );
}

/// The temporaries of a lowered statement are named after the text they
/// hold (`i++#2`: the value of `i++`), so that a counterexample reads.
#[test]
fn temporaries_are_named_after_their_text() {
    let program = "class C {\n  static void m(int a) {\n    int i = a;\n    int x = i + i++;\n    assert x != 6;\n  }\n}\n";
    let report = verify_source("t.sift", program, &Options::default());
    let e = &report.errors[0];
    let value = |name: &str| -> i64 {
        let (_, v) = e
            .counterexample
            .iter()
            .find(|(k, _)| k == name)
            .unwrap_or_else(|| panic!("{name} in {:?}", e.counterexample));
        v.parse().expect("an integer")
    };
    assert_eq!(value("a"), 3);
    assert_eq!(value("i#1"), 3);
    assert_eq!(value("i++#2"), 3);
    assert_eq!(value("i"), 4);
    assert_eq!(value("x"), 6);
}

/// An array in a counterexample is shown as its contents, read in the
/// model of the failing path (after the writes that led there).
#[test]
fn arrays_are_shown_as_their_contents() {
    let program = "class C {
  static void m(int[] a, int i)
    requires acc(a.elems) && a.length == 3 && 0 <= i && i < 3;
  {
    a[0] = 3;
    a[1] = 0;
    a[2] = 7;
    assert a[i] != 7;
  }
}
";
    let report = verify_source("cex.sift", program, &Options::default());
    assert_eq!(report.errors.len(), 1, "{:#?}", report.errors);
    let cex = &report.errors[0].counterexample;
    let get = |k: &str| cex.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    assert_eq!(get("a"), Some("[3, 0, 7]"), "{cex:?}");
    assert_eq!(get("i"), Some("2"), "{cex:?}");
}

/// A failed `forall` is shown with the value of its variable that breaks
/// it, and the failure is replayed concretely.
#[test]
fn a_failed_forall_shows_the_index_that_breaks_it() {
    let program = "class C {
  static void m(int[] a)
    requires acc(a.elems) && a.length == 3;
  {
    a[0] = 1;
    a[1] = 1;
    a[2] = 2;
    assert forall int i :: 0 <= i && i < a.length ==> a[i] == 1;
  }
}
";
    let report = verify_source("cex.sift", program, &Options::default());
    assert_eq!(report.errors.len(), 1, "{:#?}", report.errors);
    let e = &report.errors[0];
    let get = |k: &str| {
        e.counterexample
            .iter()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.as_str())
    };
    assert_eq!(get("a"), Some("[1, 1, 2]"), "{:?}", e.counterexample);
    assert_eq!(get("i"), Some("2"), "{:?}", e.counterexample);
    let replay = e.replay.as_ref().expect("a replay");
    assert_eq!(
        replay.status,
        sift::concrete::replay::ReplayStatus::Confirmed,
        "{replay:?}"
    );
}

/// Inputs replayed for a quantified precondition satisfy it: the element
/// reads the inputs are built from are terms of the model's query, so the
/// quantified facts hold for them.
#[test]
fn replayed_inputs_satisfy_a_quantified_precondition() {
    let program = "class C {
  static void m(int[] a)
    requires acc(a.elems) && a.length > 2 && (forall int i :: 0 <= i && i < a.length ==> a[i] > 0);
  {
    assert a[0] > 1;
  }
}
";
    let report = verify_source("cex.sift", program, &Options::default());
    assert_eq!(report.errors.len(), 1, "{:#?}", report.errors);
    let replay = report.errors[0].replay.as_ref().expect("a replay");
    assert_eq!(
        replay.status,
        sift::concrete::replay::ReplayStatus::Confirmed,
        "{replay:?}"
    );
}
