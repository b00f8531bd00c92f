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

#[test]
fn neovim_client_shows_diagnostics_hovers_and_definitions() {
    let Some(version) = nvim_version() else {
        if std::env::var("SIFT_REQUIRE_NVIM").is_ok_and(|v| v == "1") {
            panic!("nvim is not installed but SIFT_REQUIRE_NVIM=1 (apt-get install neovim)");
        }
        eprintln!(
            "SKIPPED neovim end-to-end test: `nvim` is not installed (apt-get install neovim)"
        );
        return;
    };
    eprintln!("running the neovim end-to-end test with {version}");
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let scratch = std::env::temp_dir().join(format!("sift-nvim-e2e-{}", std::process::id()));
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
            "luafile tests/nvim/e2e.lua",
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
    eprintln!("{log}");
    assert!(status.success(), "nvim exited with {status:?}:\n{log}");
    assert!(
        log.lines()
            .any(|l| l.starts_with("diagnostic assert.failed line 7")),
        "no assert.failed diagnostic on line 7:\n{log}"
    );
    assert_eq!(log.lines().last(), Some("PASS"), "{log}");
}
