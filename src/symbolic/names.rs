//! Symbolic values in the program's own terms, for traces, the debugger and
//! hovers: `c.x` instead of `toInt(first(s@5))`, `c.getX()` instead of
//! `Cell.getX(s@4, c@1)`, `old(c.x)` for a value of the pre-state, `object#1`
//! for a fresh object no variable holds, `x′` for an earlier value of `x`.
//!
//! A value is named after what holds it at the step shown: a variable, a
//! field chunk (`c.next`), a location inside a held predicate instance (its
//! snapshot's parts follow the instance's body, as `produce` splits them),
//! else the old heap. Snapshots themselves are never shown: a chunk of a
//! predicate is shown as its instance, and facts relating snapshots only
//! are left out of the path condition (they are the verifier's
//! bookkeeping, not facts about the program).

use std::collections::{HashMap, HashSet};

use crate::logic::term::{ListOp, Op, Sort, Term, VarKind, prelude};
use crate::syntax::ast::{BinOp, ELEMS, Expr, ExprKind};

use super::consume::snapshot_shape;
use super::heap::{Chunk, Heap, short_name};
use super::program::ProgramInfo;
use super::state::{Step, Store};

/// How deep a field chain or a predicate body is followed to name a value.
const DEPTH: usize = 4;

/// The longest text shown for one value (terms share parts, so a value
/// built by doubling has an exponentially long text): cut off with `…`.
const MAX_SHOWN: usize = 4096;

/// The deepest nesting of operators shown in one value.
const MAX_NESTING: usize = 64;

/// What may not name a value: the thing being shown itself (a variable's
/// own value, a field chunk's own value).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Except<'a> {
    Nothing,
    Var(&'a str),
    Field(&'a Term, &'a str),
}

/// A heap indexed by what its chunks hold, so that naming a value costs a
/// lookup, not a walk over the heap.
struct HeapIndex<'a> {
    /// Field values: the chunks (receiver, short field name) holding each.
    fields: HashMap<&'a Term, Vec<(&'a Term, &'a str)>>,
    /// Predicate chunks by snapshot.
    instances: HashMap<&'a Term, &'a Chunk>,
    /// Every symbol of a field value or a snapshot held.
    symbols: HashSet<Term>,
}

impl<'a> HeapIndex<'a> {
    fn new(heap: &'a Heap) -> HeapIndex<'a> {
        let mut index = HeapIndex {
            fields: HashMap::new(),
            instances: HashMap::new(),
            symbols: HashSet::new(),
        };
        for (_, c) in heap.iter() {
            match c {
                Chunk::Field { recv, field, value } => {
                    index
                        .fields
                        .entry(value)
                        .or_default()
                        .push((recv, short_name(field)));
                    index.symbols.extend(symbols(value));
                }
                Chunk::Pred { snap, .. } => {
                    index.instances.insert(snap, c);
                    index.symbols.extend(symbols(snap));
                }
            }
        }
        index
    }
}

/// The variables holding each value in a store (`this` first).
pub struct StoreIndex<'a> {
    store: &'a Store,
    holders: HashMap<&'a Term, Vec<&'a str>>,
}

impl<'a> StoreIndex<'a> {
    pub fn new(store: &'a Store) -> StoreIndex<'a> {
        let mut holders: HashMap<&'a Term, Vec<&'a str>> = HashMap::new();
        for (k, v) in store.iter() {
            let list = holders.entry(v).or_default();
            if &**k == "this" {
                list.insert(0, k);
            } else {
                list.push(k);
            }
        }
        StoreIndex { store, holders }
    }
}

pub struct Names<'a> {
    prog: &'a ProgramInfo,
    source: &'a str,
    store: StoreIndex<'a>,
    heap: HeapIndex<'a>,
    old: HeapIndex<'a>,
    /// The store on entry to the member: a parameter's entry value is
    /// `old(p)` once `p` holds another.
    entry: Option<&'a StoreIndex<'a>>,
    /// Characters still to be shown of the value being shown.
    budget: std::cell::Cell<usize>,
    /// How deep inside the value being shown `show` is.
    nesting: std::cell::Cell<usize>,
}

impl<'a> Names<'a> {
    pub fn of_step(
        prog: &'a ProgramInfo,
        source: &'a str,
        step: &'a Step,
        entry: Option<&'a StoreIndex<'a>>,
    ) -> Names<'a> {
        Names::new(prog, source, (&step.store, &step.heap, &step.old), entry)
    }

    /// Names for a state: its store, heap and old heap.
    pub fn new(
        prog: &'a ProgramInfo,
        source: &'a str,
        (store, heap, old): (&'a Store, &'a Heap, &'a Heap),
        entry: Option<&'a StoreIndex<'a>>,
    ) -> Names<'a> {
        Names {
            prog,
            source,
            store: StoreIndex::new(store),
            heap: HeapIndex::new(heap),
            old: HeapIndex::new(old),
            entry,
            budget: std::cell::Cell::new(MAX_SHOWN),
            nesting: std::cell::Cell::new(0),
        }
    }

    /// One value shown whole, or cut off at `MAX_SHOWN` bytes.
    fn shown(&self, t: &Term, except: Except) -> String {
        self.budget.set(MAX_SHOWN);
        let mut text = self.show(t, except, DEPTH);
        if text.len() > MAX_SHOWN {
            let mut cut = MAX_SHOWN;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text.truncate(cut);
            text.push('…');
        }
        text
    }

    /// The pure method calls in `t` (`c.getX()`), as shown, with their terms.
    pub fn pure_calls(&self, t: &Term) -> Vec<(String, Term)> {
        let mut out: Vec<(String, Term)> = Vec::new();
        let mut work = vec![t];
        // Terms share parts: each is visited once.
        let mut seen: HashSet<&Term> = HashSet::new();
        while let Some(x) = work.pop() {
            if !seen.insert(x) {
                continue;
            }
            if let Op::App(f) = x.op()
                && self.prog.pures.values().any(|p| p.fun == **f)
            {
                let shown = self.term(x);
                if !out.iter().any(|(s, _)| *s == shown) {
                    out.push((shown, x.clone()));
                }
            }
            work.extend(x.args());
        }
        out
    }

    /// A term as the program would write it.
    pub fn term(&self, t: &Term) -> String {
        self.shown(t, Except::Nothing)
    }

    /// A variable's value (not named after the variable itself).
    pub fn value_of(&self, var: &str, t: &Term) -> String {
        self.shown(t, Except::Var(var))
    }

    /// A heap chunk: `c.x ↦ 5`, or the instance `c.valid()`.
    pub fn chunk(&self, c: &Chunk) -> String {
        match c {
            Chunk::Field { recv, field, value } => {
                let f = short_name(field);
                let owner = self.shown(recv, Except::Nothing);
                let v = self.shown(value, Except::Field(recv, f));
                format!("{owner}.{f} ↦ {v}")
            }
            Chunk::Pred {
                recv, pred, args, ..
            } => {
                self.budget.set(MAX_SHOWN);
                self.instance(recv, short_name(pred), args)
            }
        }
    }

    /// The facts of a path condition worth showing: conjunctions split,
    /// facts about snapshots only left out.
    pub fn facts(&self, facts: &[Term]) -> Vec<String> {
        let mut out = Vec::new();
        let mut seen = HashSet::new();
        let mut work: Vec<&Term> = facts.iter().rev().collect();
        while let Some(f) = work.pop() {
            match f.op() {
                Op::And => work.extend(f.args().iter().rev()),
                _ if bookkeeping(f) => {}
                _ => {
                    let text = self.term(f);
                    if seen.insert(text.clone()) {
                        out.push(text);
                    }
                }
            }
        }
        out
    }

    fn instance(&self, recv: &Term, pred: &str, args: &[Term]) -> String {
        let args: Vec<String> = args
            .iter()
            .map(|a| self.show(a, Except::Nothing, DEPTH))
            .collect();
        let call = format!("{pred}({})", args.join(", "));
        match self.show(recv, Except::Nothing, DEPTH).as_str() {
            "this" => call,
            owner => format!("{owner}.{call}"),
        }
    }

    fn show(&self, t: &Term, except: Except, depth: usize) -> String {
        let left = self.budget.get();
        let nesting = self.nesting.get();
        // A term nested deeper than a person reads is cut off there: its
        // text would be built level by level, costing depth × length.
        if left == 0 || nesting >= MAX_NESTING {
            return "…".to_string();
        }
        self.nesting.set(nesting + 1);
        let text = self.show_term(t, except, depth);
        self.nesting.set(nesting);
        self.budget.set(left.saturating_sub(text.len()));
        text
    }

    fn show_term(&self, t: &Term, except: Except, depth: usize) -> String {
        let arg = |i: usize| self.show(&t.args()[i], Except::Nothing, depth);
        let infix = |sym: &str| {
            let parts: Vec<String> = (0..t.args().len()).map(arg).collect();
            format!("({})", parts.join(&format!(" {sym} ")))
        };
        match t.op() {
            Op::Var { .. } => self.var(t, except, depth),
            Op::Int(v) => v.to_string(),
            Op::BigInt(v) => v.to_string(),
            Op::True => "true".to_string(),
            Op::False => "false".to_string(),
            Op::Null => "null".to_string(),
            Op::Unit => "()".to_string(),
            Op::App(f) => self.app(t, f, except, depth),
            // The conditionals `&&`, `||` and `==>` evaluate to, read back.
            Op::Ite if t.args()[2].is_false() => format!("({} && {})", arg(0), arg(1)),
            Op::Ite if t.args()[2].is_true() => format!("({} ==> {})", arg(0), arg(1)),
            Op::Ite if t.args()[1].is_true() => format!("({} || {})", arg(0), arg(2)),
            Op::Ite => format!("({} ? {} : {})", arg(0), arg(1), arg(2)),
            Op::Not => match t.args()[0].op() {
                Op::Eq => {
                    let e = &t.args()[0];
                    let l = self.show(&e.args()[0], Except::Nothing, depth);
                    let r = self.show(&e.args()[1], Except::Nothing, depth);
                    format!("({l} != {r})")
                }
                _ => format!("!{}", arg(0)),
            },
            Op::Neg => format!("-{}", arg(0)),
            Op::And => infix("&&"),
            Op::Or => infix("||"),
            Op::Implies => infix("==>"),
            Op::Eq => infix("=="),
            Op::Add => infix("+"),
            Op::Sub => infix("-"),
            Op::Mul => infix("*"),
            Op::Div => infix("div"),
            Op::Mod => infix("mod"),
            Op::Lt => infix("<"),
            Op::Le => infix("<="),
            Op::Select => self.element(t, depth),
            Op::Store => format!("{}[{} := {}]", arg(0), arg(1), arg(2)),
            Op::ConstSeq => format!("[{}, …]", arg(0)),
            Op::List(k) => match k {
                ListOp::Empty => "[]".to_string(),
                ListOp::Unit => format!("[{}]", arg(0)),
                ListOp::Concat => infix("+"),
                ListOp::Len => format!("{}.length", arg(0)),
                ListOp::At => format!("{}[{}]", arg(0), arg(1)),
                ListOp::Extract => format!("{}[{}..{} + {}]", arg(0), arg(1), arg(1), arg(2)),
                ListOp::Contains => format!("{}.contains({})", arg(0), arg(1)),
            },
            Op::Quant { .. } => {
                let Some((forall, vars, body, _)) = t.quant_parts() else {
                    return "…".to_string();
                };
                let word = if forall { "forall" } else { "exists" };
                let names: Vec<String> = vars
                    .iter()
                    .map(|v| self.show(v, Except::Nothing, depth))
                    .collect();
                let body = self.show(body, Except::Nothing, depth);
                format!("({word} {} :: {body})", names.join(", "))
            }
        }
    }

    /// `a[i]` for element `i` of the contents of a held `a.elems` (now or
    /// on entry), else the sequence indexed.
    fn element(&self, t: &Term, depth: usize) -> String {
        let [seq, i] = t.args() else {
            unreachable!("a select has a sequence and an index")
        };
        let index = self.show(i, Except::Nothing, depth);
        for (heap, old) in [(&self.heap, false), (&self.old, true)] {
            let array = heap.fields.get(seq).and_then(|holders| {
                holders
                    .iter()
                    .filter(|(_, f)| *f == short_name(ELEMS))
                    .find_map(|(recv, _)| self.owner(recv, depth.max(1)))
            });
            if let Some(a) = array {
                let shown = format!("{a}[{index}]");
                return if old { format!("old({shown})") } else { shown };
            }
        }
        format!("{}[{index}]", self.show(seq, Except::Nothing, depth))
    }

    /// What holds a value now (a variable, a field), else what held it on
    /// entry (a parameter, a field of the old heap).
    fn holder(&self, t: &Term, except: Except, depth: usize) -> Option<String> {
        if let Some(name) = self.held_by_variable(t, except) {
            return Some(name);
        }
        if depth > 0
            && let Some(name) = self.held_by_field(&self.heap, t, except, depth)
        {
            return Some(name);
        }
        if let Some(name) = self.entry_value(t, except) {
            return Some(name);
        }
        if depth > 0
            && let Some(name) = self.held_by_field(&self.old, t, Except::Nothing, depth)
        {
            return Some(format!("old({name})"));
        }
        None
    }

    /// A symbol: what holds it, else a name of its own.
    fn var(&self, t: &Term, except: Except, depth: usize) -> String {
        if let Op::Var {
            name,
            kind: VarKind::Bound,
            ..
        } = t.op()
        {
            return name.to_string();
        }
        if let Some(name) = self.holder(t, except, depth) {
            return name;
        }
        if let Some(k) = t.allocation() {
            return format!("object#{k}");
        }
        let Op::Var { name, .. } = t.op() else {
            unreachable!("var() is called on variables")
        };
        format!("{name}′")
    }

    fn held_by_variable(&self, t: &Term, except: Except) -> Option<String> {
        let holders = self.store.holders.get(t)?;
        let allowed = |k: &&&str| except != Except::Var(k);
        holders
            .iter()
            .filter(allowed)
            .find(|k| **k != "result")
            .or_else(|| holders.iter().find(allowed))
            .map(|k| k.to_string())
    }

    /// `old(p)`: the entry value of a parameter that now holds another.
    fn entry_value(&self, t: &Term, except: Except) -> Option<String> {
        let p = *self.entry?.holders.get(t)?.first()?;
        let own = except == Except::Var(p);
        (own || self.store.store.get(p) != Some(t)).then(|| format!("old({p})"))
    }

    /// `owner.f` for a field chunk of `heap` that holds `t`.
    fn held_by_field(
        &self,
        heap: &HeapIndex,
        t: &Term,
        except: Except,
        depth: usize,
    ) -> Option<String> {
        heap.fields.get(t)?.iter().find_map(|(recv, f)| {
            if except == Except::Field(recv, f) {
                return None;
            }
            let owner = self.owner(recv, depth)?;
            Some(format!("{owner}.{f}"))
        })
    }

    /// A receiver's name, as long as it does not need a snapshot to name.
    fn owner(&self, recv: &Term, depth: usize) -> Option<String> {
        let name = self.show(recv, Except::Nothing, depth - 1);
        (!name.contains('′')).then_some(name)
    }

    fn app(&self, t: &Term, f: &str, except: Except, depth: usize) -> String {
        let args = t.args();
        if let Some(sort) = from_snap_sort(f)
            && let [s] = args
        {
            // A value read from a snapshot: what holds it, else the place
            // inside a held instance it comes from.
            if let Some(name) = self.holder(t, except, depth) {
                return name;
            }
            if matches!(s.op(), Op::Select) {
                return self.element(s, depth);
            }
            return self
                .inside_instance(s, sort, depth)
                .or_else(|| self.snapshot(s).map(|i| format!("(a value in {i})")))
                .unwrap_or_else(|| "(unknown)".to_string());
        }
        // A value boxed as a snapshot (an array element written) is the
        // value itself.
        if [Sort::Int, Sort::Bool, Sort::Ref]
            .iter()
            .any(|s| prelude::to_snap(*s) == f)
            && let [v] = args
        {
            return self.show(v, except, depth);
        }
        if f == prelude::LENGTH {
            return format!("{}.length", self.show(&args[0], except, depth));
        }
        if f == prelude::ALLOC {
            return format!("alloc({})", self.show(&args[0], except, depth));
        }
        if let Some(call) = self.pure_call(f, args, depth) {
            return call;
        }
        let parts: Vec<String> = args
            .iter()
            .map(|a| self.show(a, Except::Nothing, depth))
            .collect();
        format!("{f}({})", parts.join(", "))
    }

    /// `c.getX()` for the pure method's function applied to a snapshot:
    /// `old(...)` when the snapshot is one of the pre-state, a prime when
    /// it is neither the current heap's nor the old one's.
    fn pure_call(&self, fun: &str, args: &[Term], depth: usize) -> Option<String> {
        let pure = self.prog.pures.values().find(|p| p.fun == fun)?;
        let (snap, rest) = args.split_first()?;
        let (recv, params) = if pure.decl.is_static {
            (None, rest)
        } else {
            let (r, p) = rest.split_first()?;
            (Some(r), p)
        };
        let shown: Vec<String> = params
            .iter()
            .map(|a| self.show(a, Except::Nothing, depth))
            .collect();
        let name = &pure.decl.name.name;
        let call = match recv.map(|r| self.show(r, Except::Nothing, depth)) {
            None => format!("{}.{name}({})", pure.class, shown.join(", ")),
            Some(r) if r == "this" => format!("{name}({})", shown.join(", ")),
            Some(r) => format!("{r}.{name}({})", shown.join(", ")),
        };
        Some(match self.heap_of(snap) {
            Some(Which::Current) => call,
            Some(Which::Old) => format!("old({call})"),
            None => format!("{call}′"),
        })
    }

    /// Which heap a snapshot is a part of: every symbol in it is the
    /// snapshot of a chunk or a field value there.
    fn heap_of(&self, snap: &Term) -> Option<Which> {
        let leaves = symbols(snap);
        let all_in = |heap: &HeapIndex| leaves.iter().all(|l| heap.symbols.contains(l));
        if all_in(&self.heap) {
            Some(Which::Current)
        } else if all_in(&self.old) {
            Some(Which::Old)
        } else {
            None
        }
    }

    /// The instance a snapshot belongs to, if one is held (now or on
    /// entry).
    fn snapshot(&self, s: &Term) -> Option<String> {
        let (root, _) = split_path(s);
        for (heap, old) in [(&self.heap, false), (&self.old, true)] {
            if let Some(Chunk::Pred {
                recv, pred, args, ..
            }) = heap.instances.get(root)
            {
                let shown = self.instance(recv, short_name(pred), args);
                return Some(if old { format!("old({shown})") } else { shown });
            }
        }
        None
    }

    /// `c.x` for `toInt(first(s))` where `s` is the snapshot of a held
    /// `c.valid()` whose body's first part is `acc(x)`.
    fn inside_instance(&self, s: &Term, _sort: Sort, depth: usize) -> Option<String> {
        let (root, path) = split_path(s);
        for (heap, old) in [(&self.heap, false), (&self.old, true)] {
            if let Some(Chunk::Pred { recv, pred, .. }) = heap.instances.get(root) {
                let owner = self.owner(recv, depth.max(1))?;
                let body = self.predicate_body(pred)?;
                let access = self.follow(body, &path)?;
                let shown = match (owner.as_str(), access.strip_prefix("this.")) {
                    ("this", Some(rest)) => rest.to_string(),
                    ("this", None) => access,
                    (o, Some(rest)) => format!("{o}.{rest}"),
                    (o, None) => format!("{o}.{access}"),
                };
                return Some(if old { format!("old({shown})") } else { shown });
            }
        }
        None
    }

    fn predicate_body(&self, qualified: &str) -> Option<&'a Expr> {
        let (class, name) = qualified.split_once('.')?;
        Some(&self.prog.predicate(class, name)?.decl.body)
    }

    /// The field access a snapshot path leads to in an assertion, written
    /// relative to the predicate's receiver (`this.x`, `next.val`).
    fn follow(&self, a: &'a Expr, path: &[bool]) -> Option<String> {
        match &a.kind {
            ExprKind::Binary(BinOp::And, l, r) => match snapshot_shape(l, r) {
                (true, true) => {
                    let (second, rest) = path.split_first()?;
                    self.follow(if *second { r } else { l }, rest)
                }
                (true, false) => self.follow(l, path),
                (false, true) => self.follow(r, path),
                (false, false) => None,
            },
            ExprKind::Acc(field) if path.is_empty() => {
                let text = self.source.get(field.span.clone())?;
                let text: String = text.split_whitespace().collect();
                Some(if text.contains('.') {
                    text
                } else {
                    format!("this.{text}")
                })
            }
            _ => None,
        }
    }
}

enum Which {
    Current,
    Old,
}

/// The sort a `toInt`/`toBool`/`toRef`/`toSeq` function reads from a
/// snapshot.
fn from_snap_sort(f: &str) -> Option<Sort> {
    [Sort::Int, Sort::Bool, Sort::Ref, Sort::Seq]
        .into_iter()
        .find(|s| prelude::from_snap(*s) == f)
}

/// `s` and the `first`/`second` steps from it to `t` (`true` = second),
/// outermost first: `toInt(first(second(s)))` → `(s, [true, false])`.
fn split_path(t: &Term) -> (&Term, Vec<bool>) {
    let mut path = Vec::new();
    let mut at = t;
    loop {
        match at.op() {
            Op::App(f) if (&**f == prelude::FIRST || &**f == prelude::SECOND) => {
                path.push(&**f == prelude::SECOND);
                at = &at.args()[0];
            }
            _ => break,
        }
    }
    path.reverse();
    (at, path)
}

/// The symbols a term is built from (each shared part visited once).
fn symbols(t: &Term) -> Vec<Term> {
    let mut out = Vec::new();
    let mut work = vec![t];
    let mut seen: HashSet<&Term> = HashSet::new();
    while let Some(x) = work.pop() {
        if !seen.insert(x) {
            continue;
        }
        match x.op() {
            Op::Var { .. } => out.push(x.clone()),
            _ => work.extend(x.args()),
        }
    }
    out
}

/// A fact that only relates snapshots (`s@4 == combine(s@5, s@6)`), or
/// numbers an allocated object (`alloc(o) == 3`): the verifier's
/// bookkeeping.
fn bookkeeping(f: &Term) -> bool {
    matches!(f.op(), Op::Eq)
        && (f.args().iter().all(|a| a.sort() == Sort::Snap)
            || f.args()
                .iter()
                .any(|a| matches!(a.op(), Op::App(n) if &**n == prelude::ALLOC)))
}
