//! Sift's diagnostics and member results in LSP terms.

use lsp_types::{
    CodeLens, Command, Diagnostic as LspDiagnostic, DiagnosticRelatedInformation,
    DiagnosticSeverity, Location, NumberOrString, Range, Uri,
};

use super::documents::{Edit, LineIndex, shift};
use crate::diag::Diagnostic;
use crate::report::explain;
use crate::verify::{ErrorReport, MemberReport};

/// The LSP range of a primary span: an empty span is widened to the
/// character after it (on the same line), so that editors can show it.
fn primary_range(text: &str, lines: &LineIndex, span: &std::ops::Range<usize>) -> Range {
    let mut span = span.clone();
    if span.start >= span.end {
        let start = span.start.min(text.len());
        let next = text.get(start..).and_then(|t| t.chars().next());
        span = match next {
            Some(c) if c != '\n' && c != '\r' => start..start + c.len_utf8(),
            _ => start..start,
        };
    }
    lines.range(text, &span)
}

/// One Sift diagnostic as an LSP diagnostic: `code` is the error kind;
/// notes, the explanation of the failure (the path's branches, what the
/// heap held, a counterexample: what the command line prints under `why`)
/// and help follow the message on lines of their own.
pub fn to_lsp(
    uri: &Uri,
    text: &str,
    lines: &LineIndex,
    d: &Diagnostic,
    why: &[String],
) -> LspDiagnostic {
    let mut message = d.message.clone();
    let repeated = d.message.contains(&d.label) || d.notes.iter().any(|n| n.contains(&d.label));
    if !d.label.is_empty() && !repeated {
        message.push_str(&format!(" ({})", d.label));
    }
    for note in &d.notes {
        message.push_str("\nnote: ");
        message.push_str(note);
    }
    for line in why {
        message.push('\n');
        message.push_str(line);
    }
    if let Some(help) = &d.help {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }
    let related: Vec<DiagnosticRelatedInformation> = d
        .related
        .iter()
        .map(|l| DiagnosticRelatedInformation {
            location: Location {
                uri: uri.clone(),
                range: lines.range(text, &l.span),
            },
            message: if l.message.is_empty() {
                "related location".to_string()
            } else {
                l.message.clone()
            },
        })
        .collect();
    LspDiagnostic {
        range: primary_range(text, lines, &d.span),
        severity: Some(DiagnosticSeverity::ERROR),
        code: Some(NumberOrString::String(d.kind.as_str().to_string())),
        code_description: None,
        source: Some("sift".to_string()),
        message,
        related_information: if related.is_empty() {
            None
        } else {
            Some(related)
        },
        tags: None,
        data: None,
    }
}

pub fn errors_to_lsp(
    uri: &Uri,
    text: &str,
    lines: &LineIndex,
    errors: &[ErrorReport],
) -> Vec<LspDiagnostic> {
    errors
        .iter()
        .map(|e| to_lsp(uri, text, lines, &e.diag, &explain::explain(e, text)))
        .collect()
}

/// The result of one member, shown as a code lens on its first line.
#[derive(Clone, Debug)]
pub struct Lens {
    pub range: Range,
    pub title: String,
}

pub fn lens_title(m: &MemberReport) -> String {
    let ms = m.millis.round() as u64;
    if m.verified() {
        format!("✓ verified in {ms} ms")
    } else {
        let n = m.errors.len();
        format!("✗ {n} error{} ({ms} ms)", if n == 1 { "" } else { "s" })
    }
}

pub fn lenses(text: &str, lines: &LineIndex, members: &[MemberReport]) -> Vec<Lens> {
    members
        .iter()
        .filter(|m| !m.name.is_empty())
        .map(|m| {
            let start = lines.position(text, m.span.start);
            Lens {
                range: Range { start, end: start },
                title: lens_title(m),
            }
        })
        .collect()
}

pub fn lens_to_lsp(l: &Lens) -> CodeLens {
    CodeLens {
        range: l.range,
        // An empty command: a label that does nothing when clicked.
        command: Some(Command {
            title: l.title.clone(),
            command: String::new(),
            arguments: None,
        }),
        data: None,
    }
}

/// Moves diagnostics through edits, dropping those an edit touched.
pub fn shift_diagnostics(diags: Vec<LspDiagnostic>, edits: &[Edit]) -> Vec<LspDiagnostic> {
    diags
        .into_iter()
        .filter_map(|mut d| {
            for e in edits {
                d.range = shift(d.range, e)?;
                if let Some(rel) = d.related_information.as_mut() {
                    rel.retain_mut(|r| match shift(r.location.range, e) {
                        Some(moved) => {
                            r.location.range = moved;
                            true
                        }
                        None => false,
                    });
                }
            }
            Some(d)
        })
        .collect()
}

/// Moves code lenses through edits, dropping those an edit touched.
pub fn shift_lenses(lenses: Vec<Lens>, edits: &[Edit]) -> Vec<Lens> {
    lenses
        .into_iter()
        .filter_map(|mut l| {
            for e in edits {
                l.range = shift(l.range, e)?;
            }
            Some(l)
        })
        .collect()
}
