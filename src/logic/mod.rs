//! The logic the verifier reasons in: terms (values, snapshots, pure
//! calls) and the path condition. Below the solver, which translates them
//! for Z3, and below symbolic execution, which builds them.

pub mod path;
pub mod term;
