//! `stackTrace`: the step as the bottom frame (its source location and
//! what happened there), and above it a frame for a callee whose contract
//! the step consumed or produced (calls are modular: a call is one step
//! that consumes the callee's precondition and produces its
//! postcondition, so the callee's frame points at that contract).

use serde_json::{Value, json};

use super::session::Adapter;
use crate::debug::Run;
use crate::diag::{Kind, line_col};
use crate::record::StepKind;
use crate::syntax::ast::{Program, Span, StmtKind};

/// Frame ids: the step, and the callee above it.
pub const STEP_FRAME: i64 = 1;
pub const CALLEE_FRAME: i64 = 2;

/// A callee of the step: its name and the contract clauses used.
struct Callee {
    name: String,
    clauses: Span,
    what: &'static str,
}

impl Adapter {
    fn location(&self, run: &Run, span: &Span) -> Value {
        let (line, col) = line_col(&run.source, span.start);
        let (end_line, end_col) = line_col(&run.source, span.end);
        json!({
            "line": self.client_line(line),
            "column": self.client_column(col),
            "endLine": self.client_line(end_line),
            "endColumn": self.client_column(end_col),
        })
    }

    pub(super) fn stack_trace(&mut self) -> Result<Value, String> {
        let l = self.launched.as_ref().ok_or("no program is launched")?;
        let run = l.session.run();
        let at = l.session.at();
        let step = run.tree.step(at);
        let name = l
            .file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let source = json!({ "name": name, "path": l.file.to_string_lossy() });
        let mut frames = Vec::new();
        if let Some(c) = callee(run, at) {
            let mut f = self.location(run, &c.clauses);
            f["id"] = json!(CALLEE_FRAME);
            f["name"] = json!(format!("{} ({})", c.name, c.what));
            f["source"] = source.clone();
            frames.push(f);
        }
        let mut f = self.location(run, &step.span);
        f["id"] = json!(STEP_FRAME);
        f["name"] = json!(format!(
            "{} [{}] {}",
            run.member().name,
            run.tree.depth(at),
            step.kind
        ));
        f["source"] = source;
        frames.push(f);
        let total = frames.len();
        Ok(json!({ "stackFrames": frames, "totalFrames": total }))
    }
}

/// The callee of a call in step `at`'s source, when the step is a
/// statement holding a call or a failure to meet a callee's precondition.
fn callee(run: &Run, at: usize) -> Option<Callee> {
    let step = run.tree.step(at);
    let what = match &step.kind {
        StepKind::Statement { .. } => "precondition consumed, postcondition produced",
        StepKind::Failed {
            kind: Kind::PreconditionFailed,
            ..
        } => "precondition not met",
        _ => return None,
    };
    let program = crate::syntax::parse(&run.source).ok()?;
    let text = run.source.get(step.span.clone())?;
    let own_class = run.member().name.split('.').next().unwrap_or("");
    let called = called_names(text);
    for name in called {
        let Some((class, clauses, ensures)) = find_method(&program, own_class, &name) else {
            continue;
        };
        let span = if what.starts_with("precondition not") {
            clauses
        } else {
            ensures.or(clauses)
        }?;
        return Some(Callee {
            name: format!("{class}.{name}"),
            clauses: span,
            what,
        });
    }
    None
}

/// Names followed by `(` in `text`: the calls it makes (and `acc(`, `old(`
/// and the like, which name no method and are skipped by the lookup).
fn called_names(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    for c in text.chars() {
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
            continue;
        }
        if c == '(' && !word.is_empty() && !word.starts_with(|d: char| d.is_ascii_digit()) {
            out.push(word.clone());
        }
        if !c.is_whitespace() {
            word.clear();
        }
    }
    out
}

/// A method or pure method named `name`: of `own` first, else the first
/// class declaring it. Its class, requires clauses and ensures clauses.
fn find_method(p: &Program, own: &str, name: &str) -> Option<(String, Option<Span>, Option<Span>)> {
    let joined = |clauses: &[crate::syntax::ast::Expr]| {
        let first = clauses.first()?;
        let last = clauses.last()?;
        Some(first.span.start..last.span.end)
    };
    let classes = p
        .classes
        .iter()
        .filter(|c| c.name.name == own)
        .chain(p.classes.iter().filter(|c| c.name.name != own));
    for c in classes {
        if let Some(m) = c.methods.iter().find(|m| m.name.name == name) {
            let at = Some(m.name.span.clone());
            return Some((
                c.name.name.clone(),
                joined(&m.requires).or(at.clone()),
                joined(&m.ensures).or(at),
            ));
        }
        if let Some(m) = c.pures.iter().find(|m| m.name.name == name) {
            let at = Some(m.name.span.clone());
            return Some((c.name.name.clone(), joined(&m.requires).or(at.clone()), at));
        }
    }
    None
}

/// Where the conditional or loop that step `at` is inside ends (a byte
/// offset): the innermost branch or loop body on its path, found in the
/// source by its condition.
pub fn enclosing_end(run: &Run, at: usize) -> Option<usize> {
    let t = &run.tree;
    let decision = t.path(at).into_iter().rev().find(|n| {
        matches!(
            t.step(*n).kind,
            StepKind::Branch { .. } | StepKind::LoopBody { .. }
        )
    })?;
    let cond = &t.step(decision).span;
    let program = crate::syntax::parse(&run.source).ok()?;
    let stmts = program
        .classes
        .iter()
        .flat_map(|c| c.methods.iter())
        .flat_map(|m| crate::syntax::walk::statements(&m.body.stmts));
    for s in stmts {
        let c = match &s.kind {
            StmtKind::If { cond, .. } | StmtKind::While { cond, .. } => &cond.span,
            StmtKind::For(f) => &f.cond.span,
            _ => continue,
        };
        if c == cond {
            return Some(s.span.end);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::called_names;

    #[test]
    fn calls_in_a_statement() {
        assert_eq!(called_names("int y = f(x) + A.g (h(1));"), ["f", "g", "h"]);
        assert!(called_names("x = (1 + 2);").is_empty());
    }
}
