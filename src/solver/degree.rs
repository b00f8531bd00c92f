//! Polynomial degree of integer terms, to keep Z3 away from the products it
//! cannot take. `x = x * x;` n times is a term of n nodes whose value is
//! `x^(2^n)`: Z3 4.8.12 normalizes products into monomials and runs out of
//! memory (several GB at n = 20) or crashes in `Z3_solver_assert` (n = 5000).
//! Such a product is handed to Z3 as a fresh constant instead (see
//! `Solver::translate`): replacing every occurrence of a subterm by the same
//! unconstrained constant only weakens what Z3 knows, so `unsat` still
//! proves the query and no feasible path is pruned; a failure may then be
//! reported where the real value would have verified.

use std::collections::HashMap;

use crate::logic::term::{Op, Term};

/// Products of a higher degree are abstracted. Real programs stay far below
/// (Z3 takes `x^1024` in half a second and 230 MB).
pub const MAX_DEGREE: u64 = 64;

/// The degree of `t` as a polynomial in its variables and uninterpreted
/// applications (saturating), each shared node computed once.
pub fn degree(t: &Term, memo: &mut HashMap<Term, u64>) -> u64 {
    if let Some(&d) = memo.get(t) {
        return d;
    }
    let d = match t.op() {
        Op::Int(_) | Op::BigInt(_) | Op::True | Op::False | Op::Null | Op::Unit => 0,
        // Atoms of the polynomial: what is inside an application is not
        // multiplied out by Z3 (and is checked where it is translated).
        Op::Var { .. } | Op::App(_) => 1,
        Op::Mul | Op::Div | Op::Mod => t
            .args()
            .iter()
            .fold(0u64, |acc, a| acc.saturating_add(degree(a, memo))),
        _ => t.args().iter().map(|a| degree(a, memo)).max().unwrap_or(0),
    };
    memo.insert(t.clone(), d);
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logic::term::{Sort, VarKind};

    #[test]
    fn degrees_add_in_products_and_saturate() {
        let x = Term::var(1, "x", Sort::Int, VarKind::Plain);
        let mut memo = HashMap::new();
        assert_eq!(degree(&Term::int(3), &mut memo), 0);
        assert_eq!(degree(&x, &mut memo), 1);
        let sq = Term::mul(x.clone(), x.clone());
        assert_eq!(degree(&sq, &mut memo), 2);
        assert_eq!(degree(&Term::add(sq.clone(), x.clone()), &mut memo), 2);
        assert_eq!(degree(&Term::mul(sq.clone(), Term::int(5)), &mut memo), 2);
        let mut t = x;
        for _ in 0..5_000 {
            t = Term::mul(t.clone(), t);
        }
        assert_eq!(degree(&t, &mut memo), u64::MAX);
    }
}
