//! A generator of random well-formed annotated Sift programs: one class
//! with fields, a predicate, pure methods, a constructor and methods using
//! calls, branches, loops with invariants, joins, `old`, assignments to
//! parameters, field writes and asserts, and a method over an array
//! parameter (element reads and writes, `length`, loops keeping
//! `acc(arr.elems)`, sometimes `untouched`). Contracts are drawn at random,
//! so some methods verify and some do not.

/// xorshift64*: small, fixed-seed, no dependency.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    pub fn int(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len() as u64) as usize]
    }
}

/// What the code being generated may use.
#[derive(Clone)]
struct Scope {
    ints: Vec<String>,
    /// `acc(f) && acc(g)` is held (directly).
    fields: bool,
    /// `p()` is held (its body reads through it with inference).
    pred: bool,
    /// `acc(arr.elems)` of the parameter `arr` is held.
    array: bool,
    /// Static methods declared before: (name, parameter count).
    callees: Vec<(String, usize)>,
    next_local: usize,
    depth: u32,
}

pub struct Generated {
    pub source: String,
}

fn int_expr(r: &mut Rng, sc: &Scope, depth: u32) -> String {
    let leaf = depth == 0 || r.chance(35);
    if leaf {
        return match r.below(4) {
            0 => r.int(-3, 5).to_string(),
            1 if sc.fields => r.pick(&["f", "g"]).to_string(),
            1 if sc.pred => "get()".to_string(),
            2 if sc.array => match r.below(3) {
                0 => "arr.length".to_string(),
                _ => format!("arr[{}]", r.int(-1, 3)),
            },
            _ if !sc.ints.is_empty() => r.pick(&sc.ints).clone(),
            _ => r.int(0, 4).to_string(),
        };
    }
    let a = int_expr(r, sc, depth - 1);
    let b = int_expr(r, sc, depth - 1);
    match r.below(8) {
        0 | 1 => format!("({a} + {b})"),
        2 => format!("({a} - {b})"),
        3 => format!("({a} * {})", r.int(-2, 3)),
        4 => format!("twice({a})"),
        5 => format!("({} ? {a} : {b})", cond(r, sc, depth - 1)),
        6 => format!("({a} / {b})"),
        _ => format!("({a} % {})", r.int(1, 4)),
    }
}

fn cond(r: &mut Rng, sc: &Scope, depth: u32) -> String {
    if depth > 0 && r.chance(20) {
        let a = cond(r, sc, depth - 1);
        let b = cond(r, sc, depth - 1);
        return match r.below(3) {
            0 => format!("({a} && {b})"),
            1 => format!("({a} || {b})"),
            _ => format!("!({a})"),
        };
    }
    let a = int_expr(r, sc, depth.min(1));
    let b = int_expr(r, sc, depth.min(1));
    let op = r.pick(&["<", "<=", "==", "!=", ">=", ">"]);
    format!("{a} {op} {b}")
}

fn block(r: &mut Rng, sc: &mut Scope, out: &mut String, indent: &str, n: usize) {
    for _ in 0..n {
        stmt(r, sc, out, indent);
    }
}

fn stmt(r: &mut Rng, sc: &mut Scope, out: &mut String, ind: &str) {
    let deeper = format!("{ind}  ");
    let nested = sc.depth < 2;
    match r.below(14) {
        0 | 1 => {
            let x = format!("x{}", sc.next_local);
            sc.next_local += 1;
            out.push_str(&format!("{ind}int {x} = {};\n", int_expr(r, sc, 2)));
            sc.ints.push(x);
        }
        2 | 3 if !sc.ints.is_empty() => {
            let x = r.pick(&sc.ints).clone();
            out.push_str(&format!("{ind}{x} = {};\n", int_expr(r, sc, 2)));
        }
        4 if sc.fields => {
            let f = r.pick(&["f", "g"]);
            out.push_str(&format!("{ind}{f} = {};\n", int_expr(r, sc, 2)));
        }
        4 if sc.pred => {
            // Written through the predicate: opened on demand, closed again.
            let v = int_expr(r, sc, 1);
            out.push_str(&format!("{ind}f = f + ({v} >= 0 ? {v} : 0);\n"));
        }
        5 | 6 if nested => {
            sc.depth += 1;
            let saved = sc.ints.clone();
            out.push_str(&format!("{ind}if ({}) {{\n", cond(r, sc, 1)));
            let n = r.int(1, 2) as usize;
            block(r, sc, out, &deeper, n);
            sc.ints = saved.clone();
            out.push_str(&format!("{ind}}} else {{\n"));
            let n = r.int(0, 2) as usize;
            block(r, sc, out, &deeper, n);
            sc.ints = saved;
            out.push_str(&format!("{ind}}}\n"));
            sc.depth -= 1;
            if r.chance(25) && !sc.ints.is_empty() {
                let x = r.pick(&sc.ints).clone();
                let j = match r.below(3) {
                    0 => "true".to_string(),
                    1 => format!("{x} >= {}", r.int(-5, 2)),
                    _ => cond(r, sc, 0),
                };
                let frame = if sc.fields {
                    "acc(f) && acc(g) && "
                } else if sc.pred {
                    "p() && "
                } else if sc.array {
                    "acc(arr.elems) && "
                } else {
                    ""
                };
                out.push_str(&format!("{ind}join {frame}{j};\n"));
            }
        }
        7 if nested => {
            sc.depth += 1;
            let i = format!("i{}", sc.next_local);
            let s = format!("s{}", sc.next_local);
            sc.next_local += 1;
            let bound = if r.chance(50) {
                r.int(0, 3).to_string()
            } else {
                sc.ints.first().cloned().unwrap_or_else(|| "2".into())
            };
            // Half of the loops are written as `for` loops (the same loop
            // once lowered).
            let as_for = r.chance(50);
            if as_for {
                out.push_str(&format!("{ind}int {s} = 0;\n"));
            } else {
                out.push_str(&format!("{ind}int {i} = 0;\n{ind}int {s} = 0;\n"));
            }
            let mut inv = vec![format!("0 <= {i}")];
            if r.chance(70) {
                inv.push(format!("{s} >= 0"));
            }
            if sc.fields && r.chance(85) {
                inv.push("acc(f) && acc(g)".into());
            }
            if sc.pred && r.chance(85) {
                inv.push("p()".into());
            }
            if sc.array && r.chance(85) {
                inv.push("acc(arr.elems)".into());
                if r.chance(40) {
                    inv.push("untouched(acc(arr.elems))".into());
                }
            }
            if as_for {
                out.push_str(&format!("{ind}for (int {i} = 0; {i} < {bound}; {i}++)\n"));
            } else {
                out.push_str(&format!("{ind}while ({i} < {bound})\n"));
            }
            for c in &inv {
                out.push_str(&format!("{ind}  invariant {c};\n"));
            }
            out.push_str(&format!("{ind}{{\n"));
            let saved = sc.ints.clone();
            let fields = sc.fields;
            let pred = sc.pred;
            let array = sc.array;
            sc.fields = fields && inv.iter().any(|c| c.contains("acc(f)"));
            sc.pred = pred && inv.iter().any(|c| c == "p()");
            sc.array = array && inv.iter().any(|c| c == "acc(arr.elems)");
            out.push_str(&format!(
                "{deeper}{s} = {s} + {};\n",
                r.pick(&[i.as_str(), "1", "2"])
            ));
            // Now and then a `break` or `continue` under a condition: in a
            // `for` loop anywhere in the body (the update runs before the
            // next test either way), in a `while` loop after the increment
            // (or the loop might never end).
            let jump = r
                .chance(35)
                .then(|| *r.pick(&["break", "continue"]))
                .map(|j| format!("{deeper}if ({}) {{ {j}; }}\n", cond(r, sc, 1)));
            let early = as_for && r.chance(50);
            if early {
                out.push_str(jump.as_deref().unwrap_or(""));
            }
            let n = r.int(0, 2) as usize;
            block(r, sc, out, &deeper, n);
            if !as_for {
                out.push_str(&format!("{deeper}{i} = {i} + 1;\n"));
            }
            if !early {
                out.push_str(jump.as_deref().unwrap_or(""));
            }
            sc.ints = saved;
            sc.fields = fields;
            sc.pred = pred;
            sc.array = array;
            out.push_str(&format!("{ind}}}\n"));
            sc.ints.push(s);
            sc.depth -= 1;
        }
        8 if !sc.callees.is_empty() => {
            let (name, n) = r.pick(&sc.callees).clone();
            let args: Vec<String> = (0..n).map(|_| int_expr(r, sc, 1)).collect();
            let x = format!("x{}", sc.next_local);
            sc.next_local += 1;
            out.push_str(&format!("{ind}int {x} = {name}({});\n", args.join(", ")));
            sc.ints.push(x);
        }
        9 => out.push_str(&format!("{ind}assert {};\n", cond(r, sc, 1))),
        // Updates: `x++`, `++x`, `x op= e`, `x = y = e`, postfix and prefix
        // updates inside an expression.
        10 | 11 if !sc.ints.is_empty() => {
            let x = r.pick(&sc.ints).clone();
            let y = r.pick(&sc.ints).clone();
            let step = *r.pick(&["++", "--"]);
            let line = match r.below(9) {
                0 => format!("{x}{step};"),
                6 => format!("{step}{x};"),
                7 => format!("{x} = {y} = {};", int_expr(r, sc, 1)),
                8 => format!("{x} = {step}{y} * 2 + {y};"),
                1 => format!(
                    "{x} {}= {};",
                    r.pick(&["+", "-", "*", "/", "%"]),
                    int_expr(r, sc, 1)
                ),
                2 => format!(
                    "{x} = {} {} {y}{step};",
                    int_expr(r, sc, 1),
                    r.pick(&["+", "-", "*"])
                ),
                3 if sc.fields => format!(
                    "{} {}= {};",
                    r.pick(&["f", "g"]),
                    r.pick(&["+", "-"]),
                    int_expr(r, sc, 1)
                ),
                4 => format!("{x} = ({} ? {y}{step} : {y}) + {y};", cond(r, sc, 0)),
                _ => format!("{x} = {y}{step} * 2 + {y};"),
            };
            out.push_str(&format!("{ind}{line}\n"));
        }
        12 if sc.array => {
            let at = if r.chance(50) {
                r.int(-1, 3).to_string()
            } else {
                int_expr(r, sc, 1)
            };
            out.push_str(&format!("{ind}arr[{at}] = {};\n", int_expr(r, sc, 1)));
        }
        _ => {
            let x = format!("x{}", sc.next_local);
            sc.next_local += 1;
            out.push_str(&format!("{ind}int {x} = {};\n", int_expr(r, sc, 1)));
            sc.ints.push(x);
        }
    }
}

fn post_fact(r: &mut Rng, params: &[&str], fields: bool, pred: bool) -> String {
    let p = |r: &mut Rng| r.pick(params).to_string();
    match r.below(9) {
        0 => "true".into(),
        1 => format!("result >= {}", r.int(-3, 1)),
        2 => format!("result == {}", p(r)),
        3 => format!("result >= {} - {}", p(r), r.int(0, 3)),
        4 if fields => format!("f == old(f) + {}", r.int(0, 1)),
        5 if fields => "g == old(g)".into(),
        4 | 5 if pred => "get() >= old(get())".into(),
        6 => format!("result != {}", r.int(-2, 2)),
        _ => format!("result <= {} + {}", p(r), r.int(0, 5)),
    }
}

/// A random program; `seed` decides everything.
pub fn program(seed: u64) -> Generated {
    let mut r = Rng::new(seed);
    let k = r.int(-1, 2);
    let mut src = String::new();
    src.push_str("class C {\n  int f;\n  int g;\n  C next;\n\n");
    src.push_str(&format!(
        "  predicate p() {{ return acc(f) && f >= {k}; }}\n\n"
    ));
    src.push_str("  pure int get() requires p(); { return f; }\n\n");
    src.push_str("  static pure int twice(int x) { return x + x; }\n\n");
    src.push_str(&format!(
        "  C(int v) requires v >= {k}; ensures p() && get() == v; {{ f = v; }}\n\n"
    ));
    let mut callees: Vec<(String, usize)> = Vec::new();
    let mut instance: Vec<String> = Vec::new();
    let n = r.int(2, 4);
    for i in 0..n {
        let shape = r.below(3);
        let (head, pre, posts_extra, fields, pred, params): (
            String,
            String,
            Vec<String>,
            bool,
            bool,
            Vec<&str>,
        ) = match shape {
            0 => {
                let pre = match r.below(3) {
                    0 => "true".to_string(),
                    1 => format!("a >= {}", r.int(-2, 1)),
                    _ => format!("a >= 0 && b >= a - {}", r.int(0, 2)),
                };
                (
                    format!("static int s{i}(int a, int b)"),
                    pre,
                    vec![],
                    false,
                    false,
                    vec!["a", "b"],
                )
            }
            1 => (
                format!("int m{i}(int a)"),
                format!("acc(f) && acc(g) && a >= {}", r.int(-1, 1)),
                vec!["acc(f) && acc(g)".to_string()],
                true,
                false,
                vec!["a"],
            ),
            _ => (
                format!("int q{i}(int a)"),
                "p() && a >= 0".to_string(),
                vec!["p()".to_string()],
                false,
                true,
                vec!["a"],
            ),
        };
        let mut ensures = posts_extra;
        let posts = r.int(0, 2);
        for _ in 0..posts {
            ensures.push(post_fact(&mut r, &params, fields, pred));
        }
        src.push_str(&format!("  {head}\n    requires {pre};\n"));
        for e in &ensures {
            src.push_str(&format!("    ensures {e};\n"));
        }
        src.push_str("  {\n");
        let mut sc = Scope {
            ints: params.iter().map(|s| s.to_string()).collect(),
            fields,
            pred,
            array: false,
            callees: callees.clone(),
            next_local: 0,
            depth: 0,
        };
        let stmts = r.int(1, 5) as usize;
        block(&mut r, &mut sc, &mut src, "    ", stmts);
        if r.chance(30) {
            // A parameter assigned: postconditions still mean its entry value.
            src.push_str(&format!("    a = {};\n", int_expr(&mut r, &sc, 1)));
        }
        src.push_str(&format!(
            "    return {};\n  }}\n\n",
            int_expr(&mut r, &sc, 2)
        ));
        match shape {
            0 => callees.push((format!("s{i}"), 2)),
            2 => instance.push(format!("q{i}")),
            _ => {}
        }
    }
    // A client that builds an object and calls the instance methods.
    src.push_str("  static void client(int a) requires a >= 0; {\n");
    src.push_str(&format!("    C c = new C({});\n", k.max(0) + r.int(0, 2)));
    src.push_str("    int r = c.get();\n");
    for q in &instance {
        src.push_str(&format!("    r = c.{q}(a);\n"));
    }
    src.push_str("  }\n\n");
    // The array method draws from a generator of its own, so the rest of
    // the program is the one the seed gave before arrays existed.
    array_method(&mut Rng::new(seed ^ 0xA77A_7A77), &mut src);
    join_after_calls(&mut Rng::new(seed ^ 0x701E_C0DE), &mut src);
    loop_returns(&mut Rng::new(seed ^ 0x1009_4E70), &mut src);
    quantified_method(&mut Rng::new(seed ^ 0x0F0A_11E5), &mut src);
    src.push_str("}\n");
    Generated { source: src }
}

/// `static int w(int[] arr, int a)` holding `acc(arr.elems)`, and a client
/// that calls it on a new array.
fn array_method(r: &mut Rng, src: &mut String) {
    let len = r.int(0, 3);
    let mut pre = format!("acc(arr.elems) && arr.length >= {len}");
    if r.chance(40) {
        pre.push_str(&format!(" && a >= {}", r.int(-1, 2)));
    }
    if len > 0 && r.chance(50) {
        pre.push_str(&format!(" && arr[0] >= {}", r.int(-1, 2)));
    }
    src.push_str(&format!(
        "  static int w(int[] arr, int a)\n    requires {pre};\n"
    ));
    let mut ensures = vec!["acc(arr.elems)".to_string()];
    match r.below(5) {
        0 => ensures.push(format!("result >= {}", r.int(-3, 1))),
        1 => ensures.push("arr.length == old(arr.length)".into()),
        2 if len > 0 => ensures.push("arr[0] == old(arr[0])".into()),
        3 => ensures.push("untouched(acc(arr.elems))".into()),
        _ => {}
    }
    for e in &ensures {
        src.push_str(&format!("    ensures {e};\n"));
    }
    src.push_str("  {\n");
    let mut sc = Scope {
        ints: vec!["a".to_string()],
        fields: false,
        pred: false,
        array: true,
        callees: Vec::new(),
        next_local: 0,
        depth: 0,
    };
    let stmts = r.int(1, 5) as usize;
    block(r, &mut sc, src, "    ", stmts);
    src.push_str(&format!("    return {};\n  }}\n\n", int_expr(r, &sc, 2)));
    let n = r.int(0, 4);
    src.push_str(&format!(
        "  static void arrayClient(int a) {{\n    int[] xs = new int[{n}];\n"
    ));
    if n > 0 {
        src.push_str(&format!("    xs[0] = {};\n", r.int(-1, 3)));
    }
    src.push_str("    int r = w(xs, a);\n  }\n");
}

/// Pure calls whose preconditions hold only on some paths, followed by a
/// `join` and facts checked after it: what a call taught one path (its
/// precondition, its definition) must not survive the join.
fn join_after_calls(r: &mut Rng, src: &mut String) {
    let k = r.int(-1, 2);
    src.push_str(&format!(
        "  static pure int pos(int n) requires n > {k}; {{ return n - {k}; }}\n\n"
    ));
    let pre = match r.below(3) {
        0 => "true".to_string(),
        1 => format!("b >= {}", r.int(-2, 1)),
        _ => format!("n >= {}", r.int(-3, k + 1)),
    };
    let post = match r.below(4) {
        0 => "true".to_string(),
        1 => format!("result >= {}", r.int(-1, 1)),
        2 => format!("result == n || result >= {}", r.int(0, 2)),
        _ => format!("n > {}", r.int(k - 1, k + 1)),
    };
    src.push_str(&format!(
        "  static int jc(int n, int b)\n    requires {pre};\n    ensures {post};\n  {{\n    int r = 0;\n"
    ));
    // The guard of the call: the precondition's own test, a stronger or a
    // weaker one.
    let guard = match r.below(4) {
        0 => format!("n > {k}"),
        1 => format!("n > {}", k + r.int(0, 2)),
        2 => format!("n >= {} && b > 0", r.int(k - 1, k + 1)),
        _ => format!("b > {}", r.int(-1, 1)),
    };
    let call = match r.below(3) {
        0 => "pos(n)".to_string(),
        1 => format!("pos(n) + pos(n + {})", r.int(0, 2)),
        _ => format!("(n > {k} ? pos(n) : {})", r.int(-1, 1)),
    };
    src.push_str(&format!("    if ({guard}) {{\n      r = {call};\n    }}"));
    if r.chance(40) {
        src.push_str(&format!(" else {{\n      r = {};\n    }}", r.int(-1, 2)));
    }
    src.push('\n');
    let join = match r.below(3) {
        0 => "true".to_string(),
        1 => format!("r >= {}", r.int(-1, 1)),
        _ => format!("b >= {} ==> r >= 0", r.int(-1, 1)),
    };
    src.push_str(&format!("    join {join};\n"));
    let after = match r.below(4) {
        0 => format!("n > {k}"),
        1 => format!("n >= {}", r.int(k - 1, k + 1)),
        2 => format!("r >= {}", r.int(-1, 1)),
        _ => format!("pos(n) >= {}", r.int(0, 1)),
    };
    if after.starts_with("pos") {
        // A call after the join needs its precondition there.
        src.push_str(&format!("    if (n > {k}) {{ assert {after}; }}\n"));
    } else {
        src.push_str(&format!("    assert {after};\n"));
    }
    src.push_str("    return r;\n  }\n\n");
}

/// A `return` inside a loop body (sometimes inside a nested loop): the
/// path that returns there must hand back what the loop's frame holds
/// and nothing more.
fn loop_returns(r: &mut Rng, src: &mut String) {
    let mut ensures = vec!["acc(f) && acc(g)".to_string()];
    match r.below(5) {
        0 => ensures.push("f == old(f)".into()),
        1 => ensures.push("g >= old(g)".into()),
        2 => ensures.push(format!("result >= {}", r.int(-1, 1))),
        3 => ensures.push("f == old(f) + 1".into()),
        _ => {}
    }
    src.push_str("  int lr(int a)\n    requires acc(f) && acc(g);\n");
    for e in &ensures {
        src.push_str(&format!("    ensures {e};\n"));
    }
    src.push_str("  {\n    int i = 0;\n");
    let mut inv = vec!["0 <= i".to_string()];
    // The loop touches `g` when its invariant holds it; `f` stays in the
    // frame unless the invariant takes it too.
    let holds_g = r.chance(70);
    let holds_f = r.chance(30);
    if holds_g {
        inv.push("acc(g)".into());
        if r.chance(50) {
            inv.push(format!("g >= {}", r.int(-1, 0)));
        }
    }
    if holds_f {
        inv.push("acc(f)".into());
    }
    src.push_str("    while (i < a)\n");
    for c in &inv {
        src.push_str(&format!("      invariant {c};\n"));
    }
    src.push_str("    {\n");
    let ret = match r.below(3) {
        0 => "i".to_string(),
        1 if holds_g => "g".to_string(),
        _ => r.int(-1, 2).to_string(),
    };
    let test = format!("i == {}", r.int(0, 3));
    if r.chance(30) {
        src.push_str(&format!(
            "      int j = 0;\n      while (j < i) invariant 0 <= j; {{\n        if (j == {}) {{ return {ret}; }}\n        j = j + 1;\n      }}\n",
            r.int(0, 2)
        ));
    }
    src.push_str(&format!("      if ({test}) {{ return {ret}; }}\n"));
    if holds_g {
        src.push_str(&format!("      g = g + {};\n", r.int(0, 1)));
    }
    if holds_f && r.chance(50) {
        src.push_str("      f = f + 1;\n");
    }
    src.push_str("      i = i + 1;\n    }\n");
    if r.chance(50) {
        src.push_str("    f = f + 1;\n");
    }
    src.push_str("    return 0;\n  }\n\n");
}

/// A property of element `i` of `arr` (an `int` expression compared with
/// `arr[i]`), for quantified invariants and postconditions.
fn element_fact(r: &mut Rng) -> String {
    let k = r.int(-1, 2);
    match r.below(8) {
        // Pure calls in a body: unfolded for every `i` (with inference).
        6 => "twice(arr[i]) == arr[i] + arr[i]".to_string(),
        7 => format!("twice(i) >= i + {k}"),
        0 => "arr[i] == c".to_string(),
        1 => "arr[i] >= c".to_string(),
        2 => format!("arr[i] <= c + {k}"),
        3 => format!("arr[i] >= {k}"),
        4 => "arr[i] == i".to_string(),
        _ => format!("arr[i] <= i + {k}"),
    }
}

/// `static void fillq(int[] arr, int c)`: a loop writing every element,
/// with a quantified invariant over the part written and a quantified
/// postcondition over all of it (bounded, so the interpreter checks both),
/// and a client that asserts the postcondition's fact again. The value
/// written and the facts are drawn independently: some methods verify,
/// others fail, and the verified ones must run without failing.
fn quantified_method(r: &mut Rng, src: &mut String) {
    let fact = element_fact(r);
    let pre_fact = element_fact(r);
    let k = r.int(0, 2);
    let value = match r.below(6) {
        0 => "c".to_string(),
        1 => format!("c + {k}"),
        2 => format!("arr[j] + {k}"),
        3 => "j".to_string(),
        4 => format!("c - {k}"),
        _ => format!("{k}"),
    };
    let mut pre = "acc(arr.elems)".to_string();
    if r.chance(40) {
        pre.push_str(&format!(
            " && (forall int i :: 0 <= i && i < arr.length ==> {pre_fact})"
        ));
    }
    let post = if r.chance(25) {
        format!("arr.length > 0 ==> (exists int i :: 0 <= i && i < arr.length && {fact})")
    } else {
        format!("forall int i :: 0 <= i && i < arr.length ==> {fact}")
    };
    src.push_str(&format!(
        "\n  static void fillq(int[] arr, int c)\n    requires {pre};\n    ensures acc(arr.elems) && ({post});\n  {{\n"
    ));
    src.push_str("    int j = 0;\n    while (j < arr.length)\n");
    src.push_str("      invariant acc(arr.elems) && 0 <= j && j <= arr.length;\n");
    src.push_str(&format!(
        "      invariant forall int i :: 0 <= i && i < j ==> {fact};\n"
    ));
    if pre.contains("forall") && r.chance(60) {
        src.push_str(&format!(
            "      invariant forall int i :: j <= i && i < arr.length ==> {pre_fact};\n"
        ));
    }
    src.push_str(&format!(
        "    {{\n      arr[j] = {value};\n      j = j + 1;\n    }}\n  }}\n"
    ));
    let n = r.int(0, 4);
    let c = r.int(-2, 3);
    src.push_str(&format!(
        "\n  static void fillqClient() {{\n    int[] xs = new int[{n}];\n    fillq(xs, {c});\n"
    ));
    let check = element_fact(r)
        .replace("arr[", "xs[")
        .replace(" c", &format!(" {c}"));
    src.push_str(&format!(
        "    assert forall int i :: 0 <= i && i < xs.length ==> {check};\n  }}\n"
    ));
}

/// Bounds of the argument of the generated pure methods of
/// [`pure_cycles`]: every one requires `0 <= n && n <= CYCLE_TOP`.
pub const CYCLE_TOP: i64 = 4;

/// A program of pure methods that call each other (issue 21): `m0`, `m1`,
/// ... over `int n` in `0..=CYCLE_TOP`, static or over a list predicate,
/// with a measure (`n`, `CYCLE_TOP - n`, or a call: `id(n)` or `mJ(n)`)
/// or none. Each body calls any of
/// them (itself and later ones too) with `n - 1`, `n` or `n + 1` (guarded
/// so that the precondition holds), on the whole heap, inside `opening`
/// on the list's tail, or a static one from an instance one (part of the
/// heap left over): every case of the termination check, mixed in cycles
/// at random. `probe(n)` calls each method on a list of two nodes, so a
/// run shows whether the methods the verifier accepted terminate.
pub fn pure_cycles(seed: u64) -> Generated {
    let mut r = Rng::new(seed ^ 0x7E57_C1C1);
    let mut extra = Rng::new(seed ^ 0x3EA5_0123);
    let calls_in_measures = extra.chance(30);
    let top = CYCLE_TOP;
    let count = r.int(2, 4) as usize;
    let statics: Vec<bool> = (0..count).map(|_| r.chance(50)).collect();
    let mut src = String::from("class Rec {\n  int v;\n  Rec nx;\n\n");
    src.push_str(
        "  predicate lst() { return acc(v) && acc(nx) && (nx != null ==> nx.lst()); }\n\n",
    );
    src.push_str("  Rec(Rec t) requires t != null ==> t.lst(); ensures lst(); { nx = t; }\n\n");
    src.push_str("  static pure int id(int n) { return n; }\n\n");
    for (i, &is_static) in statics.iter().enumerate() {
        let (head, pre) = if is_static {
            (format!("static pure int m{i}(int n)"), String::new())
        } else {
            (format!("pure int m{i}(int n)"), "lst() && ".to_string())
        };
        src.push_str(&format!(
            "  {head}\n    requires {pre}0 <= n && n <= {top};\n"
        ));
        match r.below(10) {
            // Some measures call a pure method: one outside every cycle, or
            // one of the generated ones (an error if it is of the same
            // cycle). Drawn from `extra`, so the rest stays as it was.
            0..=6 if calls_in_measures && extra.chance(40) => {
                src.push_str("    decreases id(n);\n")
            }
            0..=6 if calls_in_measures && extra.chance(30) => {
                let allowed: Vec<usize> =
                    (0..count).filter(|&j| !is_static || statics[j]).collect();
                let j = *extra.pick(&allowed);
                src.push_str(&format!("    decreases m{j}(n);\n"));
            }
            0..=6 => src.push_str("    decreases n;\n"),
            7 => src.push_str(&format!("    decreases {top} - n;\n")),
            _ => {}
        }
        let calls = r.int(1, 2);
        let terms: Vec<String> = (0..calls)
            .map(|_| cycle_call(&mut r, &statics, is_static))
            .collect();
        src.push_str(&format!(
            "  {{ return n == {} ? {} : {}; }}\n\n",
            r.int(0, top),
            r.int(-1, 2),
            terms.join(" + ")
        ));
    }
    src.push_str(&format!(
        "  static void probe(int n)\n    requires 0 <= n && n <= {top};\n  {{\n    Rec t = new Rec(null);\n    Rec o = new Rec(t);\n"
    ));
    for (i, &is_static) in statics.iter().enumerate() {
        let recv = if is_static { "" } else { "o." };
        src.push_str(&format!("    int a{i} = {recv}m{i}(n);\n"));
    }
    src.push_str("  }\n}\n");
    Generated { source: src }
}

/// One guarded call of [`pure_cycles`] from a method (`from_static`): its
/// value, or a constant where the guard fails.
fn cycle_call(r: &mut Rng, statics: &[bool], from_static: bool) -> String {
    let top = CYCLE_TOP;
    // A static method has no list to call an instance method on.
    let targets: Vec<usize> = (0..statics.len())
        .filter(|&j| !from_static || statics[j])
        .collect();
    if targets.is_empty() {
        return r.int(0, 2).to_string();
    }
    let j = *r.pick(&targets);
    let (guard, arg) = match r.below(20) {
        0..=12 => (Some("n > 0".to_string()), "n - 1"),
        13..=16 => (None, "n"),
        _ => (Some(format!("n < {top}")), "n + 1"),
    };
    let call = if statics[j] || r.chance(50) {
        format!("m{j}({arg})")
    } else {
        format!("(opening lst() in (nx == null ? 0 : nx.m{j}({arg})))")
    };
    match guard {
        Some(g) => format!("({g} ? {call} : {})", r.int(0, 2)),
        None => call,
    }
}
