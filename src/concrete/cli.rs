//! `sift run`: one method on literal arguments, printed for a person.

use std::io::Write;

use super::{Limits, Outcome, Run, inputs, run_method};
use crate::diag::line_col;
use crate::report::text;
use crate::stack::with_big_stack;
use crate::symbolic::program::{MethodInfo, ProgramInfo};
use crate::verify::{FileReport, checked_program_with};

/// The checked program of a file, or its parse and type errors printed
/// (exit status 2).
pub fn load(path: &str, source: &str, overflow: bool) -> Result<ProgramInfo, u8> {
    match checked_program_with(path, source, overflow) {
        Ok((program, _)) => Ok(with_big_stack(move || ProgramInfo::new(program))),
        Err(report) => {
            print_front_errors(&report);
            Err(2)
        }
    }
}

fn print_front_errors(report: &FileReport) {
    let color = std::io::IsTerminal::is_terminal(&std::io::stderr());
    eprint!("{}", text::render_file(report, color));
    eprintln!("{}: nothing was run", report.path);
}

/// `Class.name` to the method it names, or a message listing the methods.
pub fn find_method<'p>(prog: &'p ProgramInfo, name: &str) -> Result<&'p MethodInfo, String> {
    let found = name
        .split_once('.')
        .and_then(|(c, m)| prog.method(c, m))
        .filter(|mi| !mi.decl.is_constructor);
    found.ok_or_else(|| {
        let mut names: Vec<String> = prog
            .methods
            .values()
            .filter(|mi| !mi.decl.is_constructor)
            .map(|mi| format!("{}.{}", mi.class, mi.decl.name.name))
            .collect();
        names.sort();
        format!(
            "no method `{name}` (write `Class.method`; methods here: {})",
            names.join(", ")
        )
    })
}

/// `sift run FILE --method C.m ARG...` (`overflow`: `--overflow`, the
/// interpreter raises `overflow` where `verify --overflow` checks): exit status 0 when the method
/// returns (or stops at a false `assume`), 1 when a check fails or a
/// budget runs out, 2 for bad input.
pub fn run_command(
    path: &str,
    source: &str,
    method: &str,
    args: &[String],
    limits: Limits,
    infer: bool,
    overflow: bool,
) -> u8 {
    let prog = match load(path, source, overflow) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let mi = match find_method(&prog, method) {
        Ok(mi) => mi,
        Err(msg) => {
            eprintln!("error: {msg}");
            return 2;
        }
    };
    let inputs = match inputs::from_literals(&prog, mi, args) {
        Ok(i) => i,
        Err(msg) => {
            eprintln!("error: {msg}");
            return 2;
        }
    };
    let shown_args: Vec<String> = inputs.args.iter().map(|v| v.to_string()).collect();
    let call = format!("{method}({})", shown_args.join(", "));
    let run = run_method(
        &prog,
        source,
        &mi.class,
        &mi.decl.name.name,
        inputs,
        limits,
        infer,
    );
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let _ = write!(out, "{}", describe_run(path, source, &call, &run));
    match run.outcome {
        Outcome::Returned(_) | Outcome::AssumeFalse(_) | Outcome::Unchecked(_) => 0,
        Outcome::Failed(_) | Outcome::Limit(_) => 1,
    }
}

/// A run's outcome as text: the result and final heap, or the failed
/// check with the store and heap where it failed.
pub fn describe_run(path: &str, source: &str, call: &str, run: &Run) -> String {
    let mut s = String::new();
    match &run.outcome {
        Outcome::Returned(v) => {
            match v {
                Some(v) => s.push_str(&format!("{call} returned {}\n", run.heap.show(*v))),
                None => s.push_str(&format!("{call} returned\n")),
            }
            for line in run.heap.render() {
                s.push_str(&format!("  heap: {line}\n"));
            }
        }
        Outcome::Failed(f) => {
            let (line, col) = line_col(source, f.span.start);
            s.push_str(&format!(
                "{path}:{line}:{col}: {}: {} (in {call})\n",
                f.kind, f.message
            ));
            if let Some(text) = source.lines().nth(line - 1) {
                s.push_str(&format!("  {line} | {}\n", text.trim_end()));
            }
            for (k, v) in &f.store {
                s.push_str(&format!("  store: {k} = {v}\n"));
            }
            for h in &f.heap {
                s.push_str(&format!("  heap: {h}\n"));
            }
            if !f.held.is_empty() {
                s.push_str(&format!("  held: {}\n", f.held.join(", ")));
            }
        }
        Outcome::Limit(why) => s.push_str(&format!("{path}: {call}: stopped: {why}\n")),
        Outcome::AssumeFalse(span) => {
            let (line, _) = line_col(source, span.start);
            s.push_str(&format!(
                "{call} stopped at the `assume` on line {line}, which is false for these inputs\n"
            ));
        }
        Outcome::Unchecked(span) => {
            let (line, _) = line_col(source, span.start);
            s.push_str(&format!(
                "{call} stopped at the quantifier on line {line}: {}\n",
                crate::record::words::UNCHECKED_QUANTIFIER
            ));
        }
    }
    s
}
