//! Diagnostics: every error Sift reports, from the parser to the verifier.

/// A byte range of the source: where a piece of syntax or an error is.
pub type Span = std::ops::Range<usize>;

/// The error kinds of docs/language.md section 8.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum Kind {
    Parse,
    Type,
    /// The verifier broke one of its own invariants (a bug in Sift, never
    /// in the program).
    Internal,
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
    IndexOutOfBounds,
    ArraySizeNegative,
    Overflow,
}

impl Kind {
    pub const ALL: [Kind; 18] = [
        Kind::Parse,
        Kind::Type,
        Kind::Internal,
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
        Kind::IndexOutOfBounds,
        Kind::ArraySizeNegative,
        Kind::Overflow,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Parse => "parse",
            Kind::Type => "type",
            Kind::Internal => "internal",
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
            Kind::IndexOutOfBounds => "index.out.of.bounds",
            Kind::ArraySizeNegative => "array.size.negative",
            Kind::Overflow => "overflow",
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
    /// The primary location (docs/language.md section 8).
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

/// 1-based line and column (in characters) of a byte offset. Lines end as
/// in Java (and LSP): at `\n`, `\r\n` or a lone `\r`. An offset inside a
/// `\r\n` pair belongs to the line that pair ends.
pub fn line_col(source: &str, offset: usize) -> (usize, usize) {
    let offset = floor_char_boundary(source, offset.min(source.len()));
    let bytes = source.as_bytes();
    let mut line = 1;
    let mut i = 0;
    while i < offset {
        match bytes[i] {
            b'\n' => line += 1,
            // The `\n` of a `\r\n` counts the line end.
            b'\r' if bytes.get(i + 1) != Some(&b'\n') => line += 1,
            _ => {}
        }
        i += 1;
    }
    let start = line_start(source, offset);
    let col = source[start..offset].chars().count() + 1;
    (line, col)
}

/// The offsets just after each line end of `bytes` (LF, CRLF or lone CR).
/// A `\r` at the very end counts as a line end by itself.
pub fn line_ends(bytes: &[u8]) -> Vec<usize> {
    let mut ends = Vec::new();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'\n' => ends.push(i + 1),
            b'\r' if bytes.get(i + 1) != Some(&b'\n') => ends.push(i + 1),
            _ => {}
        }
    }
    ends
}

/// The lines of `source` without their ends, split as [`line_col`] counts
/// them (unlike `str::lines`, a lone `\r` ends a line).
pub fn lines(source: &str) -> impl Iterator<Item = &str> {
    let mut rest = source;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let (line, next) = match rest.find(['\n', '\r']) {
            Some(i) if rest[i..].starts_with("\r\n") => (&rest[..i], &rest[i + 2..]),
            Some(i) => (&rest[..i], &rest[i + 1..]),
            None => (rest, ""),
        };
        rest = next;
        Some(line)
    })
}

/// The byte offset where the line holding `offset` starts.
pub fn line_start(source: &str, offset: usize) -> usize {
    let offset = floor_char_boundary(source, offset.min(source.len()));
    let bytes = source.as_bytes();
    let mut i = offset;
    while i > 0 {
        let b = bytes[i - 1];
        // A `\r` right before a `\n` at `i` is part of this line's end.
        if b == b'\n' || (b == b'\r' && bytes.get(i) != Some(&b'\n')) {
            break;
        }
        i -= 1;
    }
    i
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
            .chain(line_ends(source.as_bytes()))
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

    #[test]
    fn lines_end_at_lf_crlf_and_lone_cr() {
        let src = "a\rbc\r\nd\ne\r";
        assert_eq!(line_col(src, 0), (1, 1));
        assert_eq!(line_col(src, 1), (1, 2), "the lone \\r itself");
        assert_eq!(line_col(src, 2), (2, 1));
        assert_eq!(line_col(src, 4), (2, 3), "the \\r of \\r\\n");
        assert_eq!(line_col(src, 5), (2, 4), "between \\r and \\n");
        assert_eq!(line_col(src, 6), (3, 1));
        assert_eq!(line_col(src, 8), (4, 1));
        assert_eq!(line_col(src, src.len()), (5, 1), "after a final lone \\r");
        assert_eq!(lines(src).collect::<Vec<_>>(), ["a", "bc", "d", "e"]);
        assert_eq!(lines("x\n\ny").collect::<Vec<_>>(), ["x", "", "y"]);
        assert_eq!(line_start(src, 3), 2);
        assert_eq!(line_start(src, 5), 2);
        assert_eq!(line_start(src, 6), 6);
        assert_eq!(line_start(src, 1), 0);
        assert_eq!(line_ends(b"a\r\rb\r\n"), [2, 3, 6]);
        // Other Unicode line breaks are not line ends, as in Java.
        assert_eq!(line_col("a\u{2028}b\u{85}\x0bc", 9), (1, 7));
    }
}
