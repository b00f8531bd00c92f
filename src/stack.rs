//! Threads with large stacks. The parser, the checker and the engine
//! recurse once per nesting level (of expressions, blocks or rules), with
//! large frames in debug builds; they run on a thread of their own so that
//! the caller's stack (a small one, in the language server) never limits
//! them. Untouched stack pages cost nothing.

use std::any::Any;
use std::thread::Result;

/// Stack of the verifier's threads.
pub const VERIFIER_STACK: usize = 1 << 30;

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
}
