//! Open documents: their text, incremental edits in LSP positions (UTF-16
//! columns), and conversions between byte offsets and positions.

use lsp_types::{Position, Range, TextDocumentContentChangeEvent};

/// Where each line starts. LSP ends lines at `\n`, `\r\n` or `\r`.
#[derive(Clone, Debug, Default)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'\n' => starts.push(i + 1),
                b'\r' if bytes.get(i + 1) != Some(&b'\n') => starts.push(i + 1),
                _ => {}
            }
            i += 1;
        }
        LineIndex { starts }
    }

    /// The byte range of line `line` without its terminator.
    fn line_bounds(&self, text: &str, line: usize) -> (usize, usize) {
        let start = self.starts[line];
        let mut end = self.starts.get(line + 1).copied().unwrap_or(text.len());
        let bytes = text.as_bytes();
        if end > start && bytes[end - 1] == b'\n' {
            end -= 1;
        }
        if end > start && bytes[end - 1] == b'\r' {
            end -= 1;
        }
        (start, end)
    }

    /// The byte offset of an LSP position; positions past the end of a line
    /// mean its end, lines past the end of the text mean the end of the text,
    /// and a column inside a surrogate pair means the character's start.
    pub fn offset(&self, text: &str, pos: Position) -> usize {
        let line = pos.line as usize;
        if line >= self.starts.len() {
            return text.len();
        }
        let (start, end) = self.line_bounds(text, line);
        let mut units = 0usize;
        let want = pos.character as usize;
        for (i, c) in text[start..end].char_indices() {
            let next = units + c.len_utf16();
            if next > want {
                return start + i;
            }
            units = next;
        }
        end
    }

    /// The LSP position of a byte offset (clamped to the text; an offset
    /// inside a character or line terminator means its start).
    pub fn position(&self, text: &str, offset: usize) -> Position {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = match self.starts.binary_search(&offset) {
            Ok(l) => l,
            Err(l) => l - 1,
        };
        let (start, end) = self.line_bounds(text, line);
        let upto = offset.min(end);
        let character: usize = text[start..upto].chars().map(char::len_utf16).sum();
        Position {
            line: line as u32,
            character: character as u32,
        }
    }

    pub fn range(&self, text: &str, span: &std::ops::Range<usize>) -> Range {
        Range {
            start: self.position(text, span.start),
            end: self.position(text, span.end.max(span.start)),
        }
    }
}

/// One open text document.
#[derive(Debug, Default)]
pub struct Document {
    pub text: String,
    pub lines: LineIndex,
    /// The client's version number.
    pub version: i32,
    /// Ours: incremented on every change, so that code lenses computed for
    /// an older text can be marked outdated.
    pub generation: u64,
}

impl Document {
    pub fn new(text: String, version: i32) -> Document {
        let lines = LineIndex::new(&text);
        Document {
            text,
            lines,
            version,
            generation: 0,
        }
    }

    /// Applies the changes of one `didChange`, in order. Returns the edits
    /// (old range, new end) for moving ranges computed on the old text.
    pub fn apply(
        &mut self,
        version: i32,
        changes: Vec<TextDocumentContentChangeEvent>,
    ) -> Vec<Edit> {
        let mut edits = Vec::new();
        for change in changes {
            match change.range {
                Some(range) => {
                    let (range, start, end) = self.clamp(range);
                    self.text.replace_range(start..end, &change.text);
                    self.lines = LineIndex::new(&self.text);
                    let new_end = self.lines.position(&self.text, start + change.text.len());
                    edits.push(Edit::Range {
                        old: range,
                        new_end,
                    });
                }
                None => {
                    self.text = change.text;
                    self.lines = LineIndex::new(&self.text);
                    edits.push(Edit::Whole);
                }
            }
        }
        self.version = version;
        self.generation += 1;
        edits
    }

    /// A client range as byte offsets (ordered, on character boundaries),
    /// with the range it really denotes.
    fn clamp(&self, range: Range) -> (Range, usize, usize) {
        let a = self.lines.offset(&self.text, range.start);
        let b = self.lines.offset(&self.text, range.end);
        let (start, end) = if a <= b { (a, b) } else { (b, a) };
        let range = Range {
            start: self.lines.position(&self.text, start),
            end: self.lines.position(&self.text, end),
        };
        (range, start, end)
    }

    pub fn offset(&self, pos: Position) -> usize {
        self.lines.offset(&self.text, pos)
    }

    pub fn range(&self, span: &std::ops::Range<usize>) -> Range {
        self.lines.range(&self.text, span)
    }
}

/// A change to a document, for moving ranges computed on the old text.
#[derive(Clone, Debug)]
pub enum Edit {
    /// `old` (in the text before) was replaced by text ending at `new_end`.
    Range { old: Range, new_end: Position },
    /// The whole text was replaced.
    Whole,
}

/// Moves `r` through `edit`; `None` if the edit touched it.
pub fn shift(r: Range, edit: &Edit) -> Option<Range> {
    match edit {
        Edit::Whole => None,
        Edit::Range { old, new_end } => {
            if r.end < old.start || (r.end == old.start && r.start < r.end) {
                Some(r)
            } else if r.start >= old.end {
                let move_pos = |p: Position| {
                    if p.line == old.end.line {
                        Position {
                            line: new_end.line,
                            character: new_end.character + (p.character - old.end.character),
                        }
                    } else {
                        Position {
                            line: p.line + new_end.line - old.end.line,
                            character: p.character,
                        }
                    }
                };
                // `p.line >= old.end.line` here, and the line count of the
                // text cannot shrink below `new_end.line`.
                Some(Range {
                    start: move_pos(r.start),
                    end: move_pos(r.end),
                })
            } else {
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(line: u32, character: u32) -> Position {
        Position { line, character }
    }

    fn change(a: (u32, u32), b: (u32, u32), text: &str) -> TextDocumentContentChangeEvent {
        TextDocumentContentChangeEvent {
            range: Some(Range {
                start: pos(a.0, a.1),
                end: pos(b.0, b.1),
            }),
            range_length: None,
            text: text.to_string(),
        }
    }

    #[test]
    fn utf16_columns() {
        // `é` is one UTF-16 unit (two bytes), `𝄞` two units (four bytes).
        let text = "aé𝄞b\r\nxy\rz\n";
        let li = LineIndex::new(text);
        assert_eq!(li.offset(text, pos(0, 0)), 0);
        assert_eq!(li.offset(text, pos(0, 2)), 3);
        assert_eq!(li.offset(text, pos(0, 4)), 7);
        assert_eq!(li.offset(text, pos(0, 3)), 3, "inside a surrogate pair");
        assert_eq!(li.offset(text, pos(0, 99)), 8, "past the end of the line");
        assert_eq!(li.offset(text, pos(1, 1)), 11);
        assert_eq!(li.offset(text, pos(2, 0)), 13, "a lone \\r ends a line");
        assert_eq!(li.offset(text, pos(9, 0)), text.len());
        assert_eq!(li.position(text, 7), pos(0, 4));
        assert_eq!(li.position(text, 8), pos(0, 5));
        assert_eq!(li.position(text, 9), pos(0, 5), "inside \\r\\n");
        assert_eq!(li.position(text, 2), pos(0, 1), "inside `é`");
        assert_eq!(li.position(text, text.len()), pos(3, 0));
    }

    #[test]
    fn incremental_edits() {
        let mut d = Document::new("héllo\nwörld\n".to_string(), 1);
        d.apply(
            2,
            vec![change((0, 1), (0, 2), "e"), change((1, 5), (1, 5), "!")],
        );
        assert_eq!(d.text, "hello\nwörld!\n");
        d.apply(3, vec![change((0, 5), (1, 0), " ")]);
        assert_eq!(d.text, "hello wörld!\n");
        d.apply(4, vec![change((0, 0), (0, 0), "𝄞\n")]);
        assert_eq!(d.text, "𝄞\nhello wörld!\n");
        d.apply(5, vec![change((0, 2), (0, 2), "x")]);
        assert_eq!(d.text, "𝄞x\nhello wörld!\n");
        d.apply(
            6,
            vec![TextDocumentContentChangeEvent {
                range: None,
                range_length: None,
                text: "new".to_string(),
            }],
        );
        assert_eq!(d.text, "new");
        assert_eq!(d.generation, 5);
    }

    #[test]
    fn ranges_move_with_edits() {
        let r = Range {
            start: pos(3, 4),
            end: pos(3, 8),
        };
        let insert_line = Edit::Range {
            old: Range {
                start: pos(1, 0),
                end: pos(1, 0),
            },
            new_end: pos(2, 0),
        };
        assert_eq!(shift(r, &insert_line).map(|r| r.start), Some(pos(4, 4)));
        let same_line = Edit::Range {
            old: Range {
                start: pos(3, 0),
                end: pos(3, 2),
            },
            new_end: pos(3, 5),
        };
        assert_eq!(
            shift(r, &same_line).map(|r| (r.start, r.end)),
            Some((pos(3, 7), pos(3, 11)))
        );
        let inside = Edit::Range {
            old: Range {
                start: pos(3, 5),
                end: pos(3, 6),
            },
            new_end: pos(3, 5),
        };
        assert!(shift(r, &inside).is_none());
        let after = Edit::Range {
            old: Range {
                start: pos(5, 0),
                end: pos(6, 0),
            },
            new_end: pos(5, 0),
        };
        assert_eq!(shift(r, &after), Some(r));
    }
}
