//! The README is the user's manual: it must name every test file, every
//! command and every flag that exists, and the minimum Rust version of
//! `Cargo.toml`.

use std::path::Path;
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn readme() -> String {
    std::fs::read_to_string(root().join("README.md")).expect("README.md")
}

fn help(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_sift"))
        .args(args)
        .output()
        .expect("run sift");
    assert!(out.status.success(), "{args:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn the_readme_lists_every_test_file() {
    let text = readme();
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(root().join("tests")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".rs") && !text.contains(&format!("tests/{name}")) {
            missing.push(name);
        }
    }
    assert!(missing.is_empty(), "README.md does not mention {missing:?}");
}

#[test]
fn the_readme_lists_every_command_and_flag() {
    let text = readme();
    let top = help(&["--help"]);
    let commands: Vec<&str> = top
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(commands.len() >= 5, "{top}");
    for command in commands {
        assert!(
            text.contains(&format!("sift {command}")),
            "README.md does not mention `sift {command}`"
        );
        for line in help(&[command, "--help"]).lines() {
            let flags = line
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                .filter(|w| w.starts_with("--") && w.len() > 2 && *w != "--help");
            for flag in flags {
                assert!(
                    text.contains(flag),
                    "README.md does not mention `sift {command} {flag}`"
                );
            }
        }
    }
}

#[test]
fn the_readme_states_the_minimum_rust_version() {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let version = manifest
        .lines()
        .find_map(|l| l.strip_prefix("rust-version = "))
        .expect("Cargo.toml has a rust-version")
        .trim_matches('"');
    assert!(
        readme().contains(&format!("Rust {version} or later")),
        "README.md does not state Rust {version}"
    );
}
