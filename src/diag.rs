//! Diagnostics: every error Sift reports, from the parser to the verifier.

use crate::syntax::ast::Span;

/// The error kinds of LANGUAGE.md section 6.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    Parse,
    Type,
    AssertFailed,
    PreconditionFailed,
    PostconditionFailed,
    PermissionMissing,
    ReceiverNull,
    OpenFailed,
    CloseFailed,
    InvariantNotEstablished,
    InvariantNotPreserved,
    JoinFailed,
    DivisionByZero,
    Termination,
}

impl Kind {
    pub const ALL: [Kind; 14] = [
        Kind::Parse,
        Kind::Type,
        Kind::AssertFailed,
        Kind::PreconditionFailed,
        Kind::PostconditionFailed,
        Kind::PermissionMissing,
        Kind::ReceiverNull,
        Kind::OpenFailed,
        Kind::CloseFailed,
        Kind::InvariantNotEstablished,
        Kind::InvariantNotPreserved,
        Kind::JoinFailed,
        Kind::DivisionByZero,
        Kind::Termination,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Parse => "parse",
            Kind::Type => "type",
            Kind::AssertFailed => "assert.failed",
            Kind::PreconditionFailed => "precondition.failed",
            Kind::PostconditionFailed => "postcondition.failed",
            Kind::PermissionMissing => "permission.missing",
            Kind::ReceiverNull => "receiver.null",
            Kind::OpenFailed => "open.failed",
            Kind::CloseFailed => "close.failed",
            Kind::InvariantNotEstablished => "invariant.not.established",
            Kind::InvariantNotPreserved => "invariant.not.preserved",
            Kind::JoinFailed => "join.failed",
            Kind::DivisionByZero => "division.by.zero",
            Kind::Termination => "termination",
        }
    }

    pub fn parse(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A secondary place worth showing next to the primary one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    pub span: Span,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub kind: Kind,
    /// The primary location (LANGUAGE.md section 6).
    pub span: Span,
    /// One short sentence, lower case, no final period (rustc style).
    pub message: String,
    /// Text of the label on the primary span.
    pub label: String,
    pub related: Vec<Label>,
    /// A suggestion where a fix is obvious.
    pub help: Option<String>,
    /// Extra explanation lines (why it failed).
    pub notes: Vec<String>,
}

impl Diagnostic {
    pub fn new(kind: Kind, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            kind,
            span,
            message: message.into(),
            label: String::new(),
            related: Vec::new(),
            help: None,
            notes: Vec::new(),
        }
    }

    pub fn with_label(mut self, label: impl Into<String>) -> Diagnostic {
        self.label = label.into();
        self
    }

    pub fn with_related(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.related.push(Label {
            span,
            message: message.into(),
        });
        self
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }
}

/// 1-based line and column (in characters) of a byte offset.
pub fn line_col(source: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(source.len());
    let before = &source[..floor_char_boundary(source, offset)];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = before[line_start..].chars().count() + 1;
    (line, col)
}

/// Where each line starts, for many `line_col` look-ups in one source
/// (a trace has a step per statement: scanning the source for each would be
/// quadratic).
pub struct LineIndex<'a> {
    source: &'a str,
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    pub fn new(source: &'a str) -> LineIndex<'a> {
        let starts = std::iter::once(0)
            .chain(source.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        LineIndex { source, starts }
    }

    /// The same as `line_col(source, offset)`.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = floor_char_boundary(self.source, offset.min(self.source.len()));
        let line = self.starts.partition_point(|&s| s <= offset);
        let start = self.starts[line - 1];
        (line, self.source[start..offset].chars().count() + 1)
    }
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_round_trip() {
        for k in Kind::ALL {
            assert_eq!(Kind::parse(k.as_str()), Some(k));
        }
        assert_eq!(Kind::parse("nope"), None);
    }

    #[test]
    fn line_and_column_are_one_based() {
        let src = "ab\ncdé\nf";
        assert_eq!(line_col(src, 0), (1, 1));
        assert_eq!(line_col(src, 3), (2, 1));
        assert_eq!(line_col(src, 7), (2, 4));
        assert_eq!(line_col(src, 8), (3, 1));
        assert_eq!(line_col(src, 100), (3, 2));
        for text in [src, "", "\n\n", "é\nxé\n", "no newline"] {
            let index = LineIndex::new(text);
            for at in 0..=text.len() + 2 {
                assert_eq!(index.line_col(at), line_col(text, at), "{text:?} at {at}");
            }
        }
    }
}
