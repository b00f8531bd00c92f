//! After the first syntax error, the errors of later members. pest stops at
//! the first error, so the member that failed is blanked out (its bytes
//! become spaces, line ends kept, so every offset stays where it was) and
//! the text is parsed again, member by member. Only errors after the
//! blanked text are kept: anything earlier would be an artefact of the
//! blanking.

use crate::diag::Diagnostic;
use crate::syntax::ast::Span;
use crate::syntax::habits::tokens_before;

/// At most this many syntax errors per file; each costs one more parse.
const MAX_ERRORS: usize = 10;

/// Words that start a clause belonging to the member before them.
const CLAUSES: [&str; 4] = ["requires", "ensures", "decreases", "invariant"];

/// `first` and the syntax errors of the members after the one it is in.
pub fn with_later_errors(
    source: &str,
    first: Diagnostic,
    parse: impl Fn(&str) -> Result<(), Box<Diagnostic>>,
) -> Vec<Diagnostic> {
    let mut text = source.to_string();
    let mut errors = vec![first];
    while errors.len() < MAX_ERRORS {
        let at = errors[errors.len() - 1].span.start;
        let Some(member) = failing_member(&text, at) else {
            break;
        };
        blank(&mut text, &member);
        match parse(&text) {
            Err(next) if next.span.start >= member.end => errors.push(*next),
            _ => break,
        }
    }
    errors
}

/// The extent of the class member around `pos`: from its first token
/// (clauses such as `requires ...;` belong to the member before them) to
/// the `;` or `}` that ends it. `None` outside a class body or when the
/// member has no end (an unclosed brace).
fn failing_member(src: &str, pos: usize) -> Option<Span> {
    let tokens = tokens_before(src, src.len());
    let text = |s: &Span| &src[s.clone()];
    // The depth before each token, and the member starts at depth 1.
    let mut depth = 0usize;
    let mut starts: Vec<usize> = Vec::new();
    let mut member_start = None;
    let mut index = None;
    for (k, tok) in tokens.iter().enumerate() {
        if index.is_none() && tok.start >= pos {
            index = Some(k);
        }
        match text(tok) {
            "{" => depth += 1,
            "}" => depth = depth.saturating_sub(1),
            _ => {}
        }
        let boundary = depth == 1 && matches!(text(tok), "{" | "}" | ";");
        if boundary && index.is_none() {
            member_start = Some(k + 1);
            starts.push(k + 1);
        }
    }
    let at = index?;
    let mut start = member_start?;
    // Step back over the clauses and body of the member the failure is in.
    let mut i = starts.len();
    while i > 0
        && start < tokens.len()
        && (text(&tokens[start]) == "{" || CLAUSES.contains(&text(&tokens[start])))
    {
        i -= 1;
        start = *starts.get(i.checked_sub(1)?)?;
    }
    // Forward from the failure to the end of the member: a `;` at depth 1,
    // or the `}` that closes a body back to depth 1.
    let mut depth = depth_before(&tokens, src, at);
    if depth == 0 {
        return None;
    }
    for (k, tok) in tokens.iter().enumerate().skip(at) {
        let continues = tokens
            .get(k + 1)
            .is_some_and(|next| text(next) == "{" || CLAUSES.contains(&text(next)));
        match text(tok) {
            "{" => depth += 1,
            // The class ends: the member is what comes before its `}`.
            "}" if depth == 1 => {
                return (k > start).then(|| tokens[start].start..tokens[k - 1].end);
            }
            "}" => {
                depth -= 1;
                if depth == 1 {
                    return Some(tokens[start].start..tok.end);
                }
            }
            // A clause's `;` is followed by another clause or the body.
            ";" if depth == 1 && !continues => return Some(tokens[start].start..tok.end),
            _ => {}
        }
    }
    None
}

/// The brace depth before token `k`.
fn depth_before(tokens: &[Span], src: &str, k: usize) -> usize {
    tokens[..k]
        .iter()
        .fold(0usize, |d, t| match &src[t.clone()] {
            "{" => d + 1,
            "}" => d.saturating_sub(1),
            _ => d,
        })
}

/// Replaces the text of `span` by spaces, keeping line ends and offsets.
fn blank(text: &mut String, span: &Span) {
    let blanked: String = text[span.clone()]
        .chars()
        .map(|c| match c {
            '\n' | '\r' => c.to_string(),
            _ => " ".repeat(c.len_utf8()),
        })
        .collect();
    text.replace_range(span.clone(), &blanked);
}

#[cfg(test)]
mod tests {
    use crate::syntax::parse_all;

    fn lines(src: &str) -> Vec<(usize, String)> {
        let errors = parse_all(src).expect_err("syntax errors");
        errors
            .iter()
            .map(|d| {
                (
                    crate::diag::line_col(src, d.span.start).0,
                    d.message.clone(),
                )
            })
            .collect()
    }

    #[test]
    fn later_members_report_their_errors_too() {
        let src = "class A {\n  int x;\n  void m() requires x > 0; ensures x > 0; {\n    x = ;\n  }\n  void n() { x = 1 }\n  int y\n  int w;\n}\nclass B { int z; void k() { z = = 2; } }\n";
        let got = lines(src);
        let at: Vec<usize> = got.iter().map(|(l, _)| *l).collect();
        assert_eq!(at, vec![4, 6, 8, 10], "{got:?}");
        // The first error is the one `parse` reports.
        let first = crate::syntax::parse(src).expect_err("an error");
        assert_eq!(parse_all(src).expect_err("errors")[0].span, first.span);
    }

    #[test]
    fn an_error_in_a_contract_clause_blanks_the_whole_member() {
        let src = "class A {\n  int x;\n  void m()\n    requires x > ;\n    ensures x > 0;\n  { x = 1; }\n  void n() { x = 1 }\n}\n";
        let at: Vec<usize> = lines(src).iter().map(|(l, _)| *l).collect();
        assert_eq!(at, vec![4, 7]);
    }

    #[test]
    fn no_guesses_after_an_unclosed_brace_or_outside_classes() {
        let src = "class A {\n  void m() {\n    int x = 1;\n  \n}\n";
        assert_eq!(lines(src).len(), 1);
        let src = "class A { }\nclas B { }\nclass C { int }\n";
        assert_eq!(lines(src).len(), 1);
    }

    #[test]
    fn blanking_keeps_offsets_with_non_ascii_text() {
        let src = "class A {\n  // é\n  void m() { é = 1; }\n  void n() { int x = 1 }\n}\n";
        let got = parse_all(src).expect_err("errors");
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!(&src[got[1].span.clone()], "}");
    }
}
