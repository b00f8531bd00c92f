//! Splitting the paths of one method into tasks for several threads.
//!
//! The paths of a method body are independent once they part. A task
//! follows a fixed sequence of choices at the first two-way splits of the
//! body and explores everything below them; at each further split, up to
//! `DEPTH` of them, it hands the second side to a new task and takes the
//! first. Which tasks exist depends on the program only, never on timing
//! or on the number of threads, and each task runs from scratch in a fresh
//! solver, so the reports are the same however the tasks are scheduled.
//! The cost is that a task replays the path leading to its first choice.

use std::sync::Arc;

/// At most 2^DEPTH tasks per method.
pub const DEPTH: usize = 3;

/// Where a new task starts: the choices along its path (`true`: the second
/// side of the split).
pub type Donate = Arc<dyn Fn(Vec<bool>) + Send + Sync>;

pub struct Route {
    /// The choices made on this task's path so far, its given ones first.
    choices: Vec<bool>,
    /// How many of them the path has reached.
    taken: usize,
    donate: Donate,
}

impl Route {
    pub fn new(choices: Vec<bool>, donate: Donate) -> Route {
        Route {
            choices,
            taken: 0,
            donate,
        }
    }

    /// Whether the next two-way split is still one of the routed ones.
    pub fn active(&self) -> bool {
        self.taken < DEPTH
    }

    /// The side to take (`true`: the second) at a split where both may
    /// hold. Only one path of the task reaches a routed split, since the
    /// task follows one side at each of the earlier ones.
    pub fn choose(&mut self) -> bool {
        if self.taken == self.choices.len() {
            let mut other = self.choices.clone();
            other.push(true);
            (self.donate)(other);
            self.choices.push(false);
        }
        let side = self.choices[self.taken];
        self.taken += 1;
        side
    }

    /// The choices of this task's paths: tasks ordered by them list their
    /// paths in the order of a single depth-first exploration.
    pub fn choices(&self) -> &[bool] {
        &self.choices
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[test]
    fn tasks_hand_on_second_sides_up_to_the_depth() {
        let given = Arc::new(Mutex::new(Vec::new()));
        let sink = given.clone();
        let mut r = Route::new(vec![true], Arc::new(move |c| sink.lock().unwrap().push(c)));
        assert!(r.choose());
        assert!(!r.choose());
        assert!(!r.choose());
        assert!(!r.active());
        assert_eq!(r.choices(), &[true, false, false]);
        assert_eq!(
            *given.lock().unwrap(),
            vec![vec![true, true], vec![true, false, true]]
        );
    }
}
