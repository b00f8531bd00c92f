//! The `--json` document of docs/language.md section 10.

use serde_json::{Value, json};

use crate::diag::LineIndex;
use crate::verify::{ErrorReport, FileReport, Stage};

fn error_json(report: &FileReport, lines: &LineIndex, e: &ErrorReport) -> Value {
    let (line, column) = lines.line_col(e.diag.span.start);
    let (end_line, end_column) = lines.line_col(e.diag.span.end);
    let related: Vec<Value> = e
        .diag
        .related
        .iter()
        .map(|r| {
            let (l, c) = lines.line_col(r.span.start);
            json!({"line": l, "column": c, "message": r.message})
        })
        .collect();
    let trace: Vec<Value> = e
        .trace
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let (l, c) = lines.line_col(s.span.start);
            let store: serde_json::Map<String, Value> = s
                .store
                .iter()
                .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                .collect();
            // What this step changed, relative to the one before it.
            let (added, removed) = match i.checked_sub(1).and_then(|p| e.trace.get(p)) {
                Some(prev) => {
                    let d = crate::report::explain::diff_steps(prev, s);
                    (d.heap_added, d.heap_removed)
                }
                None => (s.heap_texts(), Vec::new()),
            };
            let mut step = json!({"line": l, "column": c, "description": s.kind.to_string(), "heap": s.heap_texts(), "store": store,
                   "path_condition": s.pc, "added": added, "removed": removed});
            if s.elided {
                step["state_omitted"] = Value::Bool(true);
            }
            step
        })
        .collect();
    let counterexample: serde_json::Map<String, Value> = e
        .counterexample
        .iter()
        .map(|(k, v)| (k.clone(), Value::String(v.clone())))
        .collect();
    json!({
        "kind": e.diag.kind.as_str(),
        "message": e.diag.message,
        "line": line,
        "column": column,
        "end_line": end_line,
        "end_column": end_column,
        "method": e.member,
        "notes": e.diag.notes,
        "help": e.diag.help,
        "related": related,
        "trace": trace,
        "explanation": super::explain::explain(e, &report.source),
        "counterexample": counterexample,
        "replay": e.replay.as_ref().map(|r| json!({"status": r.status.as_str(), "detail": r.detail})),
    })
}

pub fn file_json(report: &FileReport) -> Value {
    let lines = LineIndex::new(&report.source);
    let methods: Vec<Value> = report
        .members
        .iter()
        .map(|m| {
            json!({
                "name": m.name,
                "status": if m.verified() { "verified" } else { "failed" },
                "time_ms": (m.millis * 10.0).round() / 10.0,
                "queries": m.queries,
                "cached": m.cached,
            })
        })
        .collect();
    json!({
        "path": report.path,
        "stage": match report.stage { Stage::Parse => "parse", Stage::Check => "check", Stage::Verified => "verify" },
        "errors": report.errors.iter().map(|e| error_json(report, &lines, e)).collect::<Vec<_>>(),
        "methods": methods,
    })
}

/// A file that could not be read: one `parse`-stage entry with a message.
pub fn unreadable_json(path: &str, message: &str) -> Value {
    json!({"path": path, "stage": "read", "error": message, "errors": [], "methods": []})
}
