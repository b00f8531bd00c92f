//! Syntax errors that come from writing Java: access modifiers, `==` where a
//! statement assigns, `=` where a condition compares. Each is recognised
//! from the tokens around the failure, so the first error stays where the
//! parser stopped unless a modifier is to blame.

use crate::diag::{Diagnostic, Kind};
use crate::syntax::ast::Span;
use crate::syntax::scan::token_at;

/// Java words that Sift does not have in front of a declaration.
const MODIFIERS: [&str; 9] = [
    "public",
    "private",
    "protected",
    "final",
    "abstract",
    "synchronized",
    "transient",
    "volatile",
    "native",
];

/// Whether `word` is a Java modifier Sift does not have.
pub fn is_modifier(word: &str) -> bool {
    MODIFIERS.contains(&word)
}

/// `public`, `final`, ... at `span`.
pub fn modifier_error(word: &str, span: Span) -> Diagnostic {
    let help = if word.starts_with('p') {
        format!("remove `{word}`: Sift has no access modifiers, every member is visible")
    } else {
        format!("remove `{word}`: Sift has no such modifier")
    };
    Diagnostic::new(Kind::Parse, span, format!("`{word}` is not Sift"))
        .with_label("a Java modifier")
        .with_help(help)
}

/// A diagnostic for a Java habit at the failure at `pos`, where `found`
/// names the token there and `wanted` the tokens that could follow.
pub fn java_habit(src: &str, pos: usize, found: &str, wanted: &str) -> Option<Diagnostic> {
    let before = tokens_before(src, pos);
    let text = |s: &Span| &src[s.clone()];
    // The declaration or statement that failed starts after the last `;`,
    // `{` or `}`.
    let start = before
        .iter()
        .rposition(|s| matches!(text(s), ";" | "{" | "}"))
        .map_or(0, |k| k + 1);
    // The token after the first: the next one before `pos`, or the one at it.
    let second = match before.get(start + 1) {
        Some(s) => text(s),
        None => &src[token_at(src, pos).0],
    };
    // `final int x` in a parameter list: the modifier right before a word.
    let modifier = match before.get(start) {
        Some(m) if MODIFIERS.contains(&text(m)) && next_is_word(second) => Some(m),
        _ => before
            .last()
            .filter(|m| MODIFIERS.contains(&text(m)) && next_is_word(&src[token_at(src, pos).0])),
    };
    if let Some(modifier) = modifier {
        return Some(modifier_error(text(modifier), modifier.clone()));
    }
    let words: Vec<&str> = before[start..].iter().map(text).collect();
    if let Some(d) = java_form(src, pos, &words, &before, wanted) {
        return Some(d);
    }
    let base = |help: &str| {
        let (span, _) = token_at(src, pos);
        Diagnostic::new(
            Kind::Parse,
            span,
            format!("expected {wanted}, found {found}"),
        )
        .with_label(format!("expected {wanted}"))
        .with_help(help.to_string())
    };
    // `x == e;` as a statement: the first token is the whole target.
    if found == "`==`" && before.len() == start + 1 {
        return Some(base(
            "`==` compares two values; to assign, write `=` (as in `x = e;`)",
        ));
    }
    // `if (x = e)`: an assignment where an operator or `)` must come.
    if found == "`=`" && (wanted.contains("operator") || wanted.contains("`)`")) {
        return Some(base(
            "`=` assigns, and only as a statement; to compare two values, write `==`",
        ));
    }
    not_yet(src, pos, found).map(|help| base(&help))
}

/// Help for the forms of the contract the grammar does not have yet
/// (docs/language.md section 12): sequences (`seq<T>`, slices `a[i..j]`,
/// literals `[1, 2]`), interfaces and subclasses.
fn not_yet(src: &str, pos: usize, found: &str) -> Option<String> {
    const INSTEAD: &str = "state facts about the elements of an array with quantifiers, like `forall int i :: 0 <= i && i < a.length ==> a[i] >= 0`";
    const ONE_CLASS: &str =
        "write the behaviour in one class (a field can say which variant an object is)";
    match found {
        "`interface`" => return Some(format!("interfaces are not supported yet; {ONE_CLASS}")),
        "`extends`" | "`implements`" => {
            return Some(format!(
                "subclasses and interfaces (`extends`, `implements`) are not supported yet; {ONE_CLASS}"
            ));
        }
        "`instanceof`" => {
            return Some(format!(
                "`instanceof` and casts are not supported yet; {ONE_CLASS}"
            ));
        }
        _ => {}
    }
    if found == "keyword `seq`" {
        return Some(format!(
            "sequences (`seq<T>`) are not supported yet; {INSTEAD}"
        ));
    }
    let rest = src.get(pos..).unwrap_or("");
    let before = src.get(..pos)?.trim_end();
    let dots = rest.starts_with("..")
        || (rest.starts_with('.') && before.ends_with('.'))
        || (found == "`]`" && before.ends_with(".."));
    if dots {
        return Some(format!(
            "array slices (`a[i..j]`) are not supported yet; {INSTEAD}"
        ));
    }
    if found == "`[`" {
        return Some(format!(
            "sequence literals (`[1, 2]`) are not supported yet; {INSTEAD}"
        ));
    }
    None
}

/// A Java form Sift does not have, recognised from the tokens `words` of
/// the declaration or statement that failed and the token at `pos`: one
/// message naming it, and the Sift way (or that there is none).
fn java_form(
    src: &str,
    pos: usize,
    words: &[&str],
    before: &[Span],
    wanted: &str,
) -> Option<Diagnostic> {
    let (at_span, _) = token_at(src, pos);
    let at = &src[at_span.clone()];
    let prev = |k: usize| {
        before
            .len()
            .checked_sub(k)
            .and_then(|i| before.get(i))
            .map(|s| &src[s.clone()])
    };
    let form = |span: Span, what: &str, label: &str, help: &str| {
        Some(
            Diagnostic::new(Kind::Parse, span, format!("{what} is not Sift"))
                .with_label(label.to_string())
                .with_help(help.to_string()),
        )
    };
    const NO_EXCEPTIONS: &str = "Sift has no exceptions: say what callers must ensure with `requires`, and check what cannot happen with `assert`";
    const NO_INITIALIZERS: &str =
        "create the array, then set its elements: `int[] a = new int[2]; a[0] = 1; a[1] = 2;`";
    if at.starts_with('"') || at.starts_with('\'') {
        let quote = if at.starts_with('"') { '"' } else { '\'' };
        let rest = &src[pos + 1..];
        let len = rest.find([quote, '\n', '\r']).map_or(rest.len(), |k| {
            k + usize::from(rest[k..].starts_with(quote))
        });
        let what = if quote == '"' {
            "a string literal"
        } else {
            "a character literal"
        };
        return form(
            pos..pos + 1 + len,
            what,
            "Sift has no strings or characters",
            "Sift's values are `int`, `bool`, objects and arrays: use an `int` (a character code) or an `int[]`",
        );
    }
    match (words.first().copied(), at) {
        (Some("switch"), _) => {
            return form(
                before[before.len() - words.len()].clone(),
                "`switch`",
                "a Java statement",
                "test the cases with `if (x == 1) { ... } else if (x == 2) { ... } else { ... }`",
            );
        }
        (Some(kw @ ("throw" | "try" | "catch" | "finally")), _) => {
            let at = before[before.len() - words.len()].clone();
            return form(
                at,
                &format!("`{kw}`"),
                "a Java exception statement",
                NO_EXCEPTIONS,
            );
        }
        (_, "throws") => {
            return form(
                at_span,
                "`throws`",
                "a Java exception clause",
                NO_EXCEPTIONS,
            );
        }
        _ => {}
    }
    if at == "{" && prev(1) == Some("=") {
        return form(
            at_span,
            "an array initializer",
            "a Java array initializer",
            NO_INITIALIZERS,
        );
    }
    if at == "]" && prev(1) == Some("[") && prev(3) == Some("new") {
        let start = before[before.len() - 3].start;
        let end = src[pos..].find('}').map_or(at_span.end, |k| pos + k + 1);
        return form(
            start..end,
            "an array initializer",
            "a Java array initializer",
            NO_INITIALIZERS,
        );
    }
    if at == ":" && words.first() == Some(&"for") {
        return form(
            at_span,
            "a for-each loop",
            "a Java for-each loop",
            "loop over the indexes: `for (int i = 0; i < a.length; i++) invariant 0 <= i && i <= a.length; { ... a[i] ... }`",
        );
    }
    if at == "<"
        && src[at_span.end..]
            .trim_start()
            .starts_with(|c: char| c.is_ascii_uppercase() || c == '?')
        && prev(1).is_some_and(next_is_word)
    {
        return form(
            at_span,
            "a generic type",
            "Java generics",
            "Sift has no generics or library collections: use an array `T[]`, or a class of your own with the element type written out",
        );
    }
    // A member that is neither a method nor a constructor: a field.
    let member = wanted.contains("`(`") && matches!(at, "=" | ";");
    if member && words.first() == Some(&"static") {
        return form(
            before[before.len() - words.len()].clone(),
            "a static field",
            "a Java static field",
            "keep the value in a field of an object that the methods share (as a parameter), or pass it as an argument",
        );
    }
    if member && at == "=" && words.len() == 2 {
        return form(
            at_span,
            "a field initializer",
            "a Java field initializer",
            "a field starts with its type's default (`0`, `false`, `null`): set it in a constructor, `x = 1;`",
        );
    }
    None
}

fn next_is_word(token: &str) -> bool {
    token
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
}

/// The spans of the tokens that start before `pos`, comments skipped.
pub(super) fn tokens_before(src: &str, pos: usize) -> Vec<Span> {
    let bytes = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < pos.min(bytes.len()) {
        match bytes[i] {
            b' ' | b'\t' | b'\r' | b'\n' => i += 1,
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i = src[i..].find(['\n', '\r']).map_or(bytes.len(), |k| i + k);
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i = src[i + 2..].find("*/").map_or(bytes.len(), |k| i + k + 4);
            }
            _ => {
                let (span, _) = token_at(src, i);
                i = span.end.max(i + 1);
                out.push(span);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::syntax::parse;

    fn error(src: &str) -> (usize, String, Option<String>) {
        let d = parse(src).expect_err("a syntax error");
        (d.span.start, d.message.clone(), d.help.clone())
    }

    #[test]
    fn access_modifiers_are_blamed() {
        let src = "class A {\n  public int x;\n}\n";
        let (at, message, help) = error(src);
        assert_eq!(at, src.find("public").unwrap());
        assert_eq!(message, "`public` is not Sift");
        assert_eq!(
            help.as_deref(),
            Some("remove `public`: Sift has no access modifiers, every member is visible")
        );
        let src = "class A {\n  int x;\n  private static void m() { }\n}\n";
        assert_eq!(error(src).0, src.find("private").unwrap());
        let src = "public class A { }\n";
        assert_eq!(error(src).0, 0);
        let src = "class A { final int x; }\n";
        assert_eq!(
            error(src).2.as_deref(),
            Some("remove `final`: Sift has no such modifier")
        );
    }

    #[test]
    fn a_local_named_like_a_modifier_is_not_a_modifier() {
        // `public = 1;` parses; the error is the missing `;` after it.
        let src = "class A { static void m() { int public; public = 1 } }\n";
        let (_, message, help) = error(src);
        assert_eq!(message, "expected `;`, found `}`");
        assert_eq!(help, None);
    }

    #[test]
    fn sequences_are_not_supported_yet() {
        for (src, what) in [
            (
                "class A { void m() { seq<int> s; } }\n",
                "sequences (`seq<T>`)",
            ),
            ("class A { seq<int> f; }\n", "sequences (`seq<T>`)"),
            (
                "class A { void m(int[] a) requires a[0..2] == a[..]; { } }\n",
                "array slices",
            ),
            (
                "class A { void m(int[] a) requires a[..] == a; { } }\n",
                "array slices",
            ),
            (
                "class A { void m(int x) requires x == [1]; { } }\n",
                "sequence literals",
            ),
        ] {
            let (_, _, help) = error(src);
            let help = help.unwrap_or_default();
            assert!(help.starts_with(what), "{src}: {help}");
            assert!(help.contains("not supported yet"), "{src}: {help}");
        }
    }

    #[test]
    fn interfaces_and_subclasses_are_not_supported_yet() {
        for (src, at, what) in [
            ("interface I { void m(); }\n", "interface", "interfaces are"),
            (
                "class B { }\nclass C extends B { }\n",
                "extends",
                "subclasses",
            ),
            ("class C implements I { }\n", "implements", "subclasses"),
            (
                "class C { static void m(Object o) { bool b = o instanceof C; } }\n",
                "instanceof",
                "`instanceof` and casts",
            ),
        ] {
            let (pos, _, help) = error(src);
            assert_eq!(pos, src.find(at).unwrap(), "{src}");
            let help = help.unwrap_or_default();
            assert!(help.starts_with(what), "{src}: {help}");
            assert!(help.contains("not supported yet"), "{src}: {help}");
        }
    }

    #[test]
    fn double_equals_as_a_statement_and_equals_in_a_condition() {
        let src = "class A { static void m(int x) {\n x == 4;\n } }\n";
        let (at, _, help) = error(src);
        assert_eq!(at, src.find("==").unwrap());
        assert!(help.unwrap().starts_with("`==` compares two values"));
        let src = "class A { static void m(int x) {\n if (x = 4) { } } }\n";
        let (at, _, help) = error(src);
        assert_eq!(at, src.find(" = ").unwrap() + 1);
        assert!(help.unwrap().starts_with("`=` assigns"));
    }
}
