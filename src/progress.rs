//! The progress bar of `sift verify`: members done out of those planned,
//! the member that finished last and the solver queries so far. Drawn on
//! stderr only when it is a terminal and the output is text, so it never
//! appears in `--json` output, in pipes or in a test's captured output.

use std::cell::Cell;
use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::verify::{MemberReport, Progress};

/// Whether `sift verify` shows a bar.
pub fn wanted(json: bool, stderr_is_terminal: bool) -> bool {
    !json && stderr_is_terminal
}

pub struct Bar {
    bar: ProgressBar,
    queries: Cell<u64>,
}

impl Bar {
    /// A bar on stderr, if [`wanted`] there.
    pub fn on_stderr(json: bool) -> Option<Bar> {
        if !wanted(json, std::io::stderr().is_terminal()) {
            return None;
        }
        let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
        let style = ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} members {msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar());
        bar.set_style(style);
        Some(Bar {
            bar,
            queries: Cell::new(0),
        })
    }

    /// Removes the bar before the results are printed.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Progress for Bar {
    fn start(&self, path: &str, total: usize, reused: usize) {
        // Redrawn while one long member runs, so that the clock moves;
        // not before the first file is planned (an empty bar looks full).
        if self.bar.length() == Some(0) {
            self.bar.enable_steady_tick(Duration::from_millis(200));
        }
        self.bar.inc_length(total as u64);
        self.bar.inc(reused as u64);
        self.bar.set_message(path.to_string());
    }

    fn member_done(&self, report: &MemberReport) {
        self.queries.set(self.queries.get() + report.queries);
        self.bar.inc(1);
        self.bar.set_message(format!(
            "{} ({} solver queries)",
            report.name,
            self.queries.get()
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_text_output_on_a_terminal_shows_a_bar() {
        assert!(wanted(false, true));
        assert!(!wanted(true, true));
        assert!(!wanted(false, false));
        assert!(!wanted(true, false));
    }
}
