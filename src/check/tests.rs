//! Unit tests of the checker: exact messages and positions for a few rules,
//! the resolved tree, and the annotated programs of `tests/programs/type`.

use super::check;
use crate::diag::{Diagnostic, Kind, line_col};
use crate::syntax::ast::{CallTarget, Expr, ExprKind, MemberKind, Program, Receiver, StmtKind};
use crate::syntax::parse;

fn checked(src: &str) -> (Program, Vec<Diagnostic>) {
    let mut p = parse(src).unwrap_or_else(|d| {
        panic!(
            "parse error: {} at {:?}",
            d.message,
            line_col(src, d.span.start)
        )
    });
    let d = check(&mut p);
    (p, d)
}

fn errors(src: &str) -> Vec<Diagnostic> {
    checked(src).1
}

/// The only error of `src`: its message and the text at its span.
fn only(src: &str) -> (String, String) {
    let d = errors(src);
    assert_eq!(d.len(), 1, "{:#?}", d);
    (d[0].message.clone(), src[d[0].span.clone()].to_string())
}

fn wrap(body: &str) -> String {
    format!("class A {{\n  int f;\n  A g;\n  void m(int i, bool b, A a) {{\n{body}\n  }}\n}}\n")
}

#[test]
fn valid_example_has_no_errors() {
    let src = "class Cell {
  int x;
  Cell(int v) ensures valid() && getX() == v; { x = v; close valid(); use getX(); }
  void setX(int v) requires valid(); ensures valid() && getX() == v; { open valid(); x = v; close valid(); use getX(); }
  predicate valid() { return acc(x); }
  pure int getX() requires valid(); { return opening valid() in x; }
}";
    assert_eq!(errors(src), vec![]);
}

#[test]
fn unknown_value_with_suggestion() {
    let src = wrap("    int count = 1;\n    int y = cout;");
    let d = errors(&src);
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].kind, Kind::Type);
    assert_eq!(d[0].message, "cannot find value `cout` in this scope");
    assert_eq!(&src[d[0].span.clone()], "cout");
    assert_eq!(d[0].help.as_deref(), Some("did you mean `count`?"));
}

#[test]
fn local_out_of_scope_points_at_declaration() {
    let src = wrap("    if (b) { int t = 1; }\n    int u = t;");
    let d = errors(&src);
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].message, "cannot find value `t` in this scope");
    assert_eq!(d[0].related.len(), 1);
    assert_eq!(line_col(&src, d[0].related[0].span.start).0, 5);
}

#[test]
fn mismatched_types() {
    let (m, at) = only(&wrap("    int x = b;"));
    assert_eq!(m, "mismatched types: expected `int`, found `bool`");
    assert_eq!(at, "b");
    let (m, at) = only(&wrap("    int x = i + b;"));
    assert_eq!(m, "mismatched types: expected `int`, found `bool`");
    assert_eq!(at, "b");
    let (m, at) = only(&wrap("    bool x = i == b;"));
    assert_eq!(m, "cannot compare `int` with `bool` using `==`");
    assert_eq!(at, "i == b");
}

#[test]
fn misplaced_assertions() {
    let (m, at) = only("class A { int f; void m(bool b) requires !acc(f); { } }");
    assert_eq!(m, "access assertion `acc` is not allowed in this position");
    assert_eq!(at, "acc(f)");
    let (m, at) =
        only("class A { int f; predicate p() { return true; } void m() { if (p()) { } } }");
    assert_eq!(m, "predicate instance `p` is not allowed in code");
    assert_eq!(at, "p()");
    let (m, _) = only("class A { int f; void m() requires untouched(acc(f)); { } }");
    assert_eq!(
        m,
        "`untouched` is only allowed in postconditions and loop invariants"
    );
    let (m, _) = only("class A { int f; void m() { assume acc(f); } }");
    assert_eq!(m, "access assertion `acc` is not allowed in `assume`");
}

#[test]
fn old_result_and_static() {
    let (m, at) = only("class A { void m(int x) requires old(x) == x; { } }");
    assert_eq!(m, "`old` is only allowed in postconditions");
    assert_eq!(at, "old(x)");
    let (m, _) = only("class A { void m() ensures result == 1; { } }");
    assert_eq!(
        m,
        "`result` is only allowed in postconditions of methods that return a value"
    );
    let (m, at) = only("class A { static void m() { A a = this; } }");
    assert_eq!(m, "`this` is not available in a static context");
    assert_eq!(at, "this");
}

#[test]
fn calls_and_mutators() {
    let (m, at) = only("class A { int n() { return 1; } void m() { int x = n() + 1; } }");
    assert_eq!(m, "method `n` cannot be called in code");
    assert_eq!(at, "n()");
    let (m, _) = only("class A { pure int p() { return 1; } void m() { p(); } }");
    assert_eq!(m, "call of pure method `p` has no effect");
    let (m, at) = only("class A { void n(int a) { } void m() { n(1, 2); } }");
    assert_eq!(
        m,
        "method `n` takes 1 argument but 2 arguments were supplied"
    );
    assert_eq!(at, "n(1, 2)");
    let (m, _) = only("class A { void n() { } void m() { int x = n(); } }");
    assert_eq!(m, "method `n` does not return a value");
}

#[test]
fn returns() {
    let src = "class A { int m(bool b) { if (b) { return 1; } } }";
    let (m, at) = only(src);
    assert_eq!(m, "missing return statement");
    assert_eq!(at, "m");
    let (m, at) = only("class A { void m() { return; int x = 1; } }");
    assert_eq!(m, "unreachable statement");
    assert_eq!(at, "int x = 1;");
}

/// Java's reachability rules for loops: only a constant `true` condition
/// makes a `while` one that cannot complete normally.
#[test]
fn endless_loops() {
    let d = errors("class A { int m() { while (true) { return 1; } return 2; } }");
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].message, "unreachable statement");
    assert_eq!(
        d[0].label,
        "this statement follows a loop whose condition is always `true`"
    );
    assert_eq!(d[0].related.len(), 1);
    assert_eq!(
        d[0].related[0].message,
        "execution never goes past this statement"
    );
    let src =
        "class A { int m(bool b) { if (b) { while (true) { } } else { return 1; } b = true; } }";
    let d = errors(src);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].message, "unreachable statement");
    assert_eq!(&src[d[0].span.clone()], "b = true;");
    assert_eq!(
        d[0].label,
        "no branch of the `if` before this statement goes on after it"
    );
    for ok in [
        "while (true) { return 1; }",
        "while (((true))) { }",
        "while (1 < 2 && !false) { if (b) { return 1; } }",
        "if (b) { return 1; } else { while (true) { } }",
        "if (b) { return 1; } else if (!b) { while (true) { } } else { return 2; }",
    ] {
        let src = format!("class A {{ int m(bool b) {{ {ok} }} }}");
        assert_eq!(errors(&src), vec![], "{ok}");
    }
    for missing in [
        "while (b) { return 1; }",
        "bool t = true; while (t) { return 1; }",
        "while (true || b) { return 1; }",
        "while (false) { return 1; }",
        "while (1 / 0 == 0) { return 1; }",
        "if (b) { while (true) { } }",
        "if (b) { return 1; } else if (!b) { while (true) { } }",
    ] {
        let src = format!("class A {{ int m(bool b) {{ {missing} }} }}");
        let (m, at) = only(&src);
        assert_eq!((m.as_str(), at.as_str()), ("missing return statement", "m"));
    }
}

/// What counts as a constant expression (`check::constant`).
#[test]
fn constant_expressions() {
    use super::constant::{Const, value};
    let cond = |e: &str| -> Option<Const> {
        let src = format!("class A {{ void m(bool b) {{ while ({e}) {{ }} }} }}");
        let p = parse(&src).unwrap_or_else(|d| panic!("{e}: {}", d.message));
        match &p.classes[0].methods[0].body.stmts[0].kind {
            StmtKind::While { cond, .. } => value(cond),
            other => panic!("{other:?}"),
        }
    };
    let yes = Some(Const::Bool(true));
    for e in [
        "true",
        "((true))",
        "!false",
        "1 + 2 * 3 == 7",
        "-7 / 2 == -3",
        "-7 % 2 == -1",
        "0 <= 1 < 2",
        "false ==> false",
        "true != false",
        "(1 > 2 ? 3 : 4) == 4",
        "170141183460469231731687303715884105727 > 0",
    ] {
        assert_eq!(cond(e), yes, "{e}");
    }
    assert_eq!(cond("2 * 3 - 10"), Some(Const::Int(-4)));
    assert_eq!(cond("true && 1 > 2"), Some(Const::Bool(false)));
    for e in [
        "b",
        "true || b",
        "b == b",
        "null == null",
        "1 / 0 == 0",
        "1 % 0 == 0",
        "170141183460469231731687303715884105727 + 1 > 0",
        "170141183460469231731687303715884105728 > 0",
        "1 == true",
        "this == this",
    ] {
        assert_eq!(cond(e), None, "{e}");
    }
}

#[test]
fn declarations() {
    let (m, _) = only("class A { int x; void x() { } }");
    assert_eq!(m, "the name `x` is defined multiple times in class `A`");
    let (m, _) = only("class A { A() { } A(int x) { } }");
    assert_eq!(m, "class `A` has more than one constructor");
    let (m, at) = only("class A { void m(int a, int a) { } }");
    assert_eq!(
        m,
        "identifier `a` is bound more than once in this parameter list"
    );
    assert_eq!(at, "a");
    let (m, _) = only("class A { void m(int a) { int a = 1; } }");
    assert_eq!(m, "local `a` is already defined");
}

/// Finds the first expression statement or initializer of the first method.
fn first_init(p: &Program, class: usize, method: usize, stmt: usize) -> &Expr {
    match &p.classes[class].methods[method].body.stmts[stmt].kind {
        StmtKind::Local { init: Some(e), .. } => e,
        StmtKind::Call(e) => e,
        other => panic!("unexpected statement {other:?}"),
    }
}

#[test]
fn resolves_names_fields_and_calls() {
    let src = "class A {
  int f;
  static pure int s(int x) { return x; }
  pure int p() requires acc(f); { return f; }
  void n() { }
  void m(int x) requires acc(f); {
    int a = f + x;
    n();
    int b = A.s(1) + s(2) + p();
    f = a;
  }
}";
    let (p, d) = checked(src);
    assert_eq!(d, vec![]);
    let m = &p.classes[0].methods[1];
    // `f + x`: `this.f` and the parameter `x`.
    let ExprKind::Binary(_, l, r) = &first_init(&p, 0, 1, 0).kind else {
        panic!()
    };
    match &l.kind {
        ExprKind::Field { recv, field, class } => {
            assert!(matches!(recv.kind, ExprKind::This));
            assert_eq!(recv.span, l.span);
            assert_eq!(field.name, "f");
            assert_eq!(class, "A");
        }
        k => panic!("{k:?}"),
    }
    assert!(matches!(&r.kind, ExprKind::Var(v) if v.name == "x"));
    // `n();` is `this.n()`.
    let ExprKind::Call(c) = &first_init(&p, 0, 1, 1).kind else {
        panic!()
    };
    assert!(matches!(&c.receiver, Receiver::Expr(e) if matches!(e.kind, ExprKind::This)));
    assert_eq!(
        c.target,
        Some(CallTarget {
            class: "A".into(),
            kind: MemberKind::Method,
            is_static: false
        })
    );
    // `A.s(1) + s(2) + p()`.
    let ExprKind::Binary(_, l, r) = &first_init(&p, 0, 1, 2).kind else {
        panic!()
    };
    let ExprKind::Binary(_, a, b) = &l.kind else {
        panic!()
    };
    let ExprKind::Call(a) = &a.kind else { panic!() };
    assert!(matches!(&a.receiver, Receiver::Class(c) if c.name == "A"));
    assert_eq!(
        a.target.as_ref().map(|t| (t.kind, t.is_static)),
        Some((MemberKind::Pure, true))
    );
    let ExprKind::Call(b) = &b.kind else { panic!() };
    assert!(matches!(b.receiver, Receiver::Implicit));
    let ExprKind::Call(r) = &r.kind else { panic!() };
    assert!(matches!(&r.receiver, Receiver::Expr(e) if matches!(e.kind, ExprKind::This)));
    // `f = a;` is `this.f = a;`.
    match &m.body.stmts[3].kind {
        StmtKind::FieldAssign { target, value } => {
            assert!(matches!(&target.kind, ExprKind::Field { class, .. } if class == "A"));
            assert!(matches!(&value.kind, ExprKind::Var(v) if v.name == "a"));
        }
        k => panic!("{k:?}"),
    }
    // Contracts are resolved too: `acc(f)` is `acc(this.f)`.
    let ExprKind::Acc(a) = &m.requires[0].kind else {
        panic!()
    };
    assert!(matches!(&a.kind, ExprKind::Field { recv, .. } if matches!(recv.kind, ExprKind::This)));
}

#[test]
fn errors_are_sorted_and_all_reported() {
    let src =
        "class A {\n  void m() { int x = y; }\n  void n() { bool b = 1; }\n}\nclass B { C c; }\n";
    let d = errors(src);
    let lines: Vec<usize> = d.iter().map(|d| line_col(src, d.span.start).0).collect();
    assert_eq!(lines, vec![2, 3, 5]);
}

#[test]
fn deepest_parsable_trees_do_not_overflow() {
    let chain = vec!["1"; 500].join(" + ");
    let mut nest = String::from("1");
    let mut blocks = String::from("int x = -(1);");
    for _ in 0..190 {
        nest = format!("-({nest})");
        blocks = format!("if (true) {{ {blocks} }}");
    }
    let src = format!(
        "class A {{ int m() {{ return {chain}; }} int n() {{ return {nest}; }} void k() {{ {blocks} }} }}"
    );
    let mut p = parse(&src).expect("parses");
    assert_eq!(check(&mut p), vec![]);
}

/// Expected `(kind, line)` pairs of a test program from its `//~` comments.
fn annotations(src: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    for (i, line) in src.lines().enumerate() {
        let mut rest = line;
        while let Some(at) = rest.find("//~") {
            rest = &rest[at + 3..];
            if let Some(kind) = rest.split_whitespace().next() {
                out.push((kind.to_string(), i + 1));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn annotated_type_programs() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/type");
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/programs/type")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "sift"))
        .collect();
    entries.sort();
    assert!(!entries.is_empty());
    let mut failures = Vec::new();
    for path in entries {
        let src = std::fs::read_to_string(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let mut program = match parse(&src) {
            Ok(p) => p,
            Err(d) => {
                failures.push(format!(
                    "{name}: parse error at {:?}: {}",
                    line_col(&src, d.span.start),
                    d.message
                ));
                continue;
            }
        };
        let diags = check(&mut program);
        let mut got: Vec<(String, usize)> = diags
            .iter()
            .map(|d| (d.kind.as_str().to_string(), line_col(&src, d.span.start).0))
            .collect();
        got.sort();
        let want = annotations(&src);
        if want.is_empty() && got.is_empty() {
            // Checking a resolved tree again changes nothing.
            let again = check(&mut program);
            if !again.is_empty() {
                failures.push(format!(
                    "{name}: second check reported {}",
                    again[0].message
                ));
            }
        }
        if got != want {
            let detail: Vec<String> = diags
                .iter()
                .map(|d| format!("  {}: {}", line_col(&src, d.span.start).0, d.message))
                .collect();
            failures.push(format!(
                "{name}: expected {want:?}\n got {got:?}\n{}",
                detail.join("\n")
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
#[ignore]
fn dump_type_programs() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/type");
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for path in entries {
        let src = std::fs::read_to_string(&path).unwrap();
        println!("== {}", path.display());
        if let Ok(mut p) = parse(&src) {
            for d in check(&mut p) {
                let (l, c) = line_col(&src, d.span.start);
                println!(
                    "{l}:{c}: {} [{}] label={:?} help={:?} notes={:?}",
                    d.message,
                    &src[d.span.clone()],
                    d.label,
                    d.help,
                    d.notes
                );
            }
        }
    }
}

#[test]
fn uses_of_locals_and_parameters_are_bound_to_their_declarations() {
    let src =
        "class A { void m(int p) { if (p > 0) { int x = p; x = 1; } int x = 2; x = x + p; } }";
    let mut program = crate::syntax::parse(src).expect("parses");
    assert!(crate::check::check(&mut program).is_empty());
    let at = |needle: &str| src.find(needle).expect("in the source");
    let bound = |use_at: usize| {
        program
            .bindings
            .get(&use_at)
            .map(|b| (b.param, b.name.start))
    };
    let param = Some((true, at("p)")));
    let first_x = Some((false, at("x = p")));
    let second_x = Some((false, at("x = 2")));
    assert_eq!(bound(at("p > 0")), param);
    assert_eq!(bound(at("p; x")), param);
    assert_eq!(bound(at("x = 1")), first_x);
    assert_eq!(bound(at("x = x")), second_x);
    assert_eq!(bound(at("x + p")), second_x);
    assert_eq!(bound(at("p; } }")), param);
    let decl = &program.bindings[&at("x + p")].decl;
    assert_eq!(&src[decl.clone()], "int x = 2;");
    assert_eq!(&src[program.bindings[&at("p > 0")].decl.clone()], "int p");
}

#[test]
fn java_types_and_string_methods_get_a_hint() {
    let help = |src: &str| {
        let d = errors(src);
        assert_eq!(d.len(), 1, "{d:#?}");
        d[0].help.clone()
    };
    assert_eq!(
        help("class A { boolean b; }").as_deref(),
        Some("did you mean `bool`? (Sift's boolean type)")
    );
    assert_eq!(
        help("class A { String s; }").as_deref(),
        Some("Sift has no strings or characters")
    );
    assert_eq!(
        help("class A { long n; }").as_deref(),
        Some(
            "did you mean `int`? (Sift has one integer type: unbounded, or Java's 32-bit `int` with `--overflow`)"
        )
    );
    assert_eq!(
        help(&wrap("    int n = a.length();")).as_deref(),
        Some("an array's length is `a.length`, without `()` (Sift has no strings)")
    );
    // A class of that name is a class like any other.
    assert!(errors("class String { } class A { String s; }").is_empty());
}
