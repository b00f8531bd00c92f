//! The progress bar of `sift verify`: on a terminal's stderr (a pseudo
//! terminal made by `script`), never with `--json`, never when stderr is
//! captured.

use std::process::{Command, Output};

fn example(name: &str) -> String {
    format!("{}/examples/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// Runs `sift ARGS` with stdin, stdout and stderr on a pseudo terminal;
/// everything the terminal showed.
fn on_terminal(args: &[&str]) -> String {
    let mut cmd = shell_quote(env!("CARGO_BIN_EXE_sift"));
    for a in args {
        cmd.push(' ');
        cmd.push_str(&shell_quote(a));
    }
    let o: Output = Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .output()
        .expect("`script` (util-linux) runs a command on a pseudo terminal");
    assert!(o.status.success(), "{o:?}");
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

#[test]
fn a_terminal_shows_members_done() {
    let shown = on_terminal(&["verify", &example("list.sift"), &example("cell.sift")]);
    // How often it is redrawn depends on timing; that it is, does not.
    assert!(shown.contains("[00:00:0"), "{shown:?}");
    assert!(
        shown.contains("/5 members") || shown.contains("/10 members"),
        "{shown:?}"
    );
    // The bar is cleared before the results.
    assert!(shown.contains("\u{1b}[2K"), "{shown:?}");
    assert!(
        shown.contains("list.sift: verified (5 of 5 members)"),
        "{shown:?}"
    );
}

#[test]
fn json_on_a_terminal_has_no_bar() {
    let shown = on_terminal(&["verify", "--json", &example("list.sift")]);
    assert!(!shown.contains("members "), "{shown:?}");
    assert!(!shown.contains('\u{1b}'), "{shown:?}");
    let doc: serde_json::Value =
        serde_json::from_str(&shown.replace("\r\n", "\n")).expect("only JSON");
    assert_eq!(doc["files"][0]["methods"].as_array().unwrap().len(), 5);
}

#[test]
fn captured_stderr_has_no_bar() {
    let o = Command::new(env!("CARGO_BIN_EXE_sift"))
        .args(["verify", &example("list.sift")])
        .output()
        .expect("run sift");
    assert_eq!(o.status.code(), Some(0));
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}
