//! The symbolic heap (paper Definition 1): a multiset of field chunks
//! `t.f ↦ v` and predicate chunks `t.q[s](args)`, persistent so that every
//! recorded step keeps its own heap at the cost of a few pointers.

use std::fmt;
use std::sync::Arc;

use imbl::{HashMap, OrdMap, OrdSet};

use super::term::{Sort, Term};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Chunk {
    /// `recv.field ↦ value`; `field` is qualified, `Class.f`.
    Field {
        recv: Term,
        field: Arc<str>,
        value: Term,
    },
    /// `recv.pred[snap](args)`; `pred` is qualified, `Class.q`.
    Pred {
        recv: Term,
        pred: Arc<str>,
        args: Vec<Term>,
        snap: Term,
    },
}

impl Chunk {
    pub fn name(&self) -> &Arc<str> {
        match self {
            Chunk::Field { field, .. } => field,
            Chunk::Pred { pred, .. } => pred,
        }
    }

    pub fn recv(&self) -> &Term {
        match self {
            Chunk::Field { recv, .. } | Chunk::Pred { recv, .. } => recv,
        }
    }

    /// The terms that must equal a sought chunk's for it to match.
    pub fn key_terms(&self) -> Vec<Term> {
        match self {
            Chunk::Field { recv, .. } => vec![recv.clone()],
            Chunk::Pred { recv, args, .. } => {
                let mut v = vec![recv.clone()];
                v.extend(args.iter().cloned());
                v
            }
        }
    }
}

/// The short member name of a qualified `Class.member`.
pub fn short_name(qualified: &str) -> &str {
    qualified.rsplit('.').next().unwrap_or(qualified)
}

impl fmt::Display for Chunk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Chunk::Field { recv, field, value } => {
                write!(f, "{recv}.{} ↦ {value}", short_name(field))
            }
            Chunk::Pred {
                recv,
                pred,
                args,
                snap,
            } => {
                write!(f, "{recv}.{}[{snap}](", short_name(pred))?;
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{a}")?;
                }
                write!(f, ")")
            }
        }
    }
}

pub type ChunkId = u64;

#[derive(Clone, Default)]
pub struct Heap {
    chunks: OrdMap<ChunkId, Chunk>,
    /// Chunks by qualified name, for lookups that must ask the solver.
    by_name: HashMap<Arc<str>, OrdSet<ChunkId>>,
    /// Chunks by name and receiver, for the syntactic lookup tried first.
    by_recv: HashMap<(Arc<str>, Term), OrdSet<ChunkId>>,
    /// The references not allocated on this path that chunks hold (as
    /// receivers or field values), with how many times: a new object
    /// differs from all of them (`State::existing_refs`), and listing them
    /// must not cost a walk over the heap.
    foreign: ForeignRefs,
    next: ChunkId,
}

/// References not allocated on this path, each with how many places hold
/// it (a chunk, a variable), so that removing one place keeps the others.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ForeignRefs(HashMap<Term, u32>);

impl ForeignRefs {
    /// Counts `t` if it is such a reference.
    pub fn add(&mut self, t: &Term) {
        if is_foreign(t) {
            *self.0.entry(t.clone()).or_default() += 1;
        }
    }

    /// Uncounts `t` (once).
    pub fn forget(&mut self, t: &Term) {
        if let Some(n) = self.0.get_mut(t) {
            *n -= 1;
            if *n == 0 {
                self.0.remove(t);
            }
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = &Term> {
        self.0.keys()
    }
}

/// The terms of a chunk that may be references a new object differs from:
/// its receiver and a field's value.
fn refs_of(c: &Chunk) -> impl Iterator<Item = &Term> {
    let value = match c {
        Chunk::Field { value, .. } => Some(value),
        Chunk::Pred { .. } => None,
    };
    std::iter::once(c.recv()).chain(value)
}

/// A reference neither `null` nor allocated on this path (those differ
/// from a new object by their numbers).
fn is_foreign(t: &Term) -> bool {
    t.sort() == Sort::Ref && t.allocation().is_none() && *t != Term::null()
}

impl Heap {
    pub fn new() -> Heap {
        Heap::default()
    }

    pub fn len(&self) -> usize {
        self.chunks.len()
    }

    pub fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = (ChunkId, &Chunk)> {
        self.chunks.iter().map(|(id, c)| (*id, c))
    }

    pub fn get(&self, id: ChunkId) -> Option<&Chunk> {
        self.chunks.get(&id)
    }

    pub fn add(&mut self, chunk: Chunk) -> ChunkId {
        let id = self.next;
        self.next += 1;
        let name = chunk.name().clone();
        self.by_name.entry(name.clone()).or_default().insert(id);
        self.by_recv
            .entry((name, chunk.recv().clone()))
            .or_default()
            .insert(id);
        for t in refs_of(&chunk) {
            self.foreign.add(t);
        }
        self.chunks.insert(id, chunk);
        id
    }

    /// The references not allocated on this path that chunks hold.
    pub fn foreign(&self) -> impl Iterator<Item = &Term> {
        self.foreign.iter()
    }

    pub fn remove(&mut self, id: ChunkId) -> Option<Chunk> {
        let chunk = self.chunks.remove(&id)?;
        for t in refs_of(&chunk) {
            self.foreign.forget(t);
        }
        let name = chunk.name().clone();
        if let Some(set) = self.by_name.get_mut(&name) {
            set.remove(&id);
            if set.is_empty() {
                self.by_name.remove(&name);
            }
        }
        let key = (name, chunk.recv().clone());
        if let Some(set) = self.by_recv.get_mut(&key) {
            set.remove(&id);
            if set.is_empty() {
                self.by_recv.remove(&key);
            }
        }
        Some(chunk)
    }

    /// Replaces the value of a field chunk in place (same id).
    pub fn set_value(&mut self, id: ChunkId, new_value: Term) {
        let Some(Chunk::Field { value, .. }) = self.chunks.get_mut(&id) else {
            return;
        };
        let old = std::mem::replace(value, new_value.clone());
        self.foreign.forget(&old);
        self.foreign.add(&new_value);
    }

    /// Chunks named `name` whose key terms are syntactically `key`.
    pub fn find_syntactic(&self, name: &str, key: &[Term]) -> Option<ChunkId> {
        let recv = key.first()?;
        let ids = self.by_recv.get(&(Arc::from(name), recv.clone()))?;
        ids.iter()
            .copied()
            .find(|id| self.chunks.get(id).is_some_and(|c| c.key_terms() == key))
    }

    /// All chunks named `name`, in insertion order.
    pub fn named(&self, name: &str) -> Vec<ChunkId> {
        self.by_name
            .get(name)
            .map(|s| s.iter().copied().collect())
            .unwrap_or_default()
    }

    /// The chunks every one of `heaps` holds (syntactically the same chunk
    /// in each): what a `join` may keep of heaps that differ by path.
    pub fn common(heaps: &[&Heap]) -> Heap {
        let mut out = Heap::new();
        if let Some((first, rest)) = heaps.split_first() {
            for (_, c) in first.iter() {
                let held = |h: &&Heap| {
                    h.find_syntactic(c.name(), &c.key_terms())
                        .and_then(|id| h.get(id))
                        == Some(c)
                };
                if rest.iter().all(held) {
                    out.add(c.clone());
                }
            }
        }
        out
    }

    pub fn merge(&mut self, other: &Heap) {
        for (_, c) in other.iter() {
            self.add(c.clone());
        }
    }
}

impl fmt::Display for Heap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{{")?;
        for (i, (_, c)) in self.iter().enumerate() {
            if i > 0 {
                write!(f, ", ")?;
            }
            write!(f, "{c}")?;
        }
        write!(f, "}}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbolic::term::{Sort, VarKind};

    fn r(n: u32) -> Term {
        Term::var(n, &format!("r{n}"), Sort::Ref, VarKind::Plain)
    }

    #[test]
    fn references_not_allocated_here_are_counted() {
        let fresh = Term::var(9, "o", Sort::Ref, VarKind::Allocated(1));
        let mut h = Heap::new();
        let a = h.add(Chunk::Field {
            recv: r(1),
            field: "C.next".into(),
            value: r(2),
        });
        let b = h.add(Chunk::Field {
            recv: fresh.clone(),
            field: "C.next".into(),
            value: r(2),
        });
        let sorted = |h: &Heap| {
            let mut v: Vec<String> = h.foreign().map(|t| t.to_string()).collect();
            v.sort();
            v
        };
        assert_eq!(sorted(&h), ["r1@1", "r2@2"]);
        h.set_value(a, Term::null());
        assert_eq!(sorted(&h), ["r1@1", "r2@2"]);
        h.remove(b);
        assert_eq!(sorted(&h), ["r1@1"]);
        h.set_value(a, fresh);
        h.remove(a);
        assert!(sorted(&h).is_empty());
    }

    #[test]
    fn add_find_remove() {
        let mut h = Heap::new();
        let a = h.add(Chunk::Field {
            recv: r(1),
            field: "C.x".into(),
            value: Term::int(1),
        });
        let b = h.add(Chunk::Field {
            recv: r(2),
            field: "C.x".into(),
            value: Term::int(2),
        });
        assert_eq!(h.find_syntactic("C.x", &[r(2)]), Some(b));
        assert_eq!(h.named("C.x"), vec![a, b]);
        let before = h.clone();
        h.remove(a);
        assert_eq!(h.find_syntactic("C.x", &[r(1)]), None);
        assert_eq!(before.find_syntactic("C.x", &[r(1)]), Some(a));
        assert_eq!(h.len(), 1);
        assert_eq!(h.to_string(), "{r2@2.x ↦ 2}");
    }
}
