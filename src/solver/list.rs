//! Z3's sequence functions over `(Seq Snap)` for `Op::List` terms.
//!
//! The `z3` crate has no sequence API, so the functions are taken from
//! Z3 itself: a template in SMT-LIB is parsed into a scratch solver of the
//! same context, and the declarations of its applications are applied to
//! Sift's terms like any other function (Z3 accepts its built-in
//! declarations in applications).

use z3::ast::{Ast, Bool, Dynamic};
use z3::{FuncDecl, Sort as ZSort};

use crate::logic::term::{ListOp, prelude};

/// One assertion per function, in the order of `ListFuns::new`; the
/// sorts are those of the prelude (`Snap` is the same sort in the whole
/// context).
const TEMPLATE: &str = "(declare-sort Snap 0)
(declare-const s (Seq Snap))
(declare-const t (Seq Snap))
(declare-const e Snap)
(declare-const i Int)
(assert (= s (as seq.empty (Seq Snap))))
(assert (= s (seq.unit e)))
(assert (= s (seq.++ s t)))
(assert (= i (seq.len s)))
(assert (= s (seq.extract s i i)))
(assert (seq.contains s t))";

pub(super) struct ListFuns<'z> {
    empty: Dynamic<'z>,
    unit: FuncDecl<'z>,
    concat: FuncDecl<'z>,
    len: FuncDecl<'z>,
    extract: FuncDecl<'z>,
    /// The prelude's `seqAt` (see `prelude.smt2` for why indexing is not
    /// `seq.nth`).
    at: FuncDecl<'z>,
    contains: FuncDecl<'z>,
}

impl<'z> ListFuns<'z> {
    /// Parses the template into `scratch`, a solver of the context used
    /// for nothing else.
    pub(super) fn new(scratch: &'z z3::Solver<'z>, snap: &ZSort<'z>) -> ListFuns<'z> {
        scratch.from_string(TEMPLATE);
        let facts: Vec<Bool<'z>> = scratch.get_assertions();
        // The right side of each equation (the whole fact for `contains`).
        let right = |k: usize| -> Dynamic<'z> {
            let fact = facts.get(k).expect("sequence template parsed");
            match fact.children().get(1) {
                Some(r) if k < 5 => r.clone(),
                _ => Dynamic::from_ast(fact),
            }
        };
        let empty = right(0);
        let list = empty.get_sort();
        let at = FuncDecl::new(
            scratch.get_context(),
            prelude::SEQ_AT,
            &[&list, &ZSort::int(scratch.get_context())],
            snap,
        );
        ListFuns {
            empty,
            at,
            unit: right(1).decl(),
            concat: right(2).decl(),
            len: right(3).decl(),
            extract: right(4).decl(),
            contains: right(5).decl(),
        }
    }

    /// The sort `(Seq Snap)`.
    pub(super) fn sort(&self) -> ZSort<'z> {
        self.empty.get_sort()
    }

    /// `op` applied to `args`.
    pub(super) fn apply(&self, op: ListOp, args: &[&dyn Ast<'z>]) -> Dynamic<'z> {
        match op {
            ListOp::Empty => self.empty.clone(),
            ListOp::Unit => self.unit.apply(args),
            ListOp::Concat => self.concat.apply(args),
            ListOp::Len => self.len.apply(args),
            ListOp::At => self.at.apply(args),
            ListOp::Extract => self.extract.apply(args),
            ListOp::Contains => {
                // Element containment is containment of the unit sequence.
                let unit = self.unit.apply(&args[1..]);
                self.contains.apply(&[args[0], &unit])
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::logic::path::PathCondition;
    use crate::logic::term::{Sort, Term, VarKind};
    use crate::solver::{Answer, Limits, Solver, Theories};

    fn with_solver(f: impl FnOnce(&mut Solver)) {
        let theories = Theories { sequences: true };
        super::super::with_solver(&[], theories, Limits::default(), true, None, |mut s| {
            f(&mut s)
        });
    }

    fn v(id: u32, sort: Sort) -> Term {
        Term::var(id, "v", sort, VarKind::Plain)
    }

    fn int_at(s: &Term, i: Term) -> Term {
        Term::from_snap(Term::list_at(s.clone(), i), Sort::Int)
    }

    /// `s[i..]` as an extraction.
    fn from(s: &Term, i: Term) -> Term {
        let n = Term::sub(Term::list_len(s.clone()), i.clone());
        Term::list_extract(s.clone(), i, n)
    }

    /// The laws users may rely on hold without help, under
    /// the bounds the verifier proves before it builds a term; wrong
    /// variants are refuted, and `false` stays unprovable after all of
    /// them are assumed.
    #[test]
    fn sequence_laws_prove_what_they_should_and_no_more() {
        with_solver(|z| {
            let (s, t, x, k) = (
                v(1, Sort::List),
                v(2, Sort::List),
                v(3, Sort::Int),
                v(4, Sort::Int),
            );
            let (len_s, len_t) = (Term::list_len(s.clone()), Term::list_len(t.clone()));
            let st = Term::list_concat(s.clone(), t.clone());
            let xs = Term::list_concat(Term::list_unit(Term::to_snap(x.clone())), s.clone());
            let mut pc = PathCondition::default();
            pc.add(Term::le(Term::int(0), k.clone()));
            pc.add(Term::lt(k.clone(), len_t.clone()));
            let laws = [
                Term::eq(
                    Term::list_len(st.clone()),
                    Term::add(len_s.clone(), len_t.clone()),
                ),
                Term::eq(
                    int_at(&st, Term::add(len_s.clone(), k.clone())),
                    int_at(&t, k.clone()),
                ),
                Term::eq(
                    Term::list_extract(s.clone(), Term::int(0), len_s.clone()),
                    s.clone(),
                ),
                Term::eq(from(&xs, Term::int(1)), s.clone()),
                Term::eq(int_at(&xs, Term::int(0)), x.clone()),
                Term::list_contains(xs.clone(), Term::to_snap(x.clone())),
                Term::le(Term::int(0), len_s.clone()),
                Term::eq(Term::list_len(Term::list_empty()), Term::int(0)),
            ];
            for law in &laws {
                assert_eq!(z.prove(&pc, law, "test"), Answer::Proved, "{law}");
            }
            let wrong = [
                Term::eq(st.clone(), Term::list_concat(t.clone(), s.clone())),
                Term::eq(int_at(&st, k.clone()), int_at(&t, k.clone())),
                Term::eq(from(&xs, Term::int(1)), xs.clone()),
                Term::list_contains(s.clone(), Term::to_snap(x.clone())),
                Term::lt(len_s.clone(), len_t.clone()),
            ];
            for w in &wrong {
                assert_eq!(z.prove(&pc, w, "test"), Answer::Refuted, "{w}");
            }
            for law in laws {
                pc.add(law);
            }
            assert_eq!(z.prove(&pc, &Term::bool(false), "test"), Answer::Refuted);
        });
    }

    /// Sequences pass through snapshots (a `seq` field, a pure result) and
    /// come back equal; two sequences with equal elements are equal.
    #[test]
    fn sequences_survive_snapshots_and_are_extensional() {
        with_solver(|z| {
            let (s, t, snap) = (v(1, Sort::List), v(2, Sort::List), v(3, Sort::Snap));
            let mut pc = PathCondition::default();
            pc.add(Term::eq(Term::to_snap(s.clone()), snap.clone()));
            let back = Term::from_snap(snap, Sort::List);
            assert_eq!(
                z.prove(&pc, &Term::eq(back, s.clone()), "test"),
                Answer::Proved
            );
            let one = |x: i128| Term::list_unit(Term::to_snap(Term::int(x)));
            pc.add(Term::eq(s.clone(), Term::list_concat(one(1), one(2))));
            pc.add(Term::eq(Term::list_len(t.clone()), Term::int(2)));
            pc.add(Term::eq(int_at(&t, Term::int(0)), Term::int(1)));
            pc.add(Term::eq(int_at(&t, Term::int(1)), Term::int(2)));
            assert_eq!(z.prove(&pc, &Term::eq(s, t), "test"), Answer::Proved);
        });
    }

    /// The SMT-LIB text (logs, `--smt-log` replays) uses Z3's names.
    #[test]
    fn sequences_are_written_in_smtlib() {
        let (s, e) = (v(1, Sort::List), v(2, Sort::Snap));
        let t = Term::list_contains(Term::list_concat(s, Term::list_empty()), e.clone());
        assert_eq!(
            crate::solver::to_smtlib(&t),
            "(seq.contains |v@1| (seq.unit |v@2|))"
        );
        let u = Term::list_concat(Term::list_unit(e), Term::list_empty());
        assert_eq!(
            crate::solver::to_smtlib(&Term::list_len(Term::list_concat(u.clone(), u))),
            "(seq.len (seq.++ (seq.unit |v@2|) (seq.unit |v@2|)))"
        );
    }

    /// A quantified fact over a sequence, triggered by its indexing
    /// (`seqAt`), is instantiated for an element read directly, through a
    /// slice or through a concatenation; it says nothing about another
    /// sequence, and `false` stays unprovable.
    #[test]
    fn indexing_triggers_quantified_facts_through_slices_and_concatenation() {
        with_solver(|z| {
            let (s, t, i) = (
                v(1, Sort::List),
                v(2, Sort::List),
                Term::var(3, "i", Sort::Int, VarKind::Bound),
            );
            let positive = |x: Term| Term::lt(Term::int(0), x);
            let body = Term::implies(
                Term::and(vec![
                    Term::le(Term::int(0), i.clone()),
                    Term::lt(i.clone(), Term::list_len(s.clone())),
                ]),
                positive(int_at(&s, i.clone())),
            );
            let all = Term::quant(
                true,
                vec![i.clone()],
                body,
                vec![Term::list_at(s.clone(), i.clone())],
            );
            let mut pc = PathCondition::default();
            pc.add(all);
            pc.add(Term::lt(Term::int(2), Term::list_len(s.clone())));
            let slice = Term::list_extract(s.clone(), Term::int(1), Term::int(2));
            let ts = Term::list_concat(t.clone(), s.clone());
            let past_t = Term::add(Term::list_len(t.clone()), Term::int(1));
            for g in [
                positive(int_at(&s, Term::int(2))),
                positive(int_at(&slice, Term::int(1))),
                positive(int_at(&ts, past_t)),
            ] {
                assert_eq!(z.prove(&pc, &g, "test"), Answer::Proved, "{g}");
            }
            pc.add(Term::lt(Term::int(1), Term::list_len(t.clone())));
            let wrong = positive(int_at(&ts, Term::int(1)));
            assert_eq!(z.prove(&pc, &wrong, "test"), Answer::Refuted, "{wrong}");
            assert_eq!(z.prove(&pc, &Term::bool(false), "test"), Answer::Refuted);
        });
    }
}
