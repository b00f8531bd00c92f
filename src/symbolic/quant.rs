//! Quantifiers in the engine (docs/language.md section 4c).
//!
//! A quantifier is evaluated once, with a fresh constant for each bound
//! variable: every proof made on the way (a read in bounds, a chunk held)
//! holds for an arbitrary value and so for every value, and every failure
//! is reported where it happens, as for any expression. The path then goes
//! on from where it was, with the quantified term as the value; what the
//! body's evaluation learned about the constants (the definitions of the
//! calls it unfolded) goes along quantified over them, never as facts
//! about the constants themselves.
//!
//! Z3 uses a quantified fact only through its trigger: the array reads,
//! sequence indexings and pure calls of the body chosen here, deterministically, so that the same
//! program gets the same instances on every run (model-based instantiation
//! is off, `solver::config`).

use std::cell::RefCell;

use super::ctx::{Ctx, TermCont};
use super::eval::eval;
use super::program::{ProgramInfo, sort_of};
use super::state::State;
use super::term::{ListOp, Op, Term};
use crate::syntax::ast::Quant;

/// `forall T x, ... :: body` or `exists ...`.
pub fn eval_quant(ctx: &mut Ctx, s: State, q: &Quant, k: TermCont) {
    let vars: Vec<Term> = q
        .vars
        .iter()
        .map(|v| ctx.fresh_bound(&v.name.name, sort_of(&v.ty.kind)))
        .collect();
    let mut inner = s.clone();
    for (v, t) in q.vars.iter().zip(&vars) {
        inner.store.insert(v.name.name.as_str().into(), t.clone());
    }
    let base = s.pc.len();
    let ends: RefCell<Vec<(Term, Vec<Term>, State)>> = RefCell::new(Vec::new());
    // Every end of the body is needed for its value: a task's route
    // (`Ctx::route`) must not choose one side of a split inside it.
    let route = ctx.route.take();
    eval(ctx, inner, &q.body, &|_, done, t| {
        let learned = done.pc.facts_since(base);
        ends.borrow_mut().push((t, learned, done));
    });
    ctx.route = route;
    let ends = ends.into_inner();
    let Some((_, _, last)) = ends.last() else {
        // Every path through the body failed (and was reported) or is
        // infeasible.
        return;
    };
    let mut out = s.clone();
    out.obligation = last.obligation.clone();
    let body = match ends.as_slice() {
        // What the one path learned (the definitions of the calls it
        // unfolded, facts of the instances it opened) holds for an
        // arbitrary value of the constants, hence for all: it stays on the
        // path as a quantified fact of its own.
        [(t, learned, done)] => {
            // The calls inference unfolds lazily (`infer::definitions`)
            // are unfolded now, while the constants still stand for
            // arbitrary values.
            let mut own = done.clone();
            own.deferred = done
                .deferred
                .iter()
                .skip(s.deferred.len())
                .cloned()
                .collect();
            let mut facts = learned.clone();
            facts.extend(super::infer::definitions(ctx, &own));
            out.assume(learned_for_all(&ctx.prog, &vars, &facts));
            t.clone()
        }
        // The body split the path (an instance opened on demand, say):
        // the value is the one of the end whose facts hold. The ends cover
        // every value of the variables, so this is exact.
        _ => Term::and(
            ends.iter()
                .map(|(t, learned, _)| Term::implies(Term::and(learned.clone()), t.clone()))
                .collect(),
        ),
    };
    // A variable the body does not depend on any more is dropped: a
    // trigger must mention every variable.
    let vars: Vec<Term> = vars
        .into_iter()
        .filter(|v| !bound_in(&body, std::slice::from_ref(v)).is_empty())
        .collect();
    let trigger = choose_trigger(&ctx.prog, &vars, &body);
    k(ctx, out, Term::quant(q.forall, vars, body, trigger))
}

/// The facts a path through a quantifier's body learned, for every value
/// of the variables: each was learned for arbitrary values (a branch's
/// facts only under its condition), so they hold for all. Without a
/// trigger that covers their variables they are left out (Z3 would have to
/// guess instances).
fn learned_for_all(prog: &ProgramInfo, vars: &[Term], learned: &[Term]) -> Term {
    let facts = Term::and(learned.to_vec());
    let used: Vec<Term> = vars
        .iter()
        .filter(|v| !bound_in(&facts, std::slice::from_ref(v)).is_empty())
        .cloned()
        .collect();
    if used.is_empty() {
        return facts;
    }
    let trigger = choose_trigger(prog, &used, &facts);
    if trigger.is_empty() {
        return Term::bool(true);
    }
    Term::quant(true, used, facts, trigger)
}

/// The negation of a goal that failed, for a model that shows why: a
/// `forall` (or a negated `exists`) is negated with its variables left free
/// (they occur nowhere else on the path), so the model gives them the values
/// that break it, returned as the second part. A negated quantifier as it
/// stands would often not be evaluated in Z3's model.
pub fn refutation(goal: &Term) -> (Term, Vec<Term>) {
    if let Some((true, vars, body, _)) = goal.quant_parts() {
        return (Term::not(body.clone()), vars.to_vec());
    }
    if matches!(goal.op(), Op::Not)
        && let Some((false, vars, body, _)) = goal.args()[0].quant_parts()
    {
        return (body.clone(), vars.to_vec());
    }
    (Term::not(goal.clone()), Vec::new())
}

/// A term Z3 may instantiate a quantifier from: an element read (of an
/// array or a sequence) or a pure
/// method application that mentions a bound variable.
fn is_candidate(prog: &ProgramInfo, t: &Term) -> bool {
    match t.op() {
        Op::Select | Op::List(ListOp::At) => true,
        Op::App(f) => prog.pures.values().any(|p| *p.fun == **f),
        _ => false,
    }
}

/// Whether Z3 accepts `t` in a pattern: no `ite`, no connective and no
/// quantifier anywhere in it (Z3 rejects the quantifier otherwise). An
/// index `a[c ? i : j]` therefore triggers nothing, and another term of the
/// body is taken.
fn allowed_in_pattern(t: &Term) -> bool {
    let banned = |x: &Term| {
        matches!(
            x.op(),
            Op::Ite | Op::Not | Op::And | Op::Or | Op::Implies | Op::Quant { .. }
        )
    };
    let mut ok = true;
    let mut stack = vec![t];
    while let Some(x) = stack.pop() {
        if banned(x) {
            ok = false;
            break;
        }
        stack.extend(x.args());
    }
    ok
}

/// The ids of the variables of `vars` that occur in `t`.
fn bound_in(t: &Term, vars: &[Term]) -> Vec<u32> {
    let ids: Vec<u32> = vars.iter().filter_map(Term::var_id).collect();
    let mut out = Vec::new();
    t.for_each_var(&mut |id| {
        if ids.contains(&id) && !out.contains(&id) {
            out.push(id);
        }
    });
    out
}

/// Candidate terms of `t` in the order of a left-to-right walk, each once.
/// Inside a nested quantifier only terms free of its own variables count
/// (a trigger cannot mention them); `inner` holds those variables.
fn candidates(prog: &ProgramInfo, t: &Term, vars: &[Term], inner: &[Term], out: &mut Vec<Term>) {
    if let Some((_, nested, body, _)) = t.quant_parts() {
        let mut inner = inner.to_vec();
        inner.extend(nested.iter().cloned());
        return candidates(prog, body, vars, &inner, out);
    }
    if is_candidate(prog, t)
        && allowed_in_pattern(t)
        && !bound_in(t, vars).is_empty()
        && bound_in(t, inner).is_empty()
        && !out.contains(t)
    {
        out.push(t.clone());
    }
    for a in t.args() {
        candidates(prog, a, vars, inner, out);
    }
}

/// Whether `t` is an instance of `pattern` (the variables of `vars` in
/// `pattern` standing for any term, the same one at each occurrence).
fn matches(pattern: &Term, t: &Term, vars: &[Term], binding: &mut Vec<(Term, Term)>) -> bool {
    if vars.contains(pattern) {
        if let Some((_, bound)) = binding.iter().find(|(v, _)| v == pattern) {
            return bound == t;
        }
        binding.push((pattern.clone(), t.clone()));
        return true;
    }
    pattern.op() == t.op()
        && pattern.args().len() == t.args().len()
        && pattern
            .args()
            .iter()
            .zip(t.args())
            .all(|(p, a)| matches(p, a, vars, binding))
}

/// Whether the arguments of `t` that mention bound variables are bound
/// variables themselves (`a[i]`, not `a[i + 1]`).
fn direct(t: &Term, vars: &[Term]) -> bool {
    t.args()
        .iter()
        .all(|a| vars.contains(a) || bound_in(a, vars).is_empty())
}

/// Whether instantiating the quantifier for `t` yields another term that
/// `t` matches and that is new: the body's `a[i + 1]` for the trigger
/// `a[i]` would give `a[k + 1]`, then `a[k + 2]`, ... (a matching loop).
fn loops(t: &Term, all: &[Term], vars: &[Term]) -> bool {
    all.iter()
        .any(|other| other != t && !direct(other, vars) && matches(t, other, vars, &mut Vec::new()))
}

/// The trigger of a quantifier over `vars` with `body`: for each variable in
/// turn, unless one already chosen mentions it, the first candidate that
/// mentions it, preferring candidates that cannot loop and then those that
/// take the variables directly as arguments. Empty when some variable
/// occurs in no candidate (the checker rules that out for the program's
/// own terms; Z3 then chooses).
pub fn choose_trigger(prog: &ProgramInfo, vars: &[Term], body: &Term) -> Vec<Term> {
    let mut all = Vec::new();
    candidates(prog, body, vars, &[], &mut all);
    let mut ranked: Vec<(u8, usize, Term)> = all
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let rank = u8::from(loops(t, &all, vars)) * 2 + u8::from(!direct(t, vars));
            (rank, i, t.clone())
        })
        .collect();
    ranked.sort_by_key(|(rank, i, _)| (*rank, *i));
    let mut chosen: Vec<Term> = Vec::new();
    let mut covered: Vec<u32> = Vec::new();
    for v in vars {
        let Some(id) = v.var_id() else { continue };
        if covered.contains(&id) {
            continue;
        }
        let Some((_, _, t)) = ranked
            .iter()
            .find(|(_, _, t)| !bound_in(t, std::slice::from_ref(v)).is_empty())
        else {
            return Vec::new();
        };
        covered.extend(bound_in(t, vars));
        chosen.push(t.clone());
    }
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logic::term::{Sort, VarKind};
    use crate::syntax::ast::Program;

    fn bound(id: u32, name: &str) -> Term {
        Term::var(id, name, Sort::Int, VarKind::Bound)
    }

    fn read(seq: &Term, i: Term) -> Term {
        Term::from_snap(Term::select(seq.clone(), i), Sort::Int)
    }

    #[test]
    fn triggers_avoid_matching_loops_and_cover_every_variable() {
        let prog = ProgramInfo::new(Program::default());
        let s = Term::var(1, "s", Sort::Seq, VarKind::Plain);
        let (i, j) = (bound(2, "i"), bound(3, "j"));
        let next = Term::add(i.clone(), Term::int(1));
        // a[i] < a[i + 1]: `a[i]` would match `a[i + 1]` and loop.
        let body = Term::lt(read(&s, i.clone()), read(&s, next.clone()));
        let t = choose_trigger(&prog, std::slice::from_ref(&i), &body);
        assert_eq!(t, vec![Term::select(s.clone(), next)]);
        // a[i] <= a[j]: both, as one multi-pattern, in the order written.
        let body = Term::le(read(&s, i.clone()), read(&s, j.clone()));
        let t = choose_trigger(&prog, &[i.clone(), j.clone()], &body);
        assert_eq!(
            t,
            vec![
                Term::select(s.clone(), i.clone()),
                Term::select(s.clone(), j.clone())
            ]
        );
        // A variable in no read: no trigger (Z3 chooses; the checker rules
        // this out for the program's own quantifiers).
        let body = Term::le(read(&s, i.clone()), j.clone());
        assert!(choose_trigger(&prog, &[i.clone(), j.clone()], &body).is_empty());
        // Inside a nested quantifier, only terms free of its variables.
        let inner = Term::quant(
            false,
            vec![j.clone()],
            Term::eq(read(&s, j.clone()), read(&s, i.clone())),
            vec![Term::select(s.clone(), j.clone())],
        );
        let t = choose_trigger(&prog, std::slice::from_ref(&i), &inner);
        assert_eq!(t, vec![Term::select(s.clone(), i.clone())]);
        // Z3 rejects `ite` in a pattern: `a[c ? i : 0]` is passed over.
        let c = Term::var(4, "c", Sort::Bool, VarKind::Plain);
        let odd = Term::select(s.clone(), Term::ite(c, i.clone(), Term::int(0)));
        let body = Term::eq(Term::from_snap(odd, Sort::Int), read(&s, i.clone()));
        let t = choose_trigger(&prog, std::slice::from_ref(&i), &body);
        assert_eq!(t, vec![Term::select(s, i)]);
    }

    /// Sequence indexing triggers like an array read, and the same
    /// matching-loop rule applies to it.
    #[test]
    fn sequence_indexing_is_a_trigger() {
        let prog = ProgramInfo::new(Program::default());
        let s = Term::var(1, "s", Sort::List, VarKind::Plain);
        let i = bound(2, "i");
        let at = |k: Term| Term::from_snap(Term::list_at(s.clone(), k), Sort::Int);
        let body = Term::lt(Term::int(0), at(i.clone()));
        let t = choose_trigger(&prog, std::slice::from_ref(&i), &body);
        assert_eq!(t, vec![Term::list_at(s.clone(), i.clone())]);
        let next = Term::add(i.clone(), Term::int(1));
        let body = Term::lt(at(i.clone()), at(next.clone()));
        let t = choose_trigger(&prog, std::slice::from_ref(&i), &body);
        assert_eq!(t, vec![Term::list_at(s, next)]);
    }
}
