//! The `sift` command line: a thin front end over `sift::verify_source`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use sift::cache::{Cache, CacheKey};
use sift::input;
use sift::partition::Partition;
use sift::progress::Bar;
use sift::record::words::LimitNames;
use sift::report::{json, text};
use sift::verify::{FileReport, Hooks, Options, Stage};

#[derive(Parser)]
#[command(
    name = "sift",
    version,
    about = "Sift verifies Java-like programs annotated with implicit dynamic frames contracts, by symbolic execution with Z3.",
    after_help = "Exit status: 0 every method verified; 1 verification errors; 2 parse or type errors, unreadable files or bad usage.\n\nThe language and the verifier's contract: docs/language.md in the source repository."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Verify Sift programs (.sift files).
    #[command(
        after_help = "Exit status: 0 every method verified; 1 verification errors; 2 parse or type errors, unreadable files or bad usage. With --partition, 0 and 1 are about the share's members only."
    )]
    Verify {
        /// The files to verify.
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
        /// Print one JSON document (docs/language.md section 10) instead of text.
        #[arg(long)]
        json: bool,
        /// Wall-clock backstop: give up on a single solver query after this
        /// many seconds even if --rlimit is not reached (a query that times
        /// out counts as failed, never as proved).
        #[arg(long = "timeout", value_name = "SECONDS", default_value = "10", value_parser = timeout_ms)]
        timeout_ms: u32,
        /// Give up on a single solver query after this many Z3 resource
        /// units: unlike --timeout, the same on every machine and under any
        /// load (a query that reaches it counts as failed, never as proved).
        #[arg(long, value_name = "UNITS", default_value_t = sift::solver::DEFAULT_RLIMIT,
              value_parser = clap::value_parser!(u32).range(1..))]
        rlimit: u32,
        /// Write every query sent to Z3 to FILE as SMT-LIB, with comments
        /// naming the rule that asked (replay with `z3 FILE`).
        #[arg(long, value_name = "FILE")]
        smt_log: Option<PathBuf>,
        /// Print each failing path step by step: statement, then heap, store
        /// and path condition after it.
        #[arg(long)]
        trace: bool,
        /// Verifier threads (default: one per core).
        #[arg(long, value_name = "N", default_value_t = 0)]
        jobs: usize,
        /// Do not infer the `open`, `close` and `use` statements left out:
        /// the program must contain them all.
        #[arg(long)]
        no_infer: bool,
        /// Java's 32-bit `int` in code: an operation that might leave
        /// [-2147483648, 2147483647] is an `overflow` error (inputs are
        /// assumed in range; contracts keep mathematical integers).
        #[arg(long)]
        overflow: bool,
        /// Reuse results kept in DIR and keep new ones there: a member is
        /// verified again only if its text, a declaration, contract,
        /// predicate or pure method, an option or Sift itself changed. A
        /// stale or damaged cache file is ignored; one that cannot be written
        /// is a warning. Not used with --smt-log.
        #[arg(long, value_name = "DIR")]
        cache: Option<PathBuf>,
        /// Authenticate the --cache entries with the secret key in FILE
        /// (HMAC-SHA256): entries are written with a code only the key's
        /// holders can make, and an entry without a valid one is ignored.
        /// For a cache shared by CI runs of different branches or users;
        /// keep FILE secret. Default: the file named by the environment
        /// variable SIFT_CACHE_KEY_FILE, if set.
        #[arg(long, value_name = "FILE", requires = "cache")]
        cache_key: Option<PathBuf>,
        /// Verify only share K of N (1 <= K <= N): members are assigned by a
        /// hash of the file path as given and the member's name, so N jobs
        /// with the same files verify every member exactly once. Members of
        /// other shares are not verified and not listed; parse and type
        /// errors are reported by every share.
        #[arg(long, value_name = "K/N")]
        partition: Option<Partition>,
    },
    /// Run one method concretely on literal arguments, checking at run
    /// time what `verify` checks statically (contracts, permissions,
    /// invariants, ...); prints the result or the first failed check.
    #[command(
        after_help = "Exit status: 0 the method returned; 1 a check failed or a budget ran out; 2 parse or type errors, unreadable file or bad usage."
    )]
    Run {
        /// The file holding the method.
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// The method to run, `Class.name`.
        #[arg(long, value_name = "C.m")]
        method: String,
        /// Its arguments, literals: `3`, `-2`, `true`, `null`.
        #[arg(value_name = "ARG", allow_negative_numbers = true)]
        args: Vec<String>,
        #[command(flatten)]
        budget: Budget,
        /// Do not infer the `open`, `close` and `use` statements left out.
        #[arg(long)]
        no_infer: bool,
        /// Java's 32-bit `int` in code: an operation whose result leaves
        /// [-2147483648, 2147483647] stops the run with `overflow`.
        #[arg(long)]
        overflow: bool,
    },
    /// Test every path of a method (King's EFFIGY): explore the paths
    /// symbolically with loops unrolled, build concrete inputs from a model
    /// of each, run them, and print one row per path.
    #[command(
        after_help = "Exit status: 0 no path failed a check; 1 some path did (or a budget ran out); 2 parse or type errors, unreadable file or bad usage."
    )]
    Test {
        /// The file to test.
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// Test only this method, `Class.name` (default: every method).
        #[arg(long, value_name = "C.m")]
        method: Option<String>,
        /// Unroll each loop at most K times.
        #[arg(long, value_name = "K", default_value_t = 3)]
        unroll: u32,
        /// Print `{"paths": [...]}` as JSON instead of text.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        budget: Budget,
        /// Give up on a single solver query after this many seconds.
        #[arg(long = "timeout", value_name = "SECONDS", default_value = "5", value_parser = timeout_ms)]
        timeout_ms: u32,
        /// Do not infer the `open`, `close` and `use` statements left out.
        #[arg(long)]
        no_infer: bool,
        /// Java's 32-bit `int` in code, as for verify.
        #[arg(long)]
        overflow: bool,
    },
    /// Run the language server on stdin/stdout.
    Lsp,
    /// Run a Debug Adapter Protocol server on stdin/stdout: `sift debug`
    /// inside an editor's debugger (the program, method and limits come
    /// with the client's `launch` request).
    Dap,
    /// Step through the symbolic execution of one method: stepping,
    /// breakpoints, branch choice, save/restore and `assume` (`help` inside
    /// lists the commands; reads commands line by line from a pipe).
    Debug {
        /// The file holding the method.
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// The member to debug, `Class.name` (default: the first that
        /// fails, else the first method).
        #[arg(long, value_name = "C.m")]
        method: Option<String>,
        /// Give up on a single solver query after this many seconds.
        #[arg(long = "timeout", value_name = "SECONDS", default_value = "10", value_parser = timeout_ms)]
        timeout_ms: u32,
        /// Do not infer the `open`, `close` and `use` statements left out.
        #[arg(long)]
        no_infer: bool,
        /// Java's 32-bit `int` in code, as for verify.
        #[arg(long)]
        overflow: bool,
    },
}

/// Budgets of a concrete run.
#[derive(clap::Args)]
struct Budget {
    /// Stop a run after this many evaluation steps (an infinite loop).
    #[arg(long, value_name = "N", default_value_t = sift::concrete::Limits::default().steps)]
    max_steps: u64,
    /// Stop a run deeper than this many nested calls (deep recursion).
    #[arg(long, value_name = "N", default_value_t = sift::concrete::Limits::default().depth)]
    max_depth: u32,
}

impl Budget {
    fn limits(&self) -> sift::concrete::Limits {
        sift::concrete::Limits {
            steps: self.max_steps,
            depth: self.max_depth,
        }
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    match cli.command {
        Command::Verify {
            files,
            json: as_json,
            timeout_ms,
            rlimit,
            smt_log,
            trace,
            jobs,
            no_infer,
            overflow,
            cache,
            cache_key,
            partition,
        } => {
            let cache = match cache.map(|dir| open_cache(dir, cache_key)).transpose() {
                Ok(c) => c,
                Err(msg) => {
                    eprintln!("error: {msg}");
                    return ExitCode::from(2);
                }
            };
            let opts = Options {
                overflow,
                timeout_ms,
                rlimit,
                jobs,
                smt_log: smt_log.is_some(),
                keep_steps: false,
                infer: !no_infer,
                limit_names: LimitNames {
                    rlimit: Some("--rlimit".to_string()),
                    timeout: Some("--timeout".to_string()),
                    member_time: None,
                },
                ..Options::default()
            };
            let run = Run {
                as_json,
                trace,
                smt_log: smt_log.as_deref(),
                cache,
                partition,
            };
            verify(&files, &opts, run)
        }
        Command::Debug {
            file,
            method,
            timeout_ms,
            no_infer,
            overflow,
        } => match read_program(&file) {
            Ok((shown, src)) => sift::debug::run(
                &shown,
                &src,
                method.as_deref(),
                timeout_ms,
                !no_infer,
                overflow,
            ),
            Err(code) => code,
        },
        Command::Run {
            file,
            method,
            args,
            budget,
            no_infer,
            overflow,
        } => match read_program(&file) {
            Ok((shown, src)) => ExitCode::from(sift::concrete::cli::run_command(
                &shown,
                &src,
                &method,
                &args,
                budget.limits(),
                !no_infer,
                overflow,
            )),
            Err(code) => code,
        },
        Command::Test {
            file,
            method,
            unroll,
            json,
            budget,
            timeout_ms,
            no_infer,
            overflow,
        } => {
            let opts = sift::concrete::testing::TestOptions {
                unroll,
                limits: budget.limits(),
                infer: !no_infer,
                timeout_ms,
                overflow,
            };
            match read_program(&file) {
                Ok((shown, src)) => ExitCode::from(sift::concrete::testing::test_command(
                    &shown,
                    &src,
                    method.as_deref(),
                    json,
                    opts,
                )),
                Err(code) => code,
            }
        }
        Command::Dap => match sift::dap::run() {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("sift dap: {e}");
                ExitCode::from(1)
            }
        },
        Command::Lsp => match sift::lsp::run() {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("sift lsp: {e}");
                ExitCode::from(1)
            }
        },
    }
}

/// The variable naming the key file when `--cache-key` is not given.
const CACHE_KEY_VAR: &str = "SIFT_CACHE_KEY_FILE";

/// The cache in `dir`, keyed by `--cache-key FILE` or else by the file the
/// environment names (an empty variable is unset); the error says which
/// key file cannot be used and why.
fn open_cache(dir: PathBuf, key_file: Option<PathBuf>) -> Result<Cache, String> {
    let (file, from) = match key_file {
        Some(f) => (f, "--cache-key".to_string()),
        None => match std::env::var_os(CACHE_KEY_VAR).filter(|v| !v.is_empty()) {
            Some(f) => (PathBuf::from(f), CACHE_KEY_VAR.to_string()),
            None => return Ok(Cache::in_dir(dir)),
        },
    };
    let key = CacheKey::read(&file).map_err(|msg| format!("{from}: {msg}"))?;
    Ok(Cache::in_dir(dir).keyed(key))
}

/// `--timeout SECONDS` in milliseconds: a positive number of seconds.
fn timeout_ms(arg: &str) -> Result<u32, String> {
    match arg.parse::<f64>() {
        Ok(secs) if secs.is_finite() && secs > 0.0 => {
            Ok((secs * 1000.0).min(u32::MAX as f64) as u32)
        }
        _ => Err("must be a positive number of seconds".to_string()),
    }
}

/// The file as shown in messages and its program text, or exit status 2
/// after saying why it cannot be read.
fn read_program(file: &Path) -> Result<(String, String), ExitCode> {
    match input::read_program(file) {
        Ok(src) => Ok((file.display().to_string(), src)),
        Err(msg) => {
            eprintln!("error: {msg}");
            Err(ExitCode::from(2))
        }
    }
}

enum Outcome {
    Read(FileReport),
    Unreadable(String, String),
}

/// How `sift verify` runs and prints.
struct Run<'a> {
    as_json: bool,
    trace: bool,
    smt_log: Option<&'a std::path::Path>,
    cache: Option<Cache>,
    partition: Option<Partition>,
}

fn verify(files: &[PathBuf], opts: &Options, run: Run) -> ExitCode {
    let Run {
        as_json,
        trace,
        smt_log,
        mut cache,
        partition,
    } = run;
    // Refused before anything runs: the log would overwrite a program, or
    // opening a FIFO to write it would block.
    if let Some(path) = smt_log
        && let Err(msg) = input::check_output(path, files)
    {
        eprintln!("error: --smt-log: {msg}");
        return ExitCode::from(2);
    }
    let bar = Bar::on_stderr(as_json);
    let outcomes: Vec<Outcome> = files
        .iter()
        .map(|p| {
            let shown = p.display().to_string();
            match input::read_program(p) {
                Ok(src) => {
                    let mut hooks = Hooks {
                        partition,
                        cache: cache.as_mut(),
                        progress: bar.as_ref().map(|b| b as &dyn sift::verify::Progress),
                        ..Hooks::default()
                    };
                    Outcome::Read(sift::verify::verify_source_with(
                        &shown, &src, opts, &mut hooks,
                    ))
                }
                Err(msg) => Outcome::Unreadable(shown, msg),
            }
        })
        .collect();
    if let Some(b) = &bar {
        b.finish();
    }
    for w in cache.as_mut().map(Cache::take_warnings).unwrap_or_default() {
        eprintln!("warning: {w}");
    }

    let mut status = 0u8;
    for o in &outcomes {
        let s = match o {
            Outcome::Unreadable(..) => 2,
            Outcome::Read(r) if r.stage != Stage::Verified => 2,
            Outcome::Read(r) if !r.ok() => 1,
            Outcome::Read(_) => 0,
        };
        status = status.max(s);
    }

    if let Some(path) = smt_log {
        let mut log = String::new();
        for o in &outcomes {
            if let Outcome::Read(r) = o {
                for m in &r.members {
                    if let Some(l) = &m.smt_log {
                        log.push_str("(reset)\n");
                        log.push_str(l);
                    }
                }
            }
        }
        if let Err(msg) = input::write_output(path, files, &log) {
            eprintln!("error: --smt-log: {msg}");
            status = 2;
        }
    }

    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if as_json {
        let files: Vec<serde_json::Value> = outcomes
            .iter()
            .map(|o| match o {
                Outcome::Read(r) => json::file_json(r),
                Outcome::Unreadable(p, m) => json::unreadable_json(p, m),
            })
            .collect();
        let mut doc = serde_json::json!({ "files": files });
        if let Some(p) = partition {
            doc["partition"] = serde_json::json!({ "index": p.index, "count": p.count });
        }
        let _ = writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&doc).unwrap_or_default()
        );
        return ExitCode::from(status);
    }

    let color = std::io::IsTerminal::is_terminal(&std::io::stderr());
    for o in &outcomes {
        match o {
            Outcome::Unreadable(_, msg) => eprintln!("error: {msg}"),
            Outcome::Read(r) => {
                eprint!("{}", text::render_file(r, color));
                if trace {
                    for e in r.errors.iter().filter(|e| !e.trace.is_empty()) {
                        eprint!("{}", text::render_trace(r, e));
                    }
                }
                let _ = writeln!(out, "{}", summary(r, partition));
            }
        }
    }
    ExitCode::from(status)
}

fn summary(r: &FileReport, partition: Option<Partition>) -> String {
    let n = r.members.len();
    let reused = r.members.iter().filter(|m| m.cached).count();
    let mut extra = String::new();
    if let Some(p) = partition {
        extra.push_str(&format!(" in share {p}"));
    }
    if reused > 0 {
        extra.push_str(&format!("; {reused} unchanged, from the cache"));
    }
    let ok = r.members.iter().filter(|m| m.verified()).count();
    let errors = r.errors.len();
    let plural = |n: usize, w: &str| {
        if n == 1 {
            format!("{n} {w}")
        } else {
            format!("{n} {w}s")
        }
    };
    match r.stage {
        Stage::Parse => format!(
            "{}: {}; nothing was verified",
            r.path,
            plural(errors, "syntax error")
        ),
        Stage::Check => format!(
            "{}: {}; nothing was verified",
            r.path,
            plural(errors, "error")
        ),
        Stage::Verified if errors == 0 => {
            format!("{}: verified ({} of {n} members{extra})", r.path, ok)
        }
        Stage::Verified => format!(
            "{}: {} ({} of {n} members verified{extra})",
            r.path,
            plural(errors, "verification error"),
            ok
        ),
    }
}
