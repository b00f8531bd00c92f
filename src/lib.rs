//! Sift: a verifier for a small Java-like language with implicit dynamic
//! frames, by symbolic execution over Z3 (Smans, Jacobs, Piessens).

pub mod cache;
pub mod cancel;
pub mod check;
pub mod concrete;
pub mod dap;
pub mod debug;
pub mod diag;
pub mod input;
pub mod logic;
pub mod lower;
pub mod lsp;
pub mod partition;
pub mod progress;
pub mod record;
pub mod report;
pub mod solver;
pub mod stack;
pub mod symbolic;
pub mod syntax;
pub mod verify;

pub use verify::{FileReport, Options, verify_source};
