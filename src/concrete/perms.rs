//! What an activation owns: field locations, and predicate instances, each
//! owning the footprint its body had when it was closed. A location inside
//! a closed instance cannot change (writing it needs the instance opened),
//! so the stored footprint stays the body's footprint.

use std::collections::BTreeSet;

use super::heap::{Loc, Value};

#[derive(Clone, Debug, Default)]
pub struct Perms {
    pub locs: BTreeSet<Loc>,
    pub preds: Vec<Instance>,
}

#[derive(Clone, Debug)]
pub struct Instance {
    pub recv: usize,
    /// Qualified, `Class.q`.
    pub pred: String,
    pub args: Vec<Value>,
    pub body: Perms,
}

impl Instance {
    fn matches(&self, recv: usize, pred: &str, args: &[Value]) -> bool {
        self.recv == recv && self.pred == pred && self.args == args
    }
}

impl Perms {
    /// Whether `loc` is held directly, or (with `through`) inside a held
    /// instance at any depth.
    pub fn has(&self, loc: &Loc, through: bool) -> bool {
        self.locs.contains(loc) || (through && self.preds.iter().any(|i| i.body.has(loc, true)))
    }

    /// Takes `loc` out; with `unfold`, opens the instances that hold it.
    pub fn take_loc(&mut self, loc: &Loc, unfold: bool) -> bool {
        if self.locs.remove(loc) {
            return true;
        }
        if unfold && self.unfold_to(loc) {
            return self.locs.remove(loc);
        }
        false
    }

    /// Opens held instances until `loc` is held directly (false if no
    /// instance holds it).
    pub fn unfold_to(&mut self, loc: &Loc) -> bool {
        while !self.locs.contains(loc) {
            let Some(i) = self.preds.iter().position(|i| i.body.has(loc, true)) else {
                return false;
            };
            let inst = self.preds.remove(i);
            self.add(inst.body);
        }
        true
    }

    /// Takes a held instance out (only a top-level one).
    pub fn take_pred(&mut self, recv: usize, pred: &str, args: &[Value]) -> Option<Instance> {
        let i = self
            .preds
            .iter()
            .position(|i| i.matches(recv, pred, args))?;
        Some(self.preds.remove(i))
    }

    /// Opens held instances until the sought one is held at the top level.
    pub fn unfold_to_pred(&mut self, recv: usize, pred: &str, args: &[Value]) -> bool {
        loop {
            if self.preds.iter().any(|i| i.matches(recv, pred, args)) {
                return true;
            }
            let Some(i) = self
                .preds
                .iter()
                .position(|i| i.body.holds_pred(recv, pred, args))
            else {
                return false;
            };
            let inst = self.preds.remove(i);
            self.add(inst.body);
        }
    }

    fn holds_pred(&self, recv: usize, pred: &str, args: &[Value]) -> bool {
        self.preds
            .iter()
            .any(|i| i.matches(recv, pred, args) || i.body.holds_pred(recv, pred, args))
    }

    pub fn add(&mut self, other: Perms) {
        self.locs.extend(other.locs);
        self.preds.extend(other.preds);
    }

    /// Every location owned, directly or inside instances.
    pub fn all_locs(&self) -> BTreeSet<Loc> {
        let mut out = self.locs.clone();
        for i in &self.preds {
            out.extend(i.body.all_locs());
        }
        out
    }

    /// Lines describing what is held, for reports.
    pub fn describe(&self, show: &dyn Fn(Value) -> String) -> Vec<String> {
        let mut out: Vec<String> = self
            .locs
            .iter()
            .map(|(o, f)| format!("acc({}.{})", show(Value::Ref(*o)), super::heap::short(f)))
            .collect();
        for i in &self.preds {
            let args: Vec<String> = i.args.iter().map(|a| show(*a)).collect();
            out.push(format!(
                "{}.{}({})",
                show(Value::Ref(i.recv)),
                super::heap::short(&i.pred),
                args.join(", ")
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loc(o: usize, f: &str) -> Loc {
        (o, f.to_string())
    }

    #[test]
    fn locations_inside_instances_are_read_through_and_unfolded_for_writes() {
        let mut inner = Perms::default();
        inner.locs.insert(loc(1, "N.val"));
        let mut outer_body = Perms::default();
        outer_body.locs.insert(loc(0, "N.val"));
        outer_body.preds.push(Instance {
            recv: 1,
            pred: "N.list".into(),
            args: vec![],
            body: inner,
        });
        let mut p = Perms::default();
        p.preds.push(Instance {
            recv: 0,
            pred: "N.list".into(),
            args: vec![],
            body: outer_body,
        });
        assert!(p.has(&loc(1, "N.val"), true));
        assert!(!p.has(&loc(1, "N.val"), false));
        assert!(!p.take_loc(&loc(1, "N.val"), false));
        assert!(p.take_loc(&loc(1, "N.val"), true));
        // Both instances were opened; the outer node's field is now direct.
        assert!(p.preds.is_empty());
        assert!(p.locs.contains(&loc(0, "N.val")));
        assert!(!p.take_loc(&loc(1, "N.val"), true));
    }

    #[test]
    fn instances_are_found_by_receiver_name_and_arguments() {
        let mut p = Perms::default();
        p.preds.push(Instance {
            recv: 2,
            pred: "C.q".into(),
            args: vec![Value::Int(1)],
            body: Perms::default(),
        });
        assert!(p.take_pred(2, "C.q", &[Value::Int(2)]).is_none());
        assert!(p.take_pred(3, "C.q", &[Value::Int(1)]).is_none());
        assert!(p.take_pred(2, "C.q", &[Value::Int(1)]).is_some());
        assert!(p.take_pred(2, "C.q", &[Value::Int(1)]).is_none());
    }
}
