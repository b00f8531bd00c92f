//! The modules of `src/` form layers that point one way: a module may use
//! the modules of its own layer and of the layers below, never those above
//! (ARCHITECTURE.md). Scans every `crate::module` path in non-test code.
//! A new top-level module must be given a layer here.

use std::path::{Path, PathBuf};

/// Lowest first. A path (relative to `src/`) names a module, or one file of
/// a module that sits higher than the rest of it.
const LAYERS: &[&[&str]] = &[
    // Foundations: places and diagnostics, input, threads, cancellation.
    &["diag", "cancel", "input", "partition", "stack"],
    &["syntax"],
    &["check"],
    // The statement sugar, lowered after checking.
    &["lower"],
    // Terms and the path condition.
    &["logic"],
    &["solver"],
    // What the verifier did, and its wording.
    &["record"],
    &["symbolic"],
    // The concrete interpreter (runs what the engine explores).
    &["concrete"],
    // Running a whole file: threads, tasks, the cache.
    &["verify", "cache"],
    // Front ends.
    &[
        "report",
        "debug",
        "dap",
        "lsp",
        "progress",
        "concrete/cli.rs",
        "lib.rs",
        "main.rs",
    ],
];

fn layer_of(name: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&name))
}

/// The layer of a file: its own entry if it has one, else its module's.
fn file_layer(rel: &str) -> Option<usize> {
    layer_of(rel).or_else(|| {
        let first = rel.split('/').next()?;
        layer_of(first.trim_end_matches(".rs"))
    })
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src/ is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            // Unit tests may reach anything.
            if path.file_name().is_some_and(|n| n != "tests") {
                rust_files(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs")
            && path.file_name().is_some_and(|n| n != "tests.rs")
        {
            out.push(path);
        }
    }
}

/// The top-level modules named by `crate::x` paths in `text`, with their
/// lines, outside comments and before the file's test module.
fn used_modules(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("#[cfg(test)]") {
            break;
        }
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let after = &rest[at + "crate::".len()..];
            let name: String = after
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() && name != "self" {
                out.push((i + 1, name));
            }
            rest = after;
        }
    }
    out
}

#[test]
fn imports_point_down_the_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    assert!(files.len() > 50, "found only {} files", files.len());
    let mut wrong = Vec::new();
    for file in &files {
        let rel = file
            .strip_prefix(&src)
            .expect("under src/")
            .to_string_lossy()
            .replace('\\', "/");
        let Some(own) = file_layer(&rel) else {
            wrong.push(format!("{rel}: module has no layer in tests/layering.rs"));
            continue;
        };
        let text = std::fs::read_to_string(file).expect("readable source");
        for (line, used) in used_modules(&text) {
            match layer_of(&used) {
                None => wrong.push(format!("{rel}:{line}: `crate::{used}` has no layer")),
                Some(l) if l > own => wrong.push(format!(
                    "{rel}:{line}: `crate::{used}` (layer {l}) is above this file (layer {own})"
                )),
                Some(_) => {}
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the layers:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_scan_sees_paths_and_skips_comments_and_tests() {
    let text = "use crate::diag::Kind;\nlet x = crate::verify::run(); // crate::lsp\n#[cfg(test)]\nuse crate::report;\n";
    assert_eq!(
        used_modules(text),
        [(1, "diag".to_string()), (2, "verify".to_string())]
    );
    assert_eq!(file_layer("concrete/cli.rs"), layer_of("report"));
    assert_eq!(file_layer("concrete/eval.rs"), layer_of("concrete"));
    assert!(layer_of("logic") < layer_of("solver"));
    assert!(layer_of("solver") < layer_of("symbolic"));
}

/// Every text file of the repository (build output and installed packages
/// aside).
fn repository_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable directory") {
        let path = entry.expect("a directory entry").path();
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        let skipped = matches!(
            name.as_deref(),
            Some("target" | ".git" | "node_modules" | "out")
        );
        if path.is_dir() {
            if !skipped {
                repository_files(&path, out);
            }
        } else if std::fs::read_to_string(&path).is_ok() {
            out.push(path);
        }
    }
}

/// The repository stands alone: its documents point at its own files
/// (docs/language.md), never at the shared contract beside it.
#[test]
fn no_file_refers_outside_the_repository() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    repository_files(root, &mut files);
    // Spelled in pieces so that this file does not name them itself.
    let outside = [concat!("../", "shared"), concat!("LANGUAGE", ".md")];
    let mut found = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("text");
        for (i, line) in text.lines().enumerate() {
            if outside.iter().any(|o| line.contains(o)) {
                found.push(format!("{}:{}: {line}", file.display(), i + 1));
            }
        }
    }
    assert!(
        found.is_empty(),
        "references outside the repository:\n{}",
        found.join("\n")
    );
}
