//! Java forms that Sift does not have (issue 25; docs/language.md, "Java
//! features and their Sift counterparts"): each gets one error naming the
//! construct, at it, with a help line saying the Sift way.

use sift::diag::line_col;
use sift::verify::checked_program;

/// A method body holding `stmt`, in a class with an array field.
fn in_body(stmt: &str) -> String {
    format!("class A {{\n  int[] a;\n  static void m(int[] a, int x) {{\n    {stmt}\n  }}\n}}\n")
}

/// (what, program, kind, the text the error starts at, message, help)
fn cases() -> Vec<(
    &'static str,
    String,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
)> {
    const STRINGS: &str = "Sift's values are `int`, `bool`, objects and arrays: use an `int` (a character code) or an `int[]`";
    const INITIALIZERS: &str =
        "create the array, then set its elements: `int[] a = new int[2]; a[0] = 1; a[1] = 2;`";
    const GENERICS: &str = "Sift has no generics or library collections: use an array `T[]`, or a class of your own with the element type written out";
    const EXCEPTIONS: &str = "Sift has no exceptions: say what callers must ensure with `requires`, and check what cannot happen with `assert`";
    const INTS: &str = "did you mean `int`? (Sift has one integer type: unbounded, or Java's 32-bit `int` with `--overflow`)";
    const PUBLIC: &str = "remove `public`: Sift has no access modifiers, every member is visible";
    vec![
        (
            "the type String",
            "class A {\n  String s;\n}\n".into(),
            "type",
            "String",
            "`String` is not a Sift type",
            "Sift has no strings or characters",
        ),
        (
            "a string literal",
            in_body("int n = \"hi\";"),
            "parse",
            "\"hi\"",
            "a string literal is not Sift",
            STRINGS,
        ),
        (
            "a character literal",
            in_body("int c = 'a';"),
            "parse",
            "'a'",
            "a character literal is not Sift",
            STRINGS,
        ),
        (
            "System.out.println",
            in_body("System.out.println(x);"),
            "type",
            "System",
            "`System` is not Sift",
            "Sift programs have no input or output: state what a value must be with `assert`, or run the method with `sift run` to see its result",
        ),
        (
            "an array initializer",
            in_body("int[] b = {1, 2};"),
            "parse",
            "{1",
            "an array initializer is not Sift",
            INITIALIZERS,
        ),
        (
            "new int[]{...}",
            in_body("int[] b = new int[]{1, 2};"),
            "parse",
            "new int[]{1, 2}",
            "an array initializer is not Sift",
            INITIALIZERS,
        ),
        (
            "a field initializer",
            "class A {\n  int x = 0;\n}\n".into(),
            "parse",
            "= 0",
            "a field initializer is not Sift",
            "a field starts with its type's default (`0`, `false`, `null`): set it in a constructor, `x = 1;`",
        ),
        (
            "a static field",
            "class A {\n  static int count;\n}\n".into(),
            "parse",
            "static int count",
            "a static field is not Sift",
            "keep the value in a field of an object that the methods share (as a parameter), or pass it as an argument",
        ),
        (
            "a for-each loop",
            in_body("for (int y : a) { }"),
            "parse",
            ": a",
            "a for-each loop is not Sift",
            "loop over the indexes: `for (int i = 0; i < a.length; i++) invariant 0 <= i && i <= a.length; { ... a[i] ... }`",
        ),
        (
            "size() on an array",
            in_body("int n = a.size();"),
            "type",
            "size()",
            "no method `size` on type `int[]`",
            "an array's length is `a.length`, without `()` (Sift has no collections)",
        ),
        (
            "length() on an array",
            in_body("int n = a.length();"),
            "type",
            "length()",
            "no method `length` on type `int[]`",
            "an array's length is `a.length`, without `()` (Sift has no strings)",
        ),
        (
            "a generic type",
            in_body("List<Integer> l = null;"),
            "parse",
            "<Integer>",
            "a generic type is not Sift",
            GENERICS,
        ),
        (
            "a generic class",
            "class Box<T> {\n}\n".into(),
            "parse",
            "<T>",
            "a generic type is not Sift",
            GENERICS,
        ),
        (
            "public on a constructor",
            "class A {\n  public A() { }\n}\n".into(),
            "parse",
            "public A",
            "`public` is not Sift",
            PUBLIC,
        ),
        (
            "public on a method",
            "class A {\n  public static void m() { }\n}\n".into(),
            "parse",
            "public static",
            "`public` is not Sift",
            PUBLIC,
        ),
        (
            "private on a predicate",
            "class A {\n  private predicate p() { return true; }\n}\n".into(),
            "parse",
            "private",
            "`private` is not Sift",
            "remove `private`: Sift has no access modifiers, every member is visible",
        ),
        (
            "final on a parameter",
            "class A {\n  static void m(final int x) { }\n}\n".into(),
            "parse",
            "final int",
            "`final` is not Sift",
            "remove `final`: Sift has no such modifier",
        ),
        (
            "old in a loop invariant",
            in_body("while (x > 0) invariant x <= old(x); { x = x - 1; }"),
            "type",
            "old(x)",
            "`old` is not allowed in a loop invariant",
            "keep the value in a local before the loop (`int x0 = x;`) and name it in the invariant, or keep locations unchanged with `untouched(...)`",
        ),
        (
            "long",
            in_body("long y = 1;"),
            "type",
            "long",
            "`long` is not a Sift type",
            INTS,
        ),
        (
            "short",
            in_body("short y = 1;"),
            "type",
            "short",
            "`short` is not a Sift type",
            INTS,
        ),
        (
            "byte",
            in_body("byte y = 1;"),
            "type",
            "byte",
            "`byte` is not a Sift type",
            INTS,
        ),
        (
            "char",
            "class A {\n  char c;\n}\n".into(),
            "type",
            "char",
            "`char` is not a Sift type",
            "Sift has no strings or characters",
        ),
        (
            "switch",
            in_body("switch (x) { case 1: x = 2; }"),
            "parse",
            "switch",
            "`switch` is not Sift",
            "test the cases with `if (x == 1) { ... } else if (x == 2) { ... } else { ... }`",
        ),
        (
            "throw",
            in_body("throw new A();"),
            "parse",
            "throw",
            "`throw` is not Sift",
            EXCEPTIONS,
        ),
        (
            "try",
            in_body("try { x = 1; } catch (Exception e) { }"),
            "parse",
            "try",
            "`try` is not Sift",
            EXCEPTIONS,
        ),
        (
            "throws",
            "class A {\n  void m() throws Exception { }\n}\n".into(),
            "parse",
            "throws",
            "`throws` is not Sift",
            EXCEPTIONS,
        ),
    ]
}

#[test]
fn every_java_habit_gets_one_message_naming_it_and_the_sift_way() {
    let mut failures = Vec::new();
    for (what, src, kind, at, message, help) in cases() {
        let report = match checked_program("habit.sift", &src) {
            Ok(_) => {
                failures.push(format!("{what}: no error"));
                continue;
            }
            Err(r) => r,
        };
        let Some(first) = report.errors.first() else {
            failures.push(format!("{what}: no error"));
            continue;
        };
        let d = &first.diag;
        let want_at = src.find(at).expect("the place in the program");
        let got = (
            d.kind.as_str(),
            line_col(&src, d.span.start),
            d.message.as_str(),
            d.help.as_deref().unwrap_or("(no help)"),
        );
        let want = (kind, line_col(&src, want_at), message, help);
        if got != want {
            failures.push(format!("{what}:\n  want {want:?}\n  got  {got:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
