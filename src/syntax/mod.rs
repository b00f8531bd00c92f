//! Source text to syntax tree: the pest grammar in `lang/sift.pest`.
//!
//! [`parse`] returns the first syntax error as a `Kind::Parse` diagnostic
//! located at the first token that cannot continue the program.

pub mod ast;
mod error;
mod expr;
mod habits;
mod parse;
mod recover;
mod scan;
mod sugar;
#[cfg(test)]
mod tests;
pub mod walk;

use crate::diag::Diagnostic;

/// Stack of the parsing thread: pest and the tree builder recurse once per
/// nesting level (at most `scan::MAX_NESTING`), with large frames in debug
/// builds.
const PARSER_STACK: usize = 64 << 20;

/// Parses a whole source file. Never panics and never overflows the stack:
/// nesting is bounded (brackets 200 levels, expression trees 500, `else if`
/// links 10,000, built without recursion), and the parser runs on a thread
/// of its own with a large stack.
// The signature is the crate's contract; a parse error is rare and once.
#[allow(clippy::result_large_err)]
pub fn parse(source: &str) -> Result<ast::Program, Diagnostic> {
    parse_boxed(source).map_err(|d| *d)
}

/// Parses a whole source file, reporting on failure the first syntax error
/// (exactly as `parse`) and then those of later members, found by parsing
/// again without the members that failed.
pub fn parse_all(source: &str) -> Result<ast::Program, Vec<Diagnostic>> {
    parse_boxed(source).map_err(|first| {
        recover::with_later_errors(source, *first, |text| parse_boxed(text).map(|_| ()))
    })
}

fn parse_boxed(source: &str) -> parse::R<ast::Program> {
    scan::prescan(source)?;
    crate::stack::on_thread("sift-parser", PARSER_STACK, || parse::program(source))
        .unwrap_or_else(|_| Err(error::internal(0..0)))
}
