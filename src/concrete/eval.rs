//! Expressions: values, field reads under permission, pure calls (their
//! preconditions checked, their bodies run), `old`, `opening`, `using`.

use super::perms::Perms;
use super::{Machine, Obligation, OldState, R, Stop, Store, Value, overflow};
use crate::diag::Kind;
use crate::syntax::ast::*;

/// Where an expression is evaluated: the store, what reads may use, and
/// the method's pre-state (for `old`).
#[derive(Clone, Copy)]
pub(crate) struct Env<'a> {
    pub store: &'a Store,
    pub perms: &'a Perms,
    pub old: Option<&'a OldState>,
    /// Reading the pre-state (inside `old`).
    pub in_old: bool,
}

impl<'a> Env<'a> {
    pub fn with_perms<'b>(&self, perms: &'b Perms) -> Env<'b>
    where
        'a: 'b,
    {
        Env { perms, ..*self }
    }

    pub fn with_store<'b>(&self, store: &'b Store) -> Env<'b>
    where
        'a: 'b,
    {
        Env { store, ..*self }
    }
}

impl Machine<'_> {
    pub fn eval(&mut self, e: &Expr, env: Env) -> R<Value> {
        self.step()?;
        match &e.kind {
            ExprKind::Int(digits) => digits
                .parse::<i128>()
                .map(Value::Int)
                .map_err(|_| Stop::Limit(overflow())),
            ExprKind::Bool(b) => Ok(Value::Bool(*b)),
            ExprKind::Null => Ok(Value::Null),
            ExprKind::This => self.var(env, "this"),
            ExprKind::Result => self.var(env, "result"),
            ExprKind::Var(x) => self.var(env, &x.name),
            ExprKind::Field { recv, field, class } => {
                let r = self.eval(recv, env)?;
                let name = format!("{class}.{}", field.name);
                self.read(r, &name, e, env)
            }
            ExprKind::Call(call) => self.pure_call(call, env),
            ExprKind::Length(a) => self.eval_length(a, e, env),
            ExprKind::Index { arr, index, .. } => self.eval_index(arr, index, e, env),
            ExprKind::Unary(UnOp::Not, a) => Ok(Value::Bool(!self.eval_bool(a, env)?)),
            ExprKind::Unary(UnOp::Neg, a) => {
                let n = self.eval_int(a, env)?;
                n.checked_neg()
                    .map(Value::Int)
                    .ok_or_else(|| Stop::Limit(overflow()))
            }
            ExprKind::Binary(BinOp::And, a, b) => Ok(Value::Bool(
                self.eval_bool(a, env)? && self.eval_bool(b, env)?,
            )),
            ExprKind::Binary(BinOp::Or, a, b) => Ok(Value::Bool(
                self.eval_bool(a, env)? || self.eval_bool(b, env)?,
            )),
            ExprKind::Binary(BinOp::Implies, a, b) => Ok(Value::Bool(
                !self.eval_bool(a, env)? || self.eval_bool(b, env)?,
            )),
            ExprKind::Binary(op, a, b) => {
                let va = self.eval(a, env)?;
                let vb = self.eval(b, env)?;
                self.binary(*op, va, vb, e, env)
            }
            ExprKind::Cond(c, a, b) => {
                if self.eval_bool(c, env)? {
                    self.eval(a, env)
                } else {
                    self.eval(b, env)
                }
            }
            ExprKind::Old(a) => match env.old {
                Some(old) => {
                    let inner = Env {
                        perms: &old.perms,
                        in_old: true,
                        ..env
                    };
                    self.eval(a, inner)
                }
                None => Err(Stop::Internal("`old` without a pre-state".into())),
            },
            ExprKind::Opening(call, body) => self.opening(call, body, e.span.clone(), env),
            ExprKind::Int32(a) => {
                let v = self.eval(a, env)?;
                self.int32(v, a, env)
            }
            ExprKind::Using(call, body) => {
                self.pure_call(call, env)?;
                self.eval(body, env)
            }
            ExprKind::Quant(q) => self.eval_quant(q, &e.span, env),
            ExprKind::Name(_)
            | ExprKind::New { .. }
            | ExprKind::NewArray { .. }
            | ExprKind::Acc(_)
            | ExprKind::Untouched(_)
            // Lowered before any run (`crate::lower`).
            | ExprKind::PostStep(..)
            | ExprKind::PreStep(..) => Err(Stop::Internal(format!(
                "unexpected form in an expression: `{}`",
                self.text(&e.span)
            ))),
        }
    }

    fn var(&self, env: Env, name: &str) -> R<Value> {
        env.store
            .get(name)
            .copied()
            .ok_or_else(|| Stop::Internal(format!("`{name}` has no value")))
    }

    pub fn eval_bool(&mut self, e: &Expr, env: Env) -> R<bool> {
        match self.eval(e, env)? {
            Value::Bool(b) => Ok(b),
            v => Err(Stop::Internal(format!(
                "`{}` gave {v}, not a bool",
                self.text(&e.span)
            ))),
        }
    }

    fn eval_int(&mut self, e: &Expr, env: Env) -> R<i128> {
        match self.eval(e, env)? {
            Value::Int(n) => Ok(n),
            v => Err(Stop::Internal(format!(
                "`{}` gave {v}, not an int",
                self.text(&e.span)
            ))),
        }
    }

    /// Reads `r.field` (the expression `e`) under the permissions of `env`.
    pub fn read(&mut self, r: Value, field: &str, e: &Expr, env: Env) -> R<Value> {
        let Value::Ref(o) = r else {
            let reason = format!("cannot read `{}`: the receiver is null", self.text(&e.span));
            return Err(self.fail(
                Kind::PermissionMissing,
                e.span.clone(),
                reason,
                env.store,
                env.perms,
            ));
        };
        let loc = (o, field.to_string());
        if !env.perms.has(&loc, self.infer) {
            let reason = format!("no permission to read `{}`", self.text(&e.span));
            return Err(self.fail(
                Kind::PermissionMissing,
                e.span.clone(),
                reason,
                env.store,
                env.perms,
            ));
        }
        let value = if env.in_old {
            env.old.and_then(|old| old.values.get(&loc).copied())
        } else {
            self.heap.get(&loc)
        };
        value.ok_or_else(|| Stop::Internal(format!("no value for `{}`", self.text(&e.span))))
    }

    /// The value `v` of an operation `a` in code under `--overflow`: it must
    /// lie in Java's `int` range (docs/language.md section 4e).
    fn int32(&mut self, v: Value, a: &Expr, env: Env) -> R<Value> {
        const MIN: i128 = -2_147_483_648;
        const MAX: i128 = 2_147_483_647;
        match v {
            Value::Int(n) if !(MIN..=MAX).contains(&n) => {
                let reason = format!(
                    "`{}` is {n}, outside Java's `int` range (`int` overflow)",
                    self.text(&a.span)
                );
                Err(self.fail(Kind::Overflow, a.span.clone(), reason, env.store, env.perms))
            }
            v => Ok(v),
        }
    }

    fn binary(&mut self, op: BinOp, a: Value, b: Value, e: &Expr, env: Env) -> R<Value> {
        let ints = match (a, b) {
            (Value::Int(x), Value::Int(y)) => Some((x, y)),
            _ => None,
        };
        let arith = |r: Option<i128>| r.map(Value::Int).ok_or_else(|| Stop::Limit(overflow()));
        match (op, ints) {
            (BinOp::Eq, _) => Ok(Value::Bool(a == b)),
            (BinOp::Ne, _) => Ok(Value::Bool(a != b)),
            (BinOp::Lt, Some((x, y))) => Ok(Value::Bool(x < y)),
            (BinOp::Le, Some((x, y))) => Ok(Value::Bool(x <= y)),
            (BinOp::Gt, Some((x, y))) => Ok(Value::Bool(x > y)),
            (BinOp::Ge, Some((x, y))) => Ok(Value::Bool(x >= y)),
            (BinOp::Add, Some((x, y))) => arith(x.checked_add(y)),
            (BinOp::Sub, Some((x, y))) => arith(x.checked_sub(y)),
            (BinOp::Mul, Some((x, y))) => arith(x.checked_mul(y)),
            (BinOp::Div | BinOp::Mod, Some((_, 0))) => {
                let reason = format!("the divisor of `{}` is zero", self.text(&e.span));
                Err(self.fail(
                    Kind::DivisionByZero,
                    e.span.clone(),
                    reason,
                    env.store,
                    env.perms,
                ))
            }
            // Rust's `/` and `%` truncate toward zero, as Java's do.
            (BinOp::Div, Some((x, y))) => arith(x.checked_div(y)),
            (BinOp::Mod, Some((x, y))) => arith(x.checked_rem(y)),
            _ => Err(Stop::Internal(format!("`{}` on {a} and {b}", op.symbol()))),
        }
    }

    /// The receiver (`None` for a static call) and arguments of a call.
    pub fn operands(&mut self, call: &Call, env: Env) -> R<(Option<Value>, Vec<Value>)> {
        let recv = match &call.receiver {
            Receiver::Expr(r) => Some(self.eval(r, env)?),
            Receiver::Implicit | Receiver::Class(_) => None,
        };
        let mut args = Vec::with_capacity(call.args.len());
        for a in &call.args {
            args.push(self.eval(a, env)?);
        }
        Ok((recv, args))
    }

    /// A store binding `this` and the parameters.
    pub fn bind(this: Option<Value>, params: &[Param], args: &[Value]) -> Store {
        let mut store = Store::new();
        if let Some(t) = this {
            store.insert("this".into(), t);
        }
        for (p, a) in params.iter().zip(args) {
            store.insert(p.name.name.clone(), *a);
        }
        store
    }

    pub fn null_receiver(&self, call: &Call, env: Env) -> Stop {
        let what = match &call.receiver {
            Receiver::Expr(e) => self.text(&e.span),
            _ => "this".into(),
        };
        let reason = format!("the receiver `{what}` is null");
        self.fail(
            Kind::ReceiverNull,
            call.span.clone(),
            reason,
            env.store,
            env.perms,
        )
    }

    /// A pure call: its precondition must be held where the call is
    /// evaluated (nothing is taken from the caller); the body runs with
    /// the precondition's footprint.
    pub fn pure_call(&mut self, call: &Call, env: Env) -> R<Value> {
        let prog = self.prog;
        let pure = call
            .target
            .as_ref()
            .and_then(|t| prog.pure_method(&t.class, &call.name.name))
            .ok_or_else(|| Stop::Internal("a call in an expression that is not pure".into()))?;
        let (recv, args) = self.operands(call, env)?;
        if recv == Some(Value::Null) {
            return Err(self.null_receiver(call, env));
        }
        let callee = Self::bind(recv, &pure.decl.params, &args);
        let mut avail = env.perms.clone();
        let ob = Obligation {
            kind: Kind::PreconditionFailed,
            at: Some(call.span.clone()),
        };
        let fp = self.consume(&pure.pre, env.with_store(&callee), &mut avail, ob)?;
        self.enter_call()?;
        let v = self.eval(
            &pure.decl.body,
            Env {
                store: &callee,
                perms: &fp,
                ..env
            },
        );
        self.depth -= 1;
        v
    }

    /// `opening e.q(args) in body`: the instance must be held; the body is
    /// evaluated with it opened.
    fn opening(&mut self, call: &Call, body: &Expr, span: Span, env: Env) -> R<Value> {
        let opened = self.open_in(call, span, env.perms, env)?;
        self.eval(body, env.with_perms(&opened))
    }

    /// `perms` with the instance `call` names opened (`open.failed` at
    /// `span` unless it is held, or, with inference, can be closed).
    pub fn open_in(&mut self, call: &Call, span: Span, perms: &Perms, env: Env) -> R<Perms> {
        let (recv, args) = self.operands(call, env)?;
        let pred = self.pred_name(call)?;
        let mut out = perms.clone();
        if let Some(Value::Ref(o)) = recv {
            if self.infer {
                out.unfold_to_pred(o, &pred, &args);
            }
            if let Some(inst) = out.take_pred(o, &pred, &args) {
                out.add(inst.body);
                return Ok(out);
            }
            // Closed on demand and opened again: nothing changes.
            if self.infer
                && self
                    .try_close(call, o, &args, &mut out.clone(), env)?
                    .is_some()
            {
                return Ok(out);
            }
        }
        let reason = format!("no `{}` is held", self.text(&call.span));
        let saved = self.ob.clone();
        if self.ob.is_none() {
            self.ob = Some(Obligation {
                kind: Kind::OpenFailed,
                at: Some(span.clone()),
            });
        }
        let stop = self.fail(Kind::OpenFailed, span, reason, env.store, perms);
        self.ob = saved;
        Err(stop)
    }

    pub fn pred_name(&self, call: &Call) -> R<String> {
        call.target
            .as_ref()
            .map(|t| format!("{}.{}", t.class, call.name.name))
            .ok_or_else(|| Stop::Internal("unresolved predicate".into()))
    }
}
