//! The result cache (`--cache DIR`, and in memory for the language server):
//! cached results equal fresh ones, also after edits that move members;
//! edited members are verified again and unedited ones are not; damaged
//! cache files are ignored.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

#[path = "differential/generator.rs"]
#[allow(dead_code)]
mod generator;

use serde_json::Value;
use sift::cache::Cache;
use sift::verify::{FileReport, Hooks, Options, verify_source, verify_source_with};

/// Members of every kind, with errors whose related labels point into
/// other members' contracts, traces, counterexamples and a loop.
const PROGRAM: &str = "// A program with members of every kind.
class Cell {
  int x;

  Cell(int v)
    requires v >= 0;
    ensures acc(x) && x == v;
  {
    x = v;
  }

  void set(int v)
    requires acc(x) && v > 0;
    ensures acc(x) && x == v;
  {
    x = v;
  }

  pure int get()
    requires acc(x);
  {
    return x;
  }

  predicate valid() { return acc(x) && x >= 0; }

  static void first(int k) {
    int a = k + 1;
    assert a > k;
  }

  static void client(int k) {
    Cell c = new Cell(1);
    c.set(2);
    assert c.get() == 2;
    c.set(k);
  }

  static void wrong(int v)
    ensures v > 0;
  {
    int w = v * 2;
    assert w > v;
  }

  static int count(int n)
    requires n >= 0;
    ensures result == n;
  {
    int i = 0;
    while (i < n) invariant i <= n + 1; { i = i + 2; }
    return i;
  }
}

class User {
  static void make(int v) {
    Cell c = new Cell(v);
    assert c.get() == v;
  }
}
";

/// An edit inside the body of `first` that moves every later member down
/// by three lines and some columns.
fn edit_first_body(src: &str) -> String {
    let edited = src.replacen(
        "    int a = k + 1;\n",
        "    int a = k + 1;\n    a = a + 0;\n\n    // more\n",
        1,
    );
    assert_ne!(edited, src);
    edited
}

fn sift(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sift"))
        .args(args)
        .output()
        .expect("run sift")
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sift-cache-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// The `--json` document with what describes the run rather than the
/// result (`time_ms`, `cached`) taken out, as text.
fn result_text(doc: &Value) -> String {
    let mut doc = doc.clone();
    for f in doc["files"].as_array_mut().into_iter().flatten() {
        for m in f["methods"].as_array_mut().into_iter().flatten() {
            let m = m.as_object_mut().expect("a method is an object");
            assert!(m.remove("time_ms").is_some(), "time_ms is reported");
            assert!(m.remove("cached").is_some(), "cached is reported");
        }
    }
    serde_json::to_string_pretty(&doc).expect("JSON")
}

fn run_json(args: &[&str]) -> (Option<i32>, Value) {
    let o = sift(args);
    let doc = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    });
    (o.status.code(), doc)
}

/// `(name, cached)` of every member.
fn cached_flags(doc: &Value) -> Vec<(String, bool)> {
    doc["files"][0]["methods"]
        .as_array()
        .expect("methods")
        .iter()
        .map(|m| {
            (
                m["name"].as_str().expect("name").to_string(),
                m["cached"].as_bool().expect("cached is a boolean"),
            )
        })
        .collect()
}

fn all_cached(doc: &Value, expected: bool) -> bool {
    cached_flags(doc).iter().all(|(_, c)| *c == expected)
}

fn cache_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("cache dir")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    files
}

#[test]
fn cached_results_equal_fresh_ones_byte_for_byte() {
    let dir = temp_dir("equal");
    let file = dir.join("p.sift");
    std::fs::write(&file, PROGRAM).unwrap();
    let cache = dir.join("cache");
    let (f, c) = (file.to_str().unwrap(), cache.to_str().unwrap());

    let (fresh_code, fresh) = run_json(&["verify", "--json", f]);
    assert_eq!(fresh_code, Some(1), "the program has errors");
    assert!(all_cached(&fresh, false));
    let errors = fresh["files"][0]["errors"].as_array().unwrap();
    assert!(errors.len() >= 4, "{fresh:#}");
    assert!(
        errors
            .iter()
            .any(|e| !e["related"].as_array().unwrap().is_empty())
    );

    let (first_code, first) = run_json(&["verify", "--json", "--cache", c, f]);
    assert_eq!(first_code, fresh_code);
    assert!(all_cached(&first, false), "an empty cache has nothing");
    assert_eq!(result_text(&first), result_text(&fresh));
    assert_eq!(cache_files(&cache).len(), 1);

    let (second_code, second) = run_json(&["verify", "--json", "--cache", c, f]);
    assert_eq!(second_code, fresh_code);
    assert!(all_cached(&second, true), "{:?}", cached_flags(&second));
    assert_eq!(result_text(&second), result_text(&fresh));
    // Cached members report the run that verified them.
    for (a, b) in first["files"][0]["methods"]
        .as_array()
        .unwrap()
        .iter()
        .zip(second["files"][0]["methods"].as_array().unwrap())
    {
        assert_eq!(a["time_ms"], b["time_ms"]);
        assert_eq!(a["queries"], b["queries"]);
    }

    // Text output too, but for the summary saying what was reused.
    let text_fresh = sift(&["verify", f]);
    let text_cached = sift(&["verify", "--cache", c, f]);
    assert_eq!(text_fresh.stderr, text_cached.stderr);
    assert_eq!(text_cached.status.code(), Some(1));
    let summary = String::from_utf8_lossy(&text_cached.stdout);
    assert!(
        summary.contains(
            "4 verification errors (5 of 9 members verified; 9 unchanged, from the cache)"
        ),
        "{summary}"
    );
}

#[test]
fn an_edit_in_one_body_reverifies_only_that_member() {
    let dir = temp_dir("edit");
    let file = dir.join("p.sift");
    let cache = dir.join("cache");
    let (f, c) = (file.to_str().unwrap(), cache.to_str().unwrap());
    std::fs::write(&file, PROGRAM).unwrap();
    let (_, before) = run_json(&["verify", "--json", "--cache", c, f]);
    assert!(all_cached(&before, false));

    let edited = edit_first_body(PROGRAM);
    std::fs::write(&file, &edited).unwrap();
    let (code, after) = run_json(&["verify", "--json", "--cache", c, f]);
    let (fresh_code, fresh) = run_json(&["verify", "--json", f]);
    assert_eq!(code, fresh_code);
    assert_eq!(result_text(&after), result_text(&fresh));
    let flags = cached_flags(&after);
    assert_eq!(flags.len(), 9);
    for (name, cached) in &flags {
        assert_eq!(*cached, name != "Cell.first", "{flags:?}");
    }
    // Every later error moved down three lines, and the cache followed.
    let lines = |doc: &Value| -> Vec<u64> {
        doc["files"][0]["errors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["line"].as_u64().unwrap())
            .collect()
    };
    assert_eq!(
        lines(&after),
        lines(&before).iter().map(|l| l + 3).collect::<Vec<_>>()
    );

    // Back to the first text: `first` is verified again, once.
    std::fs::write(&file, PROGRAM).unwrap();
    let (_, back) = run_json(&["verify", "--json", "--cache", c, f]);
    for (name, cached) in cached_flags(&back) {
        assert_eq!(cached, name != "Cell.first", "{name}");
    }
    assert_eq!(result_text(&back), result_text(&before));
    let (_, again) = run_json(&["verify", "--json", "--cache", c, f]);
    assert!(all_cached(&again, true));
}

#[test]
fn a_contract_edit_reverifies_every_member() {
    let dir = temp_dir("contract");
    let file = dir.join("p.sift");
    let cache = dir.join("cache");
    let (f, c) = (file.to_str().unwrap(), cache.to_str().unwrap());
    std::fs::write(&file, PROGRAM).unwrap();
    run_json(&["verify", "--json", "--cache", c, f]);

    // `set` now accepts every value: `client` verifies.
    let edited = PROGRAM.replacen("requires acc(x) && v > 0;", "requires acc(x);", 1);
    std::fs::write(&file, &edited).unwrap();
    let (_, after) = run_json(&["verify", "--json", "--cache", c, f]);
    assert!(all_cached(&after, false), "{:?}", cached_flags(&after));
    let (_, fresh) = run_json(&["verify", "--json", f]);
    assert_eq!(result_text(&after), result_text(&fresh));

    // So does a comment between members, and an option.
    let commented = edited.replacen("  predicate valid()", "  // note\n  predicate valid()", 1);
    std::fs::write(&file, &commented).unwrap();
    let (_, after) = run_json(&["verify", "--json", "--cache", c, f]);
    assert!(all_cached(&after, false));
    let (_, timeout) = run_json(&["verify", "--json", "--timeout", "7", "--cache", c, f]);
    assert!(all_cached(&timeout, false));
    // The thread count is not part of the key.
    let (_, jobs) = run_json(&[
        "verify",
        "--json",
        "--timeout",
        "7",
        "--jobs",
        "1",
        "--cache",
        c,
        f,
    ]);
    assert!(all_cached(&jobs, true));
}

#[test]
fn damaged_cache_files_are_ignored_and_rewritten() {
    let dir = temp_dir("damaged");
    let file = dir.join("p.sift");
    let cache = dir.join("cache");
    let (f, c) = (file.to_str().unwrap(), cache.to_str().unwrap());
    std::fs::write(&file, PROGRAM).unwrap();
    let (_, fresh) = run_json(&["verify", "--json", f]);
    run_json(&["verify", "--json", "--cache", c, f]);
    let files = cache_files(&cache);
    assert_eq!(files.len(), 1);
    let good = std::fs::read(&files[0]).unwrap();
    let newline = good.iter().position(|&b| b == b'\n').unwrap();

    let mut flipped = good.clone();
    let at = newline + (good.len() - newline) / 2;
    flipped[at] ^= 0x01;
    let mut other_format = good.clone();
    other_format[b"sift-cache ".len()] = b'9';
    let damaged: Vec<(&str, Vec<u8>)> = vec![
        ("empty", Vec::new()),
        ("truncated", good[..good.len() / 2].to_vec()),
        ("header only", good[..=newline].to_vec()),
        ("a flipped bit", flipped),
        ("another format", other_format),
        ("garbage", vec![0xff, 0x00, 0x13, 0x37, b'\n', 0xfe]),
        ("foreign JSON", b"{\"entries\": []}\n".to_vec()),
        (
            "a forged checksum",
            format!("sift-cache 3 {}\n{{}}", "0".repeat(64)).into_bytes(),
        ),
    ];
    for (what, bytes) in damaged {
        std::fs::write(&files[0], &bytes).unwrap();
        let (code, doc) = run_json(&["verify", "--json", "--cache", c, f]);
        assert_eq!(code, Some(1), "{what}");
        assert!(all_cached(&doc, false), "{what}: {:?}", cached_flags(&doc));
        assert_eq!(result_text(&doc), result_text(&fresh), "{what}");
        // Rewritten: the next run uses it.
        let (_, next) = run_json(&["verify", "--json", "--cache", c, f]);
        assert!(all_cached(&next, true), "{what}");
    }

    // A directory where the file should be: a warning, and the results.
    std::fs::remove_file(&files[0]).unwrap();
    std::fs::create_dir(&files[0]).unwrap();
    let o = sift(&["verify", "--json", "--cache", c, f]);
    assert_eq!(o.status.code(), Some(1));
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(result_text(&doc), result_text(&fresh));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("warning: cannot write the cache file"),
        "{err}"
    );
}

#[test]
fn an_unwritable_cache_directory_is_a_warning() {
    let dir = temp_dir("unwritable");
    let file = dir.join("p.sift");
    std::fs::write(&file, "class A { static void m() { assert 1 < 2; } }\n").unwrap();
    // A regular file cannot hold cache files (permissions would not stop
    // a test that runs as root).
    let not_a_dir = dir.join("plain");
    std::fs::write(&not_a_dir, "x").unwrap();
    let o = sift(&[
        "verify",
        "--cache",
        not_a_dir.to_str().unwrap(),
        file.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.starts_with("warning: cannot write the cache file"),
        "{err}"
    );
    assert_eq!(err.matches("warning").count(), 1, "{err}");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("verified (1 of 1 members)"), "{out}");
}

#[test]
fn smt_logs_bypass_the_cache() {
    let dir = temp_dir("smtlog");
    let file = dir.join("p.sift");
    std::fs::write(&file, PROGRAM).unwrap();
    let (f, c) = (file.to_str().unwrap(), dir.join("cache"));
    let c = c.to_str().unwrap();
    run_json(&["verify", "--json", "--cache", c, f]);
    let log = dir.join("log.smt2");
    let (_, doc) = run_json(&[
        "verify",
        "--json",
        "--cache",
        c,
        "--smt-log",
        log.to_str().unwrap(),
        f,
    ]);
    assert!(all_cached(&doc, false));
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        text.contains("; Sift: Cell.client"),
        "every member is logged"
    );
}

/// What a report says, without timings or where it came from, trees
/// included.
fn report_text(r: &FileReport) -> String {
    let mut doc = sift::report::json::file_json(r);
    for m in doc["methods"].as_array_mut().unwrap() {
        let m = m.as_object_mut().unwrap();
        m.remove("time_ms");
        m.remove("cached");
    }
    let trees: Vec<String> = r
        .members
        .iter()
        .map(|m| format!("{}: {:?}", m.name, m.tree))
        .collect();
    format!("{doc:#}\n{}", trees.join("\n"))
}

#[test]
fn the_in_memory_cache_moves_trees_with_their_members() {
    let opts = Options {
        keep_steps: true,
        timeout_ms: 10_000,
        ..Options::default()
    };
    let mut cache = Cache::in_memory();
    let mut run = |text: &str| {
        let mut hooks = Hooks {
            cache: Some(&mut cache),
            ..Hooks::default()
        };
        verify_source_with("doc", text, &opts, &mut hooks)
    };
    let first = run(PROGRAM);
    assert!(first.members.iter().all(|m| !m.cached));
    assert!(first.members.iter().all(|m| !m.tree.is_empty()));
    let edited = edit_first_body(PROGRAM);
    let second = run(&edited);
    let fresh = verify_source("doc", &edited, &opts);
    assert_eq!(report_text(&second), report_text(&fresh));
    for m in &second.members {
        assert_eq!(m.cached, m.name != "Cell.first", "{}", m.name);
    }
    // Without steps the key differs: nothing is reused.
    let plain = Options {
        keep_steps: false,
        ..opts.clone()
    };
    let mut hooks = Hooks {
        cache: Some(&mut cache),
        ..Hooks::default()
    };
    let third = verify_source_with("doc", &edited, &plain, &mut hooks);
    assert!(third.members.iter().all(|m| !m.cached && m.tree.is_empty()));
    assert_eq!(
        report_text(&third),
        report_text(&verify_source("doc", &edited, &plain))
    );
}

/// One member's part of a report: its errors as `--json` shows them (no
/// timings) and its tree.
fn member_text(r: &FileReport, name: &str) -> String {
    let m = r
        .members
        .iter()
        .find(|m| m.name == name)
        .unwrap_or_else(|| panic!("no member {name}"));
    let alone = FileReport {
        errors: m.errors.clone(),
        members: vec![m.clone()],
        ..r.clone()
    };
    report_text(&alone)
}

/// Asserts that two reports say the same about every member whose result
/// is reproducible (a member where the solver gave up may differ from run
/// to run: that is why it is never cached), showing the first difference.
fn same(a: &FileReport, b: &FileReport, what: &str) {
    let names =
        |r: &FileReport| -> Vec<String> { r.members.iter().map(|m| m.name.clone()).collect() };
    assert_eq!(names(a), names(b), "{what}");
    let reproducible = a
        .members
        .iter()
        .zip(&b.members)
        .all(|(x, y)| x.reusable && y.reusable);
    if reproducible {
        assert_eq!(report_text(a), report_text(b), "{what}");
    }
    for (x, y) in a.members.iter().zip(&b.members) {
        if !(x.reusable && y.reusable) {
            continue;
        }
        let (ta, tb) = (member_text(a, &x.name), member_text(b, &y.name));
        if ta != tb {
            let first = ta
                .lines()
                .zip(tb.lines())
                .position(|(p, q)| p != q)
                .unwrap_or(0);
            let around = |t: &str| -> String {
                t.lines()
                    .skip(first.saturating_sub(5))
                    .take(10)
                    .collect::<Vec<_>>()
                    .join("\n")
            };
            panic!(
                "{what}: {} differs at line {first}:\n{}\n--- versus ---\n{}",
                x.name,
                around(&ta),
                around(&tb)
            );
        }
    }
}

/// Every verification test program and example: its cached results equal
/// fresh ones after lines are added at the top of the first method body
/// (every later member moves), with and without execution trees.
#[test]
fn every_test_program_moves_correctly() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<PathBuf> = Vec::new();
    for dir in [
        "tests/programs/verify",
        "tests/programs/soundness",
        "examples",
    ] {
        for e in std::fs::read_dir(root.join(dir)).expect("program dir") {
            let p = e.expect("entry").path();
            if p.extension().is_some_and(|x| x == "sift") {
                files.push(p);
            }
        }
    }
    files.sort();
    let mut moved = 0;
    // Files where the solver gave up are checked once (their results are
    // not cached, and each run costs a timeout).
    let mut gave_up: Vec<PathBuf> = Vec::new();
    for keep_steps in [false, true] {
        let opts = Options {
            keep_steps,
            timeout_ms: 2_000,
            ..Options::default()
        };
        for file in &files {
            if gave_up.contains(file) {
                continue;
            }
            let src = std::fs::read_to_string(file).unwrap();
            let Ok(program) = sift::syntax::parse(&src) else {
                continue;
            };
            let Some(body) = program
                .classes
                .iter()
                .flat_map(|c| &c.methods)
                .map(|m| m.body.span.clone())
                .min_by_key(|b| b.start)
            else {
                continue;
            };
            let edited = format!(
                "{}\n  // two more lines\n{}",
                &src[..body.start + 1],
                &src[body.start + 1..]
            );
            let mut cache = Cache::in_memory();
            let mut run = |text: &str| {
                let mut hooks = Hooks {
                    cache: Some(&mut cache),
                    ..Hooks::default()
                };
                verify_source_with("p.sift", text, &opts, &mut hooks)
            };
            let name = format!("{} (steps kept: {keep_steps})", file.display());
            let first = run(&src);
            let again = run(&src);
            same(&again, &first, &name);
            for (m, before) in again.members.iter().zip(&first.members) {
                assert_eq!(m.cached, before.reusable, "{name}: {}", m.name);
            }
            if !first.members.iter().all(|m| m.reusable) {
                // The solver gave up: such results depend on the load.
                gave_up.push(file.clone());
                continue;
            }
            let shifted = run(&edited);
            same(&shifted, &verify_source("p.sift", &edited, &opts), &name);
            moved += shifted.members.iter().filter(|m| m.cached).count();
        }
    }
    assert!(moved > 100, "only {moved} members were reused");
}

/// `m`'s assertion fails whatever `c` returns (its contract says nothing),
/// so the verification of `m` does not depend on `c`'s body; the concrete
/// replay of the error runs that body: with `return x;` the assertion
/// holds ("not reproduced"), with `return x + 1;` it fails ("confirmed").
const CALLER: &str = "class A {
  static int c(int x) { return x; }
  static void m(int x) { int y = c(x); assert y == x; }
}
";

/// The replay status of every error of the first file.
fn replay_statuses(doc: &Value) -> Vec<String> {
    doc["files"][0]["errors"]
        .as_array()
        .expect("errors")
        .iter()
        .map(|e| {
            e["replay"]["status"]
                .as_str()
                .expect("a status")
                .to_string()
        })
        .collect()
}

#[test]
fn a_cached_error_is_replayed_on_the_callees_of_now() {
    let dir = temp_dir("replay");
    let file = dir.join("p.sift");
    let other = dir.join("q.sift");
    let cache = dir.join("cache");
    let (f, q, c) = (
        file.to_str().unwrap(),
        other.to_str().unwrap(),
        cache.to_str().unwrap(),
    );
    std::fs::write(&file, CALLER).unwrap();
    std::fs::write(&other, PROGRAM).unwrap();
    let (code, before) = run_json(&["verify", "--json", "--cache", c, f, q]);
    assert_eq!(code, Some(1));
    assert_eq!(replay_statuses(&before), ["not-reproduced"]);

    // Only the callee's body changes: `m`'s key, and so its cached
    // verification, stay; its replay does not.
    let edited = CALLER.replacen("return x;", "return x + 1;", 1);
    std::fs::write(&file, &edited).unwrap();
    let (code, after) = run_json(&["verify", "--json", "--cache", c, f, q]);
    let (fresh_code, fresh) = run_json(&["verify", "--json", f, q]);
    assert_eq!(code, fresh_code);
    assert_eq!(replay_statuses(&fresh), ["confirmed"]);
    assert_eq!(replay_statuses(&after), ["confirmed"]);
    assert_eq!(result_text(&after), result_text(&fresh));
    assert_eq!(
        cached_flags(&after),
        [("A.c".to_string(), false), ("A.m".to_string(), true)]
    );
    // The unchanged file is reused whole.
    let flags = after["files"][1]["methods"].as_array().unwrap();
    assert_eq!(flags.len(), 9);
    assert!(flags.iter().all(|m| m["cached"] == true), "{flags:?}");

    // The text report too (the summary aside, which says what was reused).
    let text_cached = sift(&["verify", "--cache", c, f]);
    let text_fresh = sift(&["verify", f]);
    assert_eq!(
        String::from_utf8_lossy(&text_cached.stderr),
        String::from_utf8_lossy(&text_fresh.stderr)
    );
    assert!(String::from_utf8_lossy(&text_cached.stderr).contains("confirmed: a concrete run"));
    assert!(String::from_utf8_lossy(&text_cached.stdout).contains("2 unchanged, from the cache"));
}

/// A key file in `dir` with `text`; its path.
fn key_file(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

/// What an attacker without the key can do to a cache file: remove every
/// error from every entry and make the header's hash match again (the
/// entries' MACs cannot be recomputed, so they are left as they were).
fn forge(file: &Path) {
    use sha2::{Digest, Sha256};
    let bytes = std::fs::read(file).unwrap();
    let newline = bytes.iter().position(|&b| b == b'\n').unwrap();
    let header = std::str::from_utf8(&bytes[..newline]).unwrap();
    let mut body: Value = serde_json::from_slice(&bytes[newline + 1..]).unwrap();
    let mut removed = 0;
    for e in body["entries"].as_array_mut().unwrap() {
        let errors = e["result"]["errors"].as_array_mut().unwrap();
        removed += errors.len();
        errors.clear();
    }
    assert!(removed > 0, "there were errors to remove");
    let body = serde_json::to_vec(&body).unwrap();
    let words: Vec<&str> = header.split(' ').collect();
    let digest: String = Sha256::digest(&body)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let mut forged = format!("{} {} {digest}\n", words[0], words[1]).into_bytes();
    forged.extend_from_slice(&body);
    std::fs::write(file, forged).unwrap();
}

#[test]
fn a_forged_entry_is_ignored_under_a_key() {
    let dir = temp_dir("forged");
    let file = dir.join("p.sift");
    let cache = dir.join("cache");
    let (f, c) = (file.to_str().unwrap(), cache.to_str().unwrap());
    std::fs::write(&file, PROGRAM).unwrap();
    let key = key_file(&dir, "key", "7d1f0c2a9b3e4f5a6b7c8d9e0f1a2b3c\n");
    let (fresh_code, fresh) = run_json(&["verify", "--json", f]);
    assert_eq!(fresh_code, Some(1));

    // A keyed cache is used while its entries are intact.
    let (_, first) = run_json(&["verify", "--json", "--cache", c, "--cache-key", &key, f]);
    assert!(all_cached(&first, false));
    let (code, hit) = run_json(&["verify", "--json", "--cache", c, "--cache-key", &key, f]);
    assert_eq!(code, fresh_code);
    assert!(all_cached(&hit, true), "{:?}", cached_flags(&hit));
    assert_eq!(result_text(&hit), result_text(&fresh));

    let files = cache_files(&cache);
    assert_eq!(files.len(), 1);
    forge(&files[0]);
    let forged = std::fs::read(&files[0]).unwrap();
    // The forgery is a real one: without a key (as before keys) the
    // failing program is taken for verified.
    let (code, fooled) = run_json(&["verify", "--json", "--cache", c, f]);
    assert_eq!(code, Some(0), "{fooled:#}");
    assert!(all_cached(&fooled, true));

    // With the key, every forged entry is ignored, verified again and
    // rewritten; the program fails as it should.
    std::fs::write(&files[0], &forged).unwrap();
    let o = sift(&["verify", "--json", "--cache", c, "--cache-key", &key, f]);
    assert_eq!(o.status.code(), fresh_code);
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(all_cached(&doc, false), "{:?}", cached_flags(&doc));
    assert_eq!(result_text(&doc), result_text(&fresh));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("warning: ignored 9 entries of the cache file")
            && err.contains("not authenticated by the cache key"),
        "{err}"
    );
    let (_, next) = run_json(&["verify", "--json", "--cache", c, "--cache-key", &key, f]);
    assert!(all_cached(&next, true));
    assert_eq!(result_text(&next), result_text(&fresh));

    // The key may come from the environment, to the same effect.
    std::fs::write(&files[0], &forged).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_sift"))
        .args(["verify", "--json", "--cache", c, f])
        .env("SIFT_CACHE_KEY_FILE", &key)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), fresh_code);
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(all_cached(&doc, false));
    assert_eq!(result_text(&doc), result_text(&fresh));
    let o = Command::new(env!("CARGO_BIN_EXE_sift"))
        .args(["verify", "--json", "--cache", c, f])
        .env("SIFT_CACHE_KEY_FILE", &key)
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(all_cached(&doc, true));
}

#[test]
fn entries_without_a_mac_or_under_another_key_are_not_trusted() {
    let dir = temp_dir("untrusted");
    let file = dir.join("p.sift");
    let cache = dir.join("cache");
    let (f, c) = (file.to_str().unwrap(), cache.to_str().unwrap());
    std::fs::write(&file, PROGRAM).unwrap();
    let key = key_file(&dir, "key", "first secret");
    let wrong = key_file(&dir, "wrong", "second secret");
    let (_, fresh) = run_json(&["verify", "--json", f]);

    // Written without a key: read with one, nothing is trusted.
    run_json(&["verify", "--json", "--cache", c, f]);
    let (code, doc) = run_json(&["verify", "--json", "--cache", c, "--cache-key", &key, f]);
    assert_eq!(code, Some(1));
    assert!(all_cached(&doc, false), "{:?}", cached_flags(&doc));
    assert_eq!(result_text(&doc), result_text(&fresh));

    // Written under `key` (just now): under another, nothing is trusted.
    let o = sift(&["verify", "--json", "--cache", c, "--cache-key", &wrong, f]);
    assert_eq!(o.status.code(), Some(1));
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(all_cached(&doc, false), "{:?}", cached_flags(&doc));
    assert_eq!(result_text(&doc), result_text(&fresh));
    assert!(String::from_utf8_lossy(&o.stderr).contains("warning: ignored 9 entries"));
    // And rewritten under it.
    let (_, doc) = run_json(&["verify", "--json", "--cache", c, "--cache-key", &wrong, f]);
    assert!(all_cached(&doc, true));
}

#[test]
fn a_key_file_that_cannot_be_used_is_a_usage_error() {
    let dir = temp_dir("badkey");
    let file = dir.join("p.sift");
    let cache = dir.join("cache");
    let (f, c) = (file.to_str().unwrap(), cache.to_str().unwrap());
    std::fs::write(&file, "class A { static void m() { assert 1 < 2; } }\n").unwrap();
    let empty = key_file(&dir, "empty", "");
    let blank = key_file(&dir, "blank", " \n\n");
    let missing = dir.join("missing");
    let missing = missing.to_str().unwrap();
    let cases = [
        (empty.as_str(), "error: --cache-key: the key file"),
        (blank.as_str(), "is empty"),
        (missing, "error: --cache-key: cannot read the key file"),
        (
            dir.to_str().unwrap(),
            "it is a directory, not a regular file",
        ),
    ];
    for (key, says) in cases {
        let o = sift(&["verify", "--cache", c, "--cache-key", key, f]);
        assert_eq!(o.status.code(), Some(2), "{key}");
        assert!(String::from_utf8_lossy(&o.stderr).contains(says), "{key}");
        assert!(o.stdout.is_empty(), "nothing ran");
        // The same from the environment.
        let o = Command::new(env!("CARGO_BIN_EXE_sift"))
            .args(["verify", "--cache", c, f])
            .env("SIFT_CACHE_KEY_FILE", key)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{key}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.starts_with("error: SIFT_CACHE_KEY_FILE: "), "{err}");
    }
    assert!(!cache.exists(), "nothing was written");
    // A key needs a cache; the variable alone is not looked at.
    let o = sift(&["verify", "--cache-key", &empty, f]);
    assert_eq!(o.status.code(), Some(2));
    let o = Command::new(env!("CARGO_BIN_EXE_sift"))
        .args(["verify", f])
        .env("SIFT_CACHE_KEY_FILE", missing)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
}

/// A generated program with a caller `cc` of its first static method
/// `s<i>` whose assertion depends on what that body returns (so its
/// replay does), and the same program with only that body replaced by
/// `return a;`; `None` when the program has no static method.
fn with_callee_edit(src: &str) -> Option<(String, String)> {
    let head = src.find("  static int s")?;
    let name = &src[head + "  static int ".len()..head + src[head..].find('(')?];
    let caller = format!(
        "  static void cc(int x) requires 1 <= x && x <= 3; {{ int y = {name}(x, x + 1); assert y == x; }}\n}}\n"
    );
    let src = format!("{}{caller}", src.strip_suffix("}\n")?);
    let body = head + src[head..].find("\n  {\n")? + 4;
    let end = body + src[body..].find("\n  }\n")?;
    let edited = format!("{}\n    return a;{}", &src[..body], &src[end..]);
    Some((src, edited))
}

/// Generated programs (the differential test's): after an edit of only a
/// callee's body, the cached results of its callers (verification kept,
/// replays run again on the callee of now) equal a fresh run's.
#[test]
fn generated_callee_edits_keep_cached_results_fresh() {
    let opts = Options {
        timeout_ms: 5_000,
        ..Options::default()
    };
    let (mut edited_files, mut reused, mut replays_changed) = (0, 0, 0);
    for seed in 1..=16 {
        let Some((src, edited)) = with_callee_edit(&generator::program(seed).source) else {
            continue;
        };
        let mut cache = Cache::in_memory();
        let mut run = |text: &str| {
            let mut hooks = Hooks {
                cache: Some(&mut cache),
                ..Hooks::default()
            };
            verify_source_with("gen.sift", text, &opts, &mut hooks)
        };
        let first = run(&src);
        if !first.members.iter().all(|m| m.reusable) {
            continue;
        }
        let cached = run(&edited);
        same(
            &cached,
            &verify_source("gen.sift", &edited, &opts),
            &format!("seed {seed}"),
        );
        // The replays of the members taken from the cache.
        let status = |r: &FileReport| -> Vec<String> {
            r.errors
                .iter()
                .filter(|e| {
                    cached
                        .members
                        .iter()
                        .any(|m| m.cached && m.name == e.member)
                })
                .map(|e| format!("{:?}", e.replay.as_ref().map(|x| x.status)))
                .collect()
        };
        if status(&first) != status(&cached) {
            replays_changed += 1;
        }
        edited_files += 1;
        reused += cached.members.iter().filter(|m| m.cached).count();
    }
    assert!(edited_files >= 6, "only {edited_files} programs edited");
    assert!(reused >= 60, "only {reused} members reused");
    // Where a stored replay would have gone stale.
    assert!(
        replays_changed >= 3,
        "only {replays_changed} replays changed with the edit"
    );
}
