//! Statements and method calls. A call consumes the callee's precondition
//! from the caller (its footprint goes to the callee), runs the body, and
//! consumes the postcondition from the callee (its footprint comes back);
//! whatever else the callee held is lost, as in the verifier.

use super::eval::Env;
use super::perms::{Instance, Perms};
use super::{Machine, Obligation, OldState, R, Stop, Store, Value};
use crate::diag::Kind;
use crate::symbolic::program::{MethodInfo, conjoin};
use crate::syntax::ast::*;

pub(crate) struct Frame {
    pub store: Store,
    pub perms: Perms,
}

pub(crate) enum Flow {
    Normal,
    Return(Option<Value>),
    /// A `break` or `continue`, on its way to the innermost loop.
    Break,
    Continue,
}

pub fn default_value(t: &TypeKind) -> Value {
    match t {
        TypeKind::Int => Value::Int(0),
        TypeKind::Bool => Value::Bool(false),
        TypeKind::Class(_) | TypeKind::Array(_) => Value::Null,
    }
}

fn env<'a>(store: &'a Store, perms: &'a Perms, old: &'a OldState) -> Env<'a> {
    Env {
        store,
        perms,
        old: Some(old),
        in_old: false,
    }
}

impl Machine<'_> {
    /// Calls `mi`: its precondition is taken from `caller` (failures are
    /// `precondition.failed` at `at`, or at the failing conjunct for the
    /// entry method), and its postcondition's footprint given back.
    pub fn invoke(
        &mut self,
        mi: &MethodInfo,
        this: Option<Value>,
        args: &[Value],
        at: Option<Span>,
        caller: &mut Perms,
        infer_after: bool,
    ) -> R<(Perms, Option<Value>)> {
        let store = Self::bind(this, &mi.decl.params, args);
        let read = caller.clone();
        let env = Env {
            store: &store,
            perms: &read,
            old: None,
            in_old: false,
        };
        let ob = Obligation {
            kind: Kind::PreconditionFailed,
            at,
        };
        let fp = self.consume(&mi.pre, env, caller, ob)?;
        self.infer = infer_after;
        let (back, result) = self.run_body(mi, store, fp)?;
        caller.add(back.clone());
        Ok((back, result))
    }

    fn run_body(&mut self, mi: &MethodInfo, store: Store, fp: Perms) -> R<(Perms, Option<Value>)> {
        self.enter_call()?;
        let old = super::array::snapshot(&self.heap, &fp);
        let mut frame = Frame {
            store: store.clone(),
            perms: fp,
        };
        let result = match self.exec_block(&mi.decl.body.stmts, &mut frame, &old)? {
            Flow::Return(v) => v,
            Flow::Normal => None,
            Flow::Break | Flow::Continue => {
                return Err(Stop::Internal(
                    "a `break` or `continue` outside a loop".into(),
                ));
            }
        };
        if mi.ret.is_some() && result.is_none() {
            return Err(Stop::Internal(format!(
                "`{}` ended without returning a value",
                mi.decl.name.name
            )));
        }
        // In the postcondition, parameters denote their values on entry.
        let mut post_store = store;
        if let Some(r) = result {
            post_store.insert("result".into(), r);
        }
        let read = frame.perms.clone();
        let ob = Obligation {
            kind: Kind::PostconditionFailed,
            at: None,
        };
        let back = self.consume(
            &mi.post,
            env(&post_store, &read, &old),
            &mut frame.perms,
            ob,
        )?;
        self.depth -= 1;
        Ok((back, result))
    }

    pub fn exec_block(&mut self, stmts: &[Stmt], frame: &mut Frame, old: &OldState) -> R<Flow> {
        for st in stmts {
            match self.exec(st, frame, old)? {
                Flow::Normal => {}
                jump => return Ok(jump),
            }
        }
        Ok(Flow::Normal)
    }

    fn exec(&mut self, st: &Stmt, frame: &mut Frame, old: &OldState) -> R<Flow> {
        self.step()?;
        match &st.kind {
            StmtKind::Local {
                ty,
                name,
                init: None,
            } => {
                frame
                    .store
                    .insert(name.name.clone(), default_value(&ty.kind));
            }
            StmtKind::Local {
                name,
                init: Some(e),
                ..
            }
            | StmtKind::Assign {
                target: name,
                value: e,
            } => {
                let v = self.rhs(e, frame, old)?;
                frame.store.insert(name.name.clone(), v);
            }
            StmtKind::FieldAssign { target, value } => {
                self.field_assign(target, value, frame, old)?
            }
            StmtKind::IndexAssign { target, value } => {
                self.index_assign(target, value, frame, old)?
            }
            StmtKind::Call(e) => {
                let ExprKind::Call(call) = &e.kind else {
                    return Err(Stop::Internal("a call statement that is not a call".into()));
                };
                self.exec_call(call, frame, old)?;
            }
            StmtKind::If { cond, then, els } => {
                let c = self.eval_bool(cond, env(&frame.store, &frame.perms, old))?;
                let block = if c { Some(then) } else { els.as_ref() };
                if let Some(b) = block {
                    return self.exec_block(&b.stmts, frame, old);
                }
            }
            StmtKind::While {
                cond,
                invariants,
                body,
                pre,
                body_first,
            } => return self.exec_while(cond, invariants, (pre, body, *body_first), frame, old),
            StmtKind::Break => return Ok(Flow::Break),
            StmtKind::Continue => return Ok(Flow::Continue),
            StmtKind::Assert(a) => {
                let mut avail = frame.perms.clone();
                let ob = Obligation {
                    kind: Kind::AssertFailed,
                    at: None,
                };
                self.consume(a, env(&frame.store, &frame.perms, old), &mut avail, ob)?;
            }
            StmtKind::Assume(e) => {
                if !self.eval_bool(e, env(&frame.store, &frame.perms, old))? {
                    return Err(Stop::Assume(st.span.clone()));
                }
            }
            StmtKind::Return(value) => {
                let v = match value {
                    Some(e) => Some(self.eval(e, env(&frame.store, &frame.perms, old))?),
                    None => None,
                };
                return Ok(Flow::Return(v));
            }
            StmtKind::Open(e) => {
                let call = as_call(e)?;
                let opened = self.open_in(
                    call,
                    st.span.clone(),
                    &frame.perms,
                    env(&frame.store, &frame.perms, old),
                )?;
                frame.perms = opened;
            }
            StmtKind::Close(e) => self.close(as_call(e)?, st.span.clone(), frame, old)?,
            StmtKind::Use(e) => {
                self.pure_call(as_call(e)?, env(&frame.store, &frame.perms, old))?;
            }
            StmtKind::Join(a) => {
                let read = frame.perms.clone();
                let ob = Obligation {
                    kind: Kind::JoinFailed,
                    at: None,
                };
                frame.perms =
                    self.consume(a, env(&frame.store, &read, old), &mut frame.perms, ob)?;
            }
            StmtKind::Update { .. } | StmtKind::For(_) | StmtKind::Chain { .. } => {
                return Err(Stop::Internal("a statement left to lowering".into()));
            }
        }
        Ok(Flow::Normal)
    }

    /// The value of the right side of an assignment (a call, `new`, or an
    /// expression).
    fn rhs(&mut self, e: &Expr, frame: &mut Frame, old: &OldState) -> R<Value> {
        match &e.kind {
            ExprKind::Call(call)
                if call
                    .target
                    .as_ref()
                    .is_some_and(|t| t.kind == MemberKind::Method) =>
            {
                self.exec_call(call, frame, old)?
                    .ok_or_else(|| Stop::Internal("a void call used as a value".into()))
            }
            ExprKind::New { class, args } => {
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    vals.push(self.eval(a, env(&frame.store, &frame.perms, old))?);
                }
                self.exec_new(&class.name, &vals, e.span.clone(), frame)
            }
            ExprKind::NewArray { elem, size } => {
                let read = frame.perms.clone();
                let store = frame.store.clone();
                self.new_array(
                    (&elem.kind, size),
                    e.span.clone(),
                    frame,
                    env(&store, &read, old),
                )
            }
            _ => self.eval(e, env(&frame.store, &frame.perms, old)),
        }
    }

    fn field_assign(
        &mut self,
        target: &Expr,
        value: &Expr,
        frame: &mut Frame,
        old: &OldState,
    ) -> R<()> {
        let ExprKind::Field { recv, field, class } = &target.kind else {
            return Err(Stop::Internal(
                "assignment to something that is not a field".into(),
            ));
        };
        let r = self.eval(recv, env(&frame.store, &frame.perms, old))?;
        let v = self.eval(value, env(&frame.store, &frame.perms, old))?;
        let Value::Ref(o) = r else {
            let reason = format!(
                "cannot write `{}`: the receiver is null",
                self.text(&target.span)
            );
            return Err(self.fail(
                Kind::PermissionMissing,
                target.span.clone(),
                reason,
                &frame.store,
                &frame.perms,
            ));
        };
        let loc = (o, format!("{class}.{}", field.name));
        // With inference the instances holding the location are opened
        // (and stay open), as the verifier's open on demand does.
        if self.infer {
            frame.perms.unfold_to(&loc);
        }
        if !frame.perms.locs.contains(&loc) {
            let reason = format!("no permission to write `{}`", self.text(&target.span));
            return Err(self.fail(
                Kind::PermissionMissing,
                target.span.clone(),
                reason,
                &frame.store,
                &frame.perms,
            ));
        }
        self.heap.set(&loc, v);
        Ok(())
    }

    fn exec_call(&mut self, call: &Call, frame: &mut Frame, old: &OldState) -> R<Option<Value>> {
        let prog = self.prog;
        let mi = call
            .target
            .as_ref()
            .and_then(|t| prog.method(&t.class, &call.name.name))
            .ok_or_else(|| Stop::Internal("a call statement that is not a mutator".into()))?;
        let (recv, args) = self.operands(call, env(&frame.store, &frame.perms, old))?;
        if recv == Some(Value::Null) {
            return Err(self.null_receiver(call, env(&frame.store, &frame.perms, old)));
        }
        let infer = self.infer;
        let (_, result) = self.invoke(
            mi,
            recv,
            &args,
            Some(call.span.clone()),
            &mut frame.perms,
            infer,
        )?;
        Ok(result)
    }

    /// `new C(args)`: a fresh object with default fields, all of them the
    /// caller's, then the constructor (whose implicit precondition takes
    /// them).
    fn exec_new(&mut self, class: &str, args: &[Value], span: Span, frame: &mut Frame) -> R<Value> {
        let prog = self.prog;
        let fields = prog
            .class_fields(class)
            .iter()
            .map(|(f, _, ty)| (f.clone(), default_value(ty)))
            .collect();
        let o = self.heap.alloc(class, fields);
        for (f, _, _) in prog.class_fields(class) {
            frame.perms.locs.insert((o, f.clone()));
        }
        if let Some(ctor) = prog.constructor(class) {
            let infer = self.infer;
            self.invoke(
                ctor,
                Some(Value::Ref(o)),
                args,
                Some(span),
                &mut frame.perms,
                infer,
            )?;
        }
        Ok(Value::Ref(o))
    }

    fn close(&mut self, call: &Call, span: Span, frame: &mut Frame, old: &OldState) -> R<()> {
        let prog = self.prog;
        let pred = call
            .target
            .as_ref()
            .and_then(|t| prog.predicate(&t.class, &call.name.name))
            .ok_or_else(|| Stop::Internal("`close` of something that is not a predicate".into()))?;
        let (recv, args) = self.operands(call, env(&frame.store, &frame.perms, old))?;
        let Some(Value::Ref(o)) = recv else {
            return Err(self.null_receiver(call, env(&frame.store, &frame.perms, old)));
        };
        let store = Self::bind(recv, &pred.decl.params, &args);
        let read = frame.perms.clone();
        let ob = Obligation {
            kind: Kind::CloseFailed,
            at: Some(span),
        };
        let body = self.consume(
            &pred.decl.body,
            env(&store, &read, old),
            &mut frame.perms,
            ob,
        )?;
        frame.perms.preds.push(Instance {
            recv: o,
            pred: format!("{}.{}", pred.class, pred.decl.name.name),
            args,
            body,
        });
        Ok(())
    }

    /// A loop: the invariant is consumed on entry (the rest is the frame,
    /// kept aside), the body runs with the invariant's footprint and must
    /// give it back at the end of every iteration; on exit, and at a
    /// `return` inside the body, the frame comes back.
    fn exec_while(
        &mut self,
        cond: &Expr,
        invariants: &[Expr],
        (pre, body, body_first): (&Block, &Block, bool),
        frame: &mut Frame,
        old: &OldState,
    ) -> R<Flow> {
        let inv = conjoin(invariants, cond.span.clone());
        // `untouched` in an invariant compares with the loop's entry (an
        // invariant cannot contain `old`).
        let entry = super::array::snapshot(&self.heap, &frame.perms);
        // A `do` body runs once with all the permissions before the first
        // test, where the invariant is first checked.
        if body_first {
            match self.exec_block(&body.stmts, frame, old)? {
                Flow::Return(v) => return Ok(Flow::Return(v)),
                Flow::Break => return Ok(Flow::Normal),
                Flow::Normal | Flow::Continue => {}
            }
        }
        let read = frame.perms.clone();
        let ob = Obligation {
            kind: Kind::InvariantNotEstablished,
            at: None,
        };
        let inside = self.consume(&inv, env(&frame.store, &read, &entry), &mut frame.perms, ob)?;
        let outside = std::mem::replace(&mut frame.perms, inside);
        loop {
            // The condition's postfix updates, then the condition.
            self.exec_block(&pre.stmts, frame, old)?;
            if !self.eval_bool(cond, env(&frame.store, &frame.perms, old))? {
                break;
            }
            // A `return` or `break` has the frame back; a `continue` goes
            // on to the invariant, as the body's end does.
            match self.exec_block(&body.stmts, frame, old)? {
                Flow::Return(v) => {
                    frame.perms.add(outside);
                    return Ok(Flow::Return(v));
                }
                Flow::Break => break,
                Flow::Normal | Flow::Continue => {}
            }
            let read = frame.perms.clone();
            let ob = Obligation {
                kind: Kind::InvariantNotPreserved,
                at: None,
            };
            frame.perms =
                self.consume(&inv, env(&frame.store, &read, &entry), &mut frame.perms, ob)?;
        }
        frame.perms.add(outside);
        Ok(Flow::Normal)
    }
}

fn as_call(e: &Expr) -> R<&Call> {
    match &e.kind {
        ExprKind::Call(c) => Ok(c),
        _ => Err(Stop::Internal("a ghost statement without a call".into())),
    }
}
