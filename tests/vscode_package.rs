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

fn package_json() -> serde_json::Value {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("editors/vscode/package.json")).unwrap();
    serde_json::from_str(&text).expect("package.json is JSON")
}

/// The debugger contribution: breakpoints in `.sift` files, a `sift`
/// debugger whose launch attributes are those `sift dap` reads, a snippet
/// and an initial configuration, and an extension that starts `sift dap`.
#[test]
fn the_extension_contributes_the_sift_debugger() {
    let pkg = package_json();
    let c = &pkg["contributes"];
    assert_eq!(
        c["breakpoints"],
        serde_json::json!([{ "language": "sift" }])
    );
    let events = pkg["activationEvents"].as_array().unwrap();
    assert!(events.contains(&"onDebugResolve:sift".into()), "{events:?}");
    let debuggers = c["debuggers"].as_array().unwrap();
    assert_eq!(debuggers.len(), 1);
    let d = &debuggers[0];
    assert_eq!(d["type"], "sift");
    assert_eq!(d["languages"], serde_json::json!(["sift"]));
    let launch = &d["configurationAttributes"]["launch"];
    assert_eq!(launch["required"], serde_json::json!(["program"]));
    let mut props: Vec<&str> = launch["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    props.sort_unstable();
    assert_eq!(
        props,
        ["infer", "method", "program", "stopOnEntry", "timeout"]
    );
    let initial = &d["initialConfigurations"][0];
    assert_eq!(
        (&initial["type"], &initial["request"], &initial["program"]),
        (&"sift".into(), &"launch".into(), &"${file}".into())
    );
    let snippet = &d["configurationSnippets"][0]["body"];
    assert_eq!(
        (&snippet["type"], &snippet["request"]),
        (&"sift".into(), &"launch".into())
    );
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let js = std::fs::read_to_string(root.join("editors/vscode/src/extension.js")).unwrap();
    assert!(js.contains("registerDebugAdapterDescriptorFactory('sift'"));
    assert!(
        js.contains("new vscode.DebugAdapterExecutable(config.get('path') || 'sift', ['dap'])")
    );
}

/// The initial launch configuration, with `${file}` as VS Code expands it,
/// starts a session of `sift dap` that stops at the failure.
#[test]
fn the_initial_configuration_launches_sift_dap() {
    use std::io::{BufRead, BufReader, Read, Write};
    let pkg = package_json();
    let mut launch = pkg["contributes"]["debuggers"][0]["initialConfigurations"][0].clone();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    launch["program"] = root
        .join("tests/nvim/fail.sift")
        .display()
        .to_string()
        .into();
    let mut child = Command::new(env!("CARGO_BIN_EXE_sift"))
        .arg("dap")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("run sift dap");
    let mut input = child.stdin.take().unwrap();
    let requests = [
        ("initialize", serde_json::json!({ "adapterID": "sift" })),
        ("launch", launch),
        ("configurationDone", serde_json::json!({})),
    ];
    for (seq, (command, arguments)) in requests.into_iter().enumerate() {
        let body = serde_json::json!({ "seq": seq + 1, "type": "request", "command": command, "arguments": arguments }).to_string();
        write!(input, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
    }
    input.flush().unwrap();
    drop(input);
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut seen = Vec::new();
    loop {
        let mut header = String::new();
        if out.read_line(&mut header).unwrap() == 0 {
            break;
        }
        let Some(len) = header.trim().strip_prefix("Content-Length: ") else {
            continue;
        };
        let mut blank = String::new();
        out.read_line(&mut blank).unwrap();
        let mut body = vec![0; len.parse().unwrap()];
        out.read_exact(&mut body).unwrap();
        let m: serde_json::Value = serde_json::from_slice(&body).unwrap();
        seen.push(match m["type"].as_str() {
            Some("response") => format!("{} {}", m["command"], m["success"]),
            _ => format!("{} {}", m["event"], m["body"]["reason"]),
        });
    }
    assert!(child.wait().unwrap().success());
    assert_eq!(
        seen,
        [
            "\"initialize\" true",
            "\"launch\" true",
            "\"output\" null",
            "\"initialized\" null",
            "\"configurationDone\" true",
            "\"stopped\" \"exception\""
        ]
    );
}

/// The settings the language server reads (`Config::from` in
/// `src/lsp/mod.rs`: `num("x")` and `.get("x")`), in order.
fn server_settings() -> Vec<String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let src = std::fs::read_to_string(root.join("src/lsp/mod.rs")).unwrap();
    let start = src
        .find("Config {\n            debounce")
        .expect("Config::from");
    let body = &src[start..start + src[start..].find("\n        }\n").expect("its end")];
    let mut out = Vec::new();
    for opener in ["num(\"", ".get(\""] {
        for (i, _) in body.match_indices(opener) {
            let rest = &body[i + opener.len()..];
            out.push((i, rest[..rest.find('"').unwrap()].to_string()));
        }
    }
    out.sort();
    out.into_iter().map(|(_, k)| k).collect()
}

/// Every setting the server reads can be set in VS Code: declared in
/// package.json as `sift.<name>` and passed on as an initialization
/// option of the same name.
#[test]
fn every_server_setting_is_a_vscode_setting() {
    let settings = server_settings();
    assert_eq!(
        settings,
        [
            "debounceMs",
            "timeoutMs",
            "jobs",
            "infer",
            "overflow",
            "memberTimeoutMs"
        ]
    );
    let pkg = package_json();
    let props = &pkg["contributes"]["configuration"]["properties"];
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let ext = std::fs::read_to_string(root.join("editors/vscode/src/extension.js")).unwrap();
    for key in &settings {
        assert!(props[format!("sift.{key}")].is_object(), "no sift.{key}");
        assert!(
            ext.contains(&format!("{key}: config.get('{key}')")),
            "extension.js does not pass {key}"
        );
        assert!(
            ext.contains(&format!("e.affectsConfiguration('sift.{key}')")),
            "a change of sift.{key} does not restart the server"
        );
    }
}
