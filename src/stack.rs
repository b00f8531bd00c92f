//! How much stack the current thread has used, for walks whose depth is not
//! bounded by the syntax: the concrete interpreter recurses once per nested
//! call, and the number of nested calls is a run-time quantity.
//!
//! [`with_budget`] records where a thread's stack begins and how much of it
//! a walk may use; [`exhausted`] compares the address of a local variable
//! with that start. A walk that checks `exhausted` once per level, and whose
//! levels use at most M bytes between two checks, stays below
//! `budget + M`. The budget is half of the verifier's 1 GiB stacks, and one
//! level between two checks (a call: at most 200 nested blocks and 500
//! nested expression levels, each a few KB in a debug build) uses a few
//! MB, so the other half is a wide margin.

use std::cell::Cell;

thread_local! {
    /// Start address and byte budget of the innermost `with_budget`.
    static LIMIT: Cell<Option<(usize, usize)>> = const { Cell::new(None) };
}

/// The address of a local of the caller: where the stack is now.
#[inline(never)]
fn here() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

/// Runs `f` allowing walks to use `budget` more bytes of stack from here.
pub fn with_budget<T>(budget: usize, f: impl FnOnce() -> T) -> T {
    let outer = LIMIT.with(|l| l.replace(Some((here(), budget))));
    let out = f();
    LIMIT.with(|l| l.set(outer));
    out
}

/// Whether the stack used since the innermost `with_budget` exceeds its
/// budget (stacks grow downwards on every platform Sift runs on; the
/// distance is taken either way). Without a budget: never.
pub fn exhausted() -> bool {
    LIMIT.with(|l| match l.get() {
        Some((start, budget)) => start.abs_diff(here()) > budget,
        None => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depth_until_exhausted(n: usize) -> usize {
        if exhausted() {
            return n;
        }
        let pad = std::hint::black_box([0u8; 512]);
        depth_until_exhausted(n + 1) + usize::from(pad[0])
    }

    #[test]
    fn a_recursion_stops_within_its_budget() {
        assert!(!exhausted());
        let n = with_budget(64 << 10, || depth_until_exhausted(0));
        // Each level holds at least 512 bytes: at most 128 levels fit.
        assert!((1..=128).contains(&n), "{n}");
        assert!(!exhausted(), "the budget ends with `with_budget`");
    }
}
