//! What `sift debug` prints: positions, states, differences, branches and
//! source listings. Plain text, one item a line, for terminals and scripts.

use std::collections::BTreeSet;

use super::Run;
use super::tree::Choices;
use crate::diag::line_col;
use crate::record::StepKind;
use crate::report::explain;

fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("{n} {one}")
    } else {
        format!("{n} {many}")
    }
}

/// `[3] line 8: if (x > 0): then branch (branch 1 of 2)`.
pub fn header(run: &Run, n: usize) -> String {
    let t = &run.tree;
    let step = t.step(n);
    let mut out = format!(
        "[{}] line {}: {}",
        t.depth(n),
        t.line(&run.source, n),
        step.kind
    );
    let sib = t.siblings(n);
    let split = t.parent(n).map_or(sib.len() > 1, |p| t.is_split(p));
    if split && let Some(i) = sib.iter().position(|s| *s == n) {
        out.push_str(&format!(" (branch {} of {})", i + 1, sib.len()));
    }
    out
}

/// The source line of a step with its span underlined.
pub fn location(run: &Run, n: usize) -> String {
    let src = &run.source;
    let span = &run.tree.step(n).span;
    let at = span.start.min(src.len());
    let (line, _) = line_col(src, at);
    let line_start = crate::diag::line_start(src, at);
    let text = crate::diag::lines(&src[line_start..])
        .next()
        .unwrap_or("")
        .trim_end();
    let mut out = format!("{line:>4} | {text}\n");
    let start = (at - line_start).min(text.len());
    let end = span.end.saturating_sub(line_start).clamp(start, text.len());
    let (Some(lead), Some(under)) = (text.get(..start), text.get(start..end)) else {
        return out;
    };
    let lead: String = lead
        .chars()
        .map(|c| if c == '\t' { '\t' } else { ' ' })
        .collect();
    out.push_str(&format!(
        "     | {lead}{}\n",
        "^".repeat(under.chars().count().max(1))
    ));
    out
}

/// Where the session stands: the step, its source, and what can follow.
pub fn position(run: &Run, n: usize) -> String {
    let t = &run.tree;
    let mut out = format!("{}\n{}", header(run, n), location(run, n));
    let kids = t.children[n].len();
    if t.is_split(n) {
        out.push_str(&format!(
            "the path splits here into {kids} branches (`branches` lists them)\n"
        ));
    } else if let Some(m) = t.joined(n) {
        out.push_str(&format!(
            "the paths merge at this `join`: `step` goes on from the merged state, {}\n",
            header(run, m)
        ));
    } else if kids == 0 && !t.is_failure(n) {
        out.push_str("end of this path\n");
    } else if t.resumption(n).is_some() {
        out.push_str("the path goes on past the failed assertion, assuming it\n");
    }
    out
}

pub fn heap(run: &Run, n: usize) -> String {
    let heap = &run.tree.step(n).heap;
    if heap.is_empty() {
        return "heap: empty\n".to_string();
    }
    let mut out = format!("heap ({}):\n", plural(heap.len(), "chunk", "chunks"));
    for c in heap {
        out.push_str(&format!("  {c}\n"));
    }
    out
}

pub fn store(run: &Run, n: usize) -> String {
    let store = &run.tree.step(n).store;
    if store.is_empty() {
        return "store: empty\n".to_string();
    }
    let mut out = format!(
        "store ({}):\n",
        plural(store.len(), "variable", "variables")
    );
    for (k, v) in store {
        out.push_str(&format!("  {k} ↦ {v}\n"));
    }
    out
}

pub fn pc(run: &Run, n: usize) -> String {
    let pc = &run.tree.step(n).pc;
    if pc.is_empty() {
        return "path condition: empty (true)\n".to_string();
    }
    let mut out = format!("path condition ({}):\n", plural(pc.len(), "fact", "facts"));
    for f in pc {
        out.push_str(&format!("  {f}\n"));
    }
    out
}

/// The old heap (what `old(...)` reads): the heap as the precondition
/// left it, on the path to `n`.
pub fn old(run: &Run, n: usize) -> String {
    let t = &run.tree;
    let Some(entry) = old_entry(run, n) else {
        let later =
            (0..t.nodes.len()).find(|p| matches!(t.step(*p).kind, StepKind::PreconditionProduced));
        return match later {
            Some(p) => format!(
                "no old heap yet: `old(...)` reads the heap as the precondition leaves it, {}\n",
                header(run, p)
            ),
            None => "no old heap: only methods and constructors have a pre-state\n".to_string(),
        };
    };
    let heap = &t.step(entry).heap;
    let at = format!("as the precondition left it, {}", header(run, entry));
    if heap.is_empty() {
        return format!("old heap: empty ({at})\n");
    }
    let mut out = format!(
        "old heap ({}; {at}):\n",
        plural(heap.len(), "chunk", "chunks")
    );
    for c in heap {
        out.push_str(&format!("  {c}\n"));
    }
    out
}

/// The step whose heap `old(...)` reads on the path to `n`: where the
/// precondition was produced.
pub fn old_entry(run: &Run, n: usize) -> Option<usize> {
    let t = &run.tree;
    t.path(n)
        .into_iter()
        .find(|p| matches!(t.step(*p).kind, StepKind::PreconditionProduced))
}

/// The changes from the step before to this one.
pub fn diff(run: &Run, n: usize) -> String {
    let t = &run.tree;
    let Some(p) = t.parent(n) else {
        return "no step before this one: it is the first of the member\n".to_string();
    };
    let d = explain::diff_steps(t.step(p), t.step(n));
    let mut out = format!("changes since {}\n", header(run, p));
    if d.is_empty() {
        out.push_str("  none\n");
        return out;
    }
    for c in &d.heap_removed {
        out.push_str(&format!("  heap  − {c}\n"));
    }
    for c in &d.heap_added {
        out.push_str(&format!("  heap  + {c}\n"));
    }
    for (k, old, new) in &d.store {
        let line = match (old, new) {
            (None, Some(v)) => format!("+ {k} ↦ {v}"),
            (Some(o), Some(v)) => format!("~ {k} ↦ {v} (was {o})"),
            _ => format!("− {k}"),
        };
        out.push_str(&format!("  store {line}\n"));
    }
    for f in &d.pc_removed {
        out.push_str(&format!("  pc    − {f}\n"));
    }
    for f in &d.pc_added {
        out.push_str(&format!("  pc    + {f}\n"));
    }
    out
}

/// The branches at a split: each child, its new path-condition facts and
/// the failures it leads to; `*` marks the branch `step` follows.
pub fn branches(run: &Run, split: usize, choices: &Choices) -> String {
    let t = &run.tree;
    let chosen = t.next(split, choices);
    let mut out = format!("the path splits after {}\n", header(run, split));
    for (i, &c) in t.children[split].iter().enumerate() {
        let mark = if Some(c) == chosen { '*' } else { ' ' };
        let step = t.step(c);
        let mut line = format!(
            "{mark} {}: line {}: {}",
            i + 1,
            t.line(&run.source, c),
            step.kind
        );
        let d = explain::diff_steps(t.step(split), step);
        if !d.pc_added.is_empty() {
            line.push_str(&format!(" [pc + {}]", d.pc_added.join(", ")));
        }
        let fails: BTreeSet<usize> = t
            .failures_below(c)
            .into_iter()
            .map(|f| t.line(&run.source, f))
            .collect();
        if !fails.is_empty() {
            let lines: Vec<String> = fails.iter().map(|l| l.to_string()).collect();
            line.push_str(&format!(" — fails at line {}", lines.join(", ")));
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The steps from the member's first one to `n`.
pub fn path(run: &Run, n: usize) -> String {
    run.tree
        .path(n)
        .into_iter()
        .map(|p| header(run, p) + "\n")
        .collect()
}

/// Source lines around `line`: `>` marks it, `*` breakpoints.
pub fn list(run: &Run, line: usize, breaks: &BTreeSet<usize>, radius: usize) -> String {
    let lines: Vec<&str> = crate::diag::lines(&run.source).collect();
    let lo = line.saturating_sub(radius).max(1);
    let hi = (line + radius).min(lines.len());
    let mut out = String::new();
    for l in lo..=hi {
        let cur = if l == line { '>' } else { ' ' };
        let bp = if breaks.contains(&l) { '*' } else { ' ' };
        out.push_str(&format!("{cur}{bp}{l:>4} | {}\n", lines[l - 1].trim_end()));
    }
    out
}

pub const HELP: &str = "\
commands (a step is the state after a statement, a branch decision or a failure):
  step [N], s [N]     go N steps forward (at a split, along the chosen branch)
  back [N], b [N]     go N steps back
  continue, c         go forward to the next failure or breakpoint (when the
                      path has none left: to the next failure on another branch)
  run-to LINE         go forward to LINE (or the next failure or breakpoint)
  break [LINE]        set a breakpoint on LINE (no LINE: list them)
  delete [LINE]       remove the breakpoint on LINE (no LINE: all of them)
  branches            list the branches at the current split (or the one
                      this step is a branch of, or the next, or the last)
  branch N            take branch N there, and go to its first step
  where, w            the current step and its source line
  list [N], l [N]     the source around the current line (N lines each side)
  path                the steps from the start of the member to here
  heap                the heap chunks at this step
  store               the variables and their symbolic values
  pc                  the path condition
  old                 the old heap: the pre-state `old(...)` reads
  diff                what changed since the step before
  why                 why the failure at this step happened
  save NAME           remember this position (and program) as NAME
  restore NAME        go back to a saved position
  assume EXPR         insert `assume EXPR;` at this point of the program,
                      verify again and continue at the new `assume` step
  prove EXPR          whether EXPR holds here on this path (verifies the
                      program with `assert EXPR;` at this point)
  member C.m          debug another member of the file (`member` lists them)
  help, h             this list
  quit, q             leave (end of input too)
";
