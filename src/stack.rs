//! Threads with large stacks. The parser, the checker and the engine
//! recurse once per nesting level (of expressions, blocks or rules), with
//! large frames in debug builds; they run on a thread of their own so that
//! the caller's stack (a small one, in the language server) never limits
//! them. Untouched stack pages cost nothing.

use std::any::Any;
use std::cell::Cell;
use std::thread::Result;

/// Stack of the verifier's threads.
pub const VERIFIER_STACK: usize = 1 << 30;

/// Stack that walks bounded at run time may use on a verifier thread:
/// half of it, the rest is margin.
pub const WALK_STACK_BUDGET: usize = VERIFIER_STACK / 2;

/// Runs `f` on a thread named `name` with `stack` bytes of stack, and
/// returns its result, or the panic's payload if it panicked. On the
/// caller's stack if no thread can be started.
pub fn on_thread<T: Send>(name: &str, stack: usize, f: impl FnOnce() -> T + Send) -> Result<T> {
    let mut f = Some(f);
    let mut out = None;
    std::thread::scope(|s| {
        let spawned = std::thread::Builder::new()
            .name(name.to_string())
            .stack_size(stack)
            .spawn_scoped(s, || f.take().map(|f| f()));
        if let Ok(handle) = spawned {
            out = Some(handle.join());
        }
    });
    // Not taken: the thread never started.
    if let Some(f) = f.take() {
        return Ok(f());
    }
    match out {
        Some(Ok(Some(v))) => Ok(v),
        Some(Err(payload)) => Err(payload),
        Some(Ok(None)) | None => Err(Box::new("the thread ended without running its task")),
    }
}

/// [`on_thread`] for work whose panic is the caller's: it goes on in the
/// caller.
pub fn with_big_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    match on_thread("sift-verifier", VERIFIER_STACK, f) {
        Ok(v) => v,
        Err(payload) => std::panic::resume_unwind(payload),
    }
}

/// The message of a panic's payload.
pub fn panic_message(p: &(dyn Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".to_string())
}

// How much stack the current thread has used, for walks whose depth is not
// bounded by the syntax: the concrete interpreter recurses once per nested
// call, and the number of nested calls is a run-time quantity.
//
// [`with_budget`] records where a thread's stack begins and how much of it
// a walk may use; [`exhausted`] compares the address of a local variable
// with that start. A walk that checks `exhausted` once per level, and whose
// levels use at most M bytes between two checks, stays below
// `budget + M`. The budget is half of the verifier's 1 GiB stacks, and one
// level between two checks (a call: at most 200 nested blocks and 500
// nested expression levels, each a few KB in a debug build) uses a few
// MB, so the other half is a wide margin.

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

    #[test]
    fn results_and_panics_come_back() {
        assert_eq!(on_thread("t", 1 << 20, || 6 * 7).ok(), Some(42));
        let p = on_thread("t", 1 << 20, || -> u8 { panic!("boom") }).unwrap_err();
        assert_eq!(panic_message(&*p), "boom");
        assert_eq!(with_big_stack(|| "deep"), "deep");
    }

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
