//! Syntax errors: where they are reported and what they say.

use super::{at, wrap_expr};
use crate::diag::Kind;
use crate::syntax::parse;

fn msg(src: &str) -> String {
    parse(src).expect_err(src).message
}

#[test]
fn error_positions() {
    let cases: &[(&str, (usize, usize))] = &[
        ("class A {\n  void m() {\n    x + 1;\n  }\n}", (3, 7)),
        ("class A {\n  void m() {\n    x;\n  }\n}", (3, 6)),
        (
            "class A {\n  void m() {\n    x = 1\n    y = 2;\n  }\n}",
            (4, 5),
        ),
        ("class A {\n  void m() {\n    x = 1\n  }\n}", (4, 3)),
        ("class A {\n  int class;\n}", (2, 7)),
        ("class A {\n  void m() {\n    x = (1 + 2;\n  }\n}", (3, 15)),
        ("class A {\n  void m() {\n    x = 1 $ 2;\n  }\n}", (3, 11)),
        ("class A {\n  void m() {\n    f(1, ) ;\n  }\n}", (3, 10)),
        ("class A {\n  int x\n}", (3, 1)),
        ("class A {\n  void m() requires x { }\n}", (2, 23)),
        ("class A {\n  void m() {\n    if x { }\n  }\n}", (3, 8)),
        ("class A {\n  void m() { }\n", (2, 15)),
        (
            "class A {\n  void m() {\n  }\n// end //~ parse\n\n",
            (4, 17),
        ),
        ("class A { }\nclass", (2, 6)),
        ("class A { }\nx", (2, 1)),
        ("class A {\n  B() { }\n}", (2, 4)),
        ("class A {\n  void m() {\n    f() = 3;\n  }\n}", (3, 9)),
        ("class A {\n  void m() {\n    open valid;\n  }\n}", (3, 15)),
        ("class A {\n  pure int f() { x = 1; }\n}", (2, 18)),
        ("class A {\n  predicate p() { return acc(x) }\n}", (2, 33)),
        ("class A {\n  void m() {\n    x == 1;\n  }\n}", (3, 7)),
        ("class A {\n  void m() {\n    -x = 1;\n  }\n}", (3, 5)),
        ("class A {\n  void m() {\n    int x = 1 2;\n  }\n}", (3, 15)),
        ("class A {\n  void m() {\n    x = a ? b;\n  }\n}", (3, 14)),
        (
            "class A {\n  void m() {\n    x = opening p in y;\n  }\n}",
            (3, 19),
        ),
        (
            "class A {\n  void m() {\n    x = /* a */ ;\n  }\n}",
            (3, 17),
        ),
        (
            "class A {\n  void m() {\n    while (x) invariant y; invariant { }\n  }\n}",
            (3, 38),
        ),
        ("class A {\n  /* a /* b */ */\n}", (2, 16)),
        (
            "class A {\n  void m() {\n    x = 1; /* never closed\n  }\n}",
            (3, 12),
        ),
    ];
    for (src, want) in cases {
        assert_eq!(at(src), *want, "{src}");
    }
}

#[test]
fn error_messages() {
    let m = |stmt: &str| msg(&format!("class A {{ void m() {{ {stmt} }} }}"));
    assert_eq!(m("x = ;"), "expected expression, found `;`");
    assert_eq!(m("f(1, );"), "expected expression, found `)`");
    assert_eq!(m("x;"), "expected `=` or a method call, found `;`");
    assert_eq!(m("x = 1 }"), "expected `;`, found `}`");
    assert_eq!(m("x = 1\n y = 2;"), "expected `;`, found `y`");
    assert_eq!(
        m("int class = 1;"),
        "expected identifier, found keyword `class`"
    );
    assert_eq!(
        m("if (x) { } else x = 1;"),
        "expected `if` or `{`, found `x`"
    );
    assert_eq!(m("x = (1;"), "expected `)`, found `;`");
    assert!(m("x + 1;").starts_with("expected one of"));
    assert!(m("x + 1;").ends_with("found `+`"));
    assert_eq!(msg("class A { int x }"), "expected `;`, found `}`");
    assert_eq!(
        msg("class A { void m() { }"),
        "expected `}` or class member, found end of file"
    );
    assert_eq!(
        msg("class A { } int"),
        "expected `class`, found keyword `int`"
    );
    assert_eq!(msg("class A { /* x"), "unterminated block comment");
    let d = parse("class A { int in; }").expect_err("in");
    assert!(d.help.is_some_and(|h| h.contains("reserved")));
    let d = parse("class A { void m() { x = 1\n } }").expect_err(";");
    assert_eq!(d.help.as_deref(), Some("add `;` at the end of line 1"));
    assert_eq!(d.label, "unexpected token");
    let d = parse(&wrap_expr("1 é 2")).expect_err("unicode");
    assert!(d.message.ends_with("found `é`"), "{}", d.message);
    assert_eq!(d.span.len(), 2);
    let d = parse(&format!("class A {{ {} }}", "(".repeat(300))).expect_err("deep");
    assert_eq!(d.span, 209..210);
    assert_eq!(d.message, "nesting too deep: more than 200 levels");
    assert_eq!(d.kind, Kind::Parse);
}

/// Java's line ends (LF, CRLF, lone CR) end a `//` comment and count as
/// line ends in positions and messages.
#[test]
fn every_line_end_ends_a_line_comment() {
    for nl in ["\n", "\r\n", "\r"] {
        let src = [
            "class A { // note",
            "  int f;",
            "  void m() {",
            "    x = 1",
            "  } }",
        ]
        .join(nl);
        assert_eq!(at(&src), (5, 3), "line end {nl:?}");
        let d = parse(&src).expect_err("the missing `;`");
        assert_eq!(
            d.help.as_deref(),
            Some("add `;` at the end of line 4"),
            "line end {nl:?}"
        );
        let fixed = src.replace("x = 1", "x = 1;");
        let p = parse(&fixed).expect("the comment ends with its line");
        assert_eq!(p.classes[0].fields.len(), 1, "line end {nl:?}");
    }
    // Not line ends in Java: a comment runs on past them.
    for other in ["\u{2028}", "\u{85}", "\x0b", "\x0c"] {
        let src = format!("class A {{ // x{other}int f; }}");
        assert!(parse(&src).is_err(), "{other:?}");
    }
}
