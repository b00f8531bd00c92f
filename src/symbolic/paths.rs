//! Path exploration for `sift test` (King's EFFIGY, TEST): every path of a
//! method, loops unrolled a bounded number of times instead of using their
//! invariants, each with the branch decisions it took and a model of its
//! path condition giving the method's inputs. Also the inputs of a
//! counterexample, for replaying it concretely.

use std::cell::RefCell;
use std::sync::Arc;

use std::collections::HashSet;

use super::ctx::{Cont, Ctx, Exits};
use super::eval::{bind, eval};
use super::exec::exec_block;
use super::heap::{Chunk, Heap};
use super::produce::{produce, produce_body};
use super::program::{MethodInfo, ProgramInfo};
use super::state::{State, Store};
use super::term::Term;
use super::validity::initial_state;
use crate::solver::Limits;
use crate::syntax::ast::{Block, Expr, Span};

pub use crate::record::ModelInputs;

/// Which terms give the inputs, and how to read their values back.
pub struct InputTerms {
    pub terms: Vec<Term>,
    names: Vec<String>,
    fields: Vec<String>,
}

impl InputTerms {
    /// The entry store's values and, for every field chunk of the pre-state
    /// heap, its receiver and value.
    pub fn new(entry: &Store, old: &Heap) -> InputTerms {
        let mut terms = Vec::new();
        let mut names = Vec::new();
        for (k, v) in entry.iter() {
            names.push(k.to_string());
            terms.push(v.clone());
        }
        let mut fields = Vec::new();
        // The length of every reference argument that is an array (the
        // run keeps it for arrays only): it needs no permission, so the
        // precondition may speak of it without `acc(a.elems)`.
        for v in entry
            .values()
            .filter(|v| v.sort() == super::term::Sort::Ref)
        {
            fields.push("[].length".to_string());
            terms.push(v.clone());
            terms.push(Term::length(v.clone()));
        }
        for (_, c) in old.iter() {
            let Chunk::Field { recv, field, value } = c else {
                continue;
            };
            if &**field == crate::syntax::ast::ELEMS {
                for (name, t) in super::array::input_terms(recv, value) {
                    fields.push(name);
                    terms.push(recv.clone());
                    terms.push(t);
                }
                continue;
            }
            fields.push(field.to_string());
            terms.push(recv.clone());
            terms.push(value.clone());
        }
        InputTerms {
            terms,
            names,
            fields,
        }
    }

    /// The inputs, from the values of `terms` (in order).
    pub fn read(&self, values: &[String]) -> ModelInputs {
        let n = self.names.len();
        let entry = self
            .names
            .iter()
            .cloned()
            .zip(values.iter().cloned())
            .collect();
        let fields = self
            .fields
            .iter()
            .enumerate()
            .filter_map(|(i, f)| {
                let recv = values.get(n + 2 * i)?;
                let value = values.get(n + 2 * i + 1)?;
                Some((recv.clone(), f.clone(), value.clone()))
            })
            .collect();
        ModelInputs { entry, fields }
    }
}

/// A loop explored by unrolling: the body at most `left` more times (a
/// `do` body once more before its first test); a path that would need more
/// iterations ends there. `break` goes on after the loop; `continue` goes
/// to the next test.
#[allow(clippy::too_many_arguments)]
pub fn unrolled_while(
    ctx: &mut Ctx,
    s: State,
    parts: (&Block, &Expr),
    body: &Block,
    body_first: bool,
    left: u32,
    k: Cont,
    ex: Exits,
) {
    if body_first {
        unrolled_body(ctx, s, parts, body, left, k, ex)
    } else {
        unrolled_test(ctx, s, parts, body, left, k, ex)
    }
}

fn unrolled_test(
    ctx: &mut Ctx,
    s: State,
    (pre, cond): (&Block, &Expr),
    body: &Block,
    left: u32,
    k: Cont,
    ex: Exits,
) {
    let test = |ctx: &mut Ctx, s: State| {
        eval(ctx, s, cond, &|ctx, s, tc| {
            ctx.cases(&s, &tc, &|ctx, mut b, taken| {
                b.decisions.push_back((cond.span.start, taken));
                if !taken {
                    return k(ctx, b);
                }
                if left == 0 {
                    if let Some(leaves) = ctx.leaves.as_mut() {
                        leaves.push((b, None));
                    }
                    return;
                }
                unrolled_body(ctx, b, (pre, cond), body, left - 1, k, ex)
            })
        })
    };
    exec_block(ctx, s, &pre.stmts, &test, Exits::method(ex.ret))
}

fn unrolled_body(
    ctx: &mut Ctx,
    s: State,
    parts: (&Block, &Expr),
    body: &Block,
    left: u32,
    k: Cont,
    ex: Exits,
) {
    let next = |ctx: &mut Ctx, after: State| unrolled_test(ctx, after, parts, body, left, k, ex);
    let jumps = Exits {
        ret: ex.ret,
        brk: Some(k),
        cont: Some(&next),
    };
    exec_block(ctx, s, &body.stmts, &next, jumps)
}

/// One explored path: its branch decisions (condition start, side taken),
/// where it failed (if it ends at a failure), and the inputs a model of its
/// path condition gives (`None` if the solver gave none).
#[derive(Clone, Debug)]
pub struct PathCase {
    pub decisions: Vec<(usize, bool)>,
    pub failure: Option<Span>,
    pub inputs: Option<ModelInputs>,
}

/// How many predicate instances of the precondition are unfolded to give
/// the inputs their shape, beyond the loop unrolling.
const EXTRA_UNFOLDS: u32 = 3;

/// How many predicate instances of the pre-state are unfolded to give a
/// replayed counterexample's inputs their shape.
pub const REPLAY_UNFOLDS: u32 = 6;

/// How [`explore`] runs the engine.
#[derive(Clone, Copy, Debug)]
pub struct Exploration {
    /// How many times loops are unrolled.
    pub unroll: u32,
    pub timeout_ms: u32,
    pub infer: bool,
    pub overflow: bool,
    /// Engine steps before the exploration stops (`Ctx::tick`).
    pub work_budget: u64,
}

/// Every path of `m` (loops unrolled `how.unroll` times), one case per
/// distinct sequence of decisions and failure, in exploration order; and
/// whether the exploration stopped at the work budget (`Ctx::tick`) before
/// every path was explored.
pub fn explore(
    info: &Arc<ProgramInfo>,
    source: &Arc<str>,
    m: &MethodInfo,
    how: Exploration,
) -> (Vec<PathCase>, bool) {
    let limits = Limits {
        timeout_ms: how.timeout_ms,
        ..Limits::default()
    };
    crate::solver::with_solver(
        &info.fun_decls(),
        info.theories(),
        limits,
        false,
        None,
        |solver| {
            let mut ctx = Ctx::new(info.clone(), source.clone(), solver);
            ctx.infer = how.infer;
            ctx.overflow = how.overflow;
            ctx.work_budget = how.work_budget;
            ctx.unroll = Some(how.unroll);
            ctx.assigned = m.assigned.clone();
            let mut s0 = initial_state(
                &mut ctx,
                !m.decl.is_static,
                &m.decl.params,
                m.decl.name.span.clone(),
            );
            super::overflow::assume_store(&ctx, &mut s0);
            let starts = RefCell::new(Vec::new());
            let snap = ctx.fresh_snap();
            produce(&mut ctx, s0.clone(), snap, &m.pre, &|_, s1| {
                let mut s2 = s1;
                s2.old = s2.heap.clone();
                starts.borrow_mut().push(s2);
            });
            let mut seen = HashSet::new();
            let mut cases = Vec::new();
            for start in starts.into_inner() {
                // The shapes the precondition's instances may have: each is a path
                // condition and the field chunks the instances hold.
                let shapes = RefCell::new(Vec::new());
                let mut unfolding = start.clone();
                unfolding.heap = start.old.clone();
                unfold_instances(&mut ctx, unfolding, how.unroll + EXTRA_UNFOLDS, &|_, st| {
                    shapes.borrow_mut().push((st.pc, st.heap))
                });
                for (pc, input_heap) in shapes.into_inner() {
                    let mut s = start.clone();
                    s.pc = pc;
                    let ends = RefCell::new(Vec::new());
                    let end = |_: &mut Ctx, s: State| ends.borrow_mut().push((s, None));
                    ctx.leaves = Some(Vec::new());
                    exec_block(&mut ctx, s, &m.decl.body.stmts, &end, Exits::method(&end));
                    let mut leaves = ends.into_inner();
                    leaves.extend(ctx.leaves.take().unwrap_or_default());
                    let terms = InputTerms::new(&s0.store, &input_heap);
                    let (shown, named) = super::array::name_reads(&mut ctx, &terms.terms);
                    let named = Term::and(named);
                    for (leaf, failure) in leaves {
                        let decisions: Vec<(usize, bool)> =
                            leaf.decisions.iter().copied().collect();
                        let key = (decisions.clone(), failure.clone());
                        if seen.contains(&key) {
                            continue;
                        }
                        let Some(values) = ctx.solver.model_values(&leaf.pc, Some(&named), &shown)
                        else {
                            continue;
                        };
                        seen.insert(key);
                        cases.push(PathCase {
                            decisions,
                            failure,
                            inputs: Some(terms.read(&values)),
                        });
                    }
                }
            }
            // Then-branches first, as the paths were explored.
            cases.sort_by_key(|c| {
                let order: Vec<(usize, bool)> = c
                    .decisions
                    .iter()
                    .map(|&(at, taken)| (at, !taken))
                    .collect();
                (order, c.failure.as_ref().map(|s| s.start))
            });
            (cases, ctx.stopped().is_some())
        },
    )
}

/// Opens the predicate instances of `s.heap`, oldest first, at most `left`
/// of them: `k` receives each shape (the path condition with the facts of
/// the bodies, and the heap with their chunks).
pub(crate) fn unfold_instances(ctx: &mut Ctx, s: State, left: u32, k: Cont) {
    let next = s.heap.iter().find_map(|(id, c)| match c {
        Chunk::Pred {
            recv,
            pred,
            args,
            snap,
        } => Some((id, recv.clone(), pred.clone(), args.clone(), snap.clone())),
        Chunk::Field { .. } => None,
    });
    let Some((id, recv, pred, args, snap)) = next.filter(|_| left > 0) else {
        return k(ctx, s);
    };
    let prog = ctx.prog.clone();
    let (class, name) = pred.split_once('.').unwrap_or(("", &pred));
    let Some(info) = prog.predicate(class, name) else {
        return k(ctx, s);
    };
    let mut opened = bind(&s, Some(recv), &info.decl.params, &args);
    opened.heap.remove(id);
    let store = s.store.clone();
    produce_body(ctx, opened, snap, &info.decl.body, &|ctx, produced| {
        let mut out = produced;
        out.store = store.clone();
        unfold_instances(ctx, out, left - 1, k)
    })
}
