//! Consuming assertions concretely: checks that an assertion holds and
//! takes the locations and instances it asserts out of what is available
//! (so `A && B` needs disjoint footprints), returning that footprint.
//! Expressions read with the permissions held before the consumption
//! began, as in the verifier (docs/language.md section 4).

use super::eval::Env;
use super::perms::{Instance, Perms};
use super::{Machine, Obligation, R, Stop, Value};
use crate::diag::Kind;
use crate::symbolic::consume::{is_predicate, is_spatial};
use crate::syntax::ast::*;

/// How deep instances are closed on demand inside each other.
const MAX_CLOSE_DEPTH: u32 = 64;

impl Machine<'_> {
    /// Consumes `a` from `avail` under `ob` (unless an outer obligation is
    /// active, which then decides how failures are reported).
    pub fn consume(&mut self, a: &Expr, env: Env, avail: &mut Perms, ob: Obligation) -> R<Perms> {
        let outer = self.ob.is_some();
        if outer {
            self.nested += 1;
        } else {
            self.ob = Some(ob);
            self.nested = 0;
            self.conjunct = None;
        }
        let mut out = Perms::default();
        let r = self.consume_inner(a, env, avail, &mut out);
        if outer {
            self.nested -= 1;
        } else {
            self.ob = None;
            self.conjunct = None;
        }
        r.map(|_| out)
    }

    fn at_conjunct(&mut self, span: &Span) {
        if self.nested == 0 {
            self.conjunct = Some(span.clone());
        }
    }

    fn consume_inner(&mut self, a: &Expr, env: Env, avail: &mut Perms, out: &mut Perms) -> R<()> {
        self.step()?;
        match &a.kind {
            ExprKind::Binary(BinOp::And, l, r) => {
                self.consume_inner(l, env, avail, out)?;
                self.consume_inner(r, env, avail, out)
            }
            ExprKind::Binary(BinOp::Implies, c, r) if is_spatial(r) => {
                if self.eval_bool(c, env)? {
                    self.consume_inner(r, env, avail, out)?;
                }
                Ok(())
            }
            ExprKind::Cond(c, x, y) if is_spatial(x) || is_spatial(y) => {
                let branch = if self.eval_bool(c, env)? { x } else { y };
                self.consume_inner(branch, env, avail, out)
            }
            ExprKind::Acc(fe) => {
                self.at_conjunct(&a.span);
                let ExprKind::Field { recv, field, class } = &fe.kind else {
                    return Err(Stop::Internal(
                        "acc of something that is not a field".into(),
                    ));
                };
                let r = self.eval(recv, env)?;
                let loc = match r {
                    Value::Ref(o) => (o, format!("{class}.{}", field.name)),
                    _ => {
                        let reason =
                            format!("`acc({})`: the receiver is null", self.text(&fe.span));
                        return Err(self.fail(
                            Kind::PermissionMissing,
                            fe.span.clone(),
                            reason,
                            env.store,
                            avail,
                        ));
                    }
                };
                if avail.take_loc(&loc, self.infer) {
                    out.locs.insert(loc);
                    return Ok(());
                }
                let reason = format!("no `acc({})` is held", self.text(&fe.span));
                Err(self.fail(
                    Kind::PermissionMissing,
                    fe.span.clone(),
                    reason,
                    env.store,
                    avail,
                ))
            }
            ExprKind::Call(call) if is_predicate(call) => {
                self.at_conjunct(&a.span);
                let (recv, args) = self.operands(call, env)?;
                let pred = self.pred_name(call)?;
                if let Some(Value::Ref(o)) = recv {
                    if self.infer {
                        avail.unfold_to_pred(o, &pred, &args);
                    }
                    if let Some(inst) = avail.take_pred(o, &pred, &args) {
                        out.preds.push(inst);
                        return Ok(());
                    }
                    if self.infer
                        && let Some(inst) = self.try_close(call, o, &args, avail, env)?
                    {
                        out.preds.push(inst);
                        return Ok(());
                    }
                }
                let reason = format!("no `{}` is held", self.text(&a.span));
                Err(self.fail(
                    Kind::PermissionMissing,
                    a.span.clone(),
                    reason,
                    env.store,
                    avail,
                ))
            }
            ExprKind::Untouched(inner) => {
                self.at_conjunct(&a.span);
                self.untouched(inner, a.span.clone(), env, avail)
            }
            _ => {
                self.at_conjunct(&a.span);
                if self.eval_bool(a, env)? {
                    return Ok(());
                }
                let reason = format!("`{}` is false", self.text(&a.span));
                Err(self.fail(Kind::AssertFailed, a.span.clone(), reason, env.store, avail))
            }
        }
    }

    /// The footprint of `a` taken from a copy of `from`, as part of the
    /// consumption under way (its failures are this consumption's).
    fn footprint(&mut self, a: &Expr, env: Env, from: &Perms) -> R<Perms> {
        let mut avail = from.clone();
        let mut out = Perms::default();
        self.nested += 1;
        let r = self.consume_inner(a, env, &mut avail, &mut out);
        self.nested -= 1;
        r.map(|_| out)
    }

    /// `untouched(A)`: the locations `A` covers now and in the pre-state are
    /// the same, with the same values.
    fn untouched(&mut self, inner: &Expr, span: Span, env: Env, avail: &Perms) -> R<()> {
        let Some(old) = env.old else {
            return Err(Stop::Internal("`untouched` without a pre-state".into()));
        };
        let now = self.footprint(inner, env, env.perms)?.all_locs();
        let old_env = Env {
            perms: &old.perms,
            in_old: true,
            ..env
        };
        let before = self.footprint(inner, old_env, &old.perms)?.all_locs();
        let same = now == before
            && now
                .iter()
                .all(|l| old.values.get(l).copied() == self.heap.get(l));
        if same {
            return Ok(());
        }
        let reason = format!("`{}` changed", self.text(&inner.span));
        Err(self.fail(Kind::AssertFailed, span, reason, env.store, avail))
    }

    /// Closes the instance `o.q(args)` (named by `call`) from `avail` if its
    /// body holds there (inference's close on demand); `None`, with `avail`
    /// unchanged, if it does not.
    pub fn try_close(
        &mut self,
        call: &Call,
        o: usize,
        args: &[Value],
        avail: &mut Perms,
        env: Env,
    ) -> R<Option<Instance>> {
        let prog = self.prog;
        let Some(pred) = call
            .target
            .as_ref()
            .and_then(|t| prog.predicate(&t.class, &call.name.name))
        else {
            return Err(Stop::Internal("not a predicate".into()));
        };
        if self.closing >= MAX_CLOSE_DEPTH {
            return Ok(None);
        }
        let store = Self::bind(Some(Value::Ref(o)), &pred.decl.params, args);
        let mut trial = avail.clone();
        let mut body = Perms::default();
        let saved = (self.ob.clone(), self.nested, self.conjunct.clone());
        self.closing += 1;
        self.nested += 1;
        let r = self.consume_inner(
            &pred.decl.body,
            env.with_store(&store),
            &mut trial,
            &mut body,
        );
        self.closing -= 1;
        (self.ob, self.nested, self.conjunct) = saved;
        match r {
            Ok(()) => {
                *avail = trial;
                Ok(Some(Instance {
                    recv: o,
                    pred: format!("{}.{}", pred.class, pred.decl.name.name),
                    args: args.to_vec(),
                    body,
                }))
            }
            Err(Stop::Fail(_)) => Ok(None),
            Err(other) => Err(other),
        }
    }
}
