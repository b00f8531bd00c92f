//! Hostile inputs: deep nesting, long junk; and the program files.

use super::{parse, wrap_expr};
use crate::diag::{Kind, line_col};
use crate::syntax::ast::{Stmt, StmtKind};
use crate::syntax::scan::MAX_ELSE_IF;

#[test]
fn nesting_is_bounded() {
    let deep = |n: usize| wrap_expr(&format!("{}x{}", "(".repeat(n), ")".repeat(n)));
    assert!(parse(&deep(190)).is_ok());
    let d = parse(&deep(10_000)).expect_err("parens");
    assert!(d.message.contains("nesting too deep"), "{}", d.message);
    let ifs = |n: usize| {
        format!(
            "class A {{ void m() {{ {}{} }} }}",
            "if (x) { ".repeat(n),
            "}".repeat(n)
        )
    };
    assert!(parse(&ifs(150)).is_ok());
    let d = parse(&ifs(10_000)).expect_err("ifs");
    assert!(d.message.contains("nesting too deep"), "{}", d.message);
    // Real nesting inside a long `else if` chain keeps its limit.
    let deep_link = format!(
        "class A {{ void m() {{ if (x) {{ }} {}else if (x) {{ {}{} }} }} }}",
        "else if (x) { } ".repeat(5_000),
        "if (x) { ".repeat(250),
        "}".repeat(250)
    );
    let d = parse(&deep_link).expect_err("ifs in a chain");
    assert!(d.message.contains("nesting too deep"), "{}", d.message);
    for src in [
        wrap_expr(&format!("{}x", "!".repeat(10_000))),
        wrap_expr(&format!("{}x", "- ".repeat(10_000))),
        wrap_expr(&vec!["x"; 10_000].join(" ==> ")),
        wrap_expr(&vec!["x"; 10_000].join(" + ")),
        wrap_expr(&format!("x{}", " ? y : x".repeat(10_000))),
        wrap_expr(&format!("x{}", ".f".repeat(10_000))),
        wrap_expr(&format!(
            "{}x{}",
            "c ? ".repeat(10_000),
            " : y".repeat(10_000)
        )),
        wrap_expr(&format!("{}x", "opening p() in ".repeat(10_000))),
        wrap_expr(&format!("{}x{}", "f(".repeat(10_000), ")".repeat(10_000))),
        wrap_expr(&format!("{}x{}", "old(".repeat(10_000), ")".repeat(10_000))),
    ] {
        let d = parse(&src).expect_err("deep");
        assert_eq!(d.kind, Kind::Parse);
        assert!(d.message.contains("too deep"), "{}", d.message);
    }
    // Long but shallow expressions are fine.
    assert!(parse(&wrap_expr(&vec!["x"; 400].join(" + "))).is_ok());
    assert!(parse(&wrap_expr(&vec!["(a && b)"; 2000].join(" && ")[..])).is_err());
    assert!(parse(&wrap_expr(&format!("{}x", "!".repeat(400)))).is_ok());
}

/// `if (x == 0) { return 0; } else if (x == 1) { return 1; } ...` with `n`
/// links after the first `if`, each on a line of its own.
fn chain(n: usize) -> String {
    let links: String = (1..=n)
        .map(|i| format!("    else if (x == {i}) {{ return {i}; }}\n"))
        .collect();
    format!(
        "class A {{\n  static int f(int x) {{\n    if (x == 0) {{ return 0; }}\n{links}    else {{ return -1; }}\n  }}\n}}\n"
    )
}

/// The number of `else if` links of the chain starting at `s`.
fn links(s: &Stmt) -> usize {
    let mut n = 0;
    let mut cur = s;
    while let StmtKind::If { els: Some(b), .. } = &cur.kind {
        match b.else_if() {
            Some(next) => {
                n += 1;
                cur = next;
            }
            None => break,
        }
    }
    n
}

/// An `else if` chain is flat in the source: its links are not nesting
/// levels, up to `MAX_ELSE_IF` of them, and the parser, the checker, `Clone`
/// and `Drop` cope with its deep tree (on this test thread's small stack
/// for the last two).
#[test]
fn long_else_if_chains_parse_and_check() {
    for n in [1_000, MAX_ELSE_IF] {
        let src = chain(n);
        let mut p = parse(&src).unwrap_or_else(|d| panic!("{n} links: {}", d.message));
        assert_eq!(crate::check::check(&mut p), vec![], "{n} links");
        let body = &p.classes[0].methods[0].body;
        assert_eq!(body.stmts.len(), 1);
        assert_eq!(links(&body.stmts[0]), n);
        let copy = body.clone();
        assert_eq!(links(&copy.stmts[0]), n);
        assert_eq!(copy.stmts[0].span, body.stmts[0].span);
        drop(p);
    }
    let src = chain(MAX_ELSE_IF + 1);
    let d = parse(&src).expect_err("one link too many");
    assert_eq!(d.kind, Kind::Parse);
    assert_eq!(
        d.message,
        format!("`else if` chain too long: more than {MAX_ELSE_IF} links")
    );
    assert_eq!(&src[d.span.clone()], "else if");
    assert_eq!(line_col(&src, d.span.start), (MAX_ELSE_IF + 4, 5));
    // The links of the chains around a statement count together.
    let nested = |outer: usize, inner: usize| {
        format!(
            "class A {{ void m() {{ if (x) {{ }} {}else if (x) {{ if (x) {{ }} {}}} }} }}",
            "else if (x) { } ".repeat(outer - 1),
            "else if (x) { } ".repeat(inner)
        )
    };
    assert!(parse(&nested(MAX_ELSE_IF / 2, MAX_ELSE_IF / 2)).is_ok());
    let d = parse(&nested(MAX_ELSE_IF / 2, MAX_ELSE_IF / 2 + 1)).expect_err("nested");
    assert!(d.message.contains("chain too long"), "{}", d.message);
    // Links do not use up the nesting allowed inside them.
    let deep_in_link = format!(
        "class A {{ void m() {{ if (x) {{ }} {}else if (x) {{ {}{} }} }} }}",
        "else if (x) { } ".repeat(MAX_ELSE_IF - 1),
        "if (x) { ".repeat(190),
        "}".repeat(190)
    );
    assert!(parse(&deep_in_link).is_ok());
}

#[test]
fn junk_fails_fast() {
    let n = 5 << 20;
    let mut junk = String::with_capacity(n);
    let mut seed: u64 = 12345;
    while junk.len() < n {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        junk.push((32 + (seed >> 33) % 95) as u8 as char);
    }
    let start = std::time::Instant::now();
    for src in [
        junk,
        "a".repeat(n),
        "{".repeat(n),
        "class A { ".to_string() + &"}".repeat(n),
        "/*".repeat(n / 2),
    ] {
        assert_eq!(parse(&src).expect_err("junk").kind, Kind::Parse);
    }
    assert!(start.elapsed().as_secs() < 30);
}

/// `tests/programs/parse/*.sift`: a file with a `//~ parse` annotation must
/// fail on that line, any other must parse.
#[test]
fn program_files() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/parse");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).expect("tests/programs/parse") {
        let path = entry.expect("entry").path();
        if path.extension().is_none_or(|e| e != "sift") {
            continue;
        }
        seen += 1;
        let src = std::fs::read_to_string(&path).expect("readable");
        let expected = src
            .lines()
            .position(|l| l.contains("//~ parse"))
            .map(|i| i + 1);
        match (parse(&src), expected) {
            (Ok(_), None) => {}
            (Err(d), Some(line)) => {
                assert_eq!(d.kind, Kind::Parse);
                assert_eq!(
                    line_col(&src, d.span.start).0,
                    line,
                    "{}: {}",
                    path.display(),
                    d.message
                );
            }
            (Ok(_), Some(line)) => {
                panic!("{}: expected a parse error on line {line}", path.display())
            }
            (Err(d), None) => panic!("{}: {d:?}", path.display()),
        }
    }
    assert!(seen > 10);
}

/// Starts of the tokens of `src` (comments and blanks skipped).
fn token_starts(src: &str) -> Vec<usize> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if src[i..].starts_with("//") {
            i = src[i..].find('\n').map_or(b.len(), |k| i + k);
        } else if src[i..].starts_with("/*") {
            i = src[i + 2..].find("*/").map_or(b.len(), |k| i + k + 4);
        } else if c.is_ascii_alphanumeric() || c == b'_' {
            out.push(i);
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
        } else {
            out.push(i);
            let ops = ["==>", "==", "!=", "<=", ">=", "&&", "||"];
            i += ops
                .iter()
                .find(|op| src[i..].starts_with(**op))
                .map_or(1, |op| op.len());
        }
    }
    out
}

/// In a valid program, a `#` put before any token is the first token that
/// cannot continue the program: the error must be there.
#[test]
fn errors_are_at_the_first_bad_token() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/parse");
    for name in ["ok_cell.sift", "ok_statements.sift", "ok_expressions.sift"] {
        let src = std::fs::read_to_string(dir.join(name)).expect("readable");
        let mut starts = token_starts(&src);
        starts.push(src.trim_end().len());
        for pos in starts {
            let broken = format!("{}#{}", &src[..pos], &src[pos..]);
            let d = parse(&broken).expect_err("broken");
            assert_eq!(d.kind, Kind::Parse);
            assert_eq!(
                d.span.start,
                pos,
                "{name}: `#` at {:?}: {} at {:?}",
                line_col(&broken, pos),
                d.message,
                line_col(&broken, d.span.start)
            );
        }
    }
}

/// Random token soups and damaged programs never panic.
#[test]
fn random_inputs_do_not_panic() {
    // Every reserved word, and the other tokens.
    let vocab: Vec<&str> = [
        "A", "{", "}", "(", ")", ";", ",", ".", "=", "==", "==>", "?", ":", "x", "f", "m", "0",
        "12", "+", "-", "*", "/", "%", "!", "!=", "<", "<=", ">", ">=", "&&", "||", "/* c */",
        "// c\n", "é", "#",
    ]
    .into_iter()
    .chain(crate::syntax::scan::RESERVED)
    .collect();
    let mut seed: u64 = 7;
    let mut next = |n: usize| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((seed >> 33) as usize) % n
    };
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/parse");
    let good = std::fs::read_to_string(dir.join("ok_statements.sift")).expect("readable");
    let starts = token_starts(&good);
    for round in 0..300 {
        let src = if round % 2 == 0 {
            let mut s = String::from("class A { void m() { ");
            for _ in 0..next(60) {
                s.push_str(vocab[next(vocab.len())]);
                s.push(' ');
            }
            s
        } else {
            // Delete or duplicate a stretch of tokens of a valid program.
            let a = starts[next(starts.len())];
            let b = starts[next(starts.len())].max(a);
            if round % 4 == 1 {
                format!("{}{}", &good[..a], &good[b..])
            } else {
                format!("{}{}", &good[..b], &good[a..])
            }
        };
        if let Err(d) = parse(&src) {
            assert_eq!(d.kind, Kind::Parse);
            assert_ne!(d.message, "internal parser error", "{src}");
            assert!(d.span.start <= src.len() && d.span.end <= src.len());
            assert!(src.is_char_boundary(d.span.start) && src.is_char_boundary(d.span.end));
        }
    }
}
