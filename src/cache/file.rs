//! The cache's files (their format, and why entries carry a MAC under a
//! key, are in the parent module's doc): reading, writing, authenticating.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use hmac::{Hmac, KeyInit, Mac};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use sha2::{Digest, Sha256};

use super::{FORMAT, Key, MAGIC, Stored};

/// A larger file is not a cache file of ours.
const MAX_FILE_BYTES: u64 = 1 << 30;
/// A larger file is not a key.
const MAX_KEY_BYTES: u64 = 1 << 16;

/// The secret that authenticates a shared cache's entries (HMAC-SHA256).
#[derive(Clone)]
pub struct CacheKey(Vec<u8>);

impl CacheKey {
    /// The key in `bytes`, less surrounding white space (a file written
    /// with or without a final newline gives the same key); `None` if
    /// nothing is left.
    pub fn new(bytes: &[u8]) -> Option<CacheKey> {
        let key = bytes.trim_ascii();
        (!key.is_empty()).then(|| CacheKey(key.to_vec()))
    }

    /// The key in a file; the error is a complete message.
    pub fn read(file: &Path) -> Result<CacheKey, String> {
        let shown = file.display();
        let bytes = crate::input::read_bounded(file, MAX_KEY_BYTES).map_err(|e| match e {
            crate::input::ReadError::Io(e) => format!("cannot read the key file `{shown}`: {e}"),
            crate::input::ReadError::NotRegular(what) => {
                format!("cannot read the key file `{shown}`: it is {what}, not a regular file")
            }
            crate::input::ReadError::TooLarge(_) => {
                format!("the key file `{shown}` is larger than {MAX_KEY_BYTES} bytes")
            }
        })?;
        CacheKey::new(&bytes).ok_or_else(|| format!("the key file `{shown}` is empty"))
    }

    /// The MAC of the entry with key `key` and result `result` (its JSON
    /// text, exactly as the file holds it).
    fn mac(&self, key: &Key, result: &str) -> Hmac<Sha256> {
        // HMAC takes a key of any length.
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&self.0)
            .expect("HMAC accepts keys of any length");
        let mut message = Vec::with_capacity(result.len() + 128);
        for part in [
            MAGIC.as_bytes(),
            b"entry",
            &FORMAT.to_le_bytes(),
            key,
            result.as_bytes(),
        ] {
            message.extend_from_slice(&(part.len() as u64).to_le_bytes());
            message.extend_from_slice(part);
        }
        mac.update(&message);
        mac
    }
}

#[derive(Serialize, Deserialize)]
struct StoredFile {
    sift: String,
    entries: Vec<StoredEntry>,
}

#[derive(Serialize, Deserialize)]
struct StoredEntry {
    key: String,
    /// With a cache key: the hex HMAC of `key` and `result`'s text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    mac: Option<String>,
    /// A [`Stored`], kept as written so that its MAC is checked on the
    /// very bytes it was made from.
    result: Box<RawValue>,
}

/// The cache file of a source file: named by a hash of its canonical path
/// (or of the path as given, if it has none).
pub(super) fn file_for(dir: &Path, path: &str) -> PathBuf {
    let canonical = std::fs::canonicalize(path)
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|_| path.to_string());
    let digest = Sha256::digest(canonical.as_bytes());
    dir.join(format!("{}.sift-cache", hex(&digest[..16])))
}

/// The entries of a cache file and how many were ignored for want of a
/// valid MAC under `key` (none without a key), or `None` for anything but
/// an intact file of this format.
pub(super) fn read_file(
    file: &Path,
    key: Option<&CacheKey>,
) -> Option<(HashMap<Key, Stored>, usize)> {
    let bytes = crate::input::read_bounded(file, MAX_FILE_BYTES).ok()?;
    let newline = bytes.iter().position(|&b| b == b'\n')?;
    let header = std::str::from_utf8(&bytes[..newline]).ok()?;
    let body = &bytes[newline + 1..];
    let mut words = header.split(' ');
    if words.next() != Some(MAGIC)
        || words.next() != Some(FORMAT.to_string().as_str())
        || words.next() != Some(hex(&Sha256::digest(body)).as_str())
        || words.next().is_some()
    {
        return None;
    }
    let parsed: StoredFile = serde_json::from_slice(body).ok()?;
    let mut map = HashMap::new();
    let mut ignored = 0;
    for e in parsed.entries {
        let k = unhex(&e.key)?;
        if let Some(secret) = key {
            // Constant-time comparison (`verify_slice`).
            let authentic = e
                .mac
                .as_deref()
                .and_then(unhex)
                .is_some_and(|tag| secret.mac(&k, e.result.get()).verify_slice(&tag).is_ok());
            if !authentic {
                ignored += 1;
                continue;
            }
        }
        map.insert(k, serde_json::from_str(e.result.get()).ok()?);
    }
    Some((map, ignored))
}

pub(super) fn write_file(
    dir: &Path,
    file: &Path,
    map: &HashMap<Key, Stored>,
    key: Option<&CacheKey>,
) -> std::io::Result<()> {
    let mut entries: Vec<StoredEntry> = map
        .iter()
        .map(|(k, v)| {
            let result = serde_json::to_string(v).and_then(RawValue::from_string)?;
            let mac = key.map(|secret| hex(&secret.mac(k, result.get()).finalize().into_bytes()));
            Ok(StoredEntry {
                key: hex(k),
                mac,
                result,
            })
        })
        .collect::<serde_json::Result<_>>()
        .map_err(std::io::Error::other)?;
    entries.sort_by(|a, b| a.key.cmp(&b.key));
    let body = serde_json::to_vec(&StoredFile {
        sift: env!("CARGO_PKG_VERSION").to_string(),
        entries,
    })
    .map_err(std::io::Error::other)?;
    let mut text = format!("{MAGIC} {FORMAT} {}\n", hex(&Sha256::digest(&body))).into_bytes();
    text.extend_from_slice(&body);
    std::fs::create_dir_all(dir)?;
    // Written aside and renamed, so that a reader (another `--partition`
    // job) sees the old file or the new one, never half of one.
    let name = file.file_name().map(|n| n.to_string_lossy().into_owned());
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        name.unwrap_or_default(),
        std::process::id()
    ));
    let written = std::fs::write(&tmp, &text).and_then(|()| std::fs::rename(&tmp, file));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

pub(super) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub(super) fn unhex(s: &str) -> Option<Key> {
    if s.len() != 64 || !s.is_ascii() {
        return None;
    }
    let mut key = [0u8; 32];
    for (i, k) in key.iter_mut().enumerate() {
        *k = u8::from_str_radix(s.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::tests::{SRC, at, members_of, report};
    use crate::cache::{Layout, store};
    use crate::verify::Options;

    #[test]
    fn entries_are_read_with_a_key_only_if_their_mac_verifies() {
        let members = members_of(SRC);
        let l = Layout::new(SRC, &members, &Options::default()).expect("a layout");
        let m = &members[0];
        let stored = store(&l, m, &report(m, at(SRC, "x > 1"), at(SRC, "y > 2"))).unwrap();
        let map: HashMap<Key, Stored> = [(l.keys[0], stored)].into_iter().collect();
        let dir = std::env::temp_dir().join(format!("sift-cache-unit-{}", std::process::id()));
        let file = dir.join("f.sift-cache");
        let key = CacheKey::new(b"secret").unwrap();
        let other = CacheKey::new(b"another secret").unwrap();
        let count = |read: Option<(HashMap<Key, Stored>, usize)>| {
            read.map(|(map, ignored)| (map.len(), ignored))
        };

        write_file(&dir, &file, &map, Some(&key)).unwrap();
        assert_eq!(count(read_file(&file, Some(&key))), Some((1, 0)));
        assert_eq!(count(read_file(&file, Some(&other))), Some((0, 1)));
        // Without a key, as before keys: the MAC is not looked at.
        assert_eq!(count(read_file(&file, None)), Some((1, 0)));
        write_file(&dir, &file, &map, None).unwrap();
        assert_eq!(count(read_file(&file, Some(&key))), Some((0, 1)));
        assert_eq!(count(read_file(&file, None)), Some((1, 0)));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_key_is_its_bytes_less_surrounding_white_space() {
        let k = |b: &[u8]| CacheKey::new(b).map(|k| k.0);
        assert_eq!(k(b"abc\n"), Some(b"abc".to_vec()));
        assert_eq!(k(b" a b\r\n"), Some(b"a b".to_vec()));
        assert_eq!(k(b""), None);
        assert_eq!(k(b" \n\t"), None);
    }

    #[test]
    fn keys_round_trip_through_hex() {
        let key: Key = std::array::from_fn(|i| (i * 37) as u8);
        assert_eq!(unhex(&hex(&key)), Some(key));
        assert_eq!(unhex("00"), None);
        assert_eq!(unhex(&"zz".repeat(32)), None);
        assert_eq!(unhex(&"é".repeat(32)), None);
    }
}
