//! `sift test` (King's EFFIGY, TEST): every path of a method explored
//! symbolically with loops unrolled, a model of each path turned into
//! concrete inputs, and those inputs run through the interpreter.

use std::sync::Arc;

use serde_json::{Value as Json, json};

use super::{Heap, Limits, Outcome, Run, inputs, run_method};
use crate::diag::line_col;
use crate::symbolic::ctx::WORK_BUDGET;
use crate::symbolic::paths::{Exploration, ModelInputs, explore};
use crate::symbolic::program::{MethodInfo, ProgramInfo};

/// How `sift test` explores and runs.
#[derive(Clone, Copy, Debug)]
pub struct TestOptions {
    pub unroll: u32,
    pub limits: Limits,
    pub infer: bool,
    pub timeout_ms: u32,
    /// `--overflow` (docs/language.md section 4.6).
    pub overflow: bool,
}

/// One path: where it branched, the inputs built for it, what the run did.
#[derive(Clone, Debug)]
pub struct PathRow {
    pub method: String,
    /// (line, side taken).
    pub decisions: Vec<(usize, bool)>,
    /// `name = value` for `this`, the parameters and the input objects'
    /// fields.
    pub inputs: Vec<(String, String)>,
    /// `ok`, a kind of docs/language.md section 8, `limit`, `assumed`, `unchecked`,
    /// `inputs-rejected` or `no-model`.
    pub outcome: String,
    pub line: Option<usize>,
    /// The result, the failure's message, or why the run stopped.
    pub detail: String,
}

impl PathRow {
    pub fn ok(&self) -> bool {
        matches!(
            self.outcome.as_str(),
            "ok" | "assumed" | "unchecked" | "no-model" | "inputs-rejected"
        )
    }
}

/// The rows of `mi`'s paths.
pub fn test_method(
    info: &Arc<ProgramInfo>,
    source: &str,
    mi: &MethodInfo,
    opts: TestOptions,
) -> Vec<PathRow> {
    rows_within(info, source, mi, opts, WORK_BUDGET)
}

/// The rows of `mi`'s paths explored within `budget` steps of the engine;
/// a last row with outcome `limit` if that did not explore them all.
fn rows_within(
    info: &Arc<ProgramInfo>,
    source: &str,
    mi: &MethodInfo,
    opts: TestOptions,
    budget: u64,
) -> Vec<PathRow> {
    let src: Arc<str> = source.into();
    let (cases, stopped) = crate::stack::with_big_stack(|| {
        let how = Exploration {
            unroll: opts.unroll,
            timeout_ms: opts.timeout_ms,
            infer: opts.infer,
            overflow: opts.overflow,
            work_budget: budget,
        };
        explore(info, &src, mi, how)
    });
    let method = format!("{}.{}", mi.class, mi.decl.name.name);
    let mut rows: Vec<PathRow> = cases
        .into_iter()
        .map(|case| {
            let decisions = case
                .decisions
                .iter()
                .map(|&(at, taken)| (line_col(source, at).0, taken))
                .collect();
            let mut row = PathRow {
                method: method.clone(),
                decisions,
                inputs: Vec::new(),
                outcome: "no-model".into(),
                line: None,
                detail: "the solver gave no model for this path".into(),
            };
            if let Some(model) = &case.inputs {
                fill_row(&mut row, info, source, mi, model, opts);
            }
            row
        })
        .collect();
    // The paths listed are not all: that is no passing test.
    if stopped {
        rows.push(PathRow {
            method,
            decisions: Vec::new(),
            inputs: Vec::new(),
            outcome: "limit".into(),
            line: None,
            detail: crate::record::words::exploration_stopped(budget),
        });
    }
    rows
}

fn fill_row(
    row: &mut PathRow,
    info: &ProgramInfo,
    source: &str,
    mi: &MethodInfo,
    model: &ModelInputs,
    opts: TestOptions,
) {
    let entry = model.entry.iter().cloned().collect();
    let built = match inputs::from_model(info, mi, &entry, &model.fields) {
        Ok(b) => b,
        Err(why) => {
            row.outcome = "no-model".into();
            row.detail = format!("cannot build inputs: {why}");
            return;
        }
    };
    row.inputs = describe_inputs(mi, &built);
    let run = run_method(
        info,
        source,
        &mi.class,
        &mi.decl.name.name,
        built,
        opts.limits,
        opts.infer,
    );
    let (outcome, line, detail) = outcome_of(source, &run);
    row.outcome = outcome;
    row.line = line;
    row.detail = detail;
}

/// `this`, the parameters, then every input object's fields.
pub fn describe_inputs(mi: &MethodInfo, built: &super::Inputs) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if let Some(t) = built.this {
        out.push(("this".to_string(), built.heap.show(t)));
    }
    for (p, v) in mi.decl.params.iter().zip(&built.args) {
        out.push((p.name.name.clone(), built.heap.show(*v)));
    }
    out.extend(object_fields(&built.heap));
    out
}

fn object_fields(heap: &Heap) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (o, obj) in heap.objects.iter().enumerate() {
        let name = heap.show(super::Value::Ref(o));
        // An array as its contents: `int[]#1 = [3, 0, 7]`.
        if let Some(elems) = super::array::contents(heap, o) {
            let shown: Vec<String> = elems.iter().map(|v| heap.show(*v)).collect();
            out.push((name, format!("[{}]", shown.join(", "))));
            continue;
        }
        for (f, v) in &obj.fields {
            out.push((format!("{name}.{}", super::heap::short(f)), heap.show(*v)));
        }
    }
    out
}

/// The outcome of a run as a row shows it: name, line, detail.
pub fn outcome_of(source: &str, run: &Run) -> (String, Option<usize>, String) {
    match &run.outcome {
        Outcome::Returned(v) => (
            "ok".into(),
            None,
            match v {
                Some(v) => format!("returned {}", run.heap.show(*v)),
                None => "returned".into(),
            },
        ),
        Outcome::Failed(f) if f.at_entry => (
            "inputs-rejected".into(),
            Some(line_col(source, f.span.start).0),
            format!(
                "the inputs built do not satisfy the precondition: {}",
                f.message
            ),
        ),
        Outcome::Failed(f) => (
            f.kind.as_str().into(),
            Some(line_col(source, f.span.start).0),
            f.message.clone(),
        ),
        Outcome::Limit(why) => ("limit".into(), None, why.clone()),
        Outcome::AssumeFalse(span) => (
            "assumed".into(),
            Some(line_col(source, span.start).0),
            "an `assume` is false for these inputs".into(),
        ),
        Outcome::Unchecked(span) => (
            "unchecked".into(),
            Some(line_col(source, span.start).0),
            crate::record::words::UNCHECKED_QUANTIFIER.into(),
        ),
    }
}

pub fn rows_json(rows: &[PathRow]) -> Json {
    let paths: Vec<Json> = rows
        .iter()
        .map(|r| {
            let decisions: Vec<Json> = r
                .decisions
                .iter()
                .map(|(line, taken)| json!({"line": line, "taken": taken}))
                .collect();
            let inputs: serde_json::Map<String, Json> = r
                .inputs
                .iter()
                .map(|(k, v)| (k.clone(), Json::String(v.clone())))
                .collect();
            json!({
                "method": r.method,
                "decisions": decisions,
                "inputs": inputs,
                "outcome": r.outcome,
                "line": r.line,
                "detail": r.detail,
            })
        })
        .collect();
    json!({ "paths": paths })
}

pub fn rows_text(rows: &[PathRow]) -> String {
    let mut s = String::new();
    let mut i = 0;
    for (j, r) in rows.iter().enumerate() {
        // Paths are numbered per method.
        i = if j > 0 && rows[j - 1].method == r.method {
            i + 1
        } else {
            0
        };
        let decisions: Vec<String> = r
            .decisions
            .iter()
            .map(|(line, taken)| format!("line {line} {}", if *taken { "true" } else { "false" }))
            .collect();
        let inputs: Vec<String> = r.inputs.iter().map(|(k, v)| format!("{k} = {v}")).collect();
        let outcome = match r.line {
            Some(l) if r.outcome != "ok" => format!("{} at line {l}", r.outcome),
            _ => r.outcome.clone(),
        };
        s.push_str(&format!(
            "{} path {}: [{}] inputs: {} -> {} ({})\n",
            r.method,
            i + 1,
            if decisions.is_empty() {
                "no branches".to_string()
            } else {
                decisions.join(", ")
            },
            if inputs.is_empty() {
                "none".to_string()
            } else {
                inputs.join(", ")
            },
            outcome,
            r.detail
        ));
    }
    s
}

/// `sift test FILE [--method C.m]`: exit status 0 when every path runs
/// without a failed check, 1 otherwise, 2 for bad input.
pub fn test_command(
    path: &str,
    source: &str,
    method: Option<&str>,
    json_out: bool,
    opts: TestOptions,
) -> u8 {
    let prog = match super::cli::load(path, source, opts.overflow) {
        Ok(p) => Arc::new(p),
        Err(code) => return code,
    };
    let chosen: Vec<&MethodInfo> = match method {
        Some(name) => match super::cli::find_method(&prog, name) {
            Ok(mi) => vec![mi],
            Err(msg) => {
                eprintln!("error: {msg}");
                return 2;
            }
        },
        None => {
            let mut all: Vec<&MethodInfo> = prog.methods.values().collect();
            all.sort_by_key(|mi| mi.decl.span.start);
            all
        }
    };
    let mut rows = Vec::new();
    for mi in chosen {
        rows.extend(test_method(&prog, source, mi, opts));
    }
    if json_out {
        println!(
            "{}",
            serde_json::to_string_pretty(&rows_json(&rows)).unwrap_or_default()
        );
    } else {
        print!("{}", rows_text(&rows));
        let failed = rows.iter().filter(|r| !r.ok()).count();
        println!("{path}: {} paths, {failed} failed", rows.len());
    }
    if rows.iter().all(PathRow::ok) { 0 } else { 1 }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Twenty independent branches: a million paths, far more than a small
    /// budget explores. The rows found are listed, and a last one says the
    /// list is not complete.
    #[test]
    fn exploration_past_its_budget_ends_with_a_limit_row() {
        let ifs: String = (0..20)
            .map(|i| format!("    if (x{i} > 0) {{ y = y + 1; }}\n"))
            .collect();
        let params: Vec<String> = (0..20).map(|i| format!("int x{i}")).collect();
        let source = format!(
            "class A {{\n  static void m({}) {{\n    int y = 0;\n{ifs}  }}\n}}\n",
            params.join(", ")
        );
        let prog =
            Arc::new(super::super::cli::load("a.sift", &source, false).expect("a valid program"));
        let mi = prog.method("A", "m").expect("A.m");
        let opts = TestOptions {
            unroll: 1,
            limits: Limits::default(),
            infer: true,
            timeout_ms: 5000,
            overflow: false,
        };
        let rows = rows_within(&prog, &source, mi, opts, 2_000);
        let (last, paths) = rows.split_last().expect("rows");
        assert_eq!(last.outcome, "limit");
        assert!(last.detail.contains("after 2000 steps"), "{}", last.detail);
        assert!(
            !paths.is_empty() && paths.len() < 1 << 20,
            "{}",
            paths.len()
        );
        assert!(paths.iter().all(|r| r.outcome == "ok"), "{paths:?}");
    }
}
