//! The path condition Σ (paper Definition 2): the facts a path has learned,
//! kept as a persistent list so that paths sharing a prefix share it.

use std::fmt;
use std::sync::Arc;

use imbl::HashSet;

use super::term::Term;

/// Σ as a persistent list: paths that share a prefix share its nodes, which
/// lets the solver keep its push/pop stack aligned with the path (a node is
/// the same object on both sides of a branch).
#[derive(Clone, Default)]
pub struct PathCondition {
    head: Option<Arc<PcNode>>,
    facts: HashSet<Term>,
    /// Every variable some fact mentions: a condition over none of them is
    /// decided without the solver (`Term::is_free_choice`).
    vars: HashSet<u32>,
    /// Pure calls whose definition is on the path (`define`).
    defined: HashSet<Term>,
}

pub struct PcNode {
    pub fact: Term,
    pub parent: Option<Arc<PcNode>>,
    /// Number of facts up to and including this one.
    pub len: usize,
}

impl PathCondition {
    pub fn len(&self) -> usize {
        self.head.as_ref().map_or(0, |n| n.len)
    }

    pub fn is_empty(&self) -> bool {
        self.head.is_none()
    }

    pub fn head(&self) -> Option<&Arc<PcNode>> {
        self.head.as_ref()
    }

    /// Adds a fact (conjunctions are split, `true` and repeats dropped).
    pub fn add(&mut self, fact: Term) {
        if fact.is_true() || self.facts.contains(&fact) {
            return;
        }
        if let super::term::Op::And = fact.op() {
            for f in fact.args().to_vec() {
                self.add(f);
            }
            return;
        }
        self.facts.insert(fact.clone());
        fact.for_each_var(&mut |id| {
            self.vars.insert(id);
        });
        let len = self.len() + 1;
        self.head = Some(Arc::new(PcNode {
            fact,
            parent: self.head.take(),
            len,
        }));
    }

    pub fn with(&self, fact: Term) -> PathCondition {
        let mut pc = self.clone();
        pc.add(fact);
        pc
    }

    /// Whether the fact is literally on the path (no solver needed).
    pub fn contains(&self, fact: &Term) -> bool {
        fact.is_true() || self.facts.contains(fact)
    }

    /// Adds the equation of a pure call and its unfolded body.
    pub fn define(&mut self, call: Term, body: Term) {
        self.add(Term::eq(call.clone(), body));
        self.defined.insert(call);
    }

    /// Whether the definition of this pure call is already on the path.
    pub fn is_defined(&self, call: &Term) -> bool {
        self.defined.contains(call)
    }

    /// Whether `cond` and its negation may both hold wherever the path is
    /// feasible, decided without the solver: its variables are
    /// unconstrained by the path and it is a free choice over them.
    pub fn is_open_choice(&self, cond: &Term) -> bool {
        if !cond.is_free_choice() {
            return false;
        }
        let mut free = true;
        cond.for_each_var(&mut |id| free &= !self.vars.contains(&id));
        free
    }

    /// Whether `false` was added: the path is known infeasible.
    pub fn is_known_false(&self) -> bool {
        self.facts.contains(&Term::bool(false))
    }

    /// Facts oldest first.
    pub fn facts(&self) -> Vec<Term> {
        self.facts_since(0)
    }

    /// The facts every one of `pcs` holds (in the order of the first): what
    /// is known on all paths that a `join` merges.
    pub fn common(pcs: &[&PathCondition]) -> PathCondition {
        let mut out = PathCondition::default();
        if let Some((first, rest)) = pcs.split_first() {
            for f in first.facts() {
                if rest.iter().all(|pc| pc.contains(&f)) {
                    out.add(f);
                }
            }
        }
        out
    }

    /// Facts added after the first `base` ones, oldest first.
    pub fn facts_since(&self, base: usize) -> Vec<Term> {
        let mut out = Vec::new();
        let mut node = self.head.as_ref();
        while let Some(n) = node {
            if n.len <= base {
                break;
            }
            out.push(n.fact.clone());
            node = n.parent.as_ref();
        }
        out.reverse();
        out
    }
}

impl fmt::Display for PathCondition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let items: Vec<String> = self.facts().iter().map(|t| t.to_string()).collect();
        write!(f, "{{{}}}", items.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logic::term::{Sort, VarKind};

    #[test]
    fn path_conditions_share_prefixes() {
        let x = Term::var(1, "x", Sort::Int, VarKind::Plain);
        let mut a = PathCondition::default();
        a.add(Term::lt(Term::int(0), x.clone()));
        let mut b = a.clone();
        b.add(Term::eq(x.clone(), Term::int(3)));
        a.add(Term::bool(true));
        assert_eq!(a.len(), 1);
        assert_eq!(b.len(), 2);
        assert!(Arc::ptr_eq(
            b.head().unwrap().parent.as_ref().unwrap(),
            a.head().unwrap()
        ));
        assert_eq!(b.facts_since(1), vec![Term::eq(x.clone(), Term::int(3))]);
        assert!(b.contains(&Term::eq(Term::int(3), x)));
    }

    #[test]
    fn open_choices_are_decided_without_the_solver() {
        let x = Term::var(1, "x", Sort::Int, VarKind::Plain);
        let y = Term::var(2, "y", Sort::Int, VarKind::Plain);
        let b = Term::var(3, "b", Sort::Bool, VarKind::Plain);
        let r = Term::var(4, "r", Sort::Ref, VarKind::Plain);
        let mut pc = PathCondition::default();
        let x_zero = Term::eq(x.clone(), Term::int(0));
        assert!(pc.is_open_choice(&x_zero));
        assert!(pc.is_open_choice(&Term::not(x_zero.clone())));
        assert!(pc.is_open_choice(&Term::lt(x.clone(), y.clone())));
        assert!(pc.is_open_choice(&b));
        // Not free choices: references, arithmetic, a variable against itself.
        assert!(!pc.is_open_choice(&Term::eq(r, Term::null())));
        assert!(!pc.is_open_choice(&Term::eq(Term::add(x.clone(), y.clone()), Term::int(1))));
        assert!(!pc.is_open_choice(&Term::le(x.clone(), x.clone())));
        // Once the path mentions a variable, the solver decides.
        pc.add(Term::lt(Term::int(5), y.clone()));
        assert!(pc.is_open_choice(&x_zero));
        assert!(!pc.is_open_choice(&Term::lt(x.clone(), y)));
        pc.add(Term::not(x_zero.clone()));
        assert!(!pc.is_open_choice(&x_zero));
    }
}
