//! Symbolic execution (paper section 3.4): states, heaps, terms and the four
//! functions `eval`, `produce`, `consume`, `exec`, and validity (3.5).

pub mod array;
pub mod calls;
pub mod consume;
pub mod ctx;
pub mod eval;
pub mod exec;
pub mod heap;
pub mod hint;
pub mod infer;
mod looping;
pub mod names;
pub mod overflow;
pub mod paths;
pub mod produce;
pub mod program;
pub mod quant;
pub mod recorded;
pub mod route;
pub mod state;
pub mod termination;
pub mod validity;

/// Terms live in `logic`, below the solver; the engine names them here.
pub use crate::logic::term;
