//! The commands of `sift debug`: parsing a line, and what each one does to
//! the session.

use super::assume;
use super::probe;
use super::render;
use super::{Flow, Run, Session, plural};
use crate::diag::line_col;
use crate::report::explain;
use crate::verify::Stage;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Nothing,
    Step(usize),
    Back(usize),
    Continue,
    RunTo(usize),
    Break(Option<usize>),
    Delete(Option<usize>),
    Branches,
    Branch(usize),
    Where,
    List(Option<usize>),
    Path,
    Heap,
    Store,
    Pc,
    Old,
    Diff,
    Why,
    Save(String),
    Restore(String),
    Assume(String),
    Prove(String),
    Member(Option<String>),
    Help,
    Quit,
}

fn number(arg: &str, what: &str) -> Result<usize, String> {
    arg.parse::<usize>()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| format!("`{arg}` is not a {what} (a positive number)"))
}

fn optional(arg: &str, what: &str) -> Result<Option<usize>, String> {
    if arg.is_empty() {
        Ok(None)
    } else {
        number(arg, what).map(Some)
    }
}

fn count(arg: &str) -> Result<usize, String> {
    Ok(optional(arg, "count")?.unwrap_or(1))
}

fn name(arg: &str, cmd: &str) -> Result<String, String> {
    let ok = !arg.is_empty()
        && arg
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-');
    if ok {
        Ok(arg.to_string())
    } else {
        Err(format!("usage: {cmd} NAME (letters, digits, `_` or `-`)"))
    }
}

/// One input line as a command; `#` starts a comment line.
pub fn parse_command(line: &str) -> Result<Command, String> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok(Command::Nothing);
    }
    let (word, arg) = match line.split_once(char::is_whitespace) {
        Some((w, a)) => (w, a.trim()),
        None => (line, ""),
    };
    let no_arg = |c: Command| {
        if arg.is_empty() {
            Ok(c)
        } else {
            Err(format!("`{word}` takes no argument"))
        }
    };
    match word {
        "step" | "s" | "next" | "n" => Ok(Command::Step(count(arg)?)),
        "back" | "b" => Ok(Command::Back(count(arg)?)),
        "continue" | "c" => no_arg(Command::Continue),
        "run-to" => Ok(Command::RunTo(
            number(arg, "line").map_err(|e| format!("usage: run-to LINE ({e})"))?,
        )),
        "break" => Ok(Command::Break(optional(arg, "line")?)),
        "delete" => Ok(Command::Delete(optional(arg, "line")?)),
        "branches" => no_arg(Command::Branches),
        "branch" => Ok(Command::Branch(
            number(arg, "branch number").map_err(|e| format!("usage: branch N ({e})"))?,
        )),
        "where" | "w" => no_arg(Command::Where),
        "list" | "l" if arg.is_empty() => Ok(Command::List(None)),
        "list" | "l" => match arg.parse::<usize>() {
            Ok(n) => Ok(Command::List(Some(n))),
            Err(_) => Err(format!("`{arg}` is not a number of lines")),
        },
        "path" => no_arg(Command::Path),
        "heap" => no_arg(Command::Heap),
        "store" => no_arg(Command::Store),
        "pc" => no_arg(Command::Pc),
        "old" => no_arg(Command::Old),
        "diff" => no_arg(Command::Diff),
        "why" => no_arg(Command::Why),
        "save" => Ok(Command::Save(name(arg, "save")?)),
        "restore" => Ok(Command::Restore(name(arg, "restore")?)),
        "assume" => Ok(Command::Assume(assume::clean_expr(arg)?)),
        "prove" => Ok(Command::Prove(
            assume::clean_expr(arg).map_err(|_| "usage: prove EXPR".to_string())?,
        )),
        "member" | "m" if arg.is_empty() => Ok(Command::Member(None)),
        "member" | "m" => Ok(Command::Member(Some(arg.to_string()))),
        "help" | "h" | "?" => no_arg(Command::Help),
        "quit" | "q" | "exit" => no_arg(Command::Quit),
        _ => Err(format!(
            "unknown command `{word}` (`help` lists the commands)"
        )),
    }
}

/// Why a forward run stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    Failure,
    /// A breakpoint on this line.
    Breakpoint(usize),
    Target,
    End,
}

/// Where a forward run went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Advance {
    pub stop: Stop,
    pub moved: bool,
    /// The path had no failure left, and the run went to the next failure
    /// on another branch.
    pub elsewhere: bool,
}

impl Session {
    pub(super) fn run_command(&mut self, cmd: Command) -> (String, Flow) {
        let out = match cmd {
            Command::Nothing => String::new(),
            Command::Quit => return (String::new(), Flow::Quit),
            Command::Help => render::HELP.to_string(),
            Command::Step(n) => self.step(n),
            Command::Back(n) => self.back(n),
            Command::Continue => self.forward(None),
            Command::RunTo(line) => match self.check_line(line) {
                Ok(()) => self.forward(Some(line)),
                Err(e) => e,
            },
            Command::Break(None) => match self.breaks.is_empty() {
                true => "no breakpoints\n".to_string(),
                false => format!("breakpoints at lines {}\n", self.break_list()),
            },
            Command::Break(Some(line)) => match self.check_line(line) {
                Ok(()) => {
                    self.breaks.insert(line);
                    let run = self.run_ref();
                    let here = (0..run.tree.nodes.len()).any(|n| run.line(n) == line);
                    let note = if here {
                        String::new()
                    } else {
                        format!(" (no step of `{}` is on it)", run.member().name)
                    };
                    format!("breakpoint at line {line}{note}\n")
                }
                Err(e) => e,
            },
            Command::Delete(None) => {
                self.breaks.clear();
                "deleted every breakpoint\n".to_string()
            }
            Command::Delete(Some(line)) => match self.breaks.remove(&line) {
                true => format!("deleted the breakpoint at line {line}\n"),
                false => format!("error: no breakpoint at line {line}\n"),
            },
            Command::Branches => self.branches(),
            Command::Branch(i) => self.branch(i),
            Command::Where => render::position(self.run_ref(), self.at),
            Command::List(radius) => {
                let line = self.run_ref().line(self.at);
                render::list(self.run_ref(), line, &self.breaks, radius.unwrap_or(3))
            }
            Command::Path => render::path(self.run_ref(), self.at),
            Command::Heap => render::heap(self.run_ref(), self.at),
            Command::Store => render::store(self.run_ref(), self.at),
            Command::Pc => render::pc(self.run_ref(), self.at),
            Command::Old => render::old(self.run_ref(), self.at),
            Command::Member(None) => self.members(),
            Command::Member(Some(name)) => self.switch_member(&name),
            Command::Diff => render::diff(self.run_ref(), self.at),
            Command::Why => self.why(),
            Command::Save(name) => {
                self.save(&name);
                format!(
                    "saved `{name}` at {}\n",
                    render::header(self.run_ref(), self.at)
                )
            }
            Command::Restore(name) => match self.restore(&name) {
                true => format!(
                    "restored `{name}`\n{}",
                    render::position(self.run_ref(), self.at)
                ),
                false => format!(
                    "error: nothing saved as `{name}` (saved: {})\n",
                    self.saved_names()
                ),
            },
            Command::Assume(expr) => self.assume(&expr),
            Command::Prove(expr) => match self.prober().prove(self.run_ref(), self.at, &expr) {
                Ok(p) => probe::proof_text(&expr, &p),
                Err(e) => format!("error: {e}\n"),
            },
        };
        (out, Flow::Go)
    }

    fn break_list(&self) -> String {
        self.breaks
            .iter()
            .map(|l| l.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn check_line(&self, line: usize) -> Result<(), String> {
        let lines = crate::diag::lines(&self.run_ref().source).count();
        if line > lines {
            return Err(format!(
                "error: line {line} is past the end of the file ({lines} lines)\n"
            ));
        }
        Ok(())
    }

    /// Goes up to `n` steps forward along the chosen branches; how many
    /// it went.
    pub fn forward_by(&mut self, n: usize) -> usize {
        let run = self.run.clone();
        let mut moved = 0;
        while moved < n {
            match run.tree.next(self.at, &self.choices) {
                Some(next) => self.at = next,
                None => break,
            }
            moved += 1;
        }
        moved
    }

    /// Goes up to `n` steps back; how many it went.
    pub fn back_by(&mut self, n: usize) -> usize {
        let run = self.run.clone();
        let mut moved = 0;
        while moved < n {
            match run.tree.parent(self.at) {
                Some(p) => self.at = p,
                None => break,
            }
            moved += 1;
        }
        moved
    }

    fn step(&mut self, n: usize) -> String {
        if self.forward_by(n) == 0 {
            return format!(
                "end of the path: no step after {}\n",
                render::header(self.run_ref(), self.at)
            );
        }
        render::position(self.run_ref(), self.at)
    }

    fn back(&mut self, n: usize) -> String {
        if self.back_by(n) == 0 {
            return "at the first step: nothing before it\n".to_string();
        }
        render::position(self.run_ref(), self.at)
    }

    /// Goes forward along the chosen branches to the next failure, to
    /// the first step on line `target`, or to a step entering a line
    /// where `hit` says to stop; with no target, past the end of a path
    /// to the next failure on another branch.
    pub fn advance(
        &mut self,
        target: Option<usize>,
        hit: &mut dyn FnMut(&Run, usize) -> bool,
    ) -> Advance {
        let run = self.run.clone();
        let t = &run.tree;
        let mut moved = false;
        let stop = loop {
            let Some(next) = t.next(self.at, &self.choices) else {
                break Stop::End;
            };
            let line = run.line(next);
            let entering = t.parent(next).is_none_or(|p| run.line(p) != line);
            self.at = next;
            moved = true;
            if t.is_failure(next) {
                break Stop::Failure;
            }
            if entering && target == Some(line) {
                break Stop::Target;
            }
            if entering && hit(&run, next) {
                break Stop::Breakpoint(line);
            }
        };
        if matches!(stop, Stop::End)
            && target.is_none()
            && let Some(f) = t.next_failure_elsewhere(self.at)
        {
            self.at = f;
            self.choices.clear();
            t.choose_path_to(f, &mut self.choices);
            return Advance {
                stop: Stop::Failure,
                moved: true,
                elsewhere: true,
            };
        }
        Advance {
            stop,
            moved,
            elsewhere: false,
        }
    }

    /// `continue` (no target) and `run-to LINE`.
    fn forward(&mut self, target: Option<usize>) -> String {
        let breaks = self.breaks.clone();
        let a = self.advance(target, &mut |run, n| breaks.contains(&run.line(n)));
        let run = self.run.clone();
        if a.elsewhere {
            return format!(
                "no failure ahead on this path; the next one is on another branch\n{}",
                render::position(&run, self.at)
            );
        }
        if !a.moved {
            return format!(
                "end of the path: no step after {}\n",
                render::header(&run, self.at)
            );
        }
        let mut out = match a.stop {
            Stop::Breakpoint(line) => format!("breakpoint at line {line}\n"),
            Stop::End => match target {
                Some(line) => format!("line {line} is not reached on this path\n"),
                None => String::new(),
            },
            Stop::Failure | Stop::Target => String::new(),
        };
        out.push_str(&render::position(&run, self.at));
        out
    }

    /// The split `branches` and `branch` work on: the current step if the
    /// path splits there, else the split the current step is a branch of,
    /// else the next split ahead, else the last one behind.
    pub fn split(&self) -> Option<usize> {
        let t = &self.run_ref().tree;
        if t.is_split(self.at) {
            return Some(self.at);
        }
        if let Some(p) = t.parent(self.at).filter(|p| t.is_split(*p)) {
            return Some(p);
        }
        t.next_split(self.at, &self.choices)
            .or_else(|| t.path(self.at).into_iter().rev().find(|p| t.is_split(*p)))
    }

    fn branches(&self) -> String {
        match self.split() {
            Some(split) => render::branches(self.run_ref(), split, &self.choices),
            None => "the path does not split\n".to_string(),
        }
    }

    fn branch(&mut self, i: usize) -> String {
        let run = self.run.clone();
        let Some(split) = self.split() else {
            return "error: the path does not split\n".to_string();
        };
        let kids = &run.tree.children[split];
        if i > kids.len() {
            return format!(
                "error: the split after {} has {}\n",
                render::header(&run, split),
                plural(kids.len(), "branch", "branches")
            );
        }
        self.choices.insert(split, i - 1);
        self.at = kids[i - 1];
        render::position(&run, self.at)
    }

    fn why(&self) -> String {
        let run = self.run_ref();
        let t = &run.tree;
        if !t.is_failure(self.at) {
            return "no failure at this step (`continue` goes to the next one)\n".to_string();
        }
        let step = t.step(self.at);
        let error = run
            .member()
            .errors
            .iter()
            .find(|e| e.diag.span == step.span);
        let Some(e) = error else {
            return "this failure repeats one reported on another path\n".to_string();
        };
        // Explain along the path of the session, not the reported one.
        let mut e = e.clone();
        e.trace = t
            .path(self.at)
            .into_iter()
            .map(|n| t.step(n).clone())
            .collect();
        let lines = explain::explain(&e, &run.source);
        let mut out = format!("{}: {}\n", e.diag.kind, e.diag.message);
        for n in e.diag.notes.iter().chain(lines.iter()) {
            out.push_str(&format!("  {n}\n"));
        }
        if let Some(help) = &e.diag.help {
            out.push_str(&format!("  help: {help}\n"));
        }
        out
    }

    fn assume(&mut self, expr: &str) -> String {
        let old = self.run.clone();
        let member = old.member().name.clone();
        let ins = match assume::insertion(&old.source, &member, &old.tree, self.at, expr) {
            Ok(i) => i,
            Err(e) => return format!("error: {e}\n"),
        };
        let source = ins.apply(&old.source);
        let (line, _) = line_col(&source, ins.stmt_start);
        let report = self.reverify(&source);
        if report.stage != Stage::Verified {
            let mut out =
                format!("error: `assume {expr};` does not type-check; the program is unchanged\n");
            for e in &report.errors {
                let (l, c) = line_col(&source, e.diag.span.start);
                out.push_str(&format!(
                    "  line {l}:{c}: {}: {}\n",
                    e.diag.kind, e.diag.message
                ));
            }
            return out;
        }
        let Some(index) = report.members.iter().position(|m| m.name == member) else {
            return format!("error: `{member}` is gone from the program\n");
        };
        let run = Run::new(source, report, index);
        if run.tree.is_empty() {
            return format!("error: `{member}` has no steps after the change\n");
        }
        let before = old.member().errors.len();
        let now = run.member().errors.len();
        let status = if now == 0 {
            "verified".to_string()
        } else {
            plural(now, "error", "errors")
        };
        let (at, found) = assume::corresponding(&old.tree, self.at, &run.tree, &ins);
        let mut out = format!(
            "inserted `assume {expr};` at line {line} and verified again: {member} {status} (before: {})\n",
            plural(before, "error", "errors")
        );
        if !found {
            out.push_str(
                "no path of the new tree reaches the inserted `assume` from here (the path ends before it, or it contradicts the path)\n",
            );
        }
        self.replace_run(run, at);
        out.push_str(&render::position(self.run_ref(), self.at));
        out
    }
}
