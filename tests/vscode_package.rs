//! `editors/vscode` packages into a `.vsix` with the one command its README
//! documents (`npm ci && npm run package`), from a clean copy of the
//! directory, without a prompt (stdin is closed: a prompt would fail).
//! Skipped with a notice when `npm` is not installed or the npm registry
//! cannot be reached, unless `SIFT_REQUIRE_VSCE=1`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn require() -> bool {
    std::env::var("SIFT_REQUIRE_VSCE").is_ok_and(|v| v == "1")
}

fn skip(why: &str) {
    assert!(!require(), "{why}, but SIFT_REQUIRE_VSCE=1");
    eprintln!("SKIPPED the .vsix packaging test: {why}");
}

fn npm(dir: &Path, args: &[&str]) -> Output {
    Command::new("npm")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .expect("run npm")
}

/// The extension's sources as a fresh checkout has them: no `node_modules`,
/// no build output, no earlier package.
fn copy_sources(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name == "node_modules" || name == "out" || name.ends_with(".vsix") {
            continue;
        }
        if entry.file_type().unwrap().is_dir() {
            copy_sources(&entry.path(), &to.join(&*name));
        } else {
            std::fs::copy(entry.path(), to.join(&*name)).unwrap();
        }
    }
}

#[test]
fn vscode_extension_packages_into_a_vsix() {
    if Command::new("npm").arg("--version").output().is_err() {
        return skip("`npm` is not installed");
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let scratch = std::env::temp_dir().join(format!("sift-vsix-{}", std::process::id()));
    // The build checks the highlighting against the grammar, two levels up.
    let dir = scratch.join("editors/vscode");
    copy_sources(&root.join("editors/vscode"), &dir);
    copy_sources(&root.join("lang"), &scratch.join("lang"));
    let install = npm(&dir, &["ci", "--no-audit", "--no-fund"]);
    if !install.status.success() {
        let _ = std::fs::remove_dir_all(&scratch);
        return skip(&format!(
            "`npm ci` failed (no registry?): {}",
            String::from_utf8_lossy(&install.stderr)
        ));
    }
    let package = npm(&dir, &["run", "package"]);
    let stdout = String::from_utf8_lossy(&package.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&package.stderr).into_owned();
    let vsix = dir.join("sift-0.1.0.vsix");
    let size = std::fs::metadata(&vsix).map(|m| m.len()).unwrap_or(0);
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(
        package.status.success(),
        "npm run package failed:\n{stdout}\n{stderr}"
    );
    assert!(
        !stdout.contains("ERROR") && !stderr.contains("ERROR"),
        "{stdout}\n{stderr}"
    );
    assert!(stdout.contains("DONE  Packaged"), "{stdout}");
    for file in [
        "extension.js",
        "sift.tmLanguage.json",
        "LICENSE",
        "readme.md",
    ] {
        assert!(
            stdout.contains(file),
            "{file} is not in the package:\n{stdout}"
        );
    }
    assert!(size > 1000, "no .vsix was written:\n{stdout}");
}
