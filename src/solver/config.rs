//! Z3's configuration, chosen option by option.
//!
//! Z3's defaults are tuned for benchmarks it can classify: `auto_config`
//! looks at the first query and picks a strategy. For the prelude's
//! quantifiers with model-based instantiation off it picks one that, on a
//! satisfiable query (every failing assertion), searches until the time
//! limit: about 1 s per 2 million resource units, so a failure cost the
//! whole timeout and came back without a model. Verifiers built on Z3
//! (Boogie, Silicon) configure it explicitly for the same reason. Each
//! option below is there for the reason written beside it; the same list
//! heads every `--smt-log`, so `z3 FILE` replays what the verifier did.

use std::sync::Once;

/// How long one query may run before it counts as given up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Limits {
    /// Z3 resource units per query (`rlimit`): the same on every machine
    /// and under any load, so an answer never depends on either.
    pub rlimit: u32,
    /// Wall-clock backstop in milliseconds, for the rare query whose
    /// resource count grows slowly (enforced by `Watchdog`).
    pub timeout_ms: u32,
}

/// Resource units per query: about 2.5 s of Z3's work on the 2-core
/// machine of `bench/RESULTS.md`, and over 3,000 times what the hardest
/// query of the test programs and examples takes (about 1,600 units).
pub const DEFAULT_RLIMIT: u32 = 5_000_000;

/// The wall-clock backstop: well past the resource limit's time even on a
/// loaded machine, so that the deterministic limit is the one reached.
pub const DEFAULT_TIMEOUT_MS: u32 = 10_000;

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            rlimit: DEFAULT_RLIMIT,
            timeout_ms: DEFAULT_TIMEOUT_MS,
        }
    }
}

/// Process-wide options: set once, before the first context exists, so that
/// every context (one per member or task) starts from the same settings.
const OPTIONS: &[(&str, &str)] = &[
    // No strategy chosen from the first query: the settings below hold for
    // every query alike (see the module comment for what it cost).
    ("auto_config", "false"),
    // The prelude's quantifiers are for E-matching on their patterns;
    // model-based instantiation would try to build models of the snapshot
    // theory. With it off, "unknown (incomplete quantifiers)" means Z3 has a
    // candidate model: a refutation (`Solver::unknown`).
    ("smt.mbqi", "false"),
    // Fixed seeds (Z3's defaults, stated so that no future default changes
    // them): the same query gets the same model, so counterexamples are the
    // same in every run and with any number of threads.
    ("smt.random_seed", "0"),
    ("sat.random_seed", "0"),
    // Models give every function and constant a total interpretation, so a
    // counterexample can name a value for every term it shows.
    ("model.completion", "true"),
];

/// Applies `OPTIONS` once per process; later calls wait for the first.
pub fn configure() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        for (key, value) in OPTIONS {
            z3::set_global_param(key, value);
        }
    });
}

/// The options as SMT-LIB commands, with the limits of one query.
pub fn smtlib_preamble(limits: Limits) -> String {
    let mut out = String::from("(set-option :global-declarations true)\n");
    for (key, value) in OPTIONS {
        out.push_str(&format!("(set-option :{key} {value})\n"));
    }
    out.push_str(&format!(
        "(set-option :rlimit {})\n(set-option :timeout {})\n",
        limits.rlimit, limits.timeout_ms
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_option_is_accepted_by_z3() {
        configure();
        for (key, value) in OPTIONS {
            assert_eq!(z3::get_global_param(key).as_deref(), Some(*value), "{key}");
        }
    }
}
