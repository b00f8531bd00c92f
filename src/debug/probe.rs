//! Questions about the state at a step, answered by the engine itself:
//! `prove EXPR` puts `assert EXPR;` at the step's point of the program
//! (where `assume` would go), and the value of an expression is read from
//! a declaration `T v = EXPR;` put there. The member is verified again and
//! the inserted statement is looked up along the path that matches the
//! session's, so the answer is about that path alone. Nothing evaluates
//! expressions a second way: the recorded states are text, and the
//! verifier is what knows what they mean.

use super::Run;
use super::assume::{self, Insertion};
use crate::record::step::StmtForm;
use crate::verify::{ErrorReport, Options, Stage, verify_source};

/// What `prove` found at a step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Proof {
    /// The fact holds on the path.
    Holds,
    /// It might not hold: the failure's message and the counterexample.
    MightNotHold {
        message: String,
        counterexample: Vec<(String, String)>,
    },
    /// No path of the program with the assertion reaches it from here.
    NotReached,
}

/// How to verify a changed program as the session does.
#[derive(Clone)]
pub struct Prober {
    pub path: String,
    pub opts: Options,
}

/// A verification of the program with one statement inserted.
struct Probed {
    run: Run,
    ins: Insertion,
    /// The inserted statement's step on the path matching the old one.
    step: Option<usize>,
}

fn inside(ins: &Insertion, span: &std::ops::Range<usize>) -> bool {
    let end = ins.offset + ins.text.len();
    span.start >= ins.stmt_start && span.end <= end
}

impl Prober {
    fn probe(&self, run: &Run, at: usize, stmt: &str, form: StmtForm) -> Result<Probed, String> {
        let member = run.member().name.clone();
        let ins = assume::insertion_of(&run.source, &member, &run.tree, at, stmt)?;
        let source = ins.apply(&run.source);
        let report = verify_source(&self.path, &source, &self.opts);
        if report.stage != Stage::Verified {
            let first = report
                .errors
                .first()
                .map(|e| e.diag.message.clone())
                .unwrap_or_default();
            return Err(format!("`{stmt}` does not type-check here: {first}"));
        }
        let Some(index) = report.members.iter().position(|m| m.name == member) else {
            return Err(format!("`{member}` is gone from the program"));
        };
        let new = Run::new(source, report, index);
        let step = assume::exact_stmt(&run.tree, at, &new.tree, &ins, form);
        Ok(Probed {
            run: new,
            ins,
            step,
        })
    }

    /// A failure of the inserted statement, on the path to `near` when
    /// there is one, else anywhere.
    fn failure_in(p: &Probed, near: Option<usize>) -> Option<&ErrorReport> {
        let t = &p.run.tree;
        let local = near.and_then(|n| {
            t.siblings(n)
                .iter()
                .copied()
                .find(|s| t.is_failure(*s) && inside(&p.ins, &t.step(*s).span))
        });
        let span = match local {
            Some(f) => t.step(f).span.clone(),
            None if near.is_some() => return None,
            None => (0..t.nodes.len())
                .find(|f| t.is_failure(*f) && inside(&p.ins, &t.step(*f).span))
                .map(|f| t.step(f).span.clone())?,
        };
        p.run.member().errors.iter().find(|e| e.diag.span == span)
    }

    /// Whether `expr` holds at step `at` of `run`.
    pub fn prove(&self, run: &Run, at: usize, expr: &str) -> Result<Proof, String> {
        let expr = assume::clean_expr(expr)?;
        let p = self.probe(run, at, &format!("assert {expr};"), StmtForm::Assert)?;
        let failed = Self::failure_in(&p, p.step);
        Ok(match (p.step, failed) {
            (_, Some(e)) => Proof::MightNotHold {
                message: e.diag.message.clone(),
                counterexample: e.counterexample.clone(),
            },
            (Some(_), None) => Proof::Holds,
            (None, None) => Proof::NotReached,
        })
    }

    /// The symbolic value of `expr` at step `at` of `run`, in program terms.
    pub fn value(&self, run: &Run, at: usize, expr: &str) -> Result<String, String> {
        let expr = assume::clean_expr(expr)?;
        if let Some((_, v)) = run.tree.step(at).store.iter().find(|(k, _)| *k == expr) {
            return Ok(v.clone());
        }
        let mut name = "sift_value".to_string();
        while run.source.contains(&name) {
            name.push('_');
        }
        let member = run.member().name.clone();
        let ty = self.type_of(run, at, &member, &name, &expr)?;
        let p = self.probe(
            run,
            at,
            &format!("{ty} {name} = {expr};"),
            StmtForm::Declare,
        )?;
        if let Some(n) = p.step
            && let Some((_, v)) = p.run.tree.step(n).store.iter().find(|(k, _)| *k == name)
        {
            return Ok(v.clone());
        }
        match Self::failure_in(&p, None) {
            Some(e) => Err(format!(
                "`{expr}` cannot be evaluated here: {}",
                e.diag.message
            )),
            None => Err(format!("`{expr}` is not reached on this path")),
        }
    }

    /// The type a declaration of `expr` needs: the first of `int`, `bool`,
    /// the classes and their arrays with which the program type-checks.
    fn type_of(
        &self,
        run: &Run,
        at: usize,
        member: &str,
        name: &str,
        expr: &str,
    ) -> Result<String, String> {
        let program = crate::syntax::parse(&run.source)
            .map_err(|d| format!("the program does not parse: {}", d.message))?;
        let mut bases = vec!["int".to_string(), "bool".to_string()];
        bases.extend(program.classes.iter().map(|c| c.name.name.clone()));
        let arrays: Vec<String> = bases.iter().map(|b| format!("{b}[]")).collect();
        let mut first_error = None;
        for ty in bases.iter().chain(arrays.iter()) {
            let stmt = format!("{ty} {name} = {expr};");
            let ins = assume::insertion_of(&run.source, member, &run.tree, at, &stmt)?;
            let source = ins.apply(&run.source);
            let mut p = match crate::syntax::parse(&source) {
                Ok(p) => p,
                Err(d) => return Err(format!("`{expr}` does not parse: {}", d.message)),
            };
            let errors = crate::check::check(&mut p);
            let ours: Vec<_> = errors.iter().filter(|d| inside(&ins, &d.span)).collect();
            if errors.is_empty() {
                return Ok(ty.clone());
            }
            // An error about the expression itself (not its type) is the
            // same whatever the declared type: say it.
            if first_error.is_none() {
                first_error = ours.first().map(|d| d.message.clone());
            }
        }
        Err(format!(
            "`{expr}` does not type-check here: {}",
            first_error.unwrap_or_else(|| "no type fits it".to_string())
        ))
    }
}

/// `prove EXPR` as `sift debug` prints it.
pub fn proof_text(expr: &str, proof: &Proof) -> String {
    match proof {
        Proof::Holds => format!("`{expr}` holds on this path\n"),
        Proof::NotReached => format!(
            "`{expr}` cannot be checked here: no path of the program with the assertion reaches this step\n"
        ),
        Proof::MightNotHold {
            message,
            counterexample,
        } => {
            let mut out = format!("`{expr}` might not hold on this path ({message})\n");
            if !counterexample.is_empty() {
                let values: Vec<String> = counterexample
                    .iter()
                    .map(|(k, v)| format!("{k} = {v}"))
                    .collect();
                out.push_str(&format!("  counterexample: {}\n", values.join(", ")));
            }
            out
        }
    }
}
