//! Array syntax: types, `new T[e]`, indexing, `decreases`.

use super::{body, parse_expr, show, tree};
use crate::syntax::ast::*;
use crate::syntax::parse;

#[test]
fn index_binds_like_a_field_access() {
    assert_eq!(tree("a[i + 1]"), "([] a (+ i 1))");
    assert_eq!(tree("a[i][j].f"), "(. ([] ([] a i) j) f)");
    assert_eq!(tree("-a[0] * 2"), "(* (- ([] a 0)) 2)");
    assert_eq!(tree("o.m()[2]"), "([] (call o m) 2)");
    assert_eq!(tree("a.length"), "(. a length)");
    let e = parse_expr("b[k]");
    assert_eq!(e.span.len(), 4);
}

#[test]
fn new_arrays_and_nested_types() {
    assert_eq!(tree("new int[n]"), "(new[] Int n)");
    assert_eq!(
        show(&parse_expr("new C[2][]")),
        "(new[] Array(Class(\"C\")) 2)"
    );
    let stmts = body("int[][] m = new int[3][]; m[0] = new int[2]; m[0][1] = 5;");
    match &stmts[0].kind {
        StmtKind::Local { ty, .. } => {
            assert_eq!(
                ty.kind,
                TypeKind::Array(Box::new(TypeKind::Array(Box::new(TypeKind::Int))))
            );
            // The span ends at the last `]`, not at the blank after it.
            assert_eq!(ty.span.len(), "int[][]".len());
        }
        k => panic!("{k:?}"),
    }
    assert!(matches!(stmts[1].kind, StmtKind::IndexAssign { .. }));
    assert!(matches!(stmts[2].kind, StmtKind::IndexAssign { .. }));
}

#[test]
fn length_and_elems_stay_identifiers() {
    let p = parse("class A { int length; int elems; void m(int elems) { length = elems; } }");
    assert!(p.is_ok(), "{p:?}");
}

#[test]
fn decreases_on_pure_methods_only() {
    let p = parse("class A { pure int f(int n) requires n >= 0; decreases n; { return n; } }")
        .expect("parses");
    assert!(p.classes[0].pures[0].decreases.is_some());
    // `decreases` is reserved, and comes after the `requires` clauses.
    assert!(parse("class A { int decreases; }").is_err());
    assert!(
        parse("class A { pure int f(int n) decreases n; requires n >= 0; { return n; } }").is_err()
    );
    assert!(parse("class A { void f(int n) decreases n; { } }").is_err());
}

#[test]
fn bad_array_syntax_is_a_parse_error() {
    for src in [
        "class A { void m() { int[ x; } }",
        "class A { void m() { x = new int[]; } }",
        "class A { void m() { x = a[1; } }",
        "class A { void m() { new int[2]; } }",
    ] {
        assert!(parse(src).is_err(), "{src}");
    }
}
