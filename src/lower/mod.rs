//! Lowering of the statement sugar of docs/language.md section 3.4 to the
//! statements the engine knows, after type checking (on a program without
//! type errors): the symbolic engine and the concrete interpreter never see
//! `x++`, `++x`, `x op= e`, chains, `new` inside an expression or `for`.
//!
//! - `target op= e;`, `target++;` become `target = target op e;` with the
//!   target's receiver evaluated once ([`place`]).
//! - A postfix `x++` inside a statement's expressions becomes statements
//!   before it: the old value into a temporary, then the update; the
//!   expression reads the temporary. Java evaluates operands left to right,
//!   so every operand evaluated before an update that could change what it
//!   reads is first captured in a temporary too ([`footprint`]). An update
//!   in an operand evaluated only on some paths (the right of `&&`, `||`,
//!   `==>`, a branch of `?:`) runs under an `if` that takes those paths.
//! - A prefix `++x` stores first and reads the new value (a field's or an
//!   element's from a temporary); `x = y = e;` locates every target first,
//!   left to right, then stores `e` into the last and that value into each
//!   one before it; `new C(args)` / `new T[e]` inside an expression becomes
//!   a temporary assigned before the statement, in evaluation order.
//! - `for (init; c; update) invariant I; { s }` becomes
//!   `init; while (c) invariant I; { s update; }` in the enclosing block: the
//!   checker kept `init`'s variable local to the loop, so no later statement
//!   reads it (a later declaration of the same name assigns it afresh).
//!
//! Temporaries are assigned without a declaration (the engine's stores are
//! maps and need none) and are named after the text they hold and a number,
//! `i++#2` or `a.next#1`: no identifier contains `#`, so they never clash
//! with the program's names, and a user reading a counterexample or a trace
//! sees what they stand for. Every new statement keeps the span of the
//! source statement (of an `if`: its condition), and every expression its
//! own, so errors keep their kind and location.

mod chain;
mod footprint;
mod overflow;
mod place;

use crate::syntax::ast::*;
use footprint::{Footprint, has_step, reads, writes};
use place::Place;

/// Lowers every method and constructor body of a checked program; `src` is
/// the program's text (for the names of temporaries). With `overflow`
/// (`--overflow`), the operations of code are then marked to be checked
/// against Java's `int` range ([`overflow`]).
pub fn program(p: &mut Program, src: &str, overflow: bool) {
    for class in &mut p.classes {
        for m in &mut class.methods {
            let mut l = Lowerer { src, next: 0 };
            l.body(&mut m.body);
        }
    }
    if overflow {
        overflow::program(p);
    }
}

struct Lowerer<'s> {
    src: &'s str,
    /// Temporaries made so far in this body.
    next: usize,
}

/// A mutator call or `new`, which the engine takes only as the whole right
/// side of an assignment to a variable.
fn is_whole_rhs(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Call(c) => !c
            .target
            .as_ref()
            .is_some_and(|t| matches!(t.kind, MemberKind::Pure | MemberKind::Predicate)),
        ExprKind::New { .. } | ExprKind::NewArray { .. } => true,
        _ => false,
    }
}

/// Whether a statement itself (not the blocks nested in it) is sugar or
/// holds a postfix update.
fn needs_lowering(s: &Stmt) -> bool {
    match &s.kind {
        StmtKind::Update { .. } | StmtKind::For(_) | StmtKind::Chain { .. } => true,
        StmtKind::While { cond, .. } => has_step(cond),
        StmtKind::Local { init: Some(e), .. }
        | StmtKind::Assign { value: e, .. }
        | StmtKind::Call(e)
        | StmtKind::If { cond: e, .. } => has_step(e),
        StmtKind::Return(Some(e)) => has_step(e) || is_whole_rhs(e),
        StmtKind::FieldAssign { target, value } | StmtKind::IndexAssign { target, value } => {
            has_step(target) || has_step(value) || is_whole_rhs(value)
        }
        _ => false,
    }
}

/// Puts a copy of a `for` loop's update before each `continue` of the
/// loop's body (not those of loops nested in it, which have their own), so
/// the update runs before the invariant is checked, as in Java. The copies
/// are lowered with the body. A work list: an `else if` chain nests one
/// block per link.
fn update_before_continue(body: &mut Block, update: &Stmt) {
    let mut work: Vec<&mut Block> = vec![body];
    while let Some(b) = work.pop() {
        if b.stmts.iter().any(|s| matches!(s.kind, StmtKind::Continue)) {
            let stmts = std::mem::take(&mut b.stmts);
            for s in stmts {
                if matches!(s.kind, StmtKind::Continue) {
                    b.stmts.push(update.clone());
                }
                b.stmts.push(s);
            }
        }
        for s in b.stmts.iter_mut() {
            if let StmtKind::If { then, els, .. } = &mut s.kind {
                work.push(then);
                work.extend(els.as_mut());
            }
        }
    }
}

impl Lowerer<'_> {
    /// A body, block by block from a work list (an `else if` chain nests one
    /// block per link, and may have many thousand).
    fn body(&mut self, b: &mut Block) {
        let mut work: Vec<&mut Block> = vec![b];
        while let Some(b) = work.pop() {
            if b.stmts.iter().any(needs_lowering) {
                let stmts = std::mem::take(&mut b.stmts);
                let mut out = Vec::with_capacity(stmts.len());
                for s in stmts {
                    self.stmt(s, &mut out);
                }
                b.stmts = out;
            }
            for s in b.stmts.iter_mut() {
                match &mut s.kind {
                    StmtKind::If { then, els, .. } => {
                        work.push(then);
                        work.extend(els.as_mut());
                    }
                    StmtKind::While { body, .. } => work.push(body),
                    _ => {}
                }
            }
        }
    }

    /// Appends the lowering of `s` to `out` (blocks nested in it are lowered
    /// later, from the work list).
    fn stmt(&mut self, s: Stmt, out: &mut Vec<Stmt>) {
        let span = s.span;
        let kind = match s.kind {
            StmtKind::Update { target, op, value } => {
                return self.update(target, op, value, span, out);
            }
            StmtKind::Chain { targets, value } => return self.chain(targets, value, span, out),
            StmtKind::For(f) => {
                let For {
                    init,
                    cond,
                    update,
                    invariants,
                    mut body,
                } = *f;
                if let Some(init) = init {
                    self.stmt(init, out);
                }
                // Lowered with the body. A `continue` of this loop runs the
                // update first, as in Java.
                if let Some(update) = &update {
                    update_before_continue(&mut body, update);
                }
                body.stmts.extend(update);
                self.while_loop(cond, invariants, body, false)
            }
            StmtKind::While {
                cond,
                invariants,
                body,
                pre,
                body_first,
            } if pre.stmts.is_empty() => self.while_loop(cond, invariants, body, body_first),
            StmtKind::Local {
                ty,
                name,
                init: Some(e),
            } => StmtKind::Local {
                ty,
                name,
                init: Some(self.rhs(e, &span, out)),
            },
            StmtKind::Assign { target, value } => StmtKind::Assign {
                target,
                value: self.rhs(value, &span, out),
            },
            // `e.f = m();`, `a[i] = new C();`: the target's parts (captured
            // where the call could change them), then the call, then the
            // store (Java's order).
            StmtKind::FieldAssign { target, value } | StmtKind::IndexAssign { target, value }
                if is_whole_rhs(&value) =>
            {
                match Place::of(self, target, &writes(&value), &span, out) {
                    Ok(place) => {
                        let value = self.call_result(value, &span, out);
                        place.write(value)
                    }
                    // Not a place: the checker let nothing else through;
                    // the engine reports the statement as it is.
                    Err(target) => StmtKind::FieldAssign { target, value },
                }
            }
            StmtKind::FieldAssign { target, value } => {
                // The receiver, then the value, then the store (Java's order).
                match target.kind {
                    ExprKind::Field { recv, field, class } => {
                        let mut ops = self.seq(vec![*recv, value], &span, out).into_iter();
                        let (Some(recv), Some(value)) = (ops.next(), ops.next()) else {
                            return;
                        };
                        let target = Expr::new(
                            ExprKind::Field {
                                recv: Box::new(recv),
                                field,
                                class,
                            },
                            target.span,
                        );
                        StmtKind::FieldAssign { target, value }
                    }
                    kind => StmtKind::FieldAssign {
                        target: Expr::new(kind, target.span),
                        value,
                    },
                }
            }
            StmtKind::IndexAssign { target, value } => {
                // The array, the index, then the value, then the store.
                match target.kind {
                    ExprKind::Index { arr, index, elem } => {
                        let mut ops = self.seq(vec![*arr, *index, value], &span, out);
                        let (Some(value), Some(index), Some(arr)) =
                            (ops.pop(), ops.pop(), ops.pop())
                        else {
                            return;
                        };
                        let target = Expr::new(
                            ExprKind::Index {
                                arr: Box::new(arr),
                                index: Box::new(index),
                                elem,
                            },
                            target.span,
                        );
                        StmtKind::IndexAssign { target, value }
                    }
                    kind => StmtKind::IndexAssign {
                        target: Expr::new(kind, target.span),
                        value,
                    },
                }
            }
            StmtKind::Call(e) => StmtKind::Call(self.rhs(e, &span, out)),
            StmtKind::If { cond, then, els } => {
                let at = cond.span.clone();
                StmtKind::If {
                    cond: self.expr(cond, &at, out),
                    then,
                    els,
                }
            }
            // `return m();` and `return new C();`: the value in a temporary.
            StmtKind::Return(Some(e)) if is_whole_rhs(&e) => {
                StmtKind::Return(Some(self.call_result(e, &span, out)))
            }
            StmtKind::Return(Some(e)) => StmtKind::Return(Some(self.expr(e, &span, out))),
            kind => kind,
        };
        out.push(Stmt { kind, span });
    }

    /// `target op= value;` (`target++;` without a value): the target's
    /// parts, its old value, the value, then the store.
    fn update(
        &mut self,
        target: Expr,
        op: BinOp,
        value: Option<Expr>,
        span: Span,
        out: &mut Vec<Stmt>,
    ) {
        let later = value.as_ref().map(writes).unwrap_or_default();
        let place = match Place::of(self, target, &later, &span, out) {
            Ok(p) => p,
            Err(target) => {
                // Not a place: the checker let nothing else through; the
                // engine reports the unlowered statement.
                let kind = StmtKind::Update { target, op, value };
                return out.push(Stmt { kind, span });
            }
        };
        let read = place.read();
        let read = if reads(&read).meets(&later) {
            self.capture(read, &span, out)
        } else {
            read
        };
        let end = self.stmt_end(&span);
        let value = match value {
            Some(v) => self.expr(v, &span, out),
            // `x++` is `x = x + 1`; the `1` stands at the operator.
            None => Expr::new(ExprKind::Int("1".into()), end.saturating_sub(2)..end),
        };
        // From the statement's start: `--x;` is blamed as a whole.
        let at = span.start.min(read.span.start)..value.span.end.max(end);
        let new = Expr::new(ExprKind::Binary(op, Box::new(read), Box::new(value)), at);
        out.push(Stmt {
            kind: place.write(new),
            span,
        });
    }

    /// A loop whose condition's postfix updates run before each evaluation
    /// of the condition, after the invariant (`StmtKind::While::pre`).
    fn while_loop(
        &mut self,
        cond: Expr,
        invariants: Vec<Expr>,
        body: Block,
        body_first: bool,
    ) -> StmtKind {
        let at = cond.span.clone();
        let mut pre = Vec::new();
        let cond = self.expr(cond, &at, &mut pre);
        StmtKind::While {
            cond,
            invariants,
            body,
            pre: Block {
                stmts: pre,
                span: at,
            },
            body_first,
        }
    }

    /// A mutator call or `new`, lowered into a new temporary: the read of
    /// it (the engine takes them only as the whole right side of
    /// `x = ...;`).
    fn call_result(&mut self, value: Expr, site: &Span, out: &mut Vec<Stmt>) -> Expr {
        let value = self.rhs(value, site, out);
        self.capture(value, site, out)
    }

    /// The right side of `x = e;`, `T x = e;` or a call statement: a mutator
    /// call or `new` keeps its form, with its operands lowered.
    fn rhs(&mut self, e: Expr, site: &Span, out: &mut Vec<Stmt>) -> Expr {
        if !has_step(&e) {
            return e;
        }
        match e.kind {
            ExprKind::Call(call) => {
                let call = self.call(*call, site, out);
                Expr::new(ExprKind::Call(Box::new(call)), e.span)
            }
            ExprKind::New { class, args } => {
                let args = self.seq(args, site, out);
                Expr::new(ExprKind::New { class, args }, e.span)
            }
            ExprKind::NewArray { elem, size } => {
                let size = Box::new(self.expr(*size, site, out));
                Expr::new(ExprKind::NewArray { elem, size }, e.span)
            }
            kind => self.expr(Expr::new(kind, e.span), site, out),
        }
    }

    /// An expression without postfix updates, equal after `out` to what `e`
    /// evaluates to (updates and captures are appended to `out`).
    fn expr(&mut self, e: Expr, site: &Span, out: &mut Vec<Stmt>) -> Expr {
        if !has_step(&e) {
            return e;
        }
        let span = e.span;
        let kind = match e.kind {
            ExprKind::PostStep(op, target) => {
                let place = match Place::of(self, *target, &Footprint::default(), site, out) {
                    Ok(p) => p,
                    Err(target) => {
                        return Expr::new(ExprKind::PostStep(op, Box::new(target)), span);
                    }
                };
                let old = self.capture_as(place.read(), &span, site, out);
                let old = Expr::new(old.kind, span.clone());
                let one = Expr::new(
                    ExprKind::Int("1".into()),
                    span.end.saturating_sub(2)..span.end,
                );
                let new = ExprKind::Binary(op.bin_op(), Box::new(old.clone()), Box::new(one));
                out.push(Stmt {
                    kind: place.write(Expr::new(new, span)),
                    span: site.clone(),
                });
                return old;
            }
            ExprKind::PreStep(op, target) => {
                return self.pre_step(op, *target, span, site, out);
            }
            // `new` inside an expression: the object in a temporary first.
            kind @ (ExprKind::New { .. } | ExprKind::NewArray { .. }) => {
                return self.call_result(Expr::new(kind, span), site, out);
            }
            ExprKind::Field { recv, field, class } => ExprKind::Field {
                recv: Box::new(self.expr(*recv, site, out)),
                field,
                class,
            },
            ExprKind::Call(call) => ExprKind::Call(Box::new(self.call(*call, site, out))),
            ExprKind::Unary(op, a) => ExprKind::Unary(op, Box::new(self.expr(*a, site, out))),
            ExprKind::Binary(op @ (BinOp::And | BinOp::Or | BinOp::Implies), a, b)
                if has_step(&b) =>
            {
                return self.short_circuit(op, *a, *b, span, site, out);
            }
            ExprKind::Cond(c, a, b) if has_step(&a) || has_step(&b) => {
                return self.conditional(*c, *a, *b, span, site, out);
            }
            ExprKind::Binary(op, a, b) => {
                let mut ops = self.seq(vec![*a, *b], site, out).into_iter();
                match (ops.next(), ops.next()) {
                    (Some(a), Some(b)) => ExprKind::Binary(op, Box::new(a), Box::new(b)),
                    _ => ExprKind::Bool(false),
                }
            }
            ExprKind::Cond(c, a, b) => ExprKind::Cond(Box::new(self.expr(*c, site, out)), a, b),
            ExprKind::Index { arr, index, elem } => {
                let mut ops = self.seq(vec![*arr, *index], site, out);
                match (ops.pop(), ops.pop()) {
                    (Some(index), Some(arr)) => ExprKind::Index {
                        arr: Box::new(arr),
                        index: Box::new(index),
                        elem,
                    },
                    _ => ExprKind::Bool(false),
                }
            }
            ExprKind::Length(a) => ExprKind::Length(Box::new(self.expr(*a, site, out))),
            // `old`, `opening`, `using`, `acc`, `untouched` hold none (the
            // checker bans them there).
            kind => kind,
        };
        Expr::new(kind, span)
    }

    /// `a && b`, `a || b`, `a ==> b` with updates in `b`, which runs only
    /// where it decides the value: `t = a; if (t) { t = b; }` (for `||`, in
    /// the `else` branch; for `==>`, `t = true` there).
    fn short_circuit(
        &mut self,
        op: BinOp,
        a: Expr,
        b: Expr,
        span: Span,
        site: &Span,
        out: &mut Vec<Stmt>,
    ) -> Expr {
        let a = self.expr(a, site, out);
        let t = self.temp(&span);
        out.push(assign(&t, a, site));
        let mut decides = Vec::new();
        let b = self.expr(b, site, &mut decides);
        decides.push(assign(&t, b, site));
        let (then, els) = match op {
            BinOp::And => (decides, None),
            BinOp::Or => (Vec::new(), Some(decides)),
            _ => {
                let yes = Expr::new(ExprKind::Bool(true), span.clone());
                (decides, Some(vec![assign(&t, yes, site)]))
            }
        };
        out.push(branch(read(&t), then, els, site));
        read(&t)
    }

    /// `c ? a : b` with updates in a branch: only the branch taken runs,
    /// `if (c) { t = a; } else { t = b; }`.
    fn conditional(
        &mut self,
        c: Expr,
        a: Expr,
        b: Expr,
        span: Span,
        site: &Span,
        out: &mut Vec<Stmt>,
    ) -> Expr {
        let c = self.expr(c, site, out);
        let t = self.temp(&span);
        let mut arms = [Vec::new(), Vec::new()];
        for (arm, e) in arms.iter_mut().zip([a, b]) {
            let e = self.expr(e, site, arm);
            arm.push(assign(&t, e, site));
        }
        let [then, els] = arms;
        out.push(branch(c, then, Some(els), site));
        read(&t)
    }

    /// A call with its receiver and arguments lowered, in that order.
    fn call(&mut self, mut call: Call, site: &Span, out: &mut Vec<Stmt>) -> Call {
        let recv = match std::mem::replace(&mut call.receiver, Receiver::Implicit) {
            Receiver::Expr(e) => Some(*e),
            other => {
                call.receiver = other;
                None
            }
        };
        let has_recv = recv.is_some();
        let ops: Vec<Expr> = recv.into_iter().chain(call.args.drain(..)).collect();
        let mut ops = self.seq(ops, site, out).into_iter();
        if has_recv && let Some(r) = ops.next() {
            call.receiver = Receiver::Expr(Box::new(r));
        }
        call.args = ops.collect();
        call
    }

    /// Operands evaluated left to right: each lowered in turn, and captured
    /// when an update in a later operand could change what it reads.
    fn seq(&mut self, ops: Vec<Expr>, site: &Span, out: &mut Vec<Stmt>) -> Vec<Expr> {
        if !ops.iter().any(has_step) {
            return ops;
        }
        // later[i]: what the operands after the i-th write.
        let mut later = vec![Footprint::default(); ops.len()];
        let mut acc = Footprint::default();
        for (i, e) in ops.iter().enumerate().rev() {
            later[i] = acc.clone();
            acc.add(&writes(e));
        }
        let mut done = Vec::with_capacity(ops.len());
        for (e, after) in ops.into_iter().zip(later) {
            let e = self.expr(e, site, out);
            let e = if reads(&e).meets(&after) {
                self.capture(e, site, out)
            } else {
                e
            };
            done.push(e);
        }
        done
    }

    /// `t = e;` for a new temporary `t` named after `e`, appended to `out`;
    /// the read of `t` (at `e`'s place).
    fn capture(&mut self, e: Expr, site: &Span, out: &mut Vec<Stmt>) -> Expr {
        let named = e.span.clone();
        self.capture_as(e, &named, site, out)
    }

    /// `capture`, the temporary named after the text at `named`.
    fn capture_as(&mut self, e: Expr, named: &Span, site: &Span, out: &mut Vec<Stmt>) -> Expr {
        let mut t = self.temp(named);
        t.span = e.span.clone();
        out.push(assign(&t, e, site));
        read(&t)
    }

    /// A new temporary, named after the text at `named` (and placed there).
    fn temp(&mut self, named: &Span) -> Ident {
        self.next += 1;
        Ident {
            name: format!("{}#{}", self.describe(named), self.next),
            span: named.clone(),
        }
    }

    /// The source text of `span` with its blanks collapsed, shortened if
    /// long: the visible part of a temporary's name.
    fn describe(&self, span: &Span) -> String {
        let text = self.src.get(span.clone()).unwrap_or("value");
        let words: Vec<&str> = text.split_whitespace().collect();
        let text = words.join(" ");
        const MAX: usize = 24;
        if text.chars().count() <= MAX {
            return text;
        }
        let short: String = text.chars().take(MAX - 3).collect();
        format!("{short}...")
    }

    /// Where a statement's text ends, without its `;` and blanks.
    fn stmt_end(&self, span: &Span) -> usize {
        let text = self.src.get(span.clone()).unwrap_or("");
        let trimmed = text.trim_end().trim_end_matches(';').trim_end();
        span.start + trimmed.len()
    }
}

/// `t = value;`
fn assign(t: &Ident, value: Expr, site: &Span) -> Stmt {
    Stmt {
        kind: StmtKind::Assign {
            target: t.clone(),
            value,
        },
        span: site.clone(),
    }
}

/// Reading the variable `t` (at its place).
fn read(t: &Ident) -> Expr {
    Expr::new(ExprKind::Var(t.clone()), t.span.clone())
}

/// `if (cond) { then } else { els }`.
fn branch(cond: Expr, then: Vec<Stmt>, els: Option<Vec<Stmt>>, site: &Span) -> Stmt {
    let block = |stmts| Block {
        stmts,
        span: site.clone(),
    };
    Stmt {
        kind: StmtKind::If {
            cond,
            then: block(then),
            els: els.map(block),
        },
        span: site.clone(),
    }
}

#[cfg(test)]
mod tests;
