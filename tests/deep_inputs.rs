//! One deep or long input per recursive walk over user input, run through
//! every command of the built binary (`verify`, `verify --json`, `run`,
//! `test`, a scripted `debug`, `lsp`): each gives a clear error or the right
//! answer, never a crash. Run in the debug build `cargo test` uses, whose
//! frames are the largest.
//!
//! Where each walk's depth is bounded (see the source for the reasons):
//! - parser, tree builder, checker, constant folding: the nesting limit of
//!   `syntax::scan` (200 brackets, 500 expression levels), on 64 MiB stacks;
//!   `else if` chains are built and checked without recursion;
//! - evaluator, produce/consume, termination check, term construction: one
//!   level per syntax level, on the verifier's 1 GiB stacks; terms grow one
//!   level per statement (`x = x * x;`), walked on the same stacks, and
//!   rendered at most 4 KB deep (`logic::term`);
//! - the concrete interpreter: one level per nested call, bounded by
//!   `--max-depth` and by the stack actually used (`sift::stack`).

mod bounded;
mod support;

use std::time::Duration;

use bounded::{check_json, sift, write_temp};
use serde_json::json;

const LIMIT: Duration = Duration::from_secs(300);

/// Straight-line statements of the long cases: terms of this depth. The
/// walks were also run with 30,000 and (for `verify`) 300,000; kept small
/// here for the time of a debug build on a loaded machine.
const STATEMENTS: usize = 5_000;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Expect {
    /// Every method verifies, `A.m(0)` returns.
    Verified,
    /// A parse error whose message contains this.
    Parse(&'static str),
    /// `assert.failed` in `verify`, `run`, `test` and `debug`.
    AssertFails,
}

struct Case {
    name: &'static str,
    source: String,
    expect: Expect,
}

/// `class A` with fields `f`, `g` and `static int m(int x)` running `body`.
fn method(body: &str) -> String {
    format!(
        "class A {{\n  int f;\n  A g;\n  static int m(int x)\n  {{\n{body}\n    return x;\n  }}\n}}\n"
    )
}

fn expr(e: &str) -> String {
    method(&format!(
        "    bool b = true;\n    A a = null;\n    int y = {e};"
    ))
}

fn cases() -> Vec<Case> {
    let too_deep = Expect::Parse("too deep");
    let n = 100_000;
    let mut v = vec![
        Case {
            name: "prefix not",
            source: expr(&format!("{}b ? 1 : 0", "!".repeat(n))),
            expect: too_deep,
        },
        Case {
            name: "prefix minus",
            source: expr(&format!("{}x", "- ".repeat(n))),
            expect: too_deep,
        },
        Case {
            name: "postfix fields",
            source: expr(&format!("a{}.f", ".g".repeat(n))),
            expect: too_deep,
        },
        Case {
            name: "binary chain",
            source: expr(&vec!["1"; n].join("+")),
            expect: too_deep,
        },
        Case {
            name: "right-nested conditionals",
            source: expr(&format!(
                "{}x{}",
                "b ? ".repeat(n / 10),
                " : 0".repeat(n / 10)
            )),
            expect: too_deep,
        },
        Case {
            name: "left-nested conditionals",
            source: expr(&format!("x{}", " > 0 ? 1 : 0".repeat(n / 10))),
            expect: too_deep,
        },
        Case {
            name: "nested opening",
            source: expr(&format!("{}x", "opening p() in ".repeat(n / 10))),
            expect: too_deep,
        },
        Case {
            name: "nested parentheses",
            source: expr(&format!("{}x{}", "(".repeat(n), ")".repeat(n))),
            expect: too_deep,
        },
        Case {
            name: "nested blocks",
            source: method(&format!(
                "{}{}",
                "if (x > 0) { ".repeat(n / 10),
                "}".repeat(n / 10)
            )),
            expect: too_deep,
        },
        // At the limits: the answer, on every walk.
        Case {
            name: "parentheses at the limit",
            source: expr(&format!("{}x{}", "(".repeat(190), ")".repeat(190))),
            expect: Expect::Verified,
        },
        Case {
            name: "sum at the limit",
            source: expr(&vec!["x"; 490].join(" + ")),
            expect: Expect::Verified,
        },
        Case {
            name: "negations at the limit",
            // Blank-separated: `--x` is a decrement, as in Java.
            source: expr(&format!("{}x", "- ".repeat(480))),
            expect: Expect::Verified,
        },
        Case {
            name: "conditionals at the limit",
            source: expr(&format!(
                "{}x{}",
                "x > 0 ? ".repeat(180),
                " : 0".repeat(180)
            )),
            expect: Expect::Verified,
        },
        Case {
            name: "blocks at the limit",
            source: method(&format!(
                "{}x = x - 1;{}",
                "if (x > 0) { ".repeat(190),
                " }".repeat(190)
            )),
            expect: Expect::Verified,
        },
        Case {
            name: "loops at the limit",
            source: method(&format!(
                "{}x = x - 1;{}",
                "while (x > 0) { ".repeat(190),
                " }".repeat(190)
            )),
            expect: Expect::Verified,
        },
        // Long and flat in the source, deep in the terms or the tree.
        Case {
            name: "negations in statements",
            source: method(&"    x = -x;\n".repeat(STATEMENTS)),
            expect: Expect::Verified,
        },
        Case {
            name: "products in statements",
            source: method(&"    x = x * x;\n".repeat(STATEMENTS)),
            expect: Expect::Verified,
        },
        Case {
            name: "sums in statements",
            source: method(&"    x = x + x;\n".repeat(STATEMENTS)),
            expect: Expect::Verified,
        },
        // A failure after deep terms: traces, explanations, counterexamples
        // and replays render them; Z3 gets a product of degree 2^5000.
        Case {
            name: "failure after products",
            source: method(&format!(
                "{}    assert x == 7;",
                "    x = x * x;\n".repeat(STATEMENTS)
            )),
            expect: Expect::AssertFails,
        },
        Case {
            name: "else if chain",
            source: method(&format!(
                "    if (x == 0) {{ x = 1; }}\n{}",
                (1..300)
                    .map(|i| format!("    else if (x == {i}) {{ x = {}; }}\n", i + 1))
                    .collect::<String>()
            )),
            expect: Expect::Verified,
        },
    ];
    let methods: String = (0..500)
        .map(|i| format!("  static int n{i}(int x) ensures result == x; {{ return x; }}\n"))
        .collect();
    v.push(Case {
        name: "many methods",
        source: method("").replace("class A {\n", &format!("class A {{\n{methods}")),
        expect: Expect::Verified,
    });
    v
}

/// `sift run` on a recursion deeper than the stack holds, however large
/// `--max-depth` is: the interpreter stops with a clear message.
#[test]
fn deep_recursion_in_a_concrete_run_stops_cleanly() {
    let src = "class A {\n  static int f(int n)\n    requires n >= 0;\n    ensures result == n;\n  {\n    if (n == 0) { return 0; }\n    int r = f(n - 1);\n    return r + 1;\n  }\n}\n";
    let path = write_temp("deep", "recursion.sift", src);
    let path = path.to_str().expect("UTF-8 path");
    let out = sift(
        &[
            "run",
            "--method",
            "A.f",
            "--max-depth",
            "100000000",
            "--max-steps",
            "1000000000",
            path,
            "100000000",
        ],
        "",
        LIMIT,
    );
    assert_eq!(out.crash(), None);
    assert_eq!(out.code, Some(1), "{}", out.stdout);
    assert!(out.stdout.contains("stack is full after"), "{}", out.stdout);
    let out = sift(&["run", "--method", "A.f", path, "300"], "", LIMIT);
    assert_eq!(out.code, Some(0), "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("returned 300"), "{}", out.stdout);
}

#[test]
fn deep_inputs_give_clear_errors_or_answers() {
    let mut failures = Vec::new();
    for case in cases() {
        let file = format!("{}.sift", case.name.replace(' ', "_"));
        let path = write_temp("deep", &file, &case.source);
        let path = path.to_str().expect("UTF-8 path");
        let code = match case.expect {
            Expect::Verified => 0,
            Expect::Parse(_) => 2,
            Expect::AssertFails => 1,
        };
        let runs: [(&str, Vec<&str>, &str); 5] = [
            ("verify", vec!["verify", path], ""),
            ("verify --json", vec!["verify", "--json", path], ""),
            ("run", vec!["run", "--method", "A.m", path, "0"], ""),
            ("test", vec!["test", "--method", "A.m", path], ""),
            (
                "debug",
                vec!["debug", "--method", "A.m", path],
                "continue\nstore\npc\nheap\nback 2\ndiff\nwhere\nquit\n",
            ),
        ];
        for (what, args, script) in runs {
            let out = sift(&args, script, LIMIT);
            let mut fail = |why: String| failures.push(format!("{} / {what}: {why}", case.name));
            if let Some(why) = out.crash() {
                fail(why);
                continue;
            }
            // A debugging session ends with 0 whatever it found.
            let code = if what == "debug" && code == 1 {
                0
            } else {
                code
            };
            let shown = format!("{}{}", out.stdout, out.stderr);
            if case.expect == Expect::AssertFails
                && !shown.contains("might not hold")
                && !shown.contains("is false")
            {
                fail(format!(
                    "no failure shown\n{}",
                    &shown[..shown.len().min(2000)]
                ));
            }
            if out.code != Some(code) {
                fail(format!(
                    "exit status {:?}, expected {code}\n{}{}",
                    out.code,
                    &out.stdout[..out.stdout.len().min(2000)],
                    &out.stderr[..out.stderr.len().min(2000)]
                ));
                continue;
            }
            if let Expect::Parse(msg) = case.expect {
                let text = format!("{}{}", out.stdout, out.stderr);
                if !text.contains(msg) {
                    fail(format!("no `{msg}` in the output"));
                }
            }
            if what == "verify --json" {
                match check_json(&out.stdout, code) {
                    Ok(v) => {
                        let stage = v["files"][0]["stage"].as_str().unwrap_or("");
                        let want = if code == 2 { "parse" } else { "verify" };
                        let kind = &v["files"][0]["errors"][0]["kind"];
                        if case.expect == Expect::AssertFails && kind != "assert.failed" {
                            fail(format!("error kind {kind}"));
                        }
                        if stage != want {
                            fail(format!("stage {stage:?}, expected {want:?}"));
                        }
                    }
                    Err(why) => fail(why),
                }
            }
        }
        if let Err(why) = lsp_round(&case) {
            failures.push(format!("{} / lsp: {why}", case.name));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Opens the case's text, hovers in its middle and at its end, replaces it
/// by a small program and shuts down: the server answers throughout.
fn lsp_round(case: &Case) -> Result<(), String> {
    let uri = "file:///deep.sift";
    let mut c = support::Client::initialized_with(json!({ "timeoutMs": 20_000, "debounceMs": 50 }));
    c.open(uri, &case.source);
    let diags = c.diagnostics(uri, LIMIT, |d| match case.expect {
        Expect::Verified => d.is_empty(),
        Expect::Parse(_) => support::has_code(d, "parse"),
        Expect::AssertFails => support::has_code(d, "assert.failed"),
    });
    if let Expect::Parse(msg) = case.expect
        && !diags
            .iter()
            .any(|d| d["message"].as_str().is_some_and(|m| m.contains(msg)))
    {
        return Err(format!("no `{msg}` among {diags:?}"));
    }
    let lines = case.source.lines().count() as u32;
    for line in [4, lines / 2, lines.saturating_sub(3)] {
        let r = c.request("textDocument/hover", support::text_pos(uri, line, 6));
        if r.get("error").is_some() {
            return Err(format!("hover failed: {r}"));
        }
    }
    c.notify(
        "textDocument/didChange",
        json!({
            "textDocument": { "uri": uri, "version": 2 },
            "contentChanges": [{ "text": "class B { }\n" }],
        }),
    );
    c.diagnostics(uri, LIMIT, |d| d.is_empty());
    let status = c.shutdown_and_exit();
    support::assert_not_panic(status);
    if !status.success() {
        return Err(format!("exit status {status:?}"));
    }
    Ok(())
}
