//! Stopping a verification from another thread (the language server, when
//! the text it verifies has changed): a flag that the solver and the
//! symbolic engine look at between queries and steps, and Z3's interrupt
//! for the queries running when it is raised.
//!
//! A cancelled run's results are incomplete: every member verified under a
//! raised flag reports an error saying so, never "verified".

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use z3::{Context, ContextHandle};

#[derive(Default)]
pub struct Cancel {
    flag: AtomicBool,
    /// The Z3 contexts working for this run now, by registration number.
    contexts: Mutex<HashMap<u64, ContextHandle<'static>>>,
    next: AtomicU64,
}

impl std::fmt::Debug for Cancel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Cancel({})", self.is_cancelled())
    }
}

impl Cancel {
    pub fn new() -> Arc<Cancel> {
        Arc::new(Cancel::default())
    }

    /// Raises the flag and interrupts every query running under it. Later
    /// queries give up at once.
    pub fn cancel(&self) {
        self.flag.store(true, Ordering::SeqCst);
        if let Ok(contexts) = self.contexts.lock() {
            for handle in contexts.values() {
                handle.interrupt();
            }
        }
    }

    pub fn is_cancelled(&self) -> bool {
        self.flag.load(Ordering::SeqCst)
    }

    /// Runs `f` with `z` registered, so that [`Cancel::cancel`] interrupts
    /// the queries `f` sends to it.
    pub fn interruptible<R>(&self, z: &Context, f: impl FnOnce() -> R) -> R {
        let handle = z.handle();
        // SAFETY: the handle only lives in the map while `z` is borrowed by
        // this call: `Registered::drop` removes it before `interruptible`
        // returns or unwinds, under the lock that `cancel` holds while it
        // uses the handles.
        let handle: ContextHandle<'static> = unsafe { std::mem::transmute(handle) };
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut contexts) = self.contexts.lock() {
            contexts.insert(id, handle);
        }
        let _registered = Registered { cancel: self, id };
        f()
    }
}

/// Takes a context out of the map when its run ends (or unwinds).
struct Registered<'a> {
    cancel: &'a Cancel,
    id: u64,
}

impl Drop for Registered<'_> {
    fn drop(&mut self) {
        // A poisoned lock still holds the map: the handle must go.
        let mut contexts = self
            .cancel
            .contexts
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        contexts.remove(&self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use z3::ast::{Ast, Int};

    /// A query that takes Z3 far longer than the test waits (nonlinear
    /// integer arithmetic with no timeout) returns `unknown` soon after
    /// `cancel` from another thread.
    #[test]
    fn cancel_interrupts_a_running_query() {
        let cancel = Cancel::new();
        let z = Context::new(&z3::Config::new());
        let s = z3::Solver::new(&z);
        let (x, y, w) = (
            Int::new_const(&z, "x"),
            Int::new_const(&z, "y"),
            Int::new_const(&z, "w"),
        );
        // x^3 + y^3 = w^3 with positive values: no solution (Fermat), and
        // nothing Z3 can show.
        for v in [&x, &y, &w] {
            s.assert(&v.gt(&Int::from_i64(&z, 0)));
        }
        let (x3, y3, w3) = (
            Int::mul(&z, &[&x, &x, &x]),
            Int::mul(&z, &[&y, &y, &y]),
            Int::mul(&z, &[&w, &w, &w]),
        );
        s.assert(&Int::add(&z, &[&x3, &y3])._eq(&w3));
        let remote = cancel.clone();
        let finished = Arc::new(AtomicBool::new(false));
        let seen = finished.clone();
        // Again and again: an interrupt before the query starts is lost.
        let stopper = std::thread::spawn(move || {
            while !seen.load(Ordering::SeqCst) {
                std::thread::sleep(std::time::Duration::from_millis(200));
                remote.cancel();
            }
        });
        let result = cancel.interruptible(&z, || s.check());
        finished.store(true, Ordering::SeqCst);
        stopper.join().expect("the stopper thread");
        assert_eq!(result, z3::SatResult::Unknown);
        let why = s.get_reason_unknown().unwrap_or_default();
        assert!(why.contains("interrupt") || why.contains("cancel"), "{why}");
        assert!(cancel.is_cancelled());
        assert!(
            cancel
                .contexts
                .lock()
                .map(|c| c.is_empty())
                .unwrap_or(false)
        );
    }
}
