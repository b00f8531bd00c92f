//! Arrays in the concrete interpreter (docs/language.md section 4.4). An array
//! is a heap object whose length is the field `[].length` and whose
//! element `i` is the field `[]#i`; the one permission `acc(a.elems)` is
//! the location `(a, "[].elems")`, which covers every element.

use super::eval::Env;
use super::exec::{Frame, default_value};
use super::heap::{Heap, Loc};
use super::{Machine, OldState, R, Stop, Value};
use crate::diag::Kind;
use crate::syntax::ast::{ELEMS, Expr, ExprKind, Span, TypeKind};

/// The field holding an array's length.
pub const LENGTH: &str = "[].length";

/// Arrays larger than this are not allocated by a run (a limit, not a
/// failure of the program).
pub const MAX_LENGTH: i128 = 1 << 20;

/// The field of element `i`.
pub fn elem_field(i: i128) -> String {
    format!("[]#{i}")
}

/// The length of array object `o`, if `o` is one.
pub fn length_of(heap: &Heap, o: usize) -> Option<i128> {
    match heap.get(&(o, LENGTH.to_string()))? {
        Value::Int(n) => Some(n),
        _ => None,
    }
}

/// The locations `locs` stand for, value by value: the elements chunk of
/// an array is all its elements.
pub fn value_locs(heap: &Heap, locs: impl IntoIterator<Item = Loc>) -> Vec<Loc> {
    let mut out = Vec::new();
    for l in locs {
        if l.1 == ELEMS {
            let n = length_of(heap, l.0).unwrap_or(0);
            out.extend((0..n).map(|i| (l.0, elem_field(i))));
        } else {
            out.push(l);
        }
    }
    out
}

/// The values of `locs` now (element by element for arrays): a pre-state.
pub fn snapshot(heap: &Heap, perms: &super::perms::Perms) -> OldState {
    let values = value_locs(heap, perms.all_locs())
        .into_iter()
        .filter_map(|l| heap.get(&l).map(|v| (l, v)))
        .collect();
    OldState {
        values,
        perms: perms.clone(),
    }
}

/// Every element of array `o`, in order (for display).
pub fn contents(heap: &Heap, o: usize) -> Option<Vec<Value>> {
    let n = length_of(heap, o)?;
    Some(
        (0..n)
            .map(|i| heap.get(&(o, elem_field(i))).unwrap_or(Value::Null))
            .collect(),
    )
}

impl Machine<'_> {
    /// `a.length`: `receiver.null` for a null array.
    pub fn eval_length(&mut self, arr: &Expr, e: &Expr, env: Env) -> R<Value> {
        match self.eval(arr, env)? {
            Value::Ref(o) => length_of(&self.heap, o)
                .map(Value::Int)
                .ok_or_else(|| Stop::Internal("`length` of an object that is no array".into())),
            _ => {
                let reason = format!("the array `{}` is null", self.text(&arr.span));
                Err(self.fail(
                    Kind::ReceiverNull,
                    e.span.clone(),
                    reason,
                    env.store,
                    env.perms,
                ))
            }
        }
    }

    /// The array object and index of `a[i]` (the expression `e`), after
    /// the checks of an access: `acc(a.elems)` held (through instances
    /// with inference) and the index in bounds.
    fn element(&mut self, arr: &Expr, index: &Expr, e: &Expr, env: Env, verb: &str) -> R<Loc> {
        let a = self.eval(arr, env)?;
        let i = match self.eval(index, env)? {
            Value::Int(i) => i,
            v => return Err(Stop::Internal(format!("index {v} is not an int"))),
        };
        let held = match a {
            Value::Ref(o) => env
                .perms
                .has(&(o, ELEMS.to_string()), self.infer)
                .then_some(o),
            _ => None,
        };
        let Some(o) = held else {
            let reason = format!("no permission to {verb} `{}`", self.text(&e.span));
            return Err(self.fail(
                Kind::PermissionMissing,
                e.span.clone(),
                reason,
                env.store,
                env.perms,
            ));
        };
        let n = length_of(&self.heap, o).unwrap_or(0);
        if i < 0 || i >= n {
            let reason = format!("the index {i} is outside the array of length {n}");
            return Err(self.fail(
                Kind::IndexOutOfBounds,
                e.span.clone(),
                reason,
                env.store,
                env.perms,
            ));
        }
        Ok((o, elem_field(i)))
    }

    /// `a[i]` (in the pre-state inside `old`).
    pub fn eval_index(&mut self, arr: &Expr, index: &Expr, e: &Expr, env: Env) -> R<Value> {
        let loc = self.element(arr, index, e, env, "read")?;
        let value = if env.in_old {
            env.old.and_then(|old| old.values.get(&loc).copied())
        } else {
            self.heap.get(&loc)
        };
        value.ok_or_else(|| Stop::Internal(format!("no value for `{}`", self.text(&e.span))))
    }

    /// `a[i] = v;`: with inference, the instances holding `acc(a.elems)`
    /// are opened and stay open, as for a field write.
    pub fn index_assign(
        &mut self,
        target: &Expr,
        value: &Expr,
        frame: &mut Frame,
        old: &OldState,
    ) -> R<()> {
        let ExprKind::Index { arr, index, .. } = &target.kind else {
            return Err(Stop::Internal(
                "assignment to something that is not an element".into(),
            ));
        };
        let env = Env {
            store: &frame.store,
            perms: &frame.perms,
            old: Some(old),
            in_old: false,
        };
        let v = self.eval(value, env)?;
        if self.infer
            && let Value::Ref(o) = self.eval(arr, env)?
        {
            frame.perms.unfold_to(&(o, ELEMS.to_string()));
        }
        let env = Env {
            store: &frame.store,
            perms: &frame.perms,
            old: Some(old),
            in_old: false,
        };
        let infer = std::mem::replace(&mut self.infer, false);
        let loc = self.element(arr, index, target, env, "write");
        self.infer = infer;
        self.heap.set(&loc?, v);
        Ok(())
    }

    /// `new T[n]`: `array.size.negative` for `n < 0`; the caller gets
    /// `acc(a.elems)` of a fresh array of defaults.
    pub fn new_array(
        &mut self,
        (elem, size): (&TypeKind, &Expr),
        span: Span,
        frame: &mut Frame,
        env: Env,
    ) -> R<Value> {
        let n = match self.eval(size, env)? {
            Value::Int(n) => n,
            v => return Err(Stop::Internal(format!("array size {v} is not an int"))),
        };
        if n < 0 {
            let reason = format!("the size {n} is negative");
            return Err(self.fail(Kind::ArraySizeNegative, span, reason, env.store, env.perms));
        }
        if n > MAX_LENGTH {
            return Err(Stop::Limit(format!(
                "an array of {n} elements is larger than a run allocates ({MAX_LENGTH})"
            )));
        }
        let o = alloc(&mut self.heap, elem, n);
        frame.perms.locs.insert((o, ELEMS.to_string()));
        Ok(Value::Ref(o))
    }
}

/// A fresh array of `n` defaults of type `elem`.
pub fn alloc(heap: &mut Heap, elem: &TypeKind, n: i128) -> usize {
    let d = default_value(elem);
    let mut fields: std::collections::BTreeMap<String, Value> =
        (0..n).map(|i| (elem_field(i), d)).collect();
    fields.insert(LENGTH.to_string(), Value::Int(n));
    heap.alloc(&format!("{elem}[]"), fields)
}

/// Whether heap object `o` is an array.
pub fn is_array(heap: &Heap, o: usize) -> bool {
    length_of(heap, o).is_some()
}
