//! `sift debug`: an interactive symbolic debugger in the manner of King's
//! EFFIGY, over the execution tree of one member (paper section 6.2: "the
//! programmer can then inspect the symbolic states on the path leading to
//! the failure"). The tree is computed once by verifying with
//! `keep_steps`; stepping, breakpoints, branch choice and save/restore move
//! over it, and `assume` edits the program and verifies it again.
//!
//! Commands come from a terminal with line editing, or line by line from a
//! pipe with nothing echoed, so that scripted sessions print exactly the
//! states they visit.

mod assume;
mod commands;
mod probe;
pub mod render;
pub mod tree;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::{BufRead, IsTerminal, Write};
use std::process::ExitCode;
use std::rc::Rc;

use crate::record::StepKind;
use crate::record::words::LimitNames;
use crate::report::text;
use crate::verify::{FileReport, MemberKind, MemberReport, Options, Stage, verify_source};
use tree::{Choices, Tree};

pub use assume::clean_expr;
pub use commands::{Advance, Command, Stop, parse_command};
pub use probe::{Prober, Proof};

/// One verification of the program: its text, report, and the tree of the
/// member being debugged.
pub struct Run {
    pub source: String,
    pub report: FileReport,
    pub member: usize,
    pub tree: Tree,
}

impl Run {
    pub fn new(source: String, report: FileReport, member: usize) -> Run {
        // A copy: `member` may switch to another member and back.
        let nodes = report.members[member].tree.clone();
        Run {
            source,
            report,
            member,
            tree: Tree::new(nodes),
        }
    }

    pub fn member(&self) -> &MemberReport {
        &self.report.members[self.member]
    }

    /// The line of step `n`, from 1.
    pub fn line(&self, n: usize) -> usize {
        self.tree.line(&self.source, n)
    }
}

/// A position that `save` remembers: the program too, since `assume`
/// changes it.
#[derive(Clone)]
struct Saved {
    run: Rc<Run>,
    at: usize,
    choices: Choices,
}

/// Whether the session goes on after a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    Go,
    Quit,
}

pub struct Session {
    path: String,
    opts: Options,
    run: Rc<Run>,
    at: usize,
    choices: Choices,
    breaks: BTreeSet<usize>,
    saved: BTreeMap<String, Saved>,
}

fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("{n} {one}")
    } else {
        format!("{n} {many}")
    }
}

/// The member to debug: the one named (`C.m`, or `m` when only one class
/// has it), else the first that failed, else the first method.
pub fn pick_member(report: &FileReport, name: Option<&str>) -> Result<usize, String> {
    let members = &report.members;
    if let Some(name) = name {
        if let Some(i) = members.iter().position(|m| m.name == name) {
            return Ok(i);
        }
        let short: Vec<usize> = (0..members.len())
            .filter(|i| members[*i].name.rsplit('.').next() == Some(name))
            .collect();
        if short.len() == 1 {
            return Ok(short[0]);
        }
        let names: Vec<&str> = members.iter().map(|m| m.name.as_str()).collect();
        let what = if short.len() > 1 {
            "is ambiguous"
        } else {
            "is not a member of"
        };
        return Err(format!(
            "`{name}` {what} `{}`; its members: {}",
            report.path,
            names.join(", ")
        ));
    }
    members
        .iter()
        .position(|m| !m.verified())
        .or_else(|| {
            members
                .iter()
                .position(|m| matches!(m.kind, MemberKind::Method | MemberKind::Constructor))
        })
        .or(if members.is_empty() { None } else { Some(0) })
        .ok_or_else(|| {
            format!(
                "`{}` has nothing to debug: it declares no members",
                report.path
            )
        })
}

impl Session {
    /// Verifies `source` and opens a session on the chosen member; the
    /// text to print first comes with it.
    pub fn open(
        path: &str,
        source: &str,
        method: Option<&str>,
        opts: &Options,
    ) -> Result<(Session, String), String> {
        let opts = Options {
            keep_steps: true,
            ..opts.clone()
        };
        let report = verify_source(path, source, &opts);
        if report.stage != Stage::Verified {
            return Err(text::render_file(&report, false));
        }
        let member = pick_member(&report, method)?;
        let run = Run::new(source.to_string(), report, member);
        if run.tree.is_empty() {
            return Err(format!(
                "`{}` has no steps to go through",
                run.member().name
            ));
        }
        let mut s = Session {
            path: path.to_string(),
            opts,
            run: Rc::new(run),
            at: 0,
            choices: Choices::new(),
            breaks: BTreeSet::new(),
            saved: BTreeMap::new(),
        };
        let out = s.start();
        Ok((s, out))
    }

    /// Goes to the first failure of the member of `self.run` (else its
    /// first step) and says where that is.
    fn start(&mut self) -> String {
        let m = self.run.member();
        let status = if m.verified() {
            "verified".to_string()
        } else {
            plural(m.errors.len(), "error", "errors")
        };
        let mut out = format!(
            "debugging {} in {}: {}; {} in the execution tree\n",
            m.name,
            self.path,
            status,
            plural(self.run.tree.nodes.len(), "step", "steps")
        );
        self.choices.clear();
        match self.first_failure() {
            Some(f) => {
                self.at = f;
                self.run.tree.choose_path_to(f, &mut self.choices);
                out.push_str("stopped at the first failure\n");
            }
            None => {
                self.at = self.run.tree.roots[0];
                out.push_str("stopped at the start\n");
            }
        }
        out.push_str(&render::position(&self.run, self.at));
        out
    }

    /// The failure node of the member's first error in source order, else
    /// the first failure recorded.
    fn first_failure(&self) -> Option<usize> {
        let t = &self.run.tree;
        let fails: Vec<usize> = (0..t.nodes.len()).filter(|n| t.is_failure(*n)).collect();
        let first = self.run.member().errors.first();
        first
            .and_then(|e| {
                fails.iter().copied().find(|n| {
                    let step = t.step(*n);
                    step.span == e.diag.span
                        && matches!(&step.kind, StepKind::Failed { kind, .. } if *kind == e.diag.kind)
                })
            })
            .or(fails.first().copied())
    }

    /// Runs one line of input; returns what to print.
    pub fn execute(&mut self, line: &str) -> (String, Flow) {
        match parse_command(line) {
            Ok(cmd) => self.run_command(cmd),
            Err(msg) => (format!("error: {msg}\n"), Flow::Go),
        }
    }
}

/// `sift debug FILE [--method C.m] [--timeout S]`, on the program `source`
/// read from the file shown as `shown`.
pub fn run(
    shown: &str,
    source: &str,
    method: Option<&str>,
    timeout_ms: u32,
    infer: bool,
    overflow: bool,
) -> ExitCode {
    let opts = Options {
        timeout_ms,
        infer,
        overflow,
        // `sift debug` takes `--timeout`; the resource limit is fixed.
        limit_names: LimitNames {
            rlimit: None,
            timeout: Some("--timeout".to_string()),
            member_time: None,
        },
        ..Options::default()
    };
    let (mut session, intro) = match Session::open(shown, source, method, &opts) {
        Ok(s) => s,
        Err(msg) => {
            eprint!(
                "{}",
                if msg.ends_with('\n') {
                    msg
                } else {
                    format!("error: {msg}\n")
                }
            );
            return ExitCode::from(2);
        }
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let _ = out.write_all(intro.as_bytes());
    let _ = out.flush();
    if std::io::stdin().is_terminal() {
        interactive(&mut session, &mut out);
    } else {
        plain(&mut session, &mut out);
    }
    ExitCode::SUCCESS
}

/// Commands line by line, nothing echoed (pipes and scripts).
fn plain(session: &mut Session, out: &mut impl Write) {
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        let (text, flow) = session.execute(&line);
        let _ = out.write_all(text.as_bytes());
        let _ = out.flush();
        if flow == Flow::Quit {
            break;
        }
    }
}

/// Commands from a terminal, with line editing and history.
fn interactive(session: &mut Session, out: &mut impl Write) {
    let mut editor = match rustyline::DefaultEditor::new() {
        Ok(e) => e,
        Err(e) => {
            let _ = writeln!(out, "error: no line editing ({e}); reading plain lines");
            return plain(session, out);
        }
    };
    loop {
        match editor.readline("(sift) ") {
            Ok(line) => {
                if !line.trim().is_empty() {
                    let _ = editor.add_history_entry(line.as_str());
                }
                let (text, flow) = session.execute(&line);
                let _ = out.write_all(text.as_bytes());
                let _ = out.flush();
                if flow == Flow::Quit {
                    break;
                }
            }
            Err(rustyline::error::ReadlineError::Interrupted) => continue,
            Err(_) => break,
        }
    }
}

/// What other front ends (`sift dap`) read of a session.
impl Session {
    pub fn run(&self) -> &Run {
        &self.run
    }

    /// The run itself, to keep while the session moves on.
    pub fn run_rc(&self) -> Rc<Run> {
        self.run.clone()
    }

    /// The step the session stands on.
    pub fn at(&self) -> usize {
        self.at
    }

    pub fn choices(&self) -> &Choices {
        &self.choices
    }

    /// Verifies changed programs as this session does.
    pub fn prober(&self) -> Prober {
        Prober {
            path: self.path.clone(),
            opts: self.opts.clone(),
        }
    }

    /// Takes branch `i` (from 0) at `split` and goes to its first step.
    pub fn choose(&mut self, split: usize, i: usize) -> bool {
        let Some(&first) = self.run.tree.children[split].get(i) else {
            return false;
        };
        self.choices.insert(split, i);
        self.at = first;
        true
    }

    /// Goes back to the first step of the path, or to the nearest step
    /// behind where `hit` says to stop; whether it moved.
    pub fn retreat(&mut self, hit: &mut dyn FnMut(&Run, usize) -> bool) -> bool {
        let run = self.run.clone();
        let mut moved = false;
        while let Some(p) = run.tree.parent(self.at) {
            self.at = p;
            moved = true;
            if hit(&run, p) {
                break;
            }
        }
        moved
    }
}

/// For `Session`'s commands (in `commands.rs`).
impl Session {
    fn run_ref(&self) -> &Run {
        &self.run
    }

    fn reverify(&self, source: &str) -> FileReport {
        verify_source(&self.path, source, &self.opts)
    }

    fn saved_names(&self) -> String {
        if self.saved.is_empty() {
            "none".to_string()
        } else {
            self.saved.keys().cloned().collect::<Vec<_>>().join(", ")
        }
    }

    fn save(&mut self, name: &str) {
        let s = Saved {
            run: self.run.clone(),
            at: self.at,
            choices: self.choices.clone(),
        };
        self.saved.insert(name.to_string(), s);
    }

    fn restore(&mut self, name: &str) -> bool {
        match self.saved.get(name).cloned() {
            Some(s) => {
                self.run = s.run;
                self.at = s.at;
                self.choices = s.choices;
                true
            }
            None => false,
        }
    }

    /// `member`: the members of the file and their results.
    fn members(&self) -> String {
        let mut out = String::new();
        for (i, m) in self.run.report.members.iter().enumerate() {
            let mark = if i == self.run.member { "*" } else { " " };
            let status = if m.verified() {
                "verified".to_string()
            } else {
                plural(m.errors.len(), "error", "errors")
            };
            out.push_str(&format!("{mark} {}: {status}\n", m.name));
        }
        out
    }

    /// `member C.m`: debug another member of the same program.
    fn switch_member(&mut self, name: &str) -> String {
        let member = match pick_member(&self.run.report, Some(name)) {
            Ok(m) => m,
            Err(e) => return format!("error: {e}\n"),
        };
        let run = Run::new(self.run.source.clone(), self.run.report.clone(), member);
        if run.tree.is_empty() {
            return format!(
                "error: `{}` has no steps to go through\n",
                run.member().name
            );
        }
        self.run = Rc::new(run);
        self.start()
    }

    fn replace_run(&mut self, run: Run, at: usize) {
        self.run = Rc::new(run);
        self.at = at;
        self.choices = HashMap::new();
        self.run.tree.choose_path_to(at, &mut self.choices);
    }
}
