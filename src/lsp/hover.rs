//! Hovers: the symbolic states the last verification recorded at a place,
//! and the declaration of the name under the cursor.

use super::definition::Symbol;
use crate::syntax::ast::Span;
use crate::verify::{FileReport, TraceStep, TreeNode};

/// Paths shown at one place; the rest are counted.
const MAX_PATHS: usize = 4;
/// Lines shown of one part of a state (heap, store, path condition).
const MAX_LINES: usize = 24;

/// What a hover shows, and the part of the source it is about.
pub struct HoverText {
    pub markdown: String,
    pub span: Span,
}

/// The declaration of a symbol, as a code block and a line saying what it is.
pub fn declaration(text: &str, s: &Symbol) -> String {
    let decl = text.get(s.decl.clone()).unwrap_or("");
    let decl = decl.split('{').next().unwrap_or(decl);
    let decl: Vec<&str> = crate::diag::lines(decl)
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .collect();
    let decl = dedent(&decl);
    let what = if s.class.is_empty() {
        s.kind.describe().to_string()
    } else {
        format!("{} of class `{}`", s.kind.describe(), s.class)
    };
    format!("```sift\n{decl}\n```\n*{what}*")
}

fn dedent(lines: &[&str]) -> String {
    let indent = lines
        .iter()
        .skip(1)
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if i == 0 {
            out.push(l.trim_start().to_string());
        } else {
            let cut = indent.min(l.len() - l.trim_start().len());
            out.push(format!("  {}", l.get(cut..).unwrap_or(l.trim_start())));
        }
    }
    out.join("\n")
}

/// The identifier around `offset` (the cursor may be just after it).
pub fn word_at(text: &str, offset: usize) -> Option<Span> {
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let bytes = text.as_bytes();
    let offset = offset.min(bytes.len());
    let mut start = offset;
    while start > 0 && is_word(bytes[start - 1]) {
        start -= 1;
    }
    let mut end = offset;
    while end < bytes.len() && is_word(bytes[end]) {
        end += 1;
    }
    (start < end).then_some(start..end)
}

/// The tree nodes recorded at the innermost place around `offset` in the
/// member containing it, with that place.
fn nodes_at(report: &FileReport, offset: usize) -> Option<(Span, &[TreeNode], Vec<usize>)> {
    let member = report
        .members
        .iter()
        .find(|m| m.span.start <= offset && offset < m.span.end)?;
    let tree = &member.tree;
    let around = |strict: bool| {
        tree.iter()
            .enumerate()
            .filter(|(_, n)| {
                let s = &n.step.span;
                // Steps of the whole member (entry, precondition) are not
                // about the place under the cursor.
                *s != member.span
                    && s.start <= offset
                    && (offset < s.end || (!strict && offset == s.end))
            })
            .map(|(i, n)| (i, n.step.span.clone()))
            .collect::<Vec<_>>()
    };
    let mut found = around(true);
    if found.is_empty() {
        found = around(false);
    }
    let best = found
        .iter()
        .map(|(_, s)| s.clone())
        .min_by_key(|s| (s.end - s.start, usize::MAX - s.start))?;
    let nodes = found
        .into_iter()
        .filter(|(_, s)| *s == best)
        .map(|(i, _)| i)
        .collect();
    Some((best, tree, nodes))
}

/// The symbolic states at `offset`: before and after each path's step
/// there, or the failing state.
pub fn states(report: &FileReport, offset: usize) -> Option<HoverText> {
    let (span, tree, nodes) = nodes_at(report, offset)?;
    let total = nodes.len();
    let mut md = String::new();
    for (k, &i) in nodes.iter().take(MAX_PATHS).enumerate() {
        let node = &tree[i];
        let failing = node.step.kind.is_failure();
        let what = one_line(&node.step.kind.to_string());
        if total > 1 {
            md.push_str(&format!("**Path {} of {total}** · `{what}`\n\n", k + 1));
        } else {
            md.push_str(&format!("**Symbolic state** · `{what}`\n\n"));
        }
        let before = node.parent.map(|p| &tree[p].step);
        match before {
            Some(b) if same_state(b, &node.step) => {
                let label = if failing {
                    "Failing state"
                } else {
                    "State (unchanged)"
                };
                section(&mut md, label, &node.step, None);
            }
            Some(b) => {
                section(&mut md, "Before", b, None);
                let label = if failing { "Failing state" } else { "After" };
                section(&mut md, label, &node.step, Some(b));
            }
            None => section(
                &mut md,
                if failing { "Failing state" } else { "State" },
                &node.step,
                None,
            ),
        }
    }
    if total > MAX_PATHS {
        md.push_str(&format!(
            "*… and {} more paths reach this place.*\n\n",
            total - MAX_PATHS
        ));
    }
    for e in report
        .errors
        .iter()
        .filter(|e| e.diag.span == span && !e.counterexample.is_empty())
    {
        let values: Vec<String> = e
            .counterexample
            .iter()
            .map(|(k, v)| format!("{k} = {v}"))
            .collect();
        md.push_str(&format!(
            "**Counterexample** ({}):\n```text\n{}\n```\n",
            e.diag.kind,
            values.join("\n")
        ));
    }
    Some(HoverText {
        markdown: md.trim_end().to_string(),
        span,
    })
}

fn one_line(s: &str) -> String {
    let s: Vec<&str> = s.split_whitespace().collect();
    let s = s.join(" ").replace('`', "'");
    if s.chars().count() > 80 {
        let cut: String = s.chars().take(77).collect();
        format!("{cut}...")
    } else {
        s
    }
}

fn same_state(a: &TraceStep, b: &TraceStep) -> bool {
    a.heap == b.heap && a.store == b.store && a.pc == b.pc
}

/// One state; with `before`, the parts equal to it are abbreviated and the
/// facts added to its path condition are marked `+`.
fn section(md: &mut String, label: &str, step: &TraceStep, before: Option<&TraceStep>) {
    md.push_str(&format!("*{label}*\n```text\n"));
    let store = |s: &TraceStep| -> Vec<String> {
        s.store.iter().map(|(k, v)| format!("{k} ↦ {v}")).collect()
    };
    let old_heap = before.map(TraceStep::heap_texts);
    part(md, "heap ", &step.heap_texts(), old_heap.as_deref());
    let old_store = before.map(store);
    part(md, "store", &store(step), old_store.as_deref());
    part(md, "pc   ", &step.pc, before.map(|b| b.pc.as_slice()));
    md.push_str("```\n\n");
}

fn part(md: &mut String, name: &str, items: &[String], before: Option<&[String]>) {
    if let Some(b) = before {
        if b == items {
            md.push_str(&format!("{name}  (unchanged)\n"));
            return;
        }
        if !b.is_empty() && items.starts_with(b) {
            md.push_str(&format!("{name}  (as before, and)\n"));
            let added: Vec<String> = items[b.len()..].iter().map(|i| format!("+ {i}")).collect();
            return lines(md, "     ", &added);
        }
    }
    if items.is_empty() {
        md.push_str(&format!("{name}  (empty)\n"));
        return;
    }
    lines(md, name, items);
}

fn lines(md: &mut String, name: &str, items: &[String]) {
    for (i, item) in items.iter().take(MAX_LINES).enumerate() {
        let head = if i == 0 { name } else { "     " };
        md.push_str(&format!("{head}  {}\n", item.replace("```", "'''")));
    }
    if items.len() > MAX_LINES {
        md.push_str(&format!("       … {} more\n", items.len() - MAX_LINES));
    }
}
