//! Why a verification error happened, from the path that led to it (paper
//! section 6.2): for a missing chunk, what the heap held at the failure and
//! which step on the path took a chunk of the same field or predicate away;
//! for a fact that might not hold, the branch decisions of the path and the
//! solver's counterexample. Pure functions over an `ErrorReport` and the
//! source, shared by the text and JSON reports and by `sift debug`.

use std::collections::HashMap;

use crate::diag::{Kind, line_col};
use crate::record::{ChunkView, StepKind};
use crate::verify::{ErrorReport, TraceStep};

pub use crate::record::ChunkName;

fn describe(name: &ChunkName) -> String {
    match name {
        ChunkName::Field(f) => format!("field `{f}`"),
        ChunkName::Predicate(p) => format!("predicate `{p}`"),
    }
}

/// The chunk a failure found missing: its name and the text that names it
/// (`acc(c.x)`, `c.valid()`, `c.x`).
pub fn missing_chunk(e: &ErrorReport) -> Option<(ChunkName, String)> {
    let (name, text) = e.reason.as_ref()?.missing_chunk()?;
    Some((name, text.to_string()))
}

/// How one step's state differs from the one before it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StepDiff {
    pub heap_removed: Vec<String>,
    pub heap_added: Vec<String>,
    /// Variable, old value (None: new variable), new value (None: gone).
    pub store: Vec<(String, Option<String>, Option<String>)>,
    pub pc_added: Vec<String>,
    pub pc_removed: Vec<String>,
}

impl StepDiff {
    pub fn is_empty(&self) -> bool {
        self.heap_removed.is_empty()
            && self.heap_added.is_empty()
            && self.store.is_empty()
            && self.pc_added.is_empty()
            && self.pc_removed.is_empty()
    }
}

/// Multiset difference `a - b`, in the order of `a` (hashed: states can be
/// large, and a trace compares every step with the one before).
fn minus<T: Clone + Eq + std::hash::Hash>(a: &[T], b: &[T]) -> Vec<T> {
    let mut left: HashMap<&T, usize> = HashMap::new();
    for y in b {
        *left.entry(y).or_default() += 1;
    }
    let mut out = Vec::new();
    for x in a {
        match left.get_mut(x) {
            Some(n) if *n > 0 => *n -= 1,
            _ => out.push(x.clone()),
        }
    }
    out
}

pub fn diff_steps(prev: &TraceStep, next: &TraceStep) -> StepDiff {
    if prev.elided || next.elided {
        return StepDiff::default();
    }
    let before: HashMap<&str, &str> = prev
        .store
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let after: HashMap<&str, &str> = next
        .store
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let mut store = Vec::new();
    for (k, v) in &prev.store {
        match after.get(k.as_str()) {
            Some(v2) if v2 != v => store.push((k.clone(), Some(v.clone()), Some(v2.to_string()))),
            Some(_) => {}
            None => store.push((k.clone(), Some(v.clone()), None)),
        }
    }
    for (k, v) in &next.store {
        if !before.contains_key(k.as_str()) {
            store.push((k.clone(), None, Some(v.clone())));
        }
    }
    store.sort_by(|a, b| a.0.cmp(&b.0));
    StepDiff {
        heap_removed: texts(&minus(&prev.heap, &next.heap)),
        heap_added: texts(&minus(&next.heap, &prev.heap)),
        store,
        pc_added: minus(&next.pc, &prev.pc),
        pc_removed: minus(&prev.pc, &next.pc),
    }
}

fn texts(chunks: &[ChunkView]) -> Vec<String> {
    chunks.iter().map(|c| c.text.clone()).collect()
}

fn line_of(source: &str, step: &TraceStep) -> usize {
    line_col(source, step.span.start).0
}

/// The explanation of one error, one sentence per entry (empty when the
/// error has no path, as parse and type errors).
pub fn explain(e: &ErrorReport, source: &str) -> Vec<String> {
    let mut out = Vec::new();
    if e.trace.is_empty() || matches!(e.diag.kind, Kind::Parse | Kind::Type | Kind::Internal) {
        return out;
    }
    match missing_chunk(e) {
        Some((name, text)) => explain_missing(e, source, &name, &text, &mut out),
        None => explain_fact(e, source, &mut out),
    }
    if !e.counterexample.is_empty() {
        out.push(format!(
            "counterexample: {}",
            counterexample_text(&e.counterexample)
        ));
    }
    out
}

pub fn counterexample_text(values: &[(String, String)]) -> String {
    values
        .iter()
        .map(|(k, v)| format!("{k} = {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn explain_missing(
    e: &ErrorReport,
    source: &str,
    name: &ChunkName,
    text: &str,
    out: &mut Vec<String>,
) {
    let Some(last) = e.trace.last() else { return };
    if last.heap.is_empty() {
        out.push(format!(
            "`{text}` is missing: at the failure the heap was empty"
        ));
    } else {
        out.push(format!(
            "`{text}` is missing: at the failure the heap held {}",
            last.heap_texts().join(", ")
        ));
    }
    let same = |c: &&ChunkView| c.of == *name;
    // With states left out of a long trace, "never in the heap" is unknown.
    let seen_any = e
        .trace
        .iter()
        .any(|s| s.elided || s.heap.iter().any(|c| same(&c)));
    let mut events = 0;
    for pair in e.trace.windows(2) {
        let (before, after) = (&pair[0], &pair[1]);
        if after.kind.is_failure() {
            continue;
        }
        let count = |s: &TraceStep| s.heap.iter().filter(same).count();
        if count(after) >= count(before) {
            continue;
        }
        let gone: Vec<ChunkView> = minus(&before.heap, &after.heap)
            .into_iter()
            .filter(|c| same(&c))
            .collect();
        let shown = gone
            .iter()
            .map(|c| format!("`{c}`"))
            .collect::<Vec<_>>()
            .join(", ");
        let line = line_of(source, after);
        let sentence = if matches!(after.kind, StepKind::LoopBody { .. }) {
            format!(
                "{shown} left the heap at line {line}: the loop body starts from its invariant only (`{}`)",
                after.kind
            )
        } else {
            format!(
                "{shown} left the heap at line {line}: consumed by `{}`",
                after.kind
            )
        };
        out.push(sentence);
        events += 1;
    }
    if events == 0 {
        if last.heap.iter().any(|c| same(&c)) {
            out.push(format!(
                "the heap holds a chunk of {}, but the solver cannot show it is the one needed (another receiver or other arguments?)",
                describe(name)
            ));
        } else if !seen_any {
            out.push(format!(
                "no chunk of {} was in the heap anywhere on this path",
                describe(name)
            ));
        }
    }
}

fn explain_fact(e: &ErrorReport, source: &str, out: &mut Vec<String>) {
    let decisions: Vec<String> = e
        .trace
        .iter()
        .filter(|s| s.kind.is_decision())
        .map(|s| format!("line {}: {}", line_of(source, s), s.kind))
        .collect();
    if decisions.is_empty() {
        out.push("the path to the failure takes no branch".to_string());
    } else {
        for d in decisions {
            out.push(format!("on this path: {d}"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Diagnostic;
    use crate::record::Reason;
    use crate::record::step::{Arm, StmtForm};

    fn stmt(text: &str) -> StepKind {
        StepKind::Statement {
            form: StmtForm::Call,
            text: text.to_string(),
        }
    }

    fn fails(kind: Kind, reason: Reason, obligation: bool) -> StepKind {
        StepKind::Failed {
            kind,
            reason,
            obligation,
            resumes: false,
        }
    }

    fn not_held(chunk: &str, of: ChunkName) -> Reason {
        Reason::NotHeld {
            chunk: chunk.to_string(),
            of,
        }
    }

    /// A chunk of field `f` (every chunk of these tests).
    fn field_f(text: &str) -> ChunkView {
        ChunkView {
            of: ChunkName::Field("f".into()),
            text: text.to_string(),
        }
    }

    fn step(src: &str, at: &str, kind: StepKind, heap: &[&str], pc: &[&str]) -> TraceStep {
        let start = src.find(at).expect("span text in source");
        TraceStep {
            elided: false,
            span: start..start + at.len(),
            kind,
            heap: heap.iter().map(|s| field_f(s)).collect(),
            store: vec![("x".to_string(), "x".to_string())],
            pc: pc.iter().map(|s| s.to_string()).collect(),
        }
    }

    fn error(kind: Kind, reason: Option<Reason>, trace: Vec<TraceStep>) -> ErrorReport {
        ErrorReport {
            diag: Diagnostic::new(kind, 0..1, "message"),
            reason,
            member: "A.n".to_string(),
            trace,
            counterexample: Vec::new(),
            replay: None,
            inputs: None,
        }
    }

    const SRC: &str =
        "void n(A a)\n  requires acc(a.f);\n{\n  a.f = 1;\n  leak(a);\n  a.f = 2;\n}\n";

    #[test]
    fn a_consumed_chunk_is_traced_to_the_call_that_took_it() {
        let trace = vec![
            step(SRC, "n", StepKind::MethodEntry, &[], &[]),
            step(
                SRC,
                "acc(a.f)",
                StepKind::PreconditionProduced,
                &["a.f ↦ s"],
                &[],
            ),
            step(SRC, "a.f = 1;", stmt("a.f = 1;"), &["a.f ↦ 1"], &[]),
            step(SRC, "leak(a);", stmt("leak(a);"), &[], &[]),
        ];
        let write = Reason::NoWrite {
            access: "a.f".into(),
            field: "f".into(),
        };
        let mut trace = trace;
        trace.push(step(
            SRC,
            "a.f = 2",
            fails(Kind::PermissionMissing, write.clone(), false),
            &[],
            &[],
        ));
        let e = error(Kind::PermissionMissing, Some(write), trace);
        assert_eq!(
            explain(&e, SRC),
            vec![
                "`a.f` is missing: at the failure the heap was empty".to_string(),
                "`a.f ↦ 1` left the heap at line 5: consumed by `leak(a);`".to_string(),
            ]
        );
    }

    #[test]
    fn a_changed_value_is_not_a_consumption() {
        let trace = vec![
            step(
                SRC,
                "acc(a.f)",
                StepKind::PreconditionProduced,
                &["a.f ↦ s"],
                &[],
            ),
            step(SRC, "a.f = 1;", stmt("a.f = 1;"), &["a.f ↦ 1"], &[]),
        ];
        let missing = not_held("acc(b.f)", ChunkName::Field("f".into()));
        let mut trace = trace;
        trace.push(step(
            SRC,
            "a.f = 2",
            fails(Kind::PreconditionFailed, missing.clone(), true),
            &["a.f ↦ 1"],
            &[],
        ));
        let e = error(Kind::PreconditionFailed, Some(missing), trace);
        let lines = explain(&e, SRC);
        assert_eq!(
            lines[0],
            "`acc(b.f)` is missing: at the failure the heap held a.f ↦ 1"
        );
        assert!(
            lines[1].starts_with("the heap holds a chunk of field `f`, but"),
            "{lines:?}"
        );
        assert_eq!(lines.len(), 2);
    }

    #[test]
    fn a_chunk_never_held() {
        let trace = vec![step(SRC, "n", StepKind::MethodEntry, &[], &[])];
        let missing = not_held("a.valid()", ChunkName::Predicate("valid".into()));
        let mut trace = trace;
        trace.push(step(
            SRC,
            "a.f = 2",
            fails(Kind::OpenFailed, missing.clone(), true),
            &[],
            &[],
        ));
        let e = error(Kind::OpenFailed, Some(missing), trace);
        assert_eq!(
            explain(&e, SRC)[1],
            "no chunk of predicate `valid` was in the heap anywhere on this path"
        );
    }

    #[test]
    fn facts_list_branches_and_the_counterexample() {
        let src = "if (x > 0) { } else { }\nwhile (i < n) { }\nassert y > 0;\n";
        let fact = Reason::MightNotHold {
            fact: "y > 0".into(),
        };
        let trace = vec![
            step(
                src,
                "x > 0",
                StepKind::Branch {
                    cond: "x > 0".into(),
                    arm: Arm::Else,
                },
                &[],
                &["!(0 < x)"],
            ),
            step(
                src,
                "i < n",
                StepKind::LoopAfter {
                    cond: "i < n".into(),
                },
                &[],
                &["!(0 < x)"],
            ),
            step(
                src,
                "y > 0",
                fails(Kind::AssertFailed, fact.clone(), true),
                &[],
                &["!(0 < x)"],
            ),
        ];
        let mut e = error(Kind::AssertFailed, Some(fact), trace);
        e.counterexample = vec![("x".into(), "0".into()), ("y".into(), "0".into())];
        assert_eq!(
            explain(&e, src),
            vec![
                "on this path: line 1: if (x > 0): else branch".to_string(),
                "on this path: line 2: after the loop (while i < n)".to_string(),
                "counterexample: x = 0, y = 0".to_string(),
            ]
        );
        e.trace.drain(..2);
        assert_eq!(
            explain(&e, src)[0],
            "the path to the failure takes no branch"
        );
    }

    #[test]
    fn errors_without_a_path_have_no_explanation() {
        let e = error(Kind::Type, None, Vec::new());
        assert!(explain(&e, SRC).is_empty());
    }

    #[test]
    fn diffs_of_steps() {
        let a = TraceStep {
            elided: false,
            span: 0..0,
            kind: StepKind::MethodEntry,
            heap: vec![field_f("a.f ↦ 1"), field_f("b.f ↦ 2")],
            store: vec![("x".into(), "1".into()), ("y".into(), "2".into())],
            pc: vec!["p".into()],
        };
        let b = TraceStep {
            elided: false,
            span: 0..0,
            kind: StepKind::MethodEntry,
            heap: vec![field_f("b.f ↦ 2"), field_f("a.f ↦ 3")],
            store: vec![("x".into(), "5".into()), ("z".into(), "0".into())],
            pc: vec!["p".into(), "q".into()],
        };
        let d = diff_steps(&a, &b);
        assert_eq!(d.heap_removed, vec!["a.f ↦ 1".to_string()]);
        assert_eq!(d.heap_added, vec!["a.f ↦ 3".to_string()]);
        assert_eq!(
            d.store,
            vec![
                (
                    "x".to_string(),
                    Some("1".to_string()),
                    Some("5".to_string())
                ),
                ("y".to_string(), Some("2".to_string()), None),
                ("z".to_string(), None, Some("0".to_string())),
            ]
        );
        assert_eq!(d.pc_added, vec!["q".to_string()]);
        assert!(d.pc_removed.is_empty());
        assert!(diff_steps(&a, &a).is_empty());
    }
}
