//! Local variables and parameters in scope, and "did you mean" suggestions.

use std::collections::HashMap;

use super::types::Ty;
use crate::syntax::ast::Span;

#[derive(Clone, Debug)]
pub struct Local {
    pub name: String,
    pub ty: Ty,
    /// The span of the declaring name.
    pub span: Span,
    /// The whole declaration, and whether it is a parameter.
    pub decl: Span,
    pub param: bool,
}

/// Nested blocks of locals. Java forbids a local to shadow another local or
/// a parameter, so one lookup over all frames serves both purposes. Names
/// are indexed, so that a method with many locals is checked in linear
/// time.
#[derive(Default)]
pub struct Scopes {
    /// Every local in scope, outermost first.
    locals: Vec<Local>,
    /// Where each open block's locals start in `locals`.
    frames: Vec<usize>,
    /// For each name, the positions in `locals` declaring it, latest last.
    by_name: HashMap<String, Vec<usize>>,
    /// The latest local of each name whose block has ended, for a better
    /// "cannot find" message.
    ended: HashMap<String, Local>,
}

impl Scopes {
    /// Forget everything: a new member starts.
    pub fn reset(&mut self) {
        self.locals.clear();
        self.frames.clear();
        self.by_name.clear();
        self.ended.clear();
    }

    pub fn push(&mut self) {
        self.frames.push(self.locals.len());
    }

    pub fn pop(&mut self) {
        let Some(start) = self.frames.pop() else {
            return;
        };
        for local in self.locals.drain(start..) {
            if let Some(at) = self.by_name.get_mut(&local.name) {
                at.pop();
                if at.is_empty() {
                    self.by_name.remove(&local.name);
                }
            }
            self.ended.insert(local.name.clone(), local);
        }
    }

    pub fn lookup(&self, name: &str) -> Option<&Local> {
        let at = *self.by_name.get(name)?.last()?;
        Some(&self.locals[at])
    }

    /// A local of this name whose scope has already ended.
    pub fn ended(&self, name: &str) -> Option<&Local> {
        self.ended.get(name)
    }

    /// Declares a local in the innermost frame; on a clash, returns the span
    /// of the declaration in scope before (the new one hides it until the end
    /// of its block, so that later uses see the type written last).
    pub fn declare(&mut self, local: Local) -> Result<(), Span> {
        let clash = self.lookup(&local.name).map(|prev| prev.span.clone());
        if self.frames.is_empty() {
            self.push();
        }
        self.by_name
            .entry(local.name.clone())
            .or_default()
            .push(self.locals.len());
        self.locals.push(local);
        match clash {
            Some(prev) => Err(prev),
            None => Ok(()),
        }
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.locals.iter().map(|l| l.name.as_str())
    }
}

/// Levenshtein distance over characters.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let subst = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = subst.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// The closest candidate to `name`, if close enough to be a likely typo
/// (rustc's threshold: a third of the length, at least one edit).
pub fn suggest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let limit = (name.chars().count() / 3).max(1);
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        if c == name {
            continue;
        }
        let d = edit_distance(name, c);
        let lower_match = c.eq_ignore_ascii_case(name);
        if d > limit && !lower_match {
            continue;
        }
        let d = if lower_match { 0 } else { d };
        if best.is_none_or(|(bd, bc)| (d, c) < (bd, bc)) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "ab"), 2);
        assert_eq!(edit_distance("abc", "abc"), 0);
    }

    #[test]
    fn suggestions() {
        assert_eq!(suggest("x", ["y", "count"]), Some("y".into()));
        assert_eq!(suggest("cout", ["count", "x"]), Some("count".into()));
        assert_eq!(suggest("value", ["x", "total"]), None);
        assert_eq!(suggest("Node", ["node"]), Some("node".into()));
    }

    #[test]
    fn no_shadowing_and_ended_blocks() {
        let mut s = Scopes::default();
        s.push();
        let l = |n: &str, at: usize| Local {
            name: n.into(),
            ty: Ty::Int,
            span: at..at + 1,
            decl: at..at + 1,
            param: false,
        };
        assert!(s.declare(l("a", 0)).is_ok());
        s.push();
        assert_eq!(s.declare(l("a", 5)), Err(0..1));
        assert_eq!(s.lookup("a").map(|l| l.span.clone()), Some(5..6));
        assert!(s.declare(l("b", 7)).is_ok());
        s.pop();
        assert_eq!(s.lookup("a").map(|l| l.span.clone()), Some(0..1));
        assert!(s.lookup("b").is_none());
        assert_eq!(s.ended("b").map(|l| l.span.clone()), Some(7..8));
        assert!(s.declare(l("b", 9)).is_ok());
    }
}
