//! Runs every annotated program under `tests/programs/` and every example
//! under `examples/`, comparing the reported (kind, line) pairs with the
//! `//~ KIND` annotations exactly (docs/language.md section 11). Examples carry no
//! annotations: they must verify.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use sift::diag::{Kind, line_col};
use sift::{Options, verify_source};

fn sift_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let p = entry.path();
        if p.is_dir() {
            sift_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "sift") {
            out.push(p);
        }
    }
}

/// The multiset of expected (kind, line) pairs.
fn expected(source: &str) -> Result<BTreeMap<(String, usize), usize>, String> {
    let mut out = BTreeMap::new();
    for (i, line) in source.lines().enumerate() {
        let mut rest = line;
        while let Some(pos) = rest.find("//~") {
            rest = &rest[pos + 3..];
            let kind = rest.split_whitespace().next().unwrap_or("");
            if Kind::parse(kind).is_none() {
                return Err(format!("line {}: unknown annotation kind `{kind}`", i + 1));
            }
            *out.entry((kind.to_string(), i + 1)).or_insert(0) += 1;
        }
    }
    Ok(out)
}

/// The words of a file's directive line `// sift-test: WORD...`: `infer`
/// or `no-infer` (its annotations hold in that inference mode only; both
/// modes otherwise, docs/language.md section 11) and `overflow` (checked
/// with `--overflow`, section 4e).
fn directive(source: &str) -> Vec<&str> {
    source
        .lines()
        .find_map(|l| l.trim().strip_prefix("// sift-test:"))
        .map(|d| d.split_whitespace().collect())
        .unwrap_or_default()
}

/// The inference modes a file is checked in.
fn modes(source: &str) -> Vec<bool> {
    let words = directive(source);
    if words.contains(&"infer") {
        vec![true]
    } else if words.contains(&"no-infer") {
        vec![false]
    } else {
        vec![true, false]
    }
}

fn check_file(path: &Path) -> Result<(), String> {
    let source = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    for infer in modes(&source) {
        check_mode(path, &source, infer)
            .map_err(|e| format!("with{} inference: {e}", if infer { "" } else { "out" }))?;
    }
    Ok(())
}

fn check_mode(path: &Path, source: &str, infer: bool) -> Result<(), String> {
    let want = expected(source)?;
    let opts = Options {
        infer,
        overflow: directive(source).contains(&"overflow"),
        ..Options::default()
    };
    let report = verify_source(&path.display().to_string(), source, &opts);
    let mut got = BTreeMap::new();
    for e in &report.errors {
        let (line, _) = line_col(source, e.diag.span.start);
        *got.entry((e.diag.kind.as_str().to_string(), line))
            .or_insert(0) += 1;
    }
    // The solver's configuration answers every test program: a note that
    // it gave up means a slow or unpredictable query (issue: fast failures).
    let gave_up = report
        .members
        .iter()
        .filter(|m| !m.reusable)
        .map(|m| m.name.as_str())
        .collect::<Vec<_>>();
    if !gave_up.is_empty() {
        return Err(format!("the solver gave up in {gave_up:?}"));
    }
    if got == want {
        return Ok(());
    }
    let show = |m: &BTreeMap<(String, usize), usize>| {
        m.iter()
            .map(|((k, l), n)| {
                format!(
                    "{k}@{l}{}",
                    if *n > 1 {
                        format!("x{n}")
                    } else {
                        String::new()
                    }
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let messages: Vec<String> = report
        .errors
        .iter()
        .map(|e| {
            format!(
                "    line {}: {} — {} {:?}",
                line_col(source, e.diag.span.start).0,
                e.diag.kind,
                e.diag.message,
                e.diag.notes
            )
        })
        .collect();
    Err(format!(
        "expected [{}]\n  got      [{}]\n{}",
        show(&want),
        show(&got),
        messages.join("\n")
    ))
}

fn run_dir(dir: &str, require_clean: bool) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut files = Vec::new();
    sift_files(&root, &mut files);
    files.sort();
    assert!(!files.is_empty(), "no .sift files under {dir}");
    let only = std::env::var("SIFT_TEST_FILTER").ok();
    let mut failures = Vec::new();
    for f in &files {
        if only
            .as_ref()
            .is_some_and(|o| !f.display().to_string().contains(o.as_str()))
        {
            continue;
        }
        if require_clean {
            let src = std::fs::read_to_string(f).unwrap_or_default();
            if src.contains("//~") {
                failures.push(format!(
                    "{}: examples must not carry error annotations",
                    f.display()
                ));
                continue;
            }
        }
        if let Err(e) = check_file(f) {
            failures.push(format!("{}:\n  {e}", f.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} programs did not match:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

#[test]
fn annotated_programs_report_exactly_their_annotations() {
    run_dir("tests/programs", false);
}

#[test]
fn examples_verify() {
    run_dir("examples", true);
}
