//! Symbolic values (paper section 3.2): a small typed term language.
//!
//! Terms are immutable trees shared through `Arc` with their hash cached, so
//! cloning is a pointer copy and syntactic equality (tried before asking Z3)
//! is usually a pointer or hash comparison. The smart constructors fold
//! constants and apply the prelude's inverse laws, so that most facts reach
//! Z3 already simplified (or never reach it).

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

mod seq;
pub use seq::ListOp;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Sort {
    Int,
    Bool,
    Ref,
    Snap,
    /// The elements of an array: Z3's `(Array Int Snap)`, each element
    /// wrapped as a snapshot (see `prelude.smt2`).
    Seq,
    /// A `seq<T>` value: Z3's sequence theory over snapshots, `(Seq Snap)`,
    /// each element wrapped as a snapshot like an array's (see
    /// `prelude.smt2` and [`ListOp`]).
    List,
}

impl Sort {
    pub fn name(self) -> &'static str {
        match self {
            Sort::Int => "Int",
            Sort::Bool => "Bool",
            Sort::Ref => "Ref",
            Sort::Snap => "Snap",
            Sort::Seq => "(Array Int Snap)",
            Sort::List => "(Seq Snap)",
        }
    }
}

/// How a variable came to be: objects allocated by `new` carry their
/// allocation number, which makes two of them syntactically distinct.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VarKind {
    Plain,
    Allocated(u32),
    /// The bound variable of a quantifier (`Op::Quant`), named as in the
    /// program.
    Bound,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    Var {
        id: u32,
        name: Arc<str>,
        kind: VarKind,
    },
    Int(i128),
    /// An integer literal too large for `i128`, in decimal.
    BigInt(Arc<str>),
    True,
    False,
    Null,
    Unit,
    /// An uninterpreted function of the prelude or a pure method.
    App(Arc<str>),
    Ite,
    Not,
    And,
    Or,
    Implies,
    Eq,
    Add,
    Sub,
    Mul,
    /// Euclidean division and modulus, as in SMT-LIB (Java's truncating
    /// operators are built from these in `eval`).
    Div,
    Mod,
    Neg,
    Lt,
    Le,
    /// Element `i` of a sequence: `select(seq, i)` (a snapshot).
    Select,
    /// The sequence with element `i` replaced: `store(seq, i, v)`.
    Store,
    /// The sequence holding one snapshot everywhere (a fresh array).
    ConstSeq,
    /// A quantifier (docs/language.md section 4c). Its first `vars`
    /// arguments are the bound variables (variables that occur nowhere
    /// else), then comes the body, then the terms of its one trigger (a
    /// multi-pattern; none: Z3 chooses).
    Quant {
        forall: bool,
        vars: u32,
    },
    /// An operation of Z3's sequence theory on [`Sort::List`] values.
    List(ListOp),
}

struct Node {
    op: Op,
    args: Vec<Term>,
    sort: Sort,
    hash: u64,
}

#[derive(Clone)]
pub struct Term(Arc<Node>);

impl PartialEq for Term {
    fn eq(&self, other: &Term) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
            || (self.0.hash == other.0.hash
                && self.0.sort == other.0.sort
                && self.0.op == other.0.op
                && self.0.args == other.0.args)
    }
}

impl Eq for Term {}

impl Hash for Term {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.0.hash);
    }
}

impl fmt::Debug for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Names of the prelude's functions (see `prelude.smt2`).
pub mod prelude {
    pub const COMBINE: &str = "combine";
    pub const FIRST: &str = "first";
    pub const SECOND: &str = "second";
    pub const ALLOC: &str = "alloc";
    /// The length of an array, a function of its reference.
    pub const LENGTH: &str = "length";
    /// Element `i` of a sequence (`ListOp::At`), an ordinary function so
    /// that it can trigger quantifiers.
    pub const SEQ_AT: &str = "seqAt";

    pub fn from_snap(sort: super::Sort) -> &'static str {
        match sort {
            super::Sort::Int => "toInt",
            super::Sort::Bool => "toBool",
            super::Sort::Ref => "toRef",
            super::Sort::Snap => "id",
            super::Sort::Seq => "toSeq",
            super::Sort::List => "toList",
        }
    }

    pub fn to_snap(sort: super::Sort) -> &'static str {
        match sort {
            super::Sort::Int => "fromInt",
            super::Sort::Bool => "fromBool",
            super::Sort::Ref => "fromRef",
            super::Sort::Snap => "id",
            super::Sort::Seq => "fromSeq",
            super::Sort::List => "fromList",
        }
    }
}

// Smart constructors named after the operations they build; they are not
// operator overloads (they fold, and they never panic on overflow).
#[allow(clippy::should_implement_trait)]
impl Term {
    fn mk(op: Op, args: Vec<Term>, sort: Sort) -> Term {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        op.hash(&mut h);
        sort.hash(&mut h);
        for a in &args {
            h.write_u64(a.0.hash);
        }
        Term(Arc::new(Node {
            op,
            args,
            sort,
            hash: h.finish(),
        }))
    }

    pub fn op(&self) -> &Op {
        &self.0.op
    }

    pub fn args(&self) -> &[Term] {
        &self.0.args
    }

    pub fn sort(&self) -> Sort {
        self.0.sort
    }

    pub fn var(id: u32, name: &str, sort: Sort, kind: VarKind) -> Term {
        Term::mk(
            Op::Var {
                id,
                name: name.into(),
                kind,
            },
            vec![],
            sort,
        )
    }

    pub fn int(v: i128) -> Term {
        Term::mk(Op::Int(v), vec![], Sort::Int)
    }

    /// A decimal literal of any size.
    pub fn int_literal(digits: &str) -> Term {
        match digits.parse::<i128>() {
            Ok(v) => Term::int(v),
            Err(_) => Term::mk(Op::BigInt(digits.into()), vec![], Sort::Int),
        }
    }

    pub fn bool(b: bool) -> Term {
        Term::mk(if b { Op::True } else { Op::False }, vec![], Sort::Bool)
    }

    pub fn null() -> Term {
        Term::mk(Op::Null, vec![], Sort::Ref)
    }

    pub fn unit() -> Term {
        Term::mk(Op::Unit, vec![], Sort::Snap)
    }

    pub fn as_int(&self) -> Option<i128> {
        match self.op() {
            Op::Int(v) => Some(*v),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self.op() {
            Op::True => Some(true),
            Op::False => Some(false),
            _ => None,
        }
    }

    pub fn is_true(&self) -> bool {
        self.as_bool() == Some(true)
    }

    pub fn is_false(&self) -> bool {
        self.as_bool() == Some(false)
    }

    pub fn allocation(&self) -> Option<u32> {
        match self.op() {
            Op::Var {
                kind: VarKind::Allocated(n),
                ..
            } => Some(*n),
            _ => None,
        }
    }

    /// Terms that are values no two different ones of which can be equal.
    fn is_distinct_value(&self) -> bool {
        matches!(
            self.op(),
            Op::Int(_)
                | Op::True
                | Op::False
                | Op::Null
                | Op::Var {
                    kind: VarKind::Allocated(_),
                    ..
                }
        )
    }

    pub fn app(name: &str, args: Vec<Term>, sort: Sort) -> Term {
        if let [a] = args.as_slice() {
            match (name, a.op(), a.args()) {
                (prelude::FIRST, Op::App(f), [l, _]) if &**f == prelude::COMBINE => {
                    return l.clone();
                }
                (prelude::SECOND, Op::App(f), [_, r]) if &**f == prelude::COMBINE => {
                    return r.clone();
                }
                // toX(fromX(v)) = v and fromX(toX(s)) = s (for Bool the second
                // law is not an axiom, but replacing a snapshot by one with the
                // same value is sound: see `prelude.smt2`).
                (_, Op::App(g), [inner]) if is_inverse(name, g) => return inner.clone(),
                _ => {}
            }
        }
        Term::mk(Op::App(name.into()), args, sort)
    }

    /// The id of a variable term.
    pub fn var_id(&self) -> Option<u32> {
        match self.op() {
            Op::Var { id, .. } => Some(*id),
            _ => None,
        }
    }

    /// Calls `f` with the id of every variable in the term (at least once
    /// each; a variable under several shared subterms may be reported more
    /// than once).
    pub fn for_each_var(&self, f: &mut dyn FnMut(u32)) {
        // Shared subterms are visited once: a term built by doubling
        // (`x = x + x;` n times) has n nodes but 2^n paths.
        let mut seen: std::collections::HashSet<*const Node> = std::collections::HashSet::new();
        let mut stack = vec![self];
        while let Some(t) = stack.pop() {
            match t.var_id() {
                Some(id) => f(id),
                None if t.args().is_empty() => {}
                None => {
                    if seen.insert(Arc::as_ptr(&t.0)) {
                        stack.extend(t.args());
                    }
                }
            }
        }
    }

    /// Whether both this condition and its negation are satisfiable for
    /// some values of its variables whatever the other variables are, when
    /// none of its variables is constrained by anything else: a comparison
    /// of distinct integer variables and integer literals, a boolean
    /// variable, or the negation of one. (Integers are unbounded, so every
    /// such comparison can go either way; references are left out, since
    /// nothing says there is a second one besides `null`.)
    pub fn is_free_choice(&self) -> bool {
        match self.op() {
            Op::Not => self.args()[0].is_free_choice(),
            Op::Var { .. } => self.sort() == Sort::Bool,
            Op::Eq | Op::Lt | Op::Le => {
                let [a, b] = self.args() else { return false };
                let operand = |t: &Term| {
                    (t.sort() == Sort::Int && t.var_id().is_some()) || t.as_int().is_some()
                };
                operand(a) && operand(b) && (a.var_id().is_some() || b.var_id().is_some()) && a != b
            }
            _ => false,
        }
    }

    pub fn combine(a: Term, b: Term) -> Term {
        // combine(first(s), second(s)) = s (surjective pairing, an axiom of
        // `prelude.smt2`): an instance closed from its own opened body
        // gets back the snapshot it was opened with.
        if let (Op::App(f), Op::App(g)) = (a.op(), b.op())
            && &**f == prelude::FIRST
            && &**g == prelude::SECOND
            && a.args() == b.args()
        {
            return a.args()[0].clone();
        }
        Term::app(prelude::COMBINE, vec![a, b], Sort::Snap)
    }

    pub fn first(s: Term) -> Term {
        Term::app(prelude::FIRST, vec![s], Sort::Snap)
    }

    pub fn second(s: Term) -> Term {
        Term::app(prelude::SECOND, vec![s], Sort::Snap)
    }

    /// The value of sort `sort` a snapshot stands for (`toRef` and kin).
    pub fn from_snap(s: Term, sort: Sort) -> Term {
        if sort == Sort::Snap {
            return s;
        }
        Term::app(prelude::from_snap(sort), vec![s], sort)
    }

    /// The snapshot of a single value (`fromRef` and kin).
    pub fn to_snap(v: Term) -> Term {
        let sort = v.sort();
        if sort == Sort::Snap {
            return v;
        }
        Term::app(prelude::to_snap(sort), vec![v], Sort::Snap)
    }

    pub fn not(a: Term) -> Term {
        match a.op() {
            Op::True => Term::bool(false),
            Op::False => Term::bool(true),
            Op::Not => a.args()[0].clone(),
            _ => Term::mk(Op::Not, vec![a], Sort::Bool),
        }
    }

    pub fn and(items: Vec<Term>) -> Term {
        let mut out = Vec::with_capacity(items.len());
        for t in items {
            match t.op() {
                Op::True => {}
                Op::False => return t,
                Op::And => out.extend(t.args().iter().cloned()),
                _ => out.push(t),
            }
        }
        match out.len() {
            0 => Term::bool(true),
            1 => out.pop().expect("one item"),
            _ => Term::mk(Op::And, out, Sort::Bool),
        }
    }

    pub fn or(items: Vec<Term>) -> Term {
        let mut out = Vec::with_capacity(items.len());
        for t in items {
            match t.op() {
                Op::False => {}
                Op::True => return t,
                Op::Or => out.extend(t.args().iter().cloned()),
                _ => out.push(t),
            }
        }
        match out.len() {
            0 => Term::bool(false),
            1 => out.pop().expect("one item"),
            _ => Term::mk(Op::Or, out, Sort::Bool),
        }
    }

    pub fn implies(a: Term, b: Term) -> Term {
        if a.is_true() {
            return b;
        }
        if a.is_false() || b.is_true() {
            return Term::bool(true);
        }
        Term::mk(Op::Implies, vec![a, b], Sort::Bool)
    }

    pub fn ite(c: Term, a: Term, b: Term) -> Term {
        match c.as_bool() {
            Some(true) => a,
            Some(false) => b,
            None if a == b => a,
            None => {
                let sort = a.sort();
                Term::mk(Op::Ite, vec![c, a, b], sort)
            }
        }
    }

    pub fn eq(a: Term, b: Term) -> Term {
        if a == b {
            return Term::bool(true);
        }
        if a.is_distinct_value() && b.is_distinct_value() {
            // Two allocated objects, or two literals, that differ.
            return Term::bool(false);
        }
        if a.sort() == Sort::Bool {
            if let Some(v) = b.as_bool() {
                return if v { a } else { Term::not(a) };
            }
            if let Some(v) = a.as_bool() {
                return if v { b } else { Term::not(b) };
            }
        }
        // A canonical order lets syntactic lookups find `a == b` as `b == a`.
        let (a, b) = if a.0.hash <= b.0.hash { (a, b) } else { (b, a) };
        Term::mk(Op::Eq, vec![a, b], Sort::Bool)
    }

    pub fn neq(a: Term, b: Term) -> Term {
        Term::not(Term::eq(a, b))
    }

    fn arith(op: Op, a: Term, b: Term, fold: fn(i128, i128) -> Option<i128>) -> Term {
        if let (Some(x), Some(y)) = (a.as_int(), b.as_int())
            && let Some(v) = fold(x, y)
        {
            return Term::int(v);
        }
        Term::mk(op, vec![a, b], Sort::Int)
    }

    pub fn add(a: Term, b: Term) -> Term {
        let ((ra, ca), (rb, cb)) = (a.offset_parts(), b.offset_parts());
        match ca.checked_add(cb) {
            Some(c) if ca != 0 || cb != 0 => {
                let rest = match (ra, rb) {
                    (Some(x), Some(y)) => Some(Term::mk(Op::Add, vec![x, y], Sort::Int)),
                    (x, None) | (None, x) => x,
                };
                Term::with_offset(rest, c)
            }
            _ => Term::arith(Op::Add, a, b, i128::checked_add),
        }
    }

    pub fn sub(a: Term, b: Term) -> Term {
        let ((ra, ca), (rb, cb)) = (a.offset_parts(), b.offset_parts());
        match ca.checked_sub(cb) {
            Some(c) if (ca != 0 || cb != 0) && (rb.is_none() || ra.is_some()) => {
                let rest = match (ra, rb) {
                    (Some(x), Some(y)) => Some(Term::mk(Op::Sub, vec![x, y], Sort::Int)),
                    (x, _) => x,
                };
                Term::with_offset(rest, c)
            }
            _ => Term::arith(Op::Sub, a, b, i128::checked_sub),
        }
    }

    /// A term as "rest + constant", where the constant is a literal added
    /// or subtracted at the top (`None` rest: the term is a literal).
    /// Arithmetic keeps constants at the top, so a counter updated n times
    /// (`x = x + 1;`) stays one addition instead of n nested ones: every
    /// query about it, and Z3's rewriting of it, would otherwise cost O(n).
    fn offset_parts(&self) -> (Option<Term>, i128) {
        if let Some(c) = self.as_int() {
            return (None, c);
        }
        match (self.op(), self.args()) {
            (Op::Add, [t, k]) | (Op::Add, [k, t])
                if k.as_int().is_some() && t.as_int().is_none() =>
            {
                (Some(t.clone()), k.as_int().unwrap_or(0))
            }
            (Op::Sub, [t, k]) if t.as_int().is_none() => {
                match k.as_int().and_then(i128::checked_neg) {
                    Some(c) => (Some(t.clone()), c),
                    None => (Some(self.clone()), 0),
                }
            }
            _ => (Some(self.clone()), 0),
        }
    }

    /// `rest + c`, written `rest - |c|` for a negative `c`.
    fn with_offset(rest: Option<Term>, c: i128) -> Term {
        match rest {
            None => Term::int(c),
            Some(t) if c == 0 => t,
            Some(t) if c < 0 && c != i128::MIN => {
                Term::mk(Op::Sub, vec![t, Term::int(-c)], Sort::Int)
            }
            Some(t) => Term::mk(Op::Add, vec![t, Term::int(c)], Sort::Int),
        }
    }

    pub fn mul(a: Term, b: Term) -> Term {
        // k1 * (k2 * t) = (k1 * k2) * t: repeated scaling stays one product.
        let scaled = |t: &Term| match (t.op(), t.args()) {
            (Op::Mul, [k, r]) | (Op::Mul, [r, k])
                if k.as_int().is_some() && r.as_int().is_none() =>
            {
                k.as_int().map(|k| (k, r.clone()))
            }
            _ => None,
        };
        let nested = match (a.as_int(), b.as_int()) {
            (Some(k1), None) => scaled(&b).map(|(k2, r)| (k1, k2, r)),
            (None, Some(k1)) => scaled(&a).map(|(k2, r)| (k1, k2, r)),
            _ => None,
        };
        if let Some((k1, k2, r)) = nested
            && let Some(k) = k1.checked_mul(k2)
        {
            return match k {
                0 => Term::int(0),
                1 => r,
                _ => Term::mk(Op::Mul, vec![Term::int(k), r], Sort::Int),
            };
        }
        Term::arith(Op::Mul, a, b, i128::checked_mul)
    }

    /// SMT-LIB `div` (Euclidean); folded only where it agrees with Rust's.
    pub fn div(a: Term, b: Term) -> Term {
        Term::arith(Op::Div, a, b, |x, y| (x >= 0 && y > 0).then(|| x / y))
    }

    pub fn modulo(a: Term, b: Term) -> Term {
        Term::arith(Op::Mod, a, b, |x, y| (x >= 0 && y > 0).then(|| x % y))
    }

    pub fn neg(a: Term) -> Term {
        match a.as_int().and_then(i128::checked_neg) {
            Some(v) => Term::int(v),
            None => Term::mk(Op::Neg, vec![a], Sort::Int),
        }
    }

    pub fn lt(a: Term, b: Term) -> Term {
        match (a.as_int(), b.as_int()) {
            (Some(x), Some(y)) => Term::bool(x < y),
            _ => Term::mk(Op::Lt, vec![a, b], Sort::Bool),
        }
    }

    pub fn le(a: Term, b: Term) -> Term {
        match (a.as_int(), b.as_int()) {
            (Some(x), Some(y)) => Term::bool(x <= y),
            _ if a == b => Term::bool(true),
            _ => Term::mk(Op::Le, vec![a, b], Sort::Bool),
        }
    }

    /// Element `i` of `seq` (a snapshot). Reads over writes at the same
    /// index, or at another literal index, and reads of a constant
    /// sequence are folded: straight-line code over array elements then
    /// reaches the solver as plain values.
    pub fn select(seq: Term, i: Term) -> Term {
        let mut cur = seq;
        loop {
            match (cur.op(), cur.args()) {
                (Op::Store, [inner, j, v]) => {
                    if *j == i {
                        return v.clone();
                    }
                    if j.as_int().is_some() && i.as_int().is_some() {
                        cur = inner.clone();
                        continue;
                    }
                }
                (Op::ConstSeq, [v]) => return v.clone(),
                _ => {}
            }
            return Term::mk(Op::Select, vec![cur, i], Sort::Snap);
        }
    }

    pub fn store(seq: Term, i: Term, v: Term) -> Term {
        // Writing back what was read leaves the same sequence: the solver
        // knows this (extensionality), but a snapshot built from the
        // sequence (`fromSeq`) would not be the one it was read from.
        if let (Op::Select, [from, j]) = (v.op(), v.args())
            && *from == seq
            && *j == i
        {
            return seq;
        }
        Term::mk(Op::Store, vec![seq, i, v], Sort::Seq)
    }

    /// The sequence holding the snapshot `v` at every index.
    pub fn const_seq(v: Term) -> Term {
        Term::mk(Op::ConstSeq, vec![v], Sort::Seq)
    }

    /// `forall vars :: body` (or `exists`), instantiated by Z3 only for
    /// instances of `trigger` (all its terms together). A body that does
    /// not depend on the variables is the quantifier's value itself (the
    /// domains, `Int` and `Bool`, are not empty).
    pub fn quant(forall: bool, vars: Vec<Term>, body: Term, trigger: Vec<Term>) -> Term {
        if vars.is_empty() || body.as_bool().is_some() {
            return body;
        }
        let n = u32::try_from(vars.len()).unwrap_or(u32::MAX);
        let mut args = vars;
        args.push(body);
        args.extend(trigger);
        Term::mk(Op::Quant { forall, vars: n }, args, Sort::Bool)
    }

    /// A quantifier's bound variables, body and trigger terms.
    pub fn quant_parts(&self) -> Option<(bool, &[Term], &Term, &[Term])> {
        let Op::Quant { forall, vars } = self.op() else {
            return None;
        };
        let n = usize::try_from(*vars).ok()?;
        let args = self.args();
        let body = args.get(n)?;
        Some((*forall, &args[..n], body, &args[n + 1..]))
    }

    /// The length of the array `r`.
    pub fn length(r: Term) -> Term {
        Term::app(prelude::LENGTH, vec![r], Sort::Int)
    }

    /// Java's `/`: truncates toward zero (for a divisor already known non-zero).
    pub fn java_div(a: Term, b: Term) -> Term {
        if let (Some(x), Some(y)) = (a.as_int(), b.as_int())
            && y != 0
            && let Some(v) = x.checked_div(y)
        {
            return Term::int(v);
        }
        let q = Term::div(Term::abs(a.clone()), Term::abs(b.clone()));
        let same_sign = Term::eq(Term::le(Term::int(0), a), Term::lt(Term::int(0), b));
        Term::ite(same_sign, q.clone(), Term::neg(q))
    }

    /// Java's `%`: the sign follows the dividend.
    pub fn java_rem(a: Term, b: Term) -> Term {
        if let (Some(x), Some(y)) = (a.as_int(), b.as_int())
            && y != 0
            && let Some(v) = x.checked_rem(y)
        {
            return Term::int(v);
        }
        let q = Term::java_div(a.clone(), b.clone());
        Term::sub(a, Term::mul(b, q))
    }

    fn abs(a: Term) -> Term {
        if let Some(v) = a.as_int().and_then(i128::checked_abs) {
            return Term::int(v);
        }
        Term::ite(Term::le(Term::int(0), a.clone()), a.clone(), Term::neg(a))
    }
}

fn is_inverse(outer: &str, inner: &str) -> bool {
    matches!(
        (outer, inner),
        ("toInt", "fromInt")
            | ("fromInt", "toInt")
            | ("toRef", "fromRef")
            | ("fromRef", "toRef")
            | ("toBool", "fromBool")
            | ("fromBool", "toBool")
            | ("toSeq", "fromSeq")
            | ("fromSeq", "toSeq")
            | ("toList", "fromList")
            | ("fromList", "toList")
    )
}

/// Longest rendering of one term: a term is a DAG, and one built by
/// doubling (`x = x + x;` n times) has 2^n characters written out.
const MAX_RENDERED: usize = 4096;

/// Readable, program-like rendering used in traces and messages (cut off
/// with `…` after `MAX_RENDERED` bytes).
impl fmt::Display for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        self.render(&mut out);
        if out.len() > MAX_RENDERED {
            let mut cut = MAX_RENDERED;
            while !out.is_char_boundary(cut) {
                cut -= 1;
            }
            out.truncate(cut);
            out.push('…');
        }
        f.write_str(&out)
    }
}

impl Term {
    fn render(&self, out: &mut String) {
        use std::fmt::Write;
        // Past the limit nothing more is kept (`fmt` cuts there), so
        // nothing more is walked.
        if out.len() > MAX_RENDERED {
            return;
        }
        let infix = |out: &mut String, sym: &str| {
            out.push('(');
            for (i, a) in self.args().iter().enumerate() {
                if i > 0 {
                    let _ = write!(out, " {sym} ");
                }
                a.render(out);
            }
            out.push(')');
        };
        match self.op() {
            Op::Var { name, id, .. } => {
                let _ = write!(out, "{name}@{id}");
            }
            Op::Int(v) => {
                let _ = write!(out, "{v}");
            }
            Op::BigInt(v) => out.push_str(v),
            Op::True => out.push_str("true"),
            Op::False => out.push_str("false"),
            Op::Null => out.push_str("null"),
            Op::Unit => out.push_str("unit"),
            Op::App(name) => {
                out.push_str(name);
                out.push('(');
                for (i, a) in self.args().iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    a.render(out);
                }
                out.push(')');
            }
            Op::Ite => {
                let a = self.args();
                out.push('(');
                a[0].render(out);
                out.push_str(" ? ");
                a[1].render(out);
                out.push_str(" : ");
                a[2].render(out);
                out.push(')');
            }
            Op::Not => match self.args()[0].op() {
                Op::Eq => {
                    let a = self.args()[0].args();
                    out.push('(');
                    a[0].render(out);
                    out.push_str(" != ");
                    a[1].render(out);
                    out.push(')');
                }
                _ => {
                    out.push('!');
                    self.args()[0].render(out);
                }
            },
            Op::Neg => {
                out.push('-');
                self.args()[0].render(out);
            }
            Op::And => infix(out, "&&"),
            Op::Or => infix(out, "||"),
            Op::Implies => infix(out, "==>"),
            Op::Eq => infix(out, "=="),
            Op::Add => infix(out, "+"),
            Op::Sub => infix(out, "-"),
            Op::Mul => infix(out, "*"),
            Op::Div => infix(out, "div"),
            Op::Mod => infix(out, "mod"),
            Op::Lt => infix(out, "<"),
            Op::Le => infix(out, "<="),
            Op::Select => {
                let a = self.args();
                a[0].render(out);
                out.push('[');
                a[1].render(out);
                out.push(']');
            }
            Op::Store => {
                let a = self.args();
                a[0].render(out);
                out.push('[');
                a[1].render(out);
                out.push_str(" := ");
                a[2].render(out);
                out.push(']');
            }
            Op::ConstSeq => {
                out.push('[');
                self.args()[0].render(out);
                out.push_str(", …]");
            }
            Op::List(k) => seq::render(*k, self.args(), out),
            Op::Quant { .. } => {
                let Some((forall, vars, body, _)) = self.quant_parts() else {
                    return;
                };
                out.push('(');
                out.push_str(if forall { "forall " } else { "exists " });
                for (i, v) in vars.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    v.render(out);
                }
                out.push_str(" :: ");
                body.render(out);
                out.push(')');
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn x() -> Term {
        Term::var(1, "x", Sort::Int, VarKind::Plain)
    }

    #[test]
    fn structural_equality_and_hash_agree() {
        let a = Term::add(x(), Term::int(1));
        let b = Term::add(x(), Term::int(1));
        assert_eq!(a, b);
        assert_ne!(a, Term::add(x(), Term::int(2)));
    }

    #[test]
    fn constructors_fold_constants_and_inverses() {
        assert_eq!(Term::add(Term::int(2), Term::int(3)), Term::int(5));
        assert_eq!(Term::eq(x(), x()), Term::bool(true));
        assert_eq!(Term::eq(Term::int(1), Term::int(2)), Term::bool(false));
        assert_eq!(
            Term::eq(Term::eq(x(), Term::int(1)), Term::int(1).clone()).sort(),
            Sort::Bool
        );
        let s = Term::var(2, "s", Sort::Snap, VarKind::Plain);
        assert_eq!(Term::to_snap(Term::from_snap(s.clone(), Sort::Int)), s);
        assert_eq!(Term::first(Term::combine(s.clone(), Term::unit())), s);
        assert_eq!(
            Term::not(Term::not(Term::eq(x(), Term::int(0)))),
            Term::eq(x(), Term::int(0))
        );
        assert_eq!(Term::eq(Term::int(0), x()), Term::eq(x(), Term::int(0)));
    }

    #[test]
    fn constants_float_to_the_top_of_sums_and_products() {
        let one = || Term::int(1);
        let mut t = x();
        for _ in 0..1000 {
            t = Term::add(t, one());
        }
        assert_eq!(t, Term::add(x(), Term::int(1000)));
        assert_eq!(t.to_string(), "(x@1 + 1000)");
        for _ in 0..1500 {
            t = Term::sub(t, one());
        }
        assert_eq!(t.to_string(), "(x@1 - 500)");
        assert_eq!(Term::add(t, Term::int(500)), x());
        let y = Term::var(2, "y", Sort::Int, VarKind::Plain);
        // (x + 1) + y = (x + y) + 1 and (x + 1) - (y + 3) = (x - y) - 2.
        let x1 = Term::add(x(), one());
        assert_eq!(
            Term::add(x1.clone(), y.clone()).to_string(),
            "((x@1 + y@2) + 1)"
        );
        let y3 = Term::add(y.clone(), Term::int(3));
        assert_eq!(Term::sub(x1, y3.clone()).to_string(), "((x@1 - y@2) - 2)");
        // A constant minus a sum keeps its shape.
        assert_eq!(Term::sub(one(), y3).to_string(), "(1 - (y@2 + 3))");
        // A constant goes last; without one nothing moves.
        assert_eq!(Term::add(one(), y.clone()).to_string(), "(y@2 + 1)");
        assert_eq!(Term::add(x(), y.clone()).to_string(), "(x@1 + y@2)");
        let mut m = x();
        for _ in 0..10 {
            m = Term::mul(m, Term::int(2));
        }
        assert_eq!(m.to_string(), "(1024 * x@1)");
        // Overflow of the folded constant leaves the nesting in place.
        let big = Term::add(x(), Term::int(i128::MAX));
        assert_eq!(
            Term::add(big.clone(), one()).args()[0],
            big,
            "no wrap-around"
        );
    }

    #[test]
    fn shared_subterms_are_walked_and_rendered_in_bounded_time() {
        let mut t = x();
        for _ in 0..200 {
            t = Term::add(t.clone(), t);
        }
        let mut vars = Vec::new();
        t.for_each_var(&mut |id| vars.push(id));
        // 2^200 paths lead to `x`; each node is entered once.
        assert_eq!(vars, vec![1, 1]);
        let text = t.to_string();
        assert_eq!(text.len(), MAX_RENDERED + '…'.len_utf8());
        assert!(text.starts_with("((((") && text.ends_with('…'), "{text}");
        assert_eq!(Term::add(x(), x()).to_string(), "(x@1 + x@1)");
    }

    #[test]
    fn java_division_truncates_toward_zero() {
        for (a, b) in [(7, 2), (-7, 2), (7, -2), (-7, -2), (0, 3)] {
            assert_eq!(Term::java_div(Term::int(a), Term::int(b)), Term::int(a / b));
            assert_eq!(Term::java_rem(Term::int(a), Term::int(b)), Term::int(a % b));
        }
    }

    #[test]
    fn element_reads_fold_over_writes() {
        let a = Term::var(3, "a", Sort::Seq, VarKind::Plain);
        let v = |n| Term::to_snap(Term::int(n));
        let w = Term::store(
            Term::store(a.clone(), Term::int(0), v(5)),
            Term::int(1),
            v(6),
        );
        assert_eq!(Term::select(w.clone(), Term::int(0)), v(5));
        assert_eq!(Term::select(w.clone(), Term::int(1)), v(6));
        // Another literal index reads through both writes; a variable one
        // cannot be decided here.
        assert_eq!(
            Term::select(w.clone(), Term::int(2)),
            Term::select(a.clone(), Term::int(2))
        );
        assert_eq!(Term::select(w.clone(), x()).args()[0], w);
        assert_eq!(Term::select(Term::const_seq(v(0)), x()), v(0));
        assert_eq!(w.to_string(), "a@3[0 := fromInt(5)][1 := fromInt(6)]");
        let read = Term::select(a.clone(), x());
        assert_eq!(Term::store(a.clone(), x(), read), a);
    }

    #[test]
    fn allocated_objects_are_distinct() {
        let o1 = Term::var(1, "o1", Sort::Ref, VarKind::Allocated(1));
        let o2 = Term::var(2, "o2", Sort::Ref, VarKind::Allocated(2));
        assert_eq!(Term::eq(o1.clone(), o2), Term::bool(false));
        assert_eq!(Term::eq(o1, Term::null()), Term::bool(false));
    }
}
