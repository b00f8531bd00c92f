//! The wall-clock backstop behind the resource limit.
//!
//! Z3's own `timeout` starts a timer thread for every query (in 4.8), which
//! cost about a third of the time of a method with many branches. One
//! thread per context instead sleeps until the running query's deadline and
//! interrupts the context if that query is still running.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::Scope;
use std::time::{Duration, Instant};

use z3::ContextHandle;

#[derive(Default)]
struct Alarm {
    deadline: Option<Instant>,
    /// The query that was armed last was interrupted.
    fired: bool,
    stop: bool,
}

#[derive(Default)]
struct Shared {
    alarm: Mutex<Alarm>,
    wake: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Alarm> {
        // A poisoned lock only means a panic elsewhere; the alarm's fields
        // stay meaningful.
        self.alarm.lock().unwrap_or_else(|e| e.into_inner())
    }
}

pub struct Watchdog {
    shared: Arc<Shared>,
    timeout: Duration,
}

impl Watchdog {
    /// Starts the watching thread in `scope`; it ends when the watchdog is
    /// dropped.
    pub fn start<'scope, 'env>(
        scope: &'scope Scope<'scope, 'env>,
        handle: ContextHandle<'env>,
        timeout_ms: u32,
    ) -> Watchdog {
        let shared = Arc::new(Shared::default());
        let watched = shared.clone();
        scope.spawn(move || watch(&watched, &handle));
        Watchdog {
            shared,
            timeout: Duration::from_millis(timeout_ms.max(1).into()),
        }
    }

    /// Runs `query` under the deadline; `true` with its result if the
    /// watchdog had to interrupt it.
    pub fn run<R>(&self, query: impl FnOnce() -> R) -> (R, bool) {
        {
            let mut alarm = self.shared.lock();
            alarm.deadline = Some(Instant::now() + self.timeout);
            alarm.fired = false;
        }
        self.shared.wake.notify_one();
        let result = query();
        let mut alarm = self.shared.lock();
        alarm.deadline = None;
        (result, alarm.fired)
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.shared.lock().stop = true;
        self.shared.wake.notify_one();
    }
}

fn watch(shared: &Shared, handle: &ContextHandle) {
    let mut alarm = shared.lock();
    loop {
        if alarm.stop {
            return;
        }
        alarm = match alarm.deadline {
            None => shared.wake.wait(alarm).unwrap_or_else(|e| e.into_inner()),
            Some(deadline) => {
                let now = Instant::now();
                if now >= deadline {
                    // Under the lock: the query cannot have been disarmed,
                    // so the interrupt reaches the query it was meant for.
                    handle.interrupt();
                    alarm.fired = true;
                    alarm.deadline = None;
                    alarm
                } else {
                    shared
                        .wake
                        .wait_timeout(alarm, deadline - now)
                        .unwrap_or_else(|e| e.into_inner())
                        .0
                }
            }
        };
    }
}
