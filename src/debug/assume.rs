//! EFFIGY's `assume(P); go` for `sift debug`: the program text gets an
//! `assume P;` statement at the point of execution the session stands on,
//! and the member is verified again. This module finds that point in the
//! source and, on the new execution tree, the step of the inserted `assume`
//! that corresponds to the old position.

use super::tree::Tree;
use crate::record::step::{Arm, StepKind, StmtForm};
use crate::syntax::ast::Span;
use crate::syntax::ast::{Block, Expr, Method, Stmt, StmtKind};

/// Where and what to insert.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Insertion {
    /// Byte offset in the old source.
    pub offset: usize,
    pub text: String,
    /// Where the `assume` statement starts in the new source.
    pub stmt_start: usize,
    /// How many steps of the old path to the step come before the inserted
    /// statement (the same steps lead to it in the new tree).
    pub steps_before: usize,
}

impl Insertion {
    /// An old offset in the new source.
    pub fn map(&self, offset: usize) -> usize {
        if offset >= self.offset {
            offset + self.text.len()
        } else {
            offset
        }
    }

    /// An old span in the new source: text inserted where the span ends
    /// comes after it (a statement inserted right after another one).
    pub fn map_span(&self, span: &Span) -> Span {
        let start = self.map(span.start);
        let end = if span.end > self.offset {
            span.end + self.text.len()
        } else {
            span.end
        };
        start..end.max(start)
    }

    pub fn apply(&self, source: &str) -> String {
        let mut out = String::with_capacity(source.len() + self.text.len());
        out.push_str(&source[..self.offset]);
        out.push_str(&self.text);
        out.push_str(&source[self.offset..]);
        out
    }
}

/// Checks that `expr` is one expression's worth of text (no statement or
/// comment smuggled in) and strips a final `;`.
pub fn clean_expr(expr: &str) -> Result<String, String> {
    let e = expr.trim();
    let e = e.strip_suffix(';').unwrap_or(e).trim();
    if e.is_empty() {
        return Err("usage: assume EXPR".to_string());
    }
    if e.contains([';', '{', '}']) || e.contains("//") || e.contains("/*") {
        return Err("expected a single expression (no `;`, braces or comments)".to_string());
    }
    Ok(e.to_string())
}

enum Point {
    /// Before the statement with this span.
    Before(Span),
    After(usize),
    BlockStart(Span),
}

/// The place for `assume expr;` at step `n` of `member`'s tree: a failure
/// stands before the statement that failed, a statement's step after that
/// statement (before a `return`), a branch or loop-body step at the start
/// of its block, the entry at the start of the body, and the step after a
/// loop right after the loop.
pub fn insertion(
    source: &str,
    member: &str,
    tree: &Tree,
    n: usize,
    expr: &str,
) -> Result<Insertion, String> {
    insertion_of(source, member, tree, n, &format!("assume {expr};"))
}

/// The place for the statement `stmt` (one line of Sift, ending in `;`)
/// at step `n`: where [`insertion`] puts an `assume`.
pub fn insertion_of(
    source: &str,
    member: &str,
    tree: &Tree,
    n: usize,
    stmt: &str,
) -> Result<Insertion, String> {
    let program = crate::syntax::parse(source)
        .map_err(|d| format!("the program does not parse: {}", d.message))?;
    let (class, name) = member.split_once('.').unwrap_or(("", member));
    let method = program
        .classes
        .iter()
        .filter(|c| c.name.name == class)
        .flat_map(|c| c.methods.iter())
        .find(|m| m.name.name == name)
        .ok_or_else(|| {
            format!(
                "statements go into method and constructor bodies only, and `{member}` is not a method (`assume`, `prove` and values of expressions need one)"
            )
        })?;
    let point = point_of(method, tree, n)?;
    let (offset, text) = match point {
        Point::Before(ref s) => (s.start, format!("{stmt} ")),
        Point::After(at) => (at, format!(" {stmt}")),
        Point::BlockStart(ref block) => {
            if !source[block.start..].starts_with('{') {
                return Err("cannot put a statement here (an `else if` without braces)".to_string());
            }
            (block.start + 1, format!(" {stmt}"))
        }
    };
    let stmt_start = offset + text.len() - text.trim_start().len();
    // The last step on the path before the insertion: the step itself, or
    // (before a statement) the last step outside that statement (a failure
    // is outside every statement it does not stand in: its parent).
    let mut anchor = Some(n);
    if let Point::Before(stmt) = &point {
        while let Some(a) = anchor {
            let span = &tree.step(a).span;
            let inside = stmt.start <= span.start && span.end <= stmt.end;
            if !inside && !tree.is_failure(a) {
                break;
            }
            anchor = tree.parent(a);
        }
    } else if tree.is_failure(n) {
        anchor = tree.parent(n);
    }
    Ok(Insertion {
        offset,
        text,
        stmt_start,
        steps_before: anchor.map_or(0, |a| tree.depth(a)),
    })
}

fn point_of(m: &Method, tree: &Tree, n: usize) -> Result<Point, String> {
    let step = tree.step(n);
    let span = &step.span;
    let mut stmts = Vec::new();
    collect(&m.body, &mut stmts);
    let stmt_at = |p: &dyn Fn(&Stmt) -> bool| stmts.iter().copied().filter(|s| p(s)).last();
    let unknown = || {
        format!(
            "cannot tell where the step `{}` is in the method body",
            step.kind
        )
    };
    let branch = |s: &Stmt| matches!(&s.kind, StmtKind::If { cond, .. } if cond.span == *span);
    let looping = |s: &Stmt| loop_parts(s).is_some_and(|(cond, _)| cond.span == *span);
    match &step.kind {
        StepKind::MethodEntry | StepKind::PreconditionProduced => {
            Ok(Point::BlockStart(m.body.span.clone()))
        }
        StepKind::Failed { .. } => {
            // The innermost statement holding the failure, else where the
            // path stood before it (a postcondition or an invariant at the
            // end).
            // A failure in a `do` loop's header (its invariant or
            // condition) comes after its body ran, as one in a loop body.
            let inside = stmt_at(&|s| s.span.start <= span.start && span.end <= s.span.end);
            if let Some(s) = inside
                && !in_loop_body(tree, n, s)
                && !matches!(
                    s.kind,
                    StmtKind::While {
                        body_first: true,
                        ..
                    }
                )
            {
                return Ok(Point::Before(s.span.clone()));
            }
            match tree.parent(n) {
                Some(p) => point_of(m, tree, p),
                None => Ok(Point::BlockStart(m.body.span.clone())),
            }
        }
        StepKind::Branch { arm, .. } => {
            let Some(s) = stmt_at(&branch) else {
                return Err(unknown());
            };
            let StmtKind::If { then, els, .. } = &s.kind else {
                return Err(unknown());
            };
            Ok(match (arm, els) {
                (Arm::Then, _) => Point::BlockStart(then.span.clone()),
                (Arm::Else, Some(e)) => Point::BlockStart(e.span.clone()),
                (Arm::Else, None) => Point::After(s.span.end),
            })
        }
        StepKind::LoopBody { .. } | StepKind::LoopAfter { .. } => {
            let Some(s) = stmt_at(&looping) else {
                return Err(unknown());
            };
            let Some((_, body)) = loop_parts(s) else {
                return Err(unknown());
            };
            Ok(match step.kind {
                StepKind::LoopBody { .. } => Point::BlockStart(body.span.clone()),
                _ => Point::After(s.span.end),
            })
        }
        StepKind::Statement { .. }
        | StepKind::Join { .. }
        | StepKind::Inferred(_)
        | StepKind::LoopFrame { .. }
        | StepKind::LoopBreak { .. } => {
            match stmt_at(&|s| s.span == *span) {
                // Nothing runs after these in their block.
                Some(s)
                    if matches!(
                        s.kind,
                        StmtKind::Return(_) | StmtKind::Break | StmtKind::Continue
                    ) =>
                {
                    Ok(Point::Before(s.span.clone()))
                }
                Some(s) => Ok(Point::After(s.span.end)),
                // A step inside a statement (of the statements `x++` in an
                // `if` condition is lowered to): before the innermost one
                // holding it.
                None => match stmt_at(&|s| s.span.start <= span.start && span.end <= s.span.end) {
                    Some(s) => Ok(Point::Before(s.span.clone())),
                    None => Err(unknown()),
                },
            }
        }
    }
}

/// Whether the path to `n` is inside the body of the loop `s` (a failure
/// in an invariant is then at the end of the body, not before the loop).
fn in_loop_body(tree: &Tree, n: usize, s: &Stmt) -> bool {
    let Some((cond, _)) = loop_parts(s) else {
        return false;
    };
    tree.path(n).into_iter().any(|p| {
        let step = tree.step(p);
        matches!(step.kind, StepKind::LoopBody { .. }) && step.span == cond.span
    })
}

/// The condition and body of a `while` or `for` loop.
fn loop_parts(s: &Stmt) -> Option<(&Expr, &Block)> {
    match &s.kind {
        StmtKind::While { cond, body, .. } => Some((cond, body)),
        StmtKind::For(f) => Some((&f.cond, &f.body)),
        _ => None,
    }
}

/// Every statement of a block, nested ones after the one holding them (in
/// source order).
fn collect<'a>(b: &'a Block, out: &mut Vec<&'a Stmt>) {
    out.extend(crate::syntax::walk::statements(&b.stmts));
}

/// The step of the new tree to continue at: the inserted `assume` reached
/// along the path that best matches the old one, else the last step of the
/// old path that the new tree still has. The flag says whether the
/// `assume` step was found.
pub fn corresponding(old: &Tree, old_node: usize, new: &Tree, ins: &Insertion) -> (usize, bool) {
    corresponding_stmt(old, old_node, new, ins, StmtForm::Assume)
}

/// A step as the other tree would have it: its span (moved past the
/// insertion for a step of the old tree) and kind.
fn key(t: &Tree, n: usize, ins: &Insertion, old: bool) -> (Span, StepKind) {
    let s = t.step(n);
    let span = if old {
        ins.map_span(&s.span)
    } else {
        s.span.clone()
    };
    (span, s.kind.clone())
}

/// The step of the inserted statement of the form `form` whose path best
/// matches the old path to `old_node`, and how many steps of that path it
/// shares.
fn best_stmt(
    old: &Tree,
    old_node: usize,
    new: &Tree,
    ins: &Insertion,
    form: StmtForm,
) -> Option<(usize, usize)> {
    let old_path: Vec<_> = old
        .path(old_node)
        .into_iter()
        .map(|n| key(old, n, ins, true))
        .collect();
    let common = |path: &[usize]| {
        path.iter()
            .zip(&old_path)
            .take_while(|(n, k)| key(new, **n, ins, false) == **k)
            .count()
    };
    let mut best: Option<(usize, usize)> = None;
    for n in 0..new.nodes.len() {
        let s = new.step(n);
        let inserted = matches!(s.kind, StepKind::Statement { form: f, .. } if f == form);
        if s.span.start != ins.stmt_start || !inserted {
            continue;
        }
        let path = new.path(n);
        let score = common(&path[..path.len() - 1]);
        if best.is_none_or(|(_, b)| score > b) {
            best = Some((n, score));
        }
    }
    best
}

/// [`corresponding`] for an inserted statement of the form `form`.
pub fn corresponding_stmt(
    old: &Tree,
    old_node: usize,
    new: &Tree,
    ins: &Insertion,
    form: StmtForm,
) -> (usize, bool) {
    if let Some((n, _)) = best_stmt(old, old_node, new, ins, form) {
        return (n, true);
    }
    // Follow the old path as far as the new tree has it.
    let mut at: Option<usize> = None;
    for n in old.path(old_node) {
        let k = key(old, n, ins, true);
        let cands = match at {
            None => &new.roots,
            Some(a) => &new.children[a],
        };
        match cands.iter().find(|c| key(new, **c, ins, false) == k) {
            Some(c) => at = Some(*c),
            None => break,
        }
    }
    (at.or(new.roots.first().copied()).unwrap_or(0), false)
}

/// The step of the inserted statement on the very path of `old_node`: its
/// path in the new tree repeats every step of the old one up to the
/// insertion point (`Insertion::steps_before`). `None` when no path of the
/// new tree does, so that an answer about another path is never given for
/// this one.
pub fn exact_stmt(
    old: &Tree,
    old_node: usize,
    new: &Tree,
    ins: &Insertion,
    form: StmtForm,
) -> Option<usize> {
    best_stmt(old, old_node, new, ins, form)
        .filter(|(_, score)| *score >= ins.steps_before)
        .map(|(n, _)| n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Kind;
    use crate::record::Reason;
    use crate::verify::{TraceStep, TreeNode};

    const ENTRY: StepKind = StepKind::MethodEntry;

    fn stmt(form: StmtForm, text: &str) -> StepKind {
        StepKind::Statement {
            form,
            text: text.to_string(),
        }
    }

    fn branch(cond: &str, arm: Arm) -> StepKind {
        StepKind::Branch {
            cond: cond.to_string(),
            arm,
        }
    }

    fn fails(kind: Kind, fact: &str) -> StepKind {
        StepKind::Failed {
            kind,
            reason: Reason::MightNotHold {
                fact: fact.to_string(),
            },
            obligation: true,
            resumes: kind == Kind::AssertFailed,
        }
    }

    const SRC: &str = "class A {
  static int m(int x) {
    int y = x;
    if (y > 0) {
      y = 1;
    } else {
      y = 2;
    }
    while (y < 5) invariant y <= 5; {
      y = y + 1;
    }
    assert y == 5;
    return y;
  }
  static int n(int x) {
    do {
      x = x + 2;
      if (x > 9) { break; }
    } while (x < 7) invariant x >= 3;
    return x;
  }
}
";

    /// A path of steps, each at the first occurrence of its text.
    fn tree(steps: &[(&str, StepKind)]) -> Tree {
        let nodes = steps
            .iter()
            .enumerate()
            .map(|(i, (at, kind))| {
                let start = SRC.find(at).expect("text in source");
                TreeNode {
                    parent: i.checked_sub(1),
                    step: TraceStep {
                        elided: false,
                        span: start..start + at.len(),
                        kind: kind.clone(),
                        heap: Vec::new(),
                        store: Vec::new(),
                        pc: Vec::new(),
                    },
                }
            })
            .collect();
        Tree::new(nodes)
    }

    fn inserted(steps: &[(&str, StepKind)]) -> String {
        inserted_in("A.m", steps)
    }

    fn inserted_in(member: &str, steps: &[(&str, StepKind)]) -> String {
        let t = tree(steps);
        let ins = insertion(SRC, member, &t, steps.len() - 1, "P").expect("an insertion point");
        let out = ins.apply(SRC);
        assert!(out[ins.stmt_start..].starts_with("assume P;"));
        let (line, _) = crate::diag::line_col(&out, ins.stmt_start);
        crate::diag::lines(&out)
            .nth(line - 1)
            .unwrap_or("")
            .trim()
            .to_string()
    }

    #[test]
    fn points_of_insertion() {
        let entry = ("m", ENTRY);
        assert_eq!(
            inserted(std::slice::from_ref(&entry)),
            "static int m(int x) { assume P;"
        );
        assert_eq!(
            inserted(&[
                entry.clone(),
                ("int y = x;", stmt(StmtForm::Declare, "int y = x;"))
            ]),
            "int y = x; assume P;"
        );
        assert_eq!(
            inserted(&[entry.clone(), ("y > 0", branch("y > 0", Arm::Then))]),
            "if (y > 0) { assume P;"
        );
        assert_eq!(
            inserted(&[entry.clone(), ("y > 0", branch("y > 0", Arm::Else))]),
            "} else { assume P;"
        );
        assert_eq!(
            inserted(&[
                entry.clone(),
                (
                    "y < 5",
                    StepKind::LoopBody {
                        cond: "y < 5".into()
                    }
                )
            ]),
            "while (y < 5) invariant y <= 5; { assume P;"
        );
        assert_eq!(
            inserted(&[
                entry.clone(),
                (
                    "y < 5",
                    StepKind::LoopAfter {
                        cond: "y < 5".into()
                    }
                )
            ]),
            "} assume P;"
        );
        assert_eq!(
            inserted(&[
                entry.clone(),
                ("y == 5", fails(Kind::AssertFailed, "y == 5"))
            ]),
            "assume P; assert y == 5;"
        );
        assert_eq!(
            inserted(&[
                entry.clone(),
                ("return y;", stmt(StmtForm::Return, "return y;"))
            ]),
            "assume P; return y;"
        );
        // An invariant that fails at the end of the body: after its last statement.
        let preserved = [
            entry.clone(),
            (
                "y < 5",
                StepKind::LoopBody {
                    cond: "y < 5".into(),
                },
            ),
            ("y = y + 1;", stmt(StmtForm::Assign, "y = y + 1;")),
            ("y <= 5", fails(Kind::InvariantNotPreserved, "y <= 5")),
        ];
        assert_eq!(inserted(&preserved), "y = y + 1; assume P;");
        // An invariant that fails on entry: before the loop.
        let established = [
            entry,
            ("y <= 5", fails(Kind::InvariantNotEstablished, "y <= 5")),
        ];
        assert_eq!(
            inserted(&established),
            "assume P; while (y < 5) invariant y <= 5; {"
        );
    }

    #[test]
    fn steps_before_the_insertion() {
        let before = |steps: &[(&str, StepKind)]| {
            let t = tree(steps);
            insertion(SRC, "A.m", &t, steps.len() - 1, "P")
                .expect("an insertion point")
                .steps_before
        };
        let entry = ("m", ENTRY);
        let decl = ("int y = x;", stmt(StmtForm::Declare, "int y = x;"));
        // After a statement: the whole path.
        assert_eq!(before(&[entry.clone(), decl.clone()]), 2);
        // Before the failed statement: all but the failure.
        let failed = ("y == 5", fails(Kind::AssertFailed, "y == 5"));
        assert_eq!(before(&[entry.clone(), decl.clone(), failed]), 2);
        // Before a `return`: not the `return` itself.
        let ret = ("return y;", stmt(StmtForm::Return, "return y;"));
        assert_eq!(before(&[entry, decl, ret]), 2);
    }

    #[test]
    fn points_in_do_loops_and_at_breaks() {
        let entry = ("n", ENTRY);
        // The invariant fails at the first test, after the body ran once:
        // after its last statement, not before the loop.
        let first_test = [
            entry.clone(),
            ("x = x + 2;", stmt(StmtForm::Assign, "x = x + 2;")),
            ("x >= 3", fails(Kind::InvariantNotEstablished, "x >= 3")),
        ];
        assert_eq!(inserted_in("A.n", &first_test), "x = x + 2; assume P;");
        // A `break`, and the frame back after it: before the `break`.
        let broke = [
            entry,
            ("x = x + 2;", stmt(StmtForm::Assign, "x = x + 2;")),
            ("x > 9", branch("x > 9", Arm::Then)),
            ("break;", stmt(StmtForm::Break, "break;")),
            (
                "break;",
                StepKind::LoopBreak {
                    cond: "x < 7".into(),
                },
            ),
        ];
        assert_eq!(
            inserted_in("A.n", &broke),
            "if (x > 9) { assume P; break; }"
        );
    }

    #[test]
    fn offsets_move_past_the_insertion() {
        let ins = Insertion {
            offset: 10,
            text: "assume P; ".to_string(),
            stmt_start: 10,
            steps_before: 0,
        };
        assert_eq!(ins.map(9), 9);
        assert_eq!(ins.map(10), 20);
        assert_eq!(ins.map_span(&(4..10)), 4..10);
        assert_eq!(ins.map_span(&(4..11)), 4..21);
        assert_eq!(ins.map_span(&(10..10)), 20..20);
    }

    #[test]
    fn assumptions_are_one_expression() {
        assert_eq!(clean_expr(" x > 0; "), Ok("x > 0".to_string()));
        assert!(clean_expr("").is_err());
        assert!(clean_expr("x > 0; x = 1").is_err());
        assert!(clean_expr("x > 0 // c").is_err());
        assert!(clean_expr("{ }").is_err());
    }

    #[test]
    fn members_that_are_not_methods_take_no_assume() {
        let t = tree(&[("m", ENTRY)]);
        assert!(insertion(SRC, "A.nope", &t, 0, "P").is_err());
    }
}
