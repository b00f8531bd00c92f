use super::*;

/// The body of the first method after parsing, checking and lowering, one
/// line per statement (nested blocks indented).
fn lowered(src: &str) -> Vec<String> {
    let mut p = crate::syntax::parse(src).expect("parses");
    let errors = crate::check::check(&mut p);
    assert!(errors.is_empty(), "{errors:?}");
    program(&mut p, src, false);
    let mut out = Vec::new();
    block(&p.classes[0].methods[0].body, "", &mut out);
    out
}

fn block(b: &Block, indent: &str, out: &mut Vec<String>) {
    for s in &b.stmts {
        let line = match &s.kind {
            StmtKind::Local { name, init, .. } => match init {
                Some(e) => format!("{} := {}", name.name, show(e)),
                None => format!("{} :=", name.name),
            },
            StmtKind::Assign { target, value } => format!("{} = {}", target.name, show(value)),
            StmtKind::FieldAssign { target, value } => {
                format!("{} = {}", show(target), show(value))
            }
            StmtKind::Call(e) => show(e),
            StmtKind::Return(e) => format!("return {}", e.as_ref().map_or(String::new(), show)),
            StmtKind::If { cond, then, els } => {
                out.push(format!("{indent}if {}", show(cond)));
                block(then, &format!("{indent}  "), out);
                if let Some(e) = els {
                    out.push(format!("{indent}else"));
                    block(e, &format!("{indent}  "), out);
                }
                continue;
            }
            StmtKind::While {
                cond,
                invariants,
                body,
                pre,
                body_first,
            } => {
                if !pre.stmts.is_empty() {
                    out.push(format!("{indent}before each test"));
                    block(pre, &format!("{indent}  "), out);
                }
                let inv: Vec<String> = invariants.iter().map(show).collect();
                let word = if *body_first { "do-while" } else { "while" };
                out.push(format!(
                    "{indent}{word} {} [{}]",
                    show(cond),
                    inv.join(", ")
                ));
                block(body, &format!("{indent}  "), out);
                continue;
            }
            other => format!("{other:?}"),
        };
        out.push(format!("{indent}{line}"));
    }
}

fn show(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Int(s) => s.clone(),
        ExprKind::Bool(b) => b.to_string(),
        ExprKind::Null => "null".into(),
        ExprKind::This => "this".into(),
        ExprKind::Var(i) | ExprKind::Name(i) => i.name.clone(),
        ExprKind::Field { recv, field, .. } => format!("{}.{}", show(recv), field.name),
        ExprKind::Binary(op, a, b) => format!("({} {} {})", show(a), op.symbol(), show(b)),
        ExprKind::Unary(_, a) => format!("-{}", show(a)),
        ExprKind::Call(c) => {
            let recv = match &c.receiver {
                Receiver::Expr(r) => format!("{}.", show(r)),
                Receiver::Class(c) => format!("{}.", c.name),
                Receiver::Implicit => String::new(),
            };
            let args: Vec<String> = c.args.iter().map(show).collect();
            format!("{recv}{}({})", c.name.name, args.join(", "))
        }
        ExprKind::New { class, args } => {
            let args: Vec<String> = args.iter().map(show).collect();
            format!("new {}({})", class.name, args.join(", "))
        }
        ExprKind::NewArray { elem, size } => format!("new {}[{}]", elem.kind, show(size)),
        ExprKind::Length(a) => format!("{}.length", show(a)),
        other => format!("{other:?}"),
    }
}

fn in_method(body: &str) -> String {
    format!(
        "class C {{ int f; C next;
  void m(int i, int x, C o) {{ {body} }}
  void n(int a, int b) {{ }}
  pure int p(int a, int b) {{ return a; }}
  int n2() {{ return 2; }} }}"
    )
}

#[test]
fn updates_read_then_store() {
    assert_eq!(
        lowered(&in_method("x++; x -= 2; f *= i; o.f /= 2;")),
        [
            "x = (x + 1)",
            "x = (x - 2)",
            "this.f = (this.f * i)",
            "o.f = (o.f / 2)",
        ]
    );
}

#[test]
fn a_receiver_is_evaluated_once() {
    assert_eq!(
        lowered(&in_method("o.next.f++; next.next.f += i;")),
        [
            "o.next#1 = o.next",
            "o.next#1.f = (o.next#1.f + 1)",
            "next.next#2 = this.next.next",
            "next.next#2.f = (next.next#2.f + i)",
        ]
    );
}

#[test]
fn operands_read_before_an_update_are_captured() {
    assert_eq!(
        lowered(&in_method("x = i + i++;")),
        [
            "i#1 = i",
            "i++#2 = i",
            "i = (i++#2 + 1)",
            "x = (i#1 + i++#2)"
        ]
    );
    // Two updates of one variable: each reads the value the other left.
    assert_eq!(
        lowered(&in_method("x = i++ * 10 + i++;")),
        [
            "i++#1 = i",
            "i = (i++#1 + 1)",
            "i++#2 = i",
            "i = (i++#2 + 1)",
            "x = ((i++#1 * 10) + i++#2)",
        ]
    );
    // What the update cannot change is not captured.
    assert_eq!(
        lowered(&in_method("x = x + 1 + i++;")),
        ["i++#1 = i", "i = (i++#1 + 1)", "x = ((x + 1) + i++#1)"]
    );
}

#[test]
fn field_updates_capture_heap_reads_before_them() {
    assert_eq!(
        lowered(&in_method("x = o.f + o.f++ + p(o.f, 1);")),
        [
            "o.f#1 = o.f",
            "o.f++#2 = o.f",
            "o.f = (o.f++#2 + 1)",
            "x = ((o.f#1 + o.f++#2) + this.p(o.f, 1))",
        ]
    );
}

#[test]
fn compound_assignments_save_the_old_value_first() {
    // Java: `x += x++` adds the old value twice.
    assert_eq!(
        lowered(&in_method("x += x++;")),
        [
            "x#1 = x",
            "x++#2 = x",
            "x = (x++#2 + 1)",
            "x = (x#1 + x++#2)"
        ]
    );
}

#[test]
fn calls_take_their_operands_in_order() {
    assert_eq!(
        lowered(&in_method("n(i, i++); o.n(i++, i); C c = new C(); return;")),
        [
            "i#1 = i",
            "i++#2 = i",
            "i = (i++#2 + 1)",
            "this.n(i#1, i++#2)",
            "i++#3 = i",
            "i = (i++#3 + 1)",
            "o.n(i++#3, i)",
            "c := new C()",
            "return ",
        ]
    );
}

#[test]
fn conditions_of_if_are_lowered_before_it() {
    assert_eq!(
        lowered(&in_method("if (i++ > 0) { x--; } else if (x-- > 0) { }")),
        [
            "i++#1 = i",
            "i = (i++#1 + 1)",
            "if (i++#1 > 0)",
            "  x = (x - 1)",
            "else",
            "  x--#2 = x",
            "  x = (x--#2 - 1)",
            "  if (x--#2 > 0)",
        ]
    );
}

#[test]
fn for_loops_become_while_loops() {
    assert_eq!(
        lowered(&in_method(
            "for (int k = 0; k < i; k++) invariant k <= i; { x += k; } for (int k = 5; k > 0; ) { k--; }"
        )),
        [
            "k := 0",
            "while (k < i) [(k <= i)]",
            "  x = (x + k)",
            "  k = (k + 1)",
            "k := 5",
            "while (k > 0) []",
            "  k = (k - 1)",
        ]
    );
}

#[test]
fn a_for_loops_continue_runs_the_update_first() {
    // Only the `continue`s of the `for` itself: the inner loop's is its own.
    assert_eq!(
        lowered(&in_method(
            "for (int k = 0; k < i; k++) { if (k == x) { continue; } else if (k == 2) { x--; continue; } while (x > 0) { continue; } }"
        )),
        [
            "k := 0",
            "while (k < i) []",
            "  if (k == x)",
            "    k = (k + 1)",
            "    Continue",
            "  else",
            "    if (k == 2)",
            "      x = (x - 1)",
            "      k = (k + 1)",
            "      Continue",
            "  while (x > 0) []",
            "    Continue",
            "  k = (k + 1)",
        ]
    );
}

#[test]
fn do_loops_keep_their_form() {
    assert_eq!(
        lowered(&in_method(
            "do { x++; if (x > 3) { break; } } while (x++ < i) invariant x >= 0;"
        )),
        [
            "before each test",
            "  x++#1 = x",
            "  x = (x++#1 + 1)",
            "do-while (x++#1 < i) [(x >= 0)]",
            "  x = (x + 1)",
            "  if (x > 3)",
            "    Break",
        ]
    );
}

#[test]
fn loop_conditions_update_before_each_test() {
    assert_eq!(
        lowered(&in_method(
            "while (i++ < x) invariant i <= x; { } for (int k = 0; k-- > -3; ) { }"
        )),
        [
            "before each test",
            "  i++#1 = i",
            "  i = (i++#1 + 1)",
            "while (i++#1 < x) [(i <= x)]",
            "k := 0",
            "before each test",
            "  k--#2 = k",
            "  k = (k--#2 - 1)",
            "while (k--#2 > -3) []",
        ]
    );
}

#[test]
fn long_texts_make_short_names() {
    let names = lowered(&in_method(
        "x = o.next.next.next.next.next.f + (o.next.next.next.next.next.f)++;",
    ));
    assert_eq!(
        names[0],
        "o.next.next.next.next...#1 = o.next.next.next.next.next.f"
    );
}

#[test]
fn updates_evaluated_on_some_paths_run_under_an_if() {
    assert_eq!(
        lowered(&in_method("bool b = x > 0 && i++ > 0;")),
        [
            "x > 0 && i++ > 0#1 = (x > 0)",
            "if x > 0 && i++ > 0#1",
            "  i++#2 = i",
            "  i = (i++#2 + 1)",
            "  x > 0 && i++ > 0#1 = (i++#2 > 0)",
            "b := x > 0 && i++ > 0#1",
        ]
    );
    assert_eq!(
        lowered(&in_method("bool b = x > 0 || i-- > 0;")),
        [
            "x > 0 || i-- > 0#1 = (x > 0)",
            "if x > 0 || i-- > 0#1",
            "else",
            "  i--#2 = i",
            "  i = (i--#2 - 1)",
            "  x > 0 || i-- > 0#1 = (i--#2 > 0)",
            "b := x > 0 || i-- > 0#1",
        ]
    );
    assert_eq!(
        lowered(&in_method("bool b = x > 0 ==> i++ > 0;"))[5..],
        [
            "else",
            "  x > 0 ==> i++ > 0#1 = true",
            "b := x > 0 ==> i++ > 0#1"
        ]
    );
    assert_eq!(
        lowered(&in_method("x = i + (x > 0 ? i++ : 0);")),
        [
            "i#1 = i",
            "if (x > 0)",
            "  i++#3 = i",
            "  i = (i++#3 + 1)",
            "  (x > 0 ? i++ : 0)#2 = i++#3",
            "else",
            "  (x > 0 ? i++ : 0)#2 = 0",
            "x = (i#1 + (x > 0 ? i++ : 0)#2)",
        ]
    );
}

#[test]
fn footprints() {
    let e = |src: &str| {
        let p = checked_expr(src);
        (footprint::reads(&p), footprint::writes(&p))
    };
    let (r, w) = e("i + o.f");
    assert!(r.heap && r.vars.contains("i") && r.vars.contains("o"));
    assert!(!w.heap && w.vars.is_empty());
    let (r, _) = e("-i * 2 == x ? i : x");
    assert!(!r.heap);
    let (_, w) = e("i++ + o.f--");
    assert!(w.heap && w.vars.contains("i") && !w.vars.contains("o"));
    let (r, _) = e("p(i, 2)");
    assert!(r.heap);
}

/// The value of `x = e;` in `in_method`, checked but not lowered.
fn checked_expr(e: &str) -> Expr {
    let src = in_method(&format!("x = {e};"));
    let mut p = crate::syntax::parse(&src).expect("parses");
    assert!(crate::check::check(&mut p).is_empty());
    match &p.classes[0].methods[0].body.stmts[0].kind {
        StmtKind::Assign { value, .. } => value.clone(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn prefix_updates_store_then_give_the_new_value() {
    assert_eq!(
        lowered(&in_method("++x; x = i + ++i; x = ++o.f * 2;")),
        [
            "x = (x + 1)",
            "i#1 = i",
            "i = (i + 1)",
            "x = (i#1 + i)",
            "++o.f#2 = (o.f + 1)",
            "o.f = ++o.f#2",
            "x = (++o.f#2 * 2)",
        ]
    );
}

#[test]
fn chains_locate_every_target_first_and_store_from_the_last() {
    assert_eq!(
        lowered(&in_method(
            "x = i = 1; o.f = x = n2(); o.next.f = next.f = i + 1;"
        )),
        [
            "i = 1",
            "x = i",
            "x = this.n2()",
            "o.f = x",
            "o.next#1 = o.next",
            "next#2 = this.next",
            "i + 1#3 = (i + 1)",
            "next#2.f = i + 1#3",
            "o.next#1.f = i + 1#3",
        ]
    );
}

#[test]
fn new_inside_an_expression_gets_a_temporary_in_order() {
    assert_eq!(
        lowered(&in_method("n(new C().f, i++); x = new int[i].length;")),
        [
            "new C()#1 = new C()",
            "i++#2 = i",
            "i = (i++#2 + 1)",
            "this.n(new C()#1.f, i++#2)",
            "new int[i]#3 = new int[i]",
            "x = new int[i]#3.length",
        ]
    );
}
