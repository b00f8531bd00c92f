//! Computes `SIFT_ENGINE_ID`, a hash of Sift's own source, the prelude and
//! the locked dependency versions. The result cache (`src/cache/`) keys
//! every entry with it, so that results of one build are never reused by
//! a build whose verifier could answer differently, even when nobody
//! remembered to bump a version number.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            files_under(&path, out)?;
        } else {
            out.push(path);
        }
    }
    Ok(())
}

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into()));
    let mut files = Vec::new();
    if let Err(e) = files_under(&root.join("src"), &mut files) {
        panic!("cannot list the source files under src/: {e}");
    }
    for extra in ["prelude.smt2", "Cargo.toml", "Cargo.lock"] {
        let p = root.join(extra);
        if p.exists() {
            files.push(p);
        }
    }
    files.sort();
    let mut h = Sha256::new();
    for f in &files {
        let rel = f.strip_prefix(&root).unwrap_or(f).to_string_lossy();
        let bytes = std::fs::read(f).unwrap_or_else(|e| panic!("cannot read {}: {e}", f.display()));
        h.update((rel.len() as u64).to_le_bytes());
        h.update(rel.as_bytes());
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(&bytes);
    }
    let id: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
    println!("cargo:rustc-env=SIFT_ENGINE_ID={id}");
    for watched in ["src", "prelude.smt2", "Cargo.toml", "Cargo.lock"] {
        println!("cargo:rerun-if-changed={watched}");
    }
}
