//! Diagnostics as rustc-like text: the source line, a label on the exact
//! span, secondary labels, notes and help.

use ariadne::{Color, Config, IndexType, Label, Report, ReportKind, Source};

use super::explain;
use crate::verify::{ErrorReport, FileReport};

/// Renders one error. `color` is for terminals; tests use plain text.
pub fn render_error(path: &str, source: &str, e: &ErrorReport, color: bool) -> String {
    let d = &e.diag;
    let span = clamp(source, &d.span);
    let mut report = Report::build(ReportKind::Error, (path, span.clone()))
        .with_config(
            Config::default()
                .with_index_type(IndexType::Byte)
                .with_color(color),
        )
        .with_code(d.kind.as_str())
        .with_message(&d.message);
    let label = if d.label.is_empty() {
        d.message.clone()
    } else {
        d.label.clone()
    };
    report = report.with_label(
        Label::new((path, span))
            .with_message(label)
            .with_color(Color::Red),
    );
    for r in &d.related {
        report = report.with_label(
            Label::new((path, clamp(source, &r.span)))
                .with_message(&r.message)
                .with_color(Color::Blue),
        );
    }
    for n in &d.notes {
        report = report.with_note(n);
    }
    if let Some(h) = &d.help {
        report = report.with_help(h);
    }
    if !e.member.is_empty() {
        report = report.with_note(format!("in `{}`", e.member));
    }
    if let Some(r) = &e.replay {
        report = report.with_note(r.text());
    }
    let why = explain::explain(e, source);
    if !why.is_empty() {
        report = report.with_note(format!("why:\n{}", why.join("\n")));
    }
    let mut out = Vec::new();
    let src = Source::from(java_lines(source));
    if report.finish().write((path, &src), &mut out).is_err() {
        return format!("error[{}]: {}\n", d.kind, d.message);
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `source` with the characters that ariadne takes for line ends but Java
/// does not (vertical tab, form feed, U+0085, U+2028, U+2029; only legal in
/// comments) replaced by blanks of the same length in bytes and characters,
/// so that its line numbers are those of `diag::line_col`.
fn java_lines(source: &str) -> String {
    source
        .chars()
        .map(|c| match c {
            '\x0B' | '\x0C' => ' ',
            '\u{85}' => '\u{A0}',
            '\u{2028}' | '\u{2029}' => '\u{2007}',
            c => c,
        })
        .collect()
}

/// A span that ariadne can show: inside the text, at least one byte when
/// the text allows.
fn clamp(source: &str, span: &std::ops::Range<usize>) -> std::ops::Range<usize> {
    let len = source.len();
    let start = span.start.min(len);
    let end = span.end.clamp(start, len);
    start..end
}

/// The whole report for one file: every error, then a summary line.
pub fn render_file(report: &FileReport, color: bool) -> String {
    let mut out = String::new();
    for e in &report.errors {
        out.push_str(&render_error(&report.path, &report.source, e, color));
    }
    out
}

/// The trace of an error, step by step (for `--trace`): after each step,
/// its heap, store and path condition, each followed by what changed since
/// the step before: chunks added (`+`) and removed (`−`), variables given a
/// value (`+`), changed (`~`) or dropped (`−`), and new (`+`) or dropped
/// (`−`) path-condition facts.
pub fn render_trace(report: &FileReport, e: &ErrorReport) -> String {
    let mut out = format!("trace of {} in `{}`:\n", e.diag.kind, e.member);
    let pad = "              ";
    let lines = crate::diag::LineIndex::new(&report.source);
    for (i, step) in e.trace.iter().enumerate() {
        let (line, _) = lines.line_col(step.span.start);
        let diff = if i == 0 {
            None
        } else {
            Some(explain::diff_steps(&e.trace[i - 1], step))
        };
        out.push_str(&format!("  {:>3}. line {line}: {}\n", i + 1, step.kind));
        if step.elided {
            out.push_str("       (state not shown: the trace is long; the last steps show it)\n");
            continue;
        }
        out.push_str(&format!(
            "       heap:  {{{}}}\n",
            step.heap_texts().join(", ")
        ));
        if let Some(d) = &diff {
            for c in &d.heap_removed {
                out.push_str(&format!("{pad}− {c}\n"));
            }
            for c in &d.heap_added {
                out.push_str(&format!("{pad}+ {c}\n"));
            }
        }
        let store: Vec<String> = step
            .store
            .iter()
            .map(|(k, v)| format!("{k} ↦ {v}"))
            .collect();
        out.push_str(&format!("       store: [{}]\n", store.join(", ")));
        if let Some(d) = &diff {
            for (k, old, new) in &d.store {
                let line = match (old, new) {
                    (None, Some(v)) => format!("+ {k} ↦ {v}"),
                    (Some(o), Some(v)) => format!("~ {k} ↦ {v} (was {o})"),
                    (Some(_), None) | (None, None) => format!("− {k}"),
                };
                out.push_str(&format!("{pad}{line}\n"));
            }
        }
        out.push_str(&format!("       pc:    {{{}}}\n", step.pc.join(", ")));
        if let Some(d) = &diff {
            for f in &d.pc_removed {
                out.push_str(&format!("{pad}− {f}\n"));
            }
            for f in &d.pc_added {
                out.push_str(&format!("{pad}+ {f}\n"));
            }
        }
    }
    out
}
