//! A linear pass over the source before pest sees it: it finds unterminated
//! block comments, programs without any token, and nesting too deep for the
//! recursive parts of the parser. It also answers lexical questions for error
//! messages (which token starts at an offset, where the previous one ends).

use crate::diag::{Diagnostic, Kind};
use crate::syntax::ast::Span;

/// Maximal nesting of brackets (`(`, `{`), `? :` and `opening`/`using` bodies.
pub const MAX_NESTING: usize = 200;

/// Maximal number of `else if` links around a statement (the links of its
/// own chain before it plus those of the chains it is nested in). A chain is
/// flat in the source and walked without recursion by the front end, but the
/// tree nests one `else` block per link and the verifier recurses through
/// them, on its 1 GiB stacks: measured, about 11 KB per link in a release
/// build and 50 KB in a debug build, so 10,000 links stay below half of it.
pub const MAX_ELSE_IF: usize = 10_000;

/// One open bracket (or `?`), with the `opening`/`using` bodies begun in it
/// and not yet ended by `,` or `;`.
struct Frame {
    bodies: usize,
}

/// Checks what pest cannot check cheaply; see the module comment.
pub fn prescan(src: &str) -> Result<(), Box<Diagnostic>> {
    let bytes = src.as_bytes();
    let mut frames: Vec<Frame> = vec![Frame { bodies: 0 }];
    // Number of frames (minus the outermost) plus all pending bodies.
    let mut depth = 0usize;
    let mut any_token = false;
    // A byte order mark is no token.
    let mut i = if src.starts_with('\u{feff}') { 3 } else { 0 };
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i = comment_end(src, i);
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                match src[i + 2..].find("*/") {
                    Some(k) => i = i + 2 + k + 2,
                    None => {
                        return Err(Box::new(
                            Diagnostic::new(Kind::Parse, i..i + 2, "unterminated block comment")
                                .with_label("this comment is never closed")
                                .with_help("close the comment with `*/`"),
                        ));
                    }
                }
                continue;
            }
            b' ' | b'\t' | b'\r' | b'\n' => {}
            b'(' | b'{' | b'[' | b'?' => {
                any_token = true;
                frames.push(Frame { bodies: 0 });
                depth += 1;
                if depth > MAX_NESTING {
                    return Err(too_deep(i..i + 1).into());
                }
            }
            b')' | b'}' | b']' | b':' => {
                any_token = true;
                if frames.len() > 1
                    && let Some(f) = frames.pop()
                {
                    depth -= 1 + f.bodies;
                }
            }
            b',' | b';' => {
                any_token = true;
                if let Some(f) = frames.last_mut() {
                    depth -= f.bodies;
                    f.bodies = 0;
                }
            }
            _ if is_ident_start(b) => {
                any_token = true;
                let start = i;
                while i < bytes.len() && is_ident_char(bytes[i]) {
                    i += 1;
                }
                let word = &src[start..i];
                if word == "opening" || word == "using" {
                    if let Some(f) = frames.last_mut() {
                        f.bodies += 1;
                    }
                    depth += 1;
                    if depth > MAX_NESTING {
                        return Err(too_deep(start..i).into());
                    }
                }
                continue;
            }
            _ => any_token = true,
        }
        i += 1;
    }
    if !any_token {
        return Err(Box::new(
            Diagnostic::new(
                Kind::Parse,
                0..0,
                "expected a class declaration, found end of file",
            )
            .with_label("this file declares no class")
            .with_help("a program is a sequence of class declarations, like `class C { }`"),
        ));
    }
    Ok(())
}

pub fn too_deep(span: Span) -> Diagnostic {
    Diagnostic::new(
        Kind::Parse,
        span,
        format!("nesting too deep: more than {MAX_NESTING} levels"),
    )
    .with_label("this goes too deep")
    .with_help("split the code into smaller methods or expressions")
}

pub fn chain_too_long(span: Span) -> Diagnostic {
    Diagnostic::new(
        Kind::Parse,
        span,
        format!("`else if` chain too long: more than {MAX_ELSE_IF} links"),
    )
    .with_label("one link too many")
    .with_help(
        "the links of the chains around this one count too; \
         move part of the chain into a method of its own",
    )
}

/// Where the line comment starting at `i` ends: after the `\n` or lone
/// `\r` that ends its line (a `\r\n` is left to the blanks that follow).
fn comment_end(src: &str, i: usize) -> usize {
    src[i..].find(['\n', '\r']).map_or(src.len(), |k| i + k + 1)
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_ident_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Reserved words (docs/language.md section 1).
pub const RESERVED: [&str; 41] = [
    "class",
    "static",
    "void",
    "int",
    "bool",
    "pure",
    "predicate",
    "requires",
    "ensures",
    "invariant",
    "return",
    "if",
    "else",
    "while",
    "new",
    "null",
    "this",
    "result",
    "true",
    "false",
    "acc",
    "old",
    "untouched",
    "opening",
    "using",
    "in",
    "open",
    "close",
    "use",
    "assert",
    "assume",
    "join",
    "for",
    "Object",
    "decreases",
    "forall",
    "exists",
    "seq",
    "break",
    "continue",
    "do",
];

const MULTI_CHAR_OPS: [&str; 17] = [
    "==>", "==", "!=", "<=", ">=", "&&", "||", "/*", "//", "*/", "++", "--", "+=", "-=", "*=",
    "/=", "%=",
];

/// The token starting at `pos`: its span and how to name it in a message
/// ("`;`", "keyword `class`", "end of file"). The end of the file is placed
/// right after the last character that is not blank.
pub fn token_at(src: &str, pos: usize) -> (Span, String) {
    let mut pos = pos.min(src.len());
    while !src.is_char_boundary(pos) {
        pos -= 1;
    }
    let rest = &src[pos..];
    let Some(c) = rest.chars().next() else {
        // Blamed where the text ends, not on the empty line after it: that
        // is where the reader looks (and where a test annotation can be).
        let end = src.trim_end().len();
        return (end..end, "end of file".to_string());
    };
    let bytes = rest.as_bytes();
    if is_ident_start(bytes[0]) || bytes[0].is_ascii_digit() {
        let len = bytes
            .iter()
            .position(|&b| !is_ident_char(b))
            .unwrap_or(bytes.len());
        let word = &rest[..len];
        let shown = shorten(word);
        let text = if RESERVED.contains(&word) {
            format!("keyword `{shown}`")
        } else {
            format!("`{shown}`")
        };
        return (pos..pos + len, text);
    }
    for op in MULTI_CHAR_OPS {
        if rest.starts_with(op) {
            return (pos..pos + op.len(), format!("`{op}`"));
        }
    }
    let len = c.len_utf8();
    let text = if c.is_control() || c.is_whitespace() {
        format!("{:?}", c)
    } else {
        format!("`{c}`")
    };
    (pos..pos + len, text)
}

fn shorten(word: &str) -> String {
    if word.len() > 40 {
        format!("{}...", &word[..37])
    } else {
        word.to_string()
    }
}

/// The end of the last token before `pos` (skipping whitespace and
/// comments), if any.
pub fn prev_token_end(src: &str, pos: usize) -> Option<usize> {
    let bytes = src.as_bytes();
    let pos = pos.min(bytes.len());
    let mut last = None;
    let mut i = 0;
    while i < pos {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i = comment_end(src, i);
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i = src[i + 2..].find("*/").map_or(bytes.len(), |k| i + k + 4);
            }
            b' ' | b'\t' | b'\r' | b'\n' => i += 1,
            _ => {
                i += src[i..].chars().next().map_or(1, char::len_utf8);
                last = Some(i);
            }
        }
    }
    last.map(|e| e.min(pos))
}
