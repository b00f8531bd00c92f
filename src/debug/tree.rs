//! The execution tree of one member (King's "execution tree", section 4),
//! indexed for stepping: children of every node, the path to a node, and
//! the branch choices that decide where `step` goes at a split.

use std::collections::HashMap;

use crate::diag::line_col;
use crate::record::StepKind;
use crate::verify::{TraceStep, TreeNode};

pub struct Tree {
    pub nodes: Vec<TreeNode>,
    pub children: Vec<Vec<usize>>,
    /// Nodes without a parent, in recording order.
    pub roots: Vec<usize>,
}

/// The branch taken at each split, as an index into its children (the
/// first child when absent).
pub type Choices = HashMap<usize, usize>;

impl Tree {
    pub fn new(nodes: Vec<TreeNode>) -> Tree {
        let mut children = vec![Vec::new(); nodes.len()];
        let mut roots = Vec::new();
        for (i, n) in nodes.iter().enumerate() {
            match n.parent {
                Some(p) if p < i => children[p].push(i),
                _ => roots.push(i),
            }
        }
        Tree {
            nodes,
            children,
            roots,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    pub fn step(&self, n: usize) -> &TraceStep {
        &self.nodes[n].step
    }

    pub fn parent(&self, n: usize) -> Option<usize> {
        self.nodes[n].parent.filter(|p| *p < n)
    }

    /// The node and its alternatives: the children of its parent.
    pub fn siblings(&self, n: usize) -> &[usize] {
        match self.parent(n) {
            Some(p) => &self.children[p],
            None => &self.roots,
        }
    }

    /// From the first step of the member to `n`, both included.
    pub fn path(&self, n: usize) -> Vec<usize> {
        let mut out = vec![n];
        let mut at = n;
        while let Some(p) = self.parent(at) {
            out.push(p);
            at = p;
        }
        out.reverse();
        out
    }

    /// The number of the step on its path, from 1.
    pub fn depth(&self, n: usize) -> usize {
        self.path(n).len()
    }

    pub fn is_failure(&self, n: usize) -> bool {
        self.step(n).kind.is_failure()
    }

    pub fn line(&self, source: &str, n: usize) -> usize {
        line_col(source, self.step(n).span.start).0
    }

    /// A failed `assert`: its path goes on, assuming the assertion, from
    /// a sibling of the failure step (docs/language.md section 8).
    pub fn is_resumable_failure(&self, n: usize) -> bool {
        self.children[n].is_empty()
            && matches!(self.step(n).kind, StepKind::Failed { resumes: true, .. })
    }

    /// Where the path of a failed `assert` goes on.
    pub fn resumption(&self, n: usize) -> Option<usize> {
        if !self.is_resumable_failure(n) {
            return None;
        }
        self.siblings(n)
            .iter()
            .copied()
            .find(|s| *s != n && !self.is_failure(*s))
    }

    /// Whether the path really splits at `n`: more than one child, not
    /// counting failed `assert`s whose path goes on.
    pub fn is_split(&self, n: usize) -> bool {
        self.children[n]
            .iter()
            .filter(|c| self.resumption(**c).is_none())
            .count()
            > 1
    }

    /// The step `step` goes to: the chosen child, or past a failed
    /// `assert` where its path goes on.
    pub fn next(&self, n: usize, choices: &Choices) -> Option<usize> {
        let kids = &self.children[n];
        if kids.is_empty() {
            return self.resumption(n).or_else(|| self.joined(n));
        }
        let i = choices.get(&n).copied().unwrap_or(0);
        kids.get(i).or(kids.first()).copied()
    }

    /// Where a path that reached a `join` after the first one goes on: the
    /// `join` step of the merged state (paper section 6.1), which the
    /// first arrival's path leads to.
    pub fn joined(&self, n: usize) -> Option<usize> {
        let step = self.step(n);
        if !self.children[n].is_empty() || !matches!(step.kind, StepKind::Join { .. }) {
            return None;
        }
        (0..self.nodes.len()).find(|m| {
            *m != n
                && !self.children[*m].is_empty()
                && self.step(*m).span == step.span
                && matches!(self.step(*m).kind, StepKind::Join { .. })
        })
    }

    /// The first split at `n` or after it along the chosen branches.
    pub fn next_split(&self, n: usize, choices: &Choices) -> Option<usize> {
        let mut at = n;
        loop {
            if self.is_split(at) {
                return Some(at);
            }
            at = self.next(at, choices)?;
        }
    }

    /// Every failure in the subtree of `n`, in recording order.
    pub fn failures_below(&self, n: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut stack = vec![n];
        while let Some(at) = stack.pop() {
            if self.is_failure(at) {
                out.push(at);
            }
            stack.extend(self.children[at].iter().rev());
        }
        out.sort_unstable();
        out
    }

    /// The first failure after `n` in the tree's order (depth first, the
    /// branches of a split in order), for `continue` once the path of `n`
    /// has no failure left: it is on another branch.
    pub fn next_failure_elsewhere(&self, n: usize) -> Option<usize> {
        let mut stack: Vec<usize> = self.roots.iter().rev().copied().collect();
        let mut passed = false;
        while let Some(at) = stack.pop() {
            if passed && self.is_failure(at) {
                return Some(at);
            }
            passed |= at == n;
            stack.extend(self.children[at].iter().rev());
        }
        None
    }

    /// Choices that lead from the first step to `n`.
    pub fn choose_path_to(&self, n: usize, choices: &mut Choices) {
        let mut at = n;
        while let Some(p) = self.parent(at) {
            if let Some(i) = self.children[p].iter().position(|c| *c == at) {
                choices.insert(p, i);
            }
            at = p;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Kind;
    use crate::record::Reason;
    use crate::record::step::{Arm, StmtForm};

    fn node(parent: Option<usize>, kind: StepKind) -> TreeNode {
        TreeNode {
            parent,
            step: TraceStep {
                elided: false,
                span: 0..0,
                kind,
                heap: Vec::new(),
                store: Vec::new(),
                pc: Vec::new(),
            },
        }
    }

    fn branch(arm: Arm) -> StepKind {
        StepKind::Branch {
            cond: "c".into(),
            arm,
        }
    }

    fn sample() -> Tree {
        // 0 entry; 1 then; 2 stmt; 3 else; 4 fails
        Tree::new(vec![
            node(None, StepKind::MethodEntry),
            node(Some(0), branch(Arm::Then)),
            node(
                Some(1),
                StepKind::Statement {
                    form: StmtForm::Assign,
                    text: "x = 1;".into(),
                },
            ),
            node(Some(0), branch(Arm::Else)),
            node(
                Some(3),
                StepKind::Failed {
                    kind: Kind::AssertFailed,
                    reason: Reason::MightNotHold { fact: "c".into() },
                    obligation: true,
                    resumes: true,
                },
            ),
        ])
    }

    #[test]
    fn navigation() {
        let t = sample();
        let mut choices = Choices::new();
        assert_eq!(t.children[0], vec![1, 3]);
        assert_eq!(t.next(0, &choices), Some(1));
        assert_eq!(t.next_split(0, &choices), Some(0));
        assert_eq!(t.next_split(1, &choices), None);
        assert_eq!(t.path(4), vec![0, 3, 4]);
        assert_eq!(t.depth(4), 3);
        assert_eq!(t.failures_below(0), vec![4]);
        t.choose_path_to(4, &mut choices);
        assert_eq!(t.next(0, &choices), Some(3));
        assert_eq!(t.siblings(3), &[1, 3]);
    }
}
