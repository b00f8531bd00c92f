//! Parsing of `Object`, `++`, `--`, compound assignments and `for`.

use super::super::ast::*;
use super::super::parse;
use super::{body, show, tree};

/// The statements of `body(stmts)` as S-expressions.
fn stmts(src: &str) -> Vec<String> {
    body(src).iter().map(show_stmt).collect()
}

fn show_stmt(s: &Stmt) -> String {
    match &s.kind {
        StmtKind::Update { target, op, value } => match value {
            Some(v) => format!("({}= {} {})", op.symbol(), show(target), show(v)),
            None => format!("({} {})", op.symbol().repeat(2), show(target)),
        },
        StmtKind::For(f) => {
            let part = |s: &Option<Stmt>| s.as_ref().map_or("_".to_string(), show_stmt);
            let inv: Vec<String> = f.invariants.iter().map(show).collect();
            let body: Vec<String> = f.body.stmts.iter().map(show_stmt).collect();
            format!(
                "(for {} {} {} [{}] {{{}}})",
                part(&f.init),
                show(&f.cond),
                part(&f.update),
                inv.join(" "),
                body.join(" ")
            )
        }
        StmtKind::Local { ty, name, init } => {
            let init = init
                .as_ref()
                .map_or(String::new(), |e| format!(" {}", show(e)));
            format!("(local {:?} {}{init})", ty.kind, name.name)
        }
        StmtKind::Assign { target, value } => format!("(= {} {})", target.name, show(value)),
        StmtKind::FieldAssign { target, value } => format!("(= {} {})", show(target), show(value)),
        StmtKind::Call(e) | StmtKind::Return(Some(e)) => show(e),
        StmtKind::Chain { targets, value } => {
            let ts: Vec<String> = targets.iter().map(show).collect();
            format!("(= {} {})", ts.join(" "), show(value))
        }
        other => format!("{other:?}"),
    }
}

#[test]
fn updates_as_statements() {
    assert_eq!(
        stmts("x++; x--; o.f++; this.f.g--; x += 1; o.f -= y * 2; x *= 3; x /= 4; x %= 5;"),
        [
            "(++ x)",
            "(-- x)",
            "(++ (. o f))",
            "(-- (. (. this f) g))",
            "(+= x 1)",
            "(-= (. o f) (* y 2))",
            "(*= x 3)",
            "(/= x 4)",
            "(%= x 5)",
        ]
    );
}

#[test]
fn postfix_updates_in_expressions() {
    assert_eq!(tree("i + i++"), "(+ i (post++ i))");
    assert_eq!(tree("-i--"), "(- (post-- i))");
    assert_eq!(tree("o.f++ * 2"), "(* (post++ (. o f)) 2)");
    // Greedy tokens, as in Java: `i+++j` is `i++ + j`, `i---j` is `i-- - j`.
    assert_eq!(tree("i+++j"), "(+ (post++ i) j)");
    assert_eq!(tree("i---j"), "(- (post-- i) j)");
    // A `-` apart from another is still a negation.
    assert_eq!(tree("i - -j"), "(- i (- j))");
    assert_eq!(tree("p(i++, i)"), "(call _ p (post++ i) i)");
    assert_eq!(stmts("return a.b(i++);"), ["(call a b (post++ i))"]);
}

#[test]
fn prefix_updates() {
    assert_eq!(
        stmts("++x; --o.f; ++a[i];"),
        ["(++ x)", "(-- (. o f))", "(++ ([] a i))"]
    );
    assert_eq!(tree("i + ++i"), "(+ i (pre++ i))");
    // `--i` is a decrement, as in Java; `- -i` negates twice.
    assert_eq!(tree("--i * 2"), "(* (pre-- i) 2)");
    assert_eq!(tree("- -i"), "(- (- i))");
    assert_eq!(tree("-++i"), "(- (pre++ i))");
    assert_eq!(tree("++a[i++]"), "(pre++ ([] a (post++ i)))");
    assert_eq!(tree("p(++o.f)"), "(call _ p (pre++ (. o f)))");
}

#[test]
fn assignment_chains() {
    assert_eq!(
        stmts("x = y = 1; a[i] = o.f = z = m(); x = y == z;"),
        [
            "(= x y 1)",
            "(= ([] a i) (. o f) z (call _ m))",
            "(= x (== y z))"
        ]
    );
    assert_eq!(
        stmts("for (i = j = 0; i < n; i = j = i + 1) { }"),
        ["(for (= i j 0) (< i n) (= i j (+ i 1)) [] {})"]
    );
}

#[test]
fn for_loops() {
    assert_eq!(
        stmts("for (int i = 0; i < n; i++) invariant i <= n; { s += i; }"),
        ["(for (local Int i 0) (< i n) (++ i) [(<= i n)] {(+= s i)})"]
    );
    assert_eq!(
        stmts("for (; b; ) { } for (i = 0; i < 3; o.m()) { }"),
        [
            "(for _ b _ [] {})",
            "(for (= i 0) (< i 3) (call o m) [] {})"
        ]
    );
    assert_eq!(
        stmts("for (Object o = null; true; i += 2) invariant a; invariant b; { x = 1; }"),
        ["(for (local Class(\"Object\") o null) true (+= i 2) [a b] {(= x 1)})"]
    );
}

#[test]
fn for_header_spans_end_at_their_last_token() {
    let src = "for (int i = 0 ; i < n ; i ++ ) { }";
    let s = &body(src)[0];
    let StmtKind::For(f) = &s.kind else {
        panic!("not a for loop: {s:?}");
    };
    let text = |sp: &Span| {
        let whole = format!("class A {{ void m() {{ {src} }} }}");
        whole[sp.clone()].to_string()
    };
    assert_eq!(text(&f.init.as_ref().unwrap().span), "int i = 0");
    assert_eq!(text(&f.update.as_ref().unwrap().span), "i ++");
    assert_eq!(text(&s.span), src);
}

#[test]
fn object_is_a_type_and_a_class_to_create() {
    let p =
        parse("class A { Object f; Object m(Object o) { Object x = new Object(); return x; } }")
            .unwrap();
    let c = &p.classes[0];
    assert_eq!(c.fields[0].ty.kind, TypeKind::Class(OBJECT.into()));
    assert_eq!(
        c.methods[0].params[0].ty.kind,
        TypeKind::Class(OBJECT.into())
    );
    assert_eq!(tree("new Object()"), "(new Object)");
}

#[test]
fn object_and_for_are_reserved() {
    for src in [
        "class Object { }",
        "class A { int Object; }",
        "class A { int for; }",
        "class A { void m() { int for = 1; } }",
        "class A { int break; }",
        "class A { void m() { int continue = 1; } }",
        "class A { void do() { } }",
    ] {
        assert!(parse(src).is_err(), "{src}");
    }
}

#[test]
fn malformed_updates_are_parse_errors() {
    for src in [
        // No compound chains, no chain into a prefix update (`++x++;` is
        // a type error: `x++` is no variable).
        "x += y += 1;",
        "x = y += 1;",
        "++x = 1;",
        "x + = 1;",
        // A `for` needs both `;`.
        "for (int i = 0) { }",
        "for (int i = 0; i < 3) { }",
        // The update is not a declaration.
        "for (; b; int j = 0) { }",
        // `x++` is no value to assign to.
        "x++ = 3;",
        // A `do` ends with `;` or its invariants; `break` and `continue`
        // take no label.
        "do { } while (b)",
        "do { } while (b) invariant b",
        "do x++; while (b);",
        "break l;",
        "continue 2;",
    ] {
        let whole = format!("class A {{ void m() {{ {src} }} }}");
        assert!(parse(&whole).is_err(), "{src}");
    }
}

/// The VS Code grammar (the only editor grammar: the Neovim plugin is a
/// language server client without a syntax file) highlights every reserved
/// word and the update operators.
#[test]
fn the_editor_grammar_knows_the_new_forms() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/editors/vscode/syntaxes/sift.tmLanguage.json"
    );
    let text = std::fs::read_to_string(path).expect("the grammar");
    let grammar: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let matches = |section: &str| -> Vec<String> {
        grammar["repository"][section]["patterns"]
            .as_array()
            .expect("patterns")
            .iter()
            .filter_map(|p| p["match"].as_str().map(str::to_string))
            .collect()
    };
    let words: Vec<String> = matches("keywords")
        .iter()
        .flat_map(|m| {
            m.replace(r"\b", " ")
                .split(|c: char| !c.is_ascii_alphanumeric())
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect();
    for word in super::super::scan::RESERVED {
        assert!(
            words.iter().any(|w| w == word),
            "`{word}` is not highlighted"
        );
    }
    let operators = matches("operators");
    for op in [r"\+\+|--", "[-+*/%]="] {
        assert!(operators.iter().any(|m| m == op), "no `{op}` pattern");
    }
}
