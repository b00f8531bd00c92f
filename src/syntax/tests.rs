//! Unit tests of the parser: trees, spans and error positions.

use super::ast::*;
use super::parse;
use crate::diag::{Kind, line_col};

mod arrays;
mod errors;
mod limits;
mod sugar;

/// An S-expression for a tree, for compact comparisons.
pub fn show(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Int(s) => s.clone(),
        ExprKind::Bool(b) => b.to_string(),
        ExprKind::Null => "null".into(),
        ExprKind::This => "this".into(),
        ExprKind::Result => "result".into(),
        ExprKind::Name(i) | ExprKind::Var(i) => i.name.clone(),
        ExprKind::Field { recv, field, .. } => format!("(. {} {})", show(recv), field.name),
        ExprKind::Call(c) => show_call(c),
        ExprKind::New { class, args } => {
            let args: Vec<String> = args.iter().map(show).collect();
            format!("(new {}{})", class.name, prefixed(&args))
        }
        ExprKind::Unary(op, a) => {
            let op = if *op == UnOp::Not { "!" } else { "-" };
            format!("({op} {})", show(a))
        }
        ExprKind::Binary(op, a, b) => format!("({} {} {})", op.symbol(), show(a), show(b)),
        ExprKind::Cond(c, a, b) => format!("(? {} {} {})", show(c), show(a), show(b)),
        ExprKind::Old(a) => format!("(old {})", show(a)),
        ExprKind::Opening(c, b) => format!("(opening {} {})", show_call(c), show(b)),
        ExprKind::Using(c, b) => format!("(using {} {})", show_call(c), show(b)),
        ExprKind::Acc(a) => format!("(acc {})", show(a)),
        ExprKind::Untouched(a) => format!("(untouched {})", show(a)),
        ExprKind::PostStep(op, a) => format!("(post{} {})", op.symbol(), show(a)),
        ExprKind::PreStep(op, a) => format!("(pre{} {})", op.symbol(), show(a)),
        ExprKind::Int32(a) => format!("(int32 {})", show(a)),
        ExprKind::NewArray { elem, size } => format!("(new[] {:?} {})", elem.kind, show(size)),
        ExprKind::Index { arr, index, .. } => format!("([] {} {})", show(arr), show(index)),
        ExprKind::Length(a) => format!("(length {})", show(a)),
        ExprKind::Quant(q) => {
            let vars: Vec<String> = q
                .vars
                .iter()
                .map(|v| format!("{} {}", v.ty.kind, v.name.name))
                .collect();
            format!("({} [{}] {})", q.word(), vars.join(", "), show(&q.body))
        }
    }
}

fn prefixed(items: &[String]) -> String {
    items.iter().map(|s| format!(" {s}")).collect()
}

fn show_call(c: &Call) -> String {
    let args: Vec<String> = c.args.iter().map(show).collect();
    let recv = match &c.receiver {
        Receiver::Implicit => "_".to_string(),
        Receiver::Expr(e) => show(e),
        Receiver::Class(i) => format!("class {}", i.name),
    };
    format!("(call {recv} {}{})", c.name.name, prefixed(&args))
}

pub fn wrap_expr(e: &str) -> String {
    format!("class A {{ void m() {{ x = {e}; }} }}")
}

/// The value of the single `x = e;` in `wrap_expr(e)`.
pub fn parse_expr(e: &str) -> Expr {
    let p = parse(&wrap_expr(e)).unwrap_or_else(|d| panic!("{e}: {d:?}"));
    match &p.classes[0].methods[0].body.stmts[0].kind {
        StmtKind::Assign { value, .. } => value.clone(),
        k => panic!("not an assignment: {k:?}"),
    }
}

fn tree(e: &str) -> String {
    show(&parse_expr(e))
}

/// The text an expression spans inside `wrap_expr(e)`.
fn text_of(e: &str, sub: &Expr) -> String {
    wrap_expr(e)[sub.span.clone()].to_string()
}

pub fn body(stmts: &str) -> Vec<Stmt> {
    let src = format!("class A {{ void m() {{ {stmts} }} }}");
    let p = parse(&src).unwrap_or_else(|d| panic!("{stmts}: {d:?}"));
    p.classes[0].methods[0].body.stmts.clone()
}

#[test]
fn precedence() {
    let cases = [
        ("a || b && c", "(|| a (&& b c))"),
        ("a && b || c", "(|| (&& a b) c)"),
        ("a ==> b ==> c", "(==> a (==> b c))"),
        ("c ? a : b ? d : e", "(? c a (? b d e))"),
        ("c ? a ? b : d : e", "(? c (? a b d) e)"),
        ("x || y ? a : b", "(? (|| x y) a b)"),
        ("c ? a : b ==> d", "(? c a (==> b d))"),
        ("a ==> b || c", "(==> a (|| b c))"),
        ("-a * b", "(* (- a) b)"),
        ("!a == b", "(== (! a) b)"),
        ("!a && b", "(&& (! a) b)"),
        ("- -a", "(- (- a))"),
        ("a - -b", "(- a (- b))"),
        ("-a.f", "(- (. a f))"),
        ("!x.m()", "(! (call x m))"),
        ("a.f.g", "(. (. a f) g)"),
        ("x.m(1).f", "(. (call x m 1) f)"),
        ("a + b * c - d", "(- (+ a (* b c)) d)"),
        ("a % b / c * d", "(* (/ (% a b) c) d)"),
        ("a - b - c", "(- (- a b) c)"),
        ("a == b != c", "(!= (== a b) c)"),
        ("a == b ==> c || d", "(==> (== a b) (|| c d))"),
        ("a + 1 < b * 2 == c", "(== (< (+ a 1) (* b 2)) c)"),
        ("(a + b) * c", "(* (+ a b) c)"),
        ("m(1, x + 2)", "(call _ m 1 (+ x 2))"),
        ("m()", "(call _ m)"),
        ("C.m(x)", "(call C m x)"),
        ("this.f", "(. this f)"),
        ("new C(1, 2)", "(new C 1 2)"),
        ("new C()", "(new C)"),
        ("new C().f", "(. (new C) f)"),
        ("old(x.f) + 1", "(+ (old (. x f)) 1)"),
        ("acc(x.f) && acc(y.g)", "(&& (acc (. x f)) (acc (. y g)))"),
        ("untouched(acc(f))", "(untouched (acc f))"),
        ("result == null", "(== result null)"),
        ("true != false", "(!= true false)"),
        ("007", "7"),
        ("0", "0"),
        (
            "123456789012345678901234567890",
            "123456789012345678901234567890",
        ),
    ];
    for (src, want) in cases {
        assert_eq!(tree(src), want, "{src}");
    }
}

#[test]
fn receivers() {
    let e = parse_expr("C.m(x)");
    let ExprKind::Call(c) = &e.kind else { panic!() };
    assert!(
        matches!(&c.receiver, Receiver::Expr(r) if matches!(&r.kind, ExprKind::Name(n) if n.name == "C"))
    );
    assert!(c.target.is_none());
    let e = parse_expr("m(x)");
    let ExprKind::Call(c) = &e.kind else { panic!() };
    assert!(matches!(c.receiver, Receiver::Implicit));
    let e = parse_expr("x.f");
    let ExprKind::Field { class, .. } = &e.kind else {
        panic!()
    };
    assert!(class.is_empty());
}

#[test]
fn chained_comparisons() {
    let cases = [
        ("0 <= i < n", "(&& (<= 0 i) (< i n))"),
        ("a < b < c < d", "(&& (&& (< a b) (< b c)) (< c d))"),
        ("a > b >= c", "(&& (> a b) (>= b c))"),
        ("a < b + 1 < c", "(&& (< a (+ b 1)) (< (+ b 1) c))"),
        ("(a < b) < c", "(< (< a b) c)"),
        ("a < (b < c)", "(< a (< b c))"),
        ("a < b == c < d", "(== (< a b) (< c d))"),
        ("x && 0 <= i < n", "(&& x (&& (<= 0 i) (< i n)))"),
        ("0 <= i < n && y", "(&& (&& (<= 0 i) (< i n)) y)"),
    ];
    for (src, want) in cases {
        assert_eq!(tree(src), want, "{src}");
    }
    // The And spans the chain; each comparison spans its own operands.
    let src = "0 <= i < n";
    let e = parse_expr(src);
    assert_eq!(text_of(src, &e), "0 <= i < n");
    let ExprKind::Binary(BinOp::And, l, r) = &e.kind else {
        panic!()
    };
    assert_eq!(text_of(src, l), "0 <= i");
    assert_eq!(text_of(src, r), "i < n");
    let src = "a < b < c < d";
    let e = parse_expr(src);
    let ExprKind::Binary(BinOp::And, l, r) = &e.kind else {
        panic!()
    };
    assert_eq!(text_of(src, &e), "a < b < c < d");
    assert_eq!(text_of(src, l), "a < b < c");
    assert_eq!(text_of(src, r), "c < d");
}

#[test]
fn quantifiers_extend_right_and_bind_several_variables() {
    let cases = [
        (
            "forall int i :: 0 <= i && i < n ==> a[i] > 0",
            "(forall [int i] (==> (&& (<= 0 i) (< i n)) (> ([] a i) 0)))",
        ),
        (
            "b && exists int i, bool c :: p(i, c) || c",
            "(&& b (exists [int i, bool c] (|| (call _ p i c) c)))",
        ),
        (
            "(forall int i :: a[i] == 0) && b",
            "(&& (forall [int i] (== ([] a i) 0)) b)",
        ),
        (
            "x ==> forall int i :: 0 <= i < n ==> a[i] == 0",
            "(==> x (forall [int i] (==> (&& (<= 0 i) (< i n)) (== ([] a i) 0))))",
        ),
    ];
    for (src, want) in cases {
        assert_eq!(show(&parse_expr(src)), want, "{src}");
    }
    let e = parse_expr("forall int i :: a[i] == 0 ");
    assert_eq!(e.span, 25..50);
    for bad in [
        "forall i :: a[i]",
        "forall int i : a[i]",
        "forall int :: true",
        "exists int i, :: true",
    ] {
        assert!(parse(&wrap_expr(bad)).is_err(), "{bad}");
    }
    for word in ["forall", "exists", "seq"] {
        assert!(
            parse(&format!("class A {{ int {word}; }}")).is_err(),
            "{word}"
        );
    }
}

#[test]
fn opening_and_using_extend_right() {
    let cases = [
        (
            "opening valid() in x + 1",
            "(opening (call _ valid) (+ x 1))",
        ),
        (
            "1 + opening p() in x && y",
            "(+ 1 (opening (call _ p) (&& x y)))",
        ),
        ("(opening p() in x) && y", "(&& (opening (call _ p) x) y)"),
        (
            "using this.q(1) in a ? b : c",
            "(using (call this q 1) (? a b c))",
        ),
        ("c ? opening p() in a : b", "(? c (opening (call _ p) a) b)"),
        (
            "opening n.next.valid() in opening q() in n.v",
            "(opening (call (. n next) valid) (opening (call _ q) (. n v)))",
        ),
        (
            "m(opening p() in x, y)",
            "(call _ m (opening (call _ p) x) y)",
        ),
        (
            "using C.f(n) in f(n) == 1 ==> b",
            "(using (call C f n) (==> (== (call _ f n) 1) b))",
        ),
    ];
    for (src, want) in cases {
        assert_eq!(tree(src), want, "{src}");
    }
    let src = "1 + opening p() in x && y";
    let e = parse_expr(src);
    let ExprKind::Binary(_, _, r) = &e.kind else {
        panic!()
    };
    assert_eq!(text_of(src, r), "opening p() in x && y");
    let ExprKind::Opening(c, b) = &r.kind else {
        panic!()
    };
    assert_eq!(wrap_expr(src)[c.span.clone()].to_string(), "p()");
    assert_eq!(text_of(src, b), "x && y");
}

#[test]
fn expression_spans() {
    let src = "a.b.m(1, 2).f + (x) * -y";
    let e = parse_expr(src);
    assert_eq!(text_of(src, &e), src);
    let ExprKind::Binary(BinOp::Add, l, r) = &e.kind else {
        panic!()
    };
    assert_eq!(text_of(src, l), "a.b.m(1, 2).f");
    let ExprKind::Field { recv, field, .. } = &l.kind else {
        panic!()
    };
    assert_eq!(wrap_expr(src)[field.span.clone()].to_string(), "f");
    assert_eq!(text_of(src, recv), "a.b.m(1, 2)");
    let ExprKind::Call(c) = &recv.kind else {
        panic!()
    };
    assert_eq!(wrap_expr(src)[c.span.clone()].to_string(), "a.b.m(1, 2)");
    assert_eq!(wrap_expr(src)[c.name.span.clone()].to_string(), "m");
    let Receiver::Expr(rc) = &c.receiver else {
        panic!()
    };
    assert_eq!(text_of(src, rc), "a.b");
    assert_eq!(text_of(src, &c.args[1]), "2");
    let ExprKind::Binary(BinOp::Mul, x, y) = &r.kind else {
        panic!()
    };
    assert_eq!(text_of(src, x), "(x)");
    assert_eq!(text_of(src, y), "-y");
    let src = "m(x) + c ? old(y) : acc(z.f)";
    let e = parse_expr(src);
    let ExprKind::Cond(c, a, b) = &e.kind else {
        panic!()
    };
    assert_eq!(text_of(src, c), "m(x) + c");
    assert_eq!(text_of(src, a), "old(y)");
    assert_eq!(text_of(src, b), "acc(z.f)");
    let ExprKind::Binary(_, call, _) = &c.kind else {
        panic!()
    };
    let ExprKind::Call(call) = &call.kind else {
        panic!()
    };
    assert_eq!(wrap_expr(src)[call.span.clone()].to_string(), "m(x)");
    let src = "(new C(1))";
    assert_eq!(text_of(src, &parse_expr(src)), "(new C(1))");
}

#[test]
fn reserved_words_and_identifiers() {
    for name in [
        "iffy", "thisX", "newer", "int_", "inx", "classy", "_in", "opened", "user", "x1",
    ] {
        let stmts = body(&format!("{name} = {name};"));
        let StmtKind::Assign { target, value } = &stmts[0].kind else {
            panic!("{name}")
        };
        assert_eq!(target.name, name);
        assert_eq!(show(value), name);
    }
    for word in super::scan::RESERVED {
        let src = format!("class A {{ int {word}; }}");
        let d = parse(&src).expect_err(word);
        assert_eq!(d.kind, Kind::Parse);
        assert_eq!(d.span, 14..14 + word.len(), "{word}");
        assert!(d.message.contains("identifier"), "{word}: {}", d.message);
    }
}

#[test]
fn statements() {
    let stmts = body(
        "int a; bool b = true; Node n = new Node(1); a = 1; n.f = a; n.m(a); m(); C.s();
         a = n.g(1); int c = C.s(); if (b) { a = 2; } if (b) { } else { a = 3; }
         while (a < 10) invariant 0 <= a; invariant b; { a = a + 1; }
         while (b) { b = false; }
         assert acc(n.f); assume a > 0; open n.valid(); close valid(); use C.p(a); use p();
         join acc(n.f); return a; return;",
    );
    let kinds: Vec<String> = stmts
        .iter()
        .map(|s| {
            format!("{:?}", s.kind)
                .split([' ', '{', '('])
                .next()
                .unwrap_or("")
                .to_string()
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "Local",
            "Local",
            "Local",
            "Assign",
            "FieldAssign",
            "Call",
            "Call",
            "Call",
            "Assign",
            "Local",
            "If",
            "If",
            "While",
            "While",
            "Assert",
            "Assume",
            "Open",
            "Close",
            "Use",
            "Use",
            "Join",
            "Return",
            "Return"
        ]
    );
    let StmtKind::Local {
        ty,
        name,
        init: None,
    } = &stmts[0].kind
    else {
        panic!()
    };
    assert_eq!((ty.kind.clone(), name.name.as_str()), (TypeKind::Int, "a"));
    let StmtKind::Local {
        ty, init: Some(e), ..
    } = &stmts[2].kind
    else {
        panic!()
    };
    assert_eq!(ty.kind, TypeKind::Class("Node".into()));
    assert_eq!(show(e), "(new Node 1)");
    let StmtKind::FieldAssign { target, value } = &stmts[4].kind else {
        panic!()
    };
    assert_eq!((show(target), show(value)), ("(. n f)".into(), "a".into()));
    let StmtKind::Call(c) = &stmts[7].kind else {
        panic!()
    };
    assert_eq!(show(c), "(call C s)");
    let StmtKind::If { els: None, .. } = &stmts[10].kind else {
        panic!()
    };
    let StmtKind::If { els: Some(e), .. } = &stmts[11].kind else {
        panic!()
    };
    assert_eq!(e.stmts.len(), 1);
    let StmtKind::While {
        cond,
        invariants,
        body,
        ..
    } = &stmts[12].kind
    else {
        panic!()
    };
    assert_eq!(show(cond), "(< a 10)");
    assert_eq!(
        invariants.iter().map(show).collect::<Vec<_>>(),
        ["(<= 0 a)", "b"]
    );
    assert_eq!(body.stmts.len(), 1);
    let StmtKind::Open(c) = &stmts[16].kind else {
        panic!()
    };
    assert_eq!(show(c), "(call n valid)");
    let StmtKind::Close(c) = &stmts[17].kind else {
        panic!()
    };
    assert_eq!(show(c), "(call _ valid)");
    let StmtKind::Use(c) = &stmts[18].kind else {
        panic!()
    };
    assert_eq!(show(c), "(call C p a)");
    assert!(matches!(&stmts[21].kind, StmtKind::Return(Some(_))));
    assert!(matches!(&stmts[22].kind, StmtKind::Return(None)));
}

#[test]
fn else_if_chains_nest_in_else_blocks() {
    let src = "class A { void m() { if (a) { x = 1; } else if (b) { x = 2; } else if (c) { } else { x = 4; } } }";
    let p = parse(src).unwrap();
    let s = &p.classes[0].methods[0].body.stmts[0];
    assert_eq!(&src[s.span.clone()], &src[21..src.len() - 4]);
    let StmtKind::If {
        cond,
        els: Some(e1),
        ..
    } = &s.kind
    else {
        panic!()
    };
    assert_eq!(show(cond), "a");
    assert_eq!(
        &src[e1.span.clone()],
        "if (b) { x = 2; } else if (c) { } else { x = 4; }"
    );
    let StmtKind::If {
        cond,
        els: Some(e2),
        ..
    } = &e1.stmts[0].kind
    else {
        panic!()
    };
    assert_eq!(show(cond), "b");
    let StmtKind::If {
        cond,
        then,
        els: Some(e3),
    } = &e2.stmts[0].kind
    else {
        panic!()
    };
    assert_eq!(show(cond), "c");
    assert!(then.stmts.is_empty());
    assert_eq!(&src[e3.span.clone()], "{ x = 4; }");
    assert!(matches!(e3.stmts[0].kind, StmtKind::Assign { .. }));
}

#[test]
fn statement_and_declaration_spans() {
    let src = "class Cell {\n  int x;\n  Cell(int v) ensures valid() && getX() == v; { x = v; close valid(); use getX(); }\n  void setX(int v) requires valid(); ensures valid() && getX() == v; { open valid(); x = v; close valid(); use getX(); }\n  predicate valid() { return acc(x); }\n  pure int getX() requires valid(); { return opening valid() in x; }\n  static pure bool p(int a) { return a > 0; }\n  static void main() { Cell c = new Cell(5); c.setX(3); }\n}\n";
    let p = parse(src).unwrap();
    let c = &p.classes[0];
    assert_eq!(&src[c.span.clone()], src.trim_end());
    assert_eq!(&src[c.name.span.clone()], "Cell");
    assert_eq!(&src[c.fields[0].span.clone()], "int x;");
    assert_eq!(c.methods.len(), 3);
    let ctor = &c.methods[0];
    assert!(ctor.is_constructor && !ctor.is_static && ctor.ret.is_none());
    assert_eq!(ctor.name.name, "Cell");
    assert_eq!(ctor.ensures.len(), 1);
    assert_eq!(&src[ctor.params[0].ty.span.clone()], "int");
    let stmts = &ctor.body.stmts;
    assert_eq!(&src[stmts[0].span.clone()], "x = v;");
    assert_eq!(&src[stmts[1].span.clone()], "close valid();");
    assert_eq!(
        &src[ctor.body.span.clone()],
        "{ x = v; close valid(); use getX(); }"
    );
    let set = &c.methods[1];
    assert!(!set.is_constructor && set.ret.is_none());
    assert_eq!((set.requires.len(), set.ensures.len()), (1, 1));
    assert_eq!(&src[set.ensures[0].span.clone()], "valid() && getX() == v");
    assert!(
        src[set.span.clone()].starts_with("void setX")
            && src[set.span.clone()].ends_with("use getX(); }")
    );
    let main = &c.methods[2];
    assert!(main.is_static);
    let StmtKind::Call(call) = &main.body.stmts[1].kind else {
        panic!()
    };
    assert_eq!(&src[call.span.clone()], "c.setX(3)");
    assert_eq!(&src[main.body.stmts[1].span.clone()], "c.setX(3);");
    assert_eq!(c.predicates.len(), 1);
    assert_eq!(
        &src[c.predicates[0].span.clone()],
        "predicate valid() { return acc(x); }"
    );
    assert_eq!(show(&c.predicates[0].body), "(acc x)");
    assert_eq!(c.pures.len(), 2);
    let get = &c.pures[0];
    assert!(!get.is_static);
    assert_eq!(get.ret.kind, TypeKind::Int);
    assert_eq!(get.requires.len(), 1);
    assert_eq!(show(&get.body), "(opening (call _ valid) x)");
    assert!(c.pures[1].is_static);
    assert_eq!(c.pures[1].ret.kind, TypeKind::Bool);
}

#[test]
fn contracts_in_any_order() {
    let src = "class A { int m(int a, A b) ensures result > 0; requires a > 0; ensures true; requires b != null; { return a; } }";
    let m = &parse(src).unwrap().classes[0].methods[0];
    assert_eq!(m.ret.as_ref().map(|t| t.kind.clone()), Some(TypeKind::Int));
    assert_eq!(
        m.requires.iter().map(show).collect::<Vec<_>>(),
        ["(> a 0)", "(!= b null)"]
    );
    assert_eq!(
        m.ensures.iter().map(show).collect::<Vec<_>>(),
        ["(> result 0)", "true"]
    );
    assert_eq!(m.params.len(), 2);
    assert_eq!(m.params[1].ty.kind, TypeKind::Class("A".into()));
}

#[test]
fn several_classes_and_comments() {
    let src = "// lead\nclass A { /* a // b */ int x; } // tail\n/* c */ class B { int/**/y; bool z; }\n// end";
    let p = parse(src).unwrap();
    assert_eq!(p.classes.len(), 2);
    assert_eq!(p.classes[1].fields.len(), 2);
    let stmts = body("x/**/=/**/a/ /* div */b; // c\n");
    assert_eq!(
        show(match &stmts[0].kind {
            StmtKind::Assign { value, .. } => value,
            _ => panic!(),
        }),
        "(/ a b)"
    );
}

fn at(src: &str) -> (usize, usize) {
    let d = parse(src).expect_err(src);
    assert_eq!(d.kind, Kind::Parse);
    line_col(src, d.span.start)
}

#[test]
fn empty_programs() {
    for src in ["", "   \n\n", "// only\n/* comments */\n"] {
        let d = parse(src).expect_err(src);
        assert_eq!((d.kind, line_col(src, d.span.start)), (Kind::Parse, (1, 1)));
        assert!(d.message.contains("class"));
    }
    assert_eq!(at("class A { }\n/* never\n closed"), (2, 1));
}

/// The reserved words are listed once for the scanner (`scan::RESERVED`);
/// the grammar has one `kw_` rule for each, and no other.
#[test]
fn the_grammar_reserves_exactly_the_reserved_words() {
    let grammar = include_str!("../../lang/sift.pest");
    let mut in_grammar: Vec<&str> = grammar
        .lines()
        .filter(|l| l.starts_with("kw_"))
        .filter_map(|l| l.split('"').nth(1))
        .collect();
    let mut reserved = super::scan::RESERVED.to_vec();
    in_grammar.sort_unstable();
    reserved.sort_unstable();
    assert_eq!(in_grammar, reserved);
}
