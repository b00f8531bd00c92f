use super::parse;

fn err(src: &str) -> String {
    match parse(src) {
        Ok(_) => "OK".to_string(),
        Err(d) => {
            let (l, c) = crate::diag::line_col(src, d.span.start);
            format!(
                "{l}:{c} {:?} {} [{}] {:?}",
                d.span, d.message, d.label, d.help
            )
        }
    }
}

#[test]
fn scratch() {
    let cases = [
        "",
        "// hi\n",
        "class A { int x; }",
        "class A { void m() { x + 1; } }",
        "class A { void m() { x; } }",
        "class A { void m() { x = ; } }",
        "class A { void m() { x = a b; } }",
        "class A { void m() { x = 5\n y = 3; } }",
        "class A { void m() { int class = 3; } }",
        "class A { void m() { x == 3; } }",
        "class A { void m() { f(1, ); } }",
        "class A { void m() { x = a + ; } }",
        "class A { void m() { x = -; } }",
        "class A { void m() { if (x) { } else x; } }",
        "class A { int x }",
        "class A { B() { } }",
        "class A { void m() { open valid; } }",
        "class A { void m() { f() = 3; } }",
        "class A { void m() { new A(); } }",
        "class A { void m() { assert opening x.f in 3; } }",
        "class A { void m() { x = 1 } }",
        "class A { } junk",
        "int x;",
        "class A { /* oops ",
        "class A { void m() { x = é; } }",
        "class A { void m() { x = a ? b; } }",
        "class A { void m() { while (x) invariant y { } } }",
        "class A { void m() requires x { } }",
        "class A { void m() { return x y; } }",
        "class A { void m() { T x = new ; } }",
        "class A { static int x; }",
        "class A { void m() { if x { } } }",
        "class A { void m() { x.f = 1 } }",
    ];
    for c in cases {
        println!("{:60} => {}", format!("{c:?}"), err(c));
    }
}

fn wrap_expr(e: &str) -> String {
    format!("class A {{ void m() {{ x = {e}; }} }}")
}

#[test]
fn deep() {
    for n in [10usize, 30, 60, 100, 150, 199, 200, 201, 10000] {
        let src = wrap_expr(&format!("{}x{}", "(".repeat(n), ")".repeat(n)));
        println!("parens {n} => {}", err(&src));
        let src = wrap_expr(&format!("{}x{}", "f(".repeat(n), ")".repeat(n)));
        println!("calls {n} => {}", err(&src));
        let src = format!(
            "class A {{ void m() {{ {} }} }}",
            "if (x) {".repeat(n) + &"}".repeat(n)
        );
        println!("ifs {n} => {}", err(&src));
        let src = wrap_expr(&format!("{}x", "!".repeat(n)));
        println!("nots {n} => {}", err(&src));
        let src = wrap_expr(&vec!["x"; n].join(" ==> "));
        println!("implies {n} => {}", err(&src));
        let src = wrap_expr(&vec!["x"; n].join(" + "));
        println!("plus {n} => {}", err(&src));
        let src = wrap_expr(&format!("{}x", "opening p() in ".repeat(n)));
        println!("opening {n} => {}", err(&src));
        let src = wrap_expr(&format!("{}x{}", "c ? ".repeat(n), " : y".repeat(n)));
        println!("condmid {n} => {}", err(&src));
        let src = wrap_expr(&format!("x{}", " ? y : x".repeat(n)));
        println!("condright {n} => {}", err(&src));
        let src = format!(
            "class A {{ void m() {{ if (x) {{}} {} }} }}",
            "else if (x) {}".repeat(n)
        );
        println!("elseif {n} => {}", err(&src));
        let src = wrap_expr(&format!("x{}", ".f".repeat(n)));
        println!("fields {n} => {}", err(&src));
    }
}

#[test]
fn perf() {
    let n = 5 << 20;
    let mut junk = String::new();
    let mut seed: u64 = 12345;
    while junk.len() < n {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let c = (32 + (seed >> 33) % 95) as u8 as char;
        junk.push(c);
    }
    let cases: Vec<(&str, String)> = vec![
        ("random", junk),
        (
            "classes",
            "class A { void m() { x = 1; } }\n".repeat(n / 32),
        ),
        (
            "stmts",
            format!(
                "class A {{ void m() {{ {} }} }}",
                "x = y.f(1, 2) + 3 * z;\n".repeat(n / 24)
            ),
        ),
        ("plus", wrap_expr(&"x + ".repeat(n / 4))),
        ("ident", "a".repeat(n)),
        ("braces", "{".repeat(n)),
        ("closers", "class A { ".to_string() + &"}".repeat(n)),
        (
            "semis",
            format!("class A {{ void m() {{ {} }} }}", ";".repeat(n)),
        ),
        (
            "comment",
            format!("class A {{ {} }}", "/* x */ // y\n".repeat(n / 14)),
        ),
        (
            "ifelse",
            format!(
                "class A {{ void m() {{ {} }} }}",
                "if (x) { y = 1; } else { y = 2; }\n".repeat(n / 36)
            ),
        ),
        ("nots", wrap_expr(&"!".repeat(n))),
        (
            "members",
            format!(
                "class A {{ {} }}",
                "int x; void m() requires x == 1; ensures y; { }\n".repeat(n / 50)
            ),
        ),
        (
            "badmember",
            format!("class A {{ {} int }}", "int x;\n".repeat(n / 8)),
        ),
    ];
    for (name, src) in cases {
        let t = std::time::Instant::now();
        let r = err(&src);
        println!(
            "{name}: {:?} {}",
            t.elapsed(),
            r.chars().take(100).collect::<String>()
        );
    }
}

#[test]
fn scaling() {
    for k in [1usize, 2, 4, 8] {
        let src = "class A { void m() { x = 1; } }\n".repeat(k * 4096);
        let t = std::time::Instant::now();
        let r = err(&src);
        println!("classes {}KB: {:?} {}", src.len() / 1024, t.elapsed(), r);
        let src = format!("class A {{ void m() {{ {} }} }}", "x = y.f(1, 2) + 3 * z;\n".repeat(k * 4096));
        let t = std::time::Instant::now();
        let r = err(&src);
        println!("stmts {}KB: {:?} {}", src.len() / 1024, t.elapsed(), r);
    }
}
