//! `sift lsp` in a real editor: headless Neovim (Debian's `neovim` package,
//! 0.7.2, or later) runs tests/nvim/e2e.lua with the client of
//! editors/nvim. Skipped with a notice when `nvim` is not installed, unless
//! `SIFT_REQUIRE_NVIM=1` (CI), which makes a missing `nvim` a failure.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const LIMIT: Duration = Duration::from_secs(240);

fn nvim_version() -> Option<String> {
    let out = Command::new("nvim").arg("--version").output().ok()?;
    if !out.status.success() {
        return None;
    }
    Some(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .unwrap_or("nvim")
            .to_string(),
    )
}

/// The installed Neovim's version line, or `None` (with a notice) when the
/// test must be skipped.
fn nvim_or_skip(test: &str) -> Option<String> {
    let version = nvim_version();
    if version.is_none() {
        if std::env::var("SIFT_REQUIRE_NVIM").is_ok_and(|v| v == "1") {
            panic!("nvim is not installed but SIFT_REQUIRE_NVIM=1 (apt-get install neovim)");
        }
        eprintln!("SKIPPED {test}: `nvim` is not installed (apt-get install neovim)");
    }
    version
}

/// Runs the Lua script `script` (relative to the repository) in headless
/// Neovim with `SIFT_BIN` and `SIFT_E2E_OUT` set; its exit status and the
/// lines it wrote.
fn run_lua(script: &str, tag: &str) -> (std::process::ExitStatus, String) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let scratch = std::env::temp_dir().join(format!("sift-nvim-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("create a scratch directory");
    let out = scratch.join("result.txt");
    let mut child = Command::new("nvim")
        .args([
            "--headless",
            "-u",
            "NONE",
            "-i",
            "NONE",
            "-n",
            "-c",
            &format!("luafile {script}"),
        ])
        .current_dir(&root)
        .env("SIFT_BIN", env!("CARGO_BIN_EXE_sift"))
        .env("SIFT_E2E_OUT", &out)
        // Keep Neovim's state, logs and caches out of the home directory.
        .env("XDG_STATE_HOME", scratch.join("state"))
        .env("XDG_CACHE_HOME", scratch.join("cache"))
        .env("XDG_DATA_HOME", scratch.join("data"))
        .env("XDG_CONFIG_HOME", scratch.join("config"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start nvim");
    let deadline = Instant::now() + LIMIT;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for nvim") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            let log = std::fs::read_to_string(&out).unwrap_or_default();
            panic!("nvim did not finish within {LIMIT:?}; its log:\n{log}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let log = std::fs::read_to_string(&out).unwrap_or_else(|e| format!("(no result file: {e})"));
    let _ = std::fs::remove_dir_all(&scratch);
    (status, log)
}

#[test]
fn neovim_client_shows_diagnostics_hovers_and_definitions() {
    let Some(version) = nvim_or_skip("neovim end-to-end test") else {
        return;
    };
    eprintln!("running the neovim end-to-end test with {version}");
    let (status, log) = run_lua("tests/nvim/e2e.lua", "e2e");
    eprintln!("{log}");
    assert!(status.success(), "nvim exited with {status:?}:\n{log}");
    assert!(
        log.lines()
            .any(|l| l.starts_with("diagnostic assert.failed line 7")),
        "no assert.failed diagnostic on line 7:\n{log}"
    );
    assert_eq!(log.lines().last(), Some("PASS"), "{log}");
}

/// editors/nvim/lua/sift/dap.lua registers `sift dap` for nvim-dap, and the
/// adapter it registers, started as nvim-dap starts it, runs the first
/// launch configuration to the failure (tests/nvim/dap.lua; nvim-dap
/// itself is stood in for: neither Debian nor npm has it).
#[test]
fn neovim_dap_configuration_launches_sift_dap() {
    if nvim_or_skip("neovim nvim-dap configuration test").is_none() {
        return;
    }
    let (status, log) = run_lua("tests/nvim/dap.lua", "dap");
    assert!(status.success(), "nvim exited with {status:?}:\n{log}");
    assert_eq!(
        log,
        "adapter dap; configurations: Sift: stop at the first failure, Sift: debug a member from its entry
stopped: exception: assert.failed: assertion might not hold
frame line 7: Counter.main [5] fails: assertion might not hold
heap: c.count = 1
branch: sift.dap: the path does not split
adapter exit 0
PASS
"
    );
}

/// A program with one of each kind of token, and the highlight group that
/// editors/nvim/syntax/sift.vim must give the token marked `@`:
/// (line text, marked token, group).
const HIGHLIGHTED: &[(&str, &str, &str)] = &[
    ("class Cell { // TODO later", "class", "siftStructure"),
    ("class Cell { // TODO later", "Cell", "siftClassName"),
    ("class Cell { // TODO later", "TODO", "siftTodo"),
    ("class Cell { // TODO later", "later", "siftLineComment"),
    ("  int x; /* a block", "int", "siftType"),
    ("  int x; /* a block", "block", "siftBlockComment"),
    ("  comment */ Object o;", "comment", "siftBlockComment"),
    ("  comment */ Object o;", "Object", "siftType"),
    (
        "  predicate valid() { return acc(x); }",
        "predicate",
        "siftStructure",
    ),
    (
        "  predicate valid() { return acc(x); }",
        "acc",
        "siftAssertion",
    ),
    (
        "  static pure int get(int n) requires n >= 0; decreases n; { return n; }",
        "static",
        "siftStorageClass",
    ),
    (
        "  static pure int get(int n) requires n >= 0; decreases n; { return n; }",
        "requires",
        "siftContract",
    ),
    (
        "  static pure int get(int n) requires n >= 0; decreases n; { return n; }",
        "decreases",
        "siftContract",
    ),
    (
        "  static pure int get(int n) requires n >= 0; decreases n; { return n; }",
        ">=",
        "siftOperator",
    ),
    (
        "  static pure int get(int n) requires n >= 0; decreases n; { return n; }",
        "0",
        "siftNumber",
    ),
    (
        "  void m() { for (int i = 0; i < 3; i++) { x += i; } }",
        "for",
        "siftRepeat",
    ),
    (
        "  void m() { for (int i = 0; i < 3; i++) { x += i; } }",
        "++",
        "siftOperator",
    ),
    (
        "  void m() { for (int i = 0; i < 3; i++) { x += i; } }",
        "+=",
        "siftOperator",
    ),
    (
        "  void n() { if (this != null) { open valid(); } else { assert true; } } //~ assert.failed",
        "if",
        "siftConditional",
    ),
    (
        "  void n() { if (this != null) { open valid(); } else { assert true; } } //~ assert.failed",
        "this",
        "siftSpecial",
    ),
    (
        "  void n() { if (this != null) { open valid(); } else { assert true; } } //~ assert.failed",
        "null",
        "siftConstant",
    ),
    (
        "  void n() { if (this != null) { open valid(); } else { assert true; } } //~ assert.failed",
        "open",
        "siftGhost",
    ),
    (
        "  void n() { if (this != null) { open valid(); } else { assert true; } } //~ assert.failed",
        "assert.failed",
        "siftAnnotation",
    ),
    (
        "  void d() { do { if (x > 0) { break; } continue; } while (x < 3); }",
        "do",
        "siftRepeat",
    ),
    (
        "  void d() { do { if (x > 0) { break; } continue; } while (x < 3); }",
        "break",
        "siftRepeat",
    ),
    (
        "  void d() { do { if (x > 0) { break; } continue; } while (x < 3); }",
        "continue",
        "siftRepeat",
    ),
    ("}", "}", ""),
];

#[test]
fn neovim_highlights_sift_files() {
    if nvim_or_skip("neovim syntax test").is_none() {
        return;
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let scratch = std::env::temp_dir().join(format!("sift-nvim-syntax-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("create a scratch directory");
    let mut lines: Vec<&str> = Vec::new();
    let mut probes = Vec::new();
    for &(line, token, group) in HIGHLIGHTED {
        if lines.last() != Some(&line) {
            lines.push(line);
        }
        let column = line.rfind(token).expect("the token is on its line") + 1;
        probes.push(format!("{{{}, {column}, '{group}'}}", lines.len()));
    }
    let program = scratch.join("probe.sift");
    std::fs::write(&program, lines.join("\n") + "\n").unwrap();
    let out = scratch.join("groups.txt");
    let script = format!(
        "local r = {{}} \
         for _, p in ipairs({{{}}}) do \
           local name = vim.fn.synIDattr(vim.fn.synID(p[1], p[2], 1), 'name') \
           if name ~= p[3] then table.insert(r, p[1] .. ':' .. p[2] .. ' is ' .. name .. ', not ' .. p[3]) end \
         end \
         table.insert(r, 'filetype ' .. vim.bo.filetype) \
         vim.fn.writefile(r, '{}')",
        probes.join(", "),
        out.display()
    );
    let status = Command::new("nvim")
        .args(["--headless", "-u", "NONE", "-i", "NONE", "-n", "--cmd"])
        .arg(format!(
            "set runtimepath^={}",
            root.join("editors/nvim").display()
        ))
        .args(["--cmd", "filetype on", "--cmd", "syntax on"])
        .arg(&program)
        .args(["-c", &format!("lua {script}"), "-c", "qa!"])
        .env("XDG_STATE_HOME", scratch.join("state"))
        .env("XDG_CONFIG_HOME", scratch.join("config"))
        .env("XDG_DATA_HOME", scratch.join("data"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .status()
        .expect("start nvim");
    let result = std::fs::read_to_string(&out).unwrap_or_else(|e| format!("(no result: {e})"));
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(status.success(), "nvim exited with {status:?}");
    assert_eq!(result, "filetype sift\n", "wrong highlighting");
}
