//! Fuzzing the whole binary: random well-formed programs from a grammar, and
//! mutants of the repository's programs (tokens deleted or duplicated, files
//! truncated or spliced), each run through `sift verify --json`.
//!
//! Properties of every run: no panic, no abort, an exit status of 0, 1 or 2,
//! an answer within `HANG`, JSON of docs/language.md section 10 that agrees with
//! the exit status, and the same JSON (times left out) twice with
//! `--jobs 2` and once with `--jobs 1`.
//!
//! `cargo test` runs `DEFAULT_COUNT` inputs from a fixed seed. Longer:
//! `SIFT_FUZZ=N` inputs, from `SIFT_FUZZ_SEED=S` (input `i` uses seed
//! `S + i`; a failure names its seed, and `SIFT_FUZZ=1 SIFT_FUZZ_SEED=<seed>`
//! runs exactly that input again). Failing inputs are kept under
//! `target/tmp/fuzz/`.

mod bounded;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use bounded::{Rng, check_json, sift, without_times, write_temp};

const DEFAULT_COUNT: u64 = 16;
const DEFAULT_SEED: u64 = 0x5EED_0001;
/// No small program may take longer than this (a debug build, loaded).
const HANG: Duration = Duration::from_secs(90);

/// Random programs that parse: classes with `int` fields, a predicate over
/// them, a pure method opening it, static methods with contracts over their
/// parameters, and instance methods that read and write the fields.
struct Gen<'r> {
    rng: &'r mut Rng,
    /// Integer variables in scope.
    ints: Vec<String>,
    /// Fields of the current class the current method may access.
    fields: Vec<String>,
    /// Boolean variables in scope.
    bools: Vec<String>,
    fresh: usize,
}

impl Gen<'_> {
    fn int(&mut self, depth: u32) -> String {
        let leaf = depth == 0 || self.rng.chance(35);
        if leaf {
            let vars: Vec<String> = self.ints.iter().chain(&self.fields).cloned().collect();
            return if !vars.is_empty() && self.rng.chance(70) {
                self.rng.pick(&vars).clone()
            } else {
                format!("{}", self.rng.below(12) as i64 - 3)
            };
        }
        let d = depth - 1;
        match self.rng.below(7) {
            0 => format!("{} + {}", self.int(d), self.int(d)),
            1 => format!("{} - {}", self.int(d), self.int(d)),
            2 => format!("{} * {}", self.int(d), self.rng.below(4)),
            3 => format!("({})", self.int(d)),
            4 => format!("-{}", self.int(d)),
            5 => format!("({} ? {} : {})", self.bool(d), self.int(d), self.int(d)),
            _ => {
                // Mostly divisors that cannot be zero, sometimes any.
                let divisor = if self.rng.chance(70) {
                    format!("{}", 1 + self.rng.below(5))
                } else {
                    self.int(d)
                };
                format!("{} {} {divisor}", self.int(d), self.rng.pick(&["/", "%"]))
            }
        }
    }

    fn bool(&mut self, depth: u32) -> String {
        if depth == 0 || self.rng.chance(25) {
            if !self.bools.is_empty() && self.rng.chance(30) {
                return self.rng.pick(&self.bools.clone()).clone();
            }
            let op = *self.rng.pick(&["==", "!=", "<", "<=", ">", ">="]);
            return format!("{} {op} {}", self.int(1), self.int(1));
        }
        let d = depth - 1;
        match self.rng.below(6) {
            0 => format!("{} && {}", self.bool(d), self.bool(d)),
            1 => format!("{} || {}", self.bool(d), self.bool(d)),
            2 => format!("!({})", self.bool(d)),
            3 => format!("({} ==> {})", self.bool(d), self.bool(d)),
            4 => self.rng.pick(&["true", "false"]).to_string(),
            _ => format!("({})", self.bool(d)),
        }
    }

    fn local(&mut self) -> String {
        self.fresh += 1;
        format!("v{}", self.fresh)
    }

    fn block(&mut self, depth: u32, ind: &str) -> String {
        let (ints, bools) = (self.ints.len(), self.bools.len());
        let mut out = String::new();
        for _ in 0..1 + self.rng.below(4) {
            out.push_str(&self.stmt(depth, ind));
        }
        self.ints.truncate(ints);
        self.bools.truncate(bools);
        out
    }

    fn stmt(&mut self, depth: u32, ind: &str) -> String {
        let inner = format!("{ind}  ");
        let choice = if depth == 0 {
            self.rng.below(5)
        } else {
            self.rng.below(9)
        };
        match choice {
            0 | 1 => {
                let v = self.local();
                let s = format!("{ind}int {v} = {};\n", self.int(2));
                self.ints.push(v);
                s
            }
            2 => {
                let targets: Vec<String> = self.ints.iter().chain(&self.fields).cloned().collect();
                if targets.is_empty() {
                    return format!("{ind}assert {};\n", self.bool(2));
                }
                let t = self.rng.pick(&targets).clone();
                // (`++` and `+=` are left out: not every branch has them.)
                format!("{ind}{t} = {};\n", self.int(2))
            }
            3 => format!("{ind}assert {};\n", self.bool(2)),
            4 => {
                let v = self.local();
                let s = format!("{ind}bool {v} = {};\n", self.bool(2));
                self.bools.push(v);
                s
            }
            5 | 6 => {
                let c = self.bool(2);
                let then = self.block(depth - 1, &inner);
                if self.rng.chance(50) {
                    let els = self.block(depth - 1, &inner);
                    format!("{ind}if ({c}) {{\n{then}{ind}}} else {{\n{els}{ind}}}\n")
                } else {
                    format!("{ind}if ({c}) {{\n{then}{ind}}}\n")
                }
            }
            7 => {
                // A counting loop, so that most loops end.
                let i = self.local();
                let bound = self.rng.below(4);
                let inv = if self.rng.chance(70) {
                    format!("0 <= {i} && {i} <= {bound}")
                } else {
                    self.bool(1)
                };
                let frame: String = self
                    .fields
                    .iter()
                    .map(|f| format!(" invariant acc({f});"))
                    .collect();
                let body = self.block(depth - 1, &inner);
                format!(
                    "{ind}int {i} = 0;\n{ind}while ({i} < {bound}) invariant {inv};{frame}\n{ind}{{\n{body}{inner}{i} = {i} + 1;\n{ind}}}\n"
                )
            }
            _ => format!("{ind}assume {};\n", self.bool(1)),
        }
    }

    fn program(&mut self) -> String {
        let mut out = String::new();
        for c in 0..1 + self.rng.below(2) {
            let fields: Vec<String> = (0..1 + self.rng.below(2))
                .map(|i| format!("f{i}"))
                .collect();
            out.push_str(&format!("class C{c} {{\n"));
            for f in &fields {
                out.push_str(&format!("  int {f};\n"));
            }
            let accs: Vec<String> = fields.iter().map(|f| format!("acc({f})")).collect();
            let accs = accs.join(" && ");
            self.fields = fields.clone();
            self.ints.clear();
            self.bools.clear();
            let inv = self.bool(1);
            out.push_str(&format!(
                "\n  predicate valid() {{\n    return {accs} && ({inv});\n  }}\n"
            ));
            out.push_str(&format!(
                "\n  pure int get()\n    requires valid();\n  {{\n    return opening valid() in {};\n  }}\n",
                self.int(2)
            ));
            for m in 0..1 + self.rng.below(3) {
                self.fresh = 0;
                let instance = self.rng.chance(50);
                self.ints = vec!["a".to_string(), "b".to_string()];
                self.bools.clear();
                self.fields = if instance { fields.clone() } else { Vec::new() };
                let pre = self.bool(2);
                let body = self.block(2, "    ");
                let ret = self.int(2);
                self.ints.push("result".to_string());
                let post = self.bool(2);
                if instance {
                    self.fields = Vec::new();
                    out.push_str(&format!(
                        "\n  int m{m}(int a, int b)\n    requires {accs} && ({pre});\n    ensures {accs} && ({post});\n  {{\n{body}    return {ret};\n  }}\n"
                    ));
                } else {
                    out.push_str(&format!(
                        "\n  static int m{m}(int a, int b)\n    requires {pre};\n    ensures {post};\n  {{\n{body}    return {ret};\n  }}\n"
                    ));
                }
            }
            if self.rng.chance(50) {
                self.fields = fields.clone();
                self.ints.clear();
                let set = self.int(1);
                out.push_str(&format!(
                    "\n  void bump()\n    requires valid();\n    ensures valid();\n  {{\n    open valid();\n    {} = {set};\n    close valid();\n  }}\n",
                    fields[0]
                ));
            }
            out.push_str("}\n\n");
        }
        out
    }
}

/// The repository's programs, the material of the mutator.
fn corpus() -> Vec<(PathBuf, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    let mut dirs = vec![root.join("tests/programs"), root.join("examples")];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "sift")
                && let Ok(text) = std::fs::read_to_string(&p)
            {
                files.push((p, text));
            }
        }
    }
    files.sort();
    files
}

/// Splits `text` into tokens and the blanks between them (rough: words,
/// single punctuation characters, runs of blanks), so that joining them
/// gives `text` back.
fn tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let class = |c: char| {
        if c.is_alphanumeric() || c == '_' {
            0
        } else if c.is_whitespace() {
            1
        } else {
            2
        }
    };
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    for w in 1..=chars.len() {
        let end = chars.get(w).map_or(text.len(), |&(i, _)| i);
        let split = match chars.get(w) {
            None => true,
            Some(&(_, c)) => class(c) != class(chars[w - 1].1) || class(c) == 2,
        };
        if split {
            out.push(&text[start..end]);
            start = end;
        }
    }
    out
}

/// A mutant of one or two corpus files.
fn mutate(rng: &mut Rng, corpus: &[(PathBuf, String)]) -> (String, String) {
    let (path, text) = rng.pick(corpus);
    let name = path
        .file_name()
        .map_or(String::new(), |n| n.to_string_lossy().into_owned());
    let mut toks = tokens(text);
    let how = rng.below(5);
    let what = match how {
        0 => {
            for _ in 0..1 + rng.below(3) {
                if !toks.is_empty() {
                    let i = rng.below(toks.len());
                    toks.remove(i);
                }
            }
            "tokens deleted"
        }
        1 => {
            for _ in 0..1 + rng.below(3) {
                if !toks.is_empty() {
                    let i = rng.below(toks.len());
                    let n = 1 + rng.below(8).min(toks.len() - i - 1);
                    let copy: Vec<&str> = toks[i..i + n].to_vec();
                    toks.splice(i..i, copy);
                }
            }
            "tokens duplicated"
        }
        2 => {
            let keep = rng.below(toks.len() + 1);
            toks.truncate(keep);
            "truncated"
        }
        3 => {
            let (_, other) = rng.pick(corpus);
            let theirs = tokens(other);
            let cut = rng.below(toks.len() + 1);
            let from = rng.below(theirs.len() + 1);
            toks.truncate(cut);
            toks.extend_from_slice(&theirs[from..]);
            "spliced with another file"
        }
        _ => {
            for _ in 0..1 + rng.below(4) {
                if toks.len() > 1 {
                    let (i, j) = (rng.below(toks.len()), rng.below(toks.len()));
                    toks.swap(i, j);
                }
            }
            "tokens swapped"
        }
    };
    (toks.concat(), format!("{name}, {what}"))
}

/// The input of seed `seed`: generated (even) or mutated (odd).
fn input(seed: u64, corpus: &[(PathBuf, String)]) -> (String, String) {
    let mut rng = Rng::new(seed);
    if seed.is_multiple_of(2) {
        let mut g = Gen {
            rng: &mut rng,
            ints: Vec::new(),
            fields: Vec::new(),
            bools: Vec::new(),
            fresh: 0,
        };
        (g.program(), "generated".to_string())
    } else {
        mutate(&mut rng, corpus)
    }
}

/// Runs one input; the reason it breaks a property, if it does.
fn check(path: &str) -> Result<(), String> {
    let mut seen = Vec::new();
    for jobs in ["2", "1", "2"] {
        let out = sift(&["verify", "--json", "--jobs", jobs, path], "", HANG);
        if let Some(why) = out.crash() {
            return Err(format!("--jobs {jobs}: {why}"));
        }
        let code = out.code.unwrap_or(-1);
        let v = check_json(&out.stdout, code).map_err(|e| format!("--jobs {jobs}: {e}"))?;
        seen.push((jobs, without_times(&v), out.stdout));
    }
    let (_, first, text) = &seen[0];
    for (jobs, v, other) in &seen[1..] {
        // A wall-clock timeout may fall differently under load.
        let timed_out = |t: &str| t.contains("timed out") || t.contains("timeout");
        if v != first && !timed_out(text) && !timed_out(other) {
            return Err(format!(
                "another result with --jobs {jobs}:\n{text}\n--- versus ---\n{other}"
            ));
        }
    }
    Ok(())
}

#[test]
fn fuzz_the_verifier() {
    let count = std::env::var("SIFT_FUZZ")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(DEFAULT_COUNT);
    let base = std::env::var("SIFT_FUZZ_SEED")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(DEFAULT_SEED);
    let corpus = corpus();
    assert!(corpus.len() > 20, "the corpus is missing");
    let start = Instant::now();
    let mut failures = Vec::new();
    let mut statuses = [0usize; 3];
    for i in 0..count {
        let seed = base.wrapping_add(i);
        let (text, what) = input(seed, &corpus);
        let file = format!("seed-{seed}.sift");
        let path = write_temp("fuzz", &file, &text);
        match check(path.to_str().expect("UTF-8 path")) {
            Ok(()) => {
                let out = sift(&["verify", path.to_str().unwrap_or("")], "", HANG);
                if let Some(c) = out.code.and_then(|c| usize::try_from(c).ok())
                    && c < 3
                {
                    statuses[c] += 1;
                }
                let _ = std::fs::remove_file(&path);
            }
            Err(why) => failures.push(format!(
                "seed {seed} ({what}; kept as {}): {why}",
                path.display()
            )),
        }
    }
    eprintln!(
        "fuzz: {count} inputs from seed {base} in {:?}; exit status 0/1/2: {statuses:?}",
        start.elapsed()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn generated_programs_parse() {
    // The generator's output is well-formed: no parse errors (type errors
    // and failed verifications are expected), checked without Z3.
    for seed in (0..40).map(|s| s * 2) {
        let (text, _) = input(seed, &[]);
        let path = write_temp("fuzz-parse", &format!("gen-{seed}.sift"), &text);
        let out = sift(
            &[
                "verify",
                "--json",
                "--timeout",
                "1",
                path.to_str().unwrap_or(""),
            ],
            "",
            HANG,
        );
        assert_eq!(out.crash(), None, "seed {seed}");
        let v: serde_json::Value = serde_json::from_str(&out.stdout).expect("JSON");
        let kinds: Vec<&str> = v["files"][0]["errors"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|e| e["kind"].as_str())
            .collect();
        assert!(
            !kinds.contains(&"parse"),
            "seed {seed}:\n{text}\n{}",
            out.stdout
        );
    }
}
