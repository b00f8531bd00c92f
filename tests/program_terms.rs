//! Values are shown in the program's own terms everywhere: no rendered
//! output (text, `--trace`, JSON, the debugger's states) of any example or
//! test program shows a term of the snapshot theory or a fresh symbol
//! (`toInt(first(s@5))`, `x@3`, `Cell.getX(s@4, c@1)`, `alloc(o)`).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Text that only the verifier's internal terms contain.
const INTERNAL: [&str; 11] = [
    "toInt(",
    "toBool(",
    "toRef(",
    "fromInt(",
    "fromBool(",
    "fromRef(",
    "first(",
    "second(",
    "combine(",
    "alloc(",
    "unit",
];

fn internal_term(text: &str) -> Option<String> {
    if let Some(i) = text.find('@')
        && text[i + 1..].starts_with(|c: char| c.is_ascii_digit())
    {
        return Some(text[i.saturating_sub(20)..(i + 10).min(text.len())].to_string());
    }
    INTERNAL
        .iter()
        .find(|w| text.contains(*w))
        .map(|w| w.to_string())
}

fn sift_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            sift_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "sift") {
            out.push(path);
        }
    }
}

fn run(args: &[&str], file: &Path, input: &str) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sift"))
        .args(args)
        .arg(file)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run sift");
    use std::io::Write;
    let _ = child.stdin.take().unwrap().write_all(input.as_bytes());
    let o = child.wait_with_output().expect("wait");
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// What a user sees of one program: its reports and, in the debugger, the
/// states at the first failure (or the start) and along its path.
fn rendered(file: &Path) -> Vec<(&'static str, String)> {
    let script =
        "heap\nstore\npc\nold\npath\nwhy\nstep\nheap\nstore\npc\nback 3\nheap\nstore\npc\n";
    vec![
        ("verify --trace", run(&["verify", "--trace"], file, "")),
        ("verify --json", run(&["verify", "--json"], file, "")),
        ("debug", run(&["debug"], file, script)),
    ]
}

#[test]
fn no_output_shows_a_term_of_the_snapshot_theory() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    sift_files(&root.join("examples"), &mut files);
    sift_files(&root.join("tests/programs"), &mut files);
    assert!(files.len() > 50);
    let half = files.len().div_ceil(2);
    let found: Vec<String> = std::thread::scope(|s| {
        let parts: Vec<_> = files
            .chunks(half)
            .map(|part| {
                s.spawn(move || {
                    let mut found = Vec::new();
                    for file in part {
                        for (what, text) in rendered(file) {
                            if let Some(term) = internal_term(&text) {
                                found.push(format!("{} ({what}): {term:?}", file.display()));
                            }
                        }
                    }
                    found
                })
            })
            .collect();
        parts.into_iter().flat_map(|p| p.join().unwrap()).collect()
    });
    assert!(
        found.is_empty(),
        "internal terms shown:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_scan_recognises_internal_terms() {
    assert!(internal_term("heap: this@1.f ↦ 1").is_some());
    assert!(internal_term("pc: (0 < toInt(first(s)))").is_some());
    assert!(internal_term("store: [c ↦ old(c)], pc: (c.getX() > 0)").is_none());
}
