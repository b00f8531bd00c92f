//! Reading the files Sift is given, and guarding the one it writes.
//!
//! A size check on the metadata alone does not bound memory: `/dev/zero`
//! reports length 0 and never ends, a file can grow while it is read, and
//! opening a FIFO blocks until someone writes to it. So only regular files
//! are read (decided from the metadata before opening, then again on the
//! opened handle, which is opened without blocking), and the size limit is
//! applied while reading.

use std::fs::{File, Metadata, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// Largest program file accepted (a verifier input is a program, not data).
pub const MAX_SOURCE_BYTES: u64 = 4 << 20;

/// Why a file could not be read.
#[derive(Debug)]
pub enum ReadError {
    Io(std::io::Error),
    /// Not a regular file: what it is instead ("a directory", ...).
    NotRegular(&'static str),
    /// Over the limit: the length when the metadata already told.
    TooLarge(Option<u64>),
}

impl From<std::io::Error> for ReadError {
    fn from(e: std::io::Error) -> ReadError {
        ReadError::Io(e)
    }
}

/// Reads a program file for any command: regular files of at most
/// `MAX_SOURCE_BYTES`, valid UTF-8. The error is a complete message.
pub fn read_program(path: &Path) -> Result<String, String> {
    let shown = path.display();
    let bytes = read_bounded(path, MAX_SOURCE_BYTES).map_err(|e| match e {
        ReadError::Io(e) => format!("cannot read `{shown}`: {e}"),
        ReadError::NotRegular(what) => {
            format!("cannot read `{shown}`: it is {what}, not a regular file")
        }
        ReadError::TooLarge(len) => format!(
            "`{shown}` is too large ({}; Sift reads source files of at most {MAX_SOURCE_BYTES} bytes)",
            match len {
                Some(n) => format!("{n} bytes"),
                None => format!("more than {MAX_SOURCE_BYTES} bytes"),
            }
        ),
    })?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let line = e.as_bytes()[..at].iter().filter(|b| **b == b'\n').count() + 1;
        format!("`{shown}` is not valid UTF-8 (invalid byte at offset {at}, line {line})")
    })
}

/// The bytes of a regular file of at most `limit` bytes.
pub fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    let meta = std::fs::metadata(path)?;
    regular(&meta)?;
    if meta.len() > limit {
        return Err(ReadError::TooLarge(Some(meta.len())));
    }
    let file = open_nonblocking(OpenOptions::new().read(true), path)?;
    // The path may name something else by now.
    let meta = file.metadata()?;
    regular(&meta)?;
    read_limited(file, limit, meta.len())
}

/// At most `limit` bytes from `r`, whatever its length claims to be
/// (`expected` only sizes the buffer).
pub fn read_limited(r: impl Read, limit: u64, expected: u64) -> Result<Vec<u8>, ReadError> {
    let mut bytes = Vec::with_capacity(expected.min(limit) as usize);
    r.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge(None));
    }
    Ok(bytes)
}

fn regular(meta: &Metadata) -> Result<(), ReadError> {
    if meta.is_file() {
        Ok(())
    } else {
        Err(ReadError::NotRegular(kind(meta)))
    }
}

/// What a file that is not a regular file is, for messages.
fn kind(meta: &Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a named pipe (FIFO)";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
    }
    "a special file"
}

/// Opens without waiting for a FIFO's other end (a FIFO that slips past the
/// metadata check is then refused on the handle instead of hanging).
fn open_nonblocking(opts: &mut OpenOptions, path: &Path) -> std::io::Result<File> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.custom_flags(libc::O_NONBLOCK);
    }
    opts.open(path)
}

/// Whether `input` is the file `meta` describes (device and inode, so a
/// different spelling, a hard link or a symlink is caught).
#[cfg(unix)]
fn is_input(input: &Path, _path: &Path, meta: &Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(input).is_ok_and(|m| m.dev() == meta.dev() && m.ino() == meta.ino())
}

#[cfg(not(unix))]
fn is_input(input: &Path, path: &Path, _meta: &Metadata) -> bool {
    match (std::fs::canonicalize(input), std::fs::canonicalize(path)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// An output file (the SMT log) that may be written without harm: absent or
/// a regular file, and none of the `inputs`. Checked before anything runs;
/// `write_output` checks again on the opened file.
pub fn check_output(path: &Path, inputs: &[PathBuf]) -> Result<(), String> {
    match std::fs::metadata(path) {
        Ok(meta) => guard_output(path, &meta, inputs),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(format!("cannot write `{}`: {e}", path.display())),
    }
}

fn guard_output(path: &Path, meta: &Metadata, inputs: &[PathBuf]) -> Result<(), String> {
    if !meta.is_file() {
        return Err(format!(
            "cannot write `{}`: it is {}, not a regular file",
            path.display(),
            kind(meta)
        ));
    }
    match inputs.iter().find(|i| is_input(i, path, meta)) {
        Some(input) => Err(format!(
            "`{}` is the input file `{}`; refusing to overwrite it",
            path.display(),
            input.display()
        )),
        None => Ok(()),
    }
}

/// Writes `text` to an output file that passes `check_output`, truncating
/// only after the opened file is known to be a regular file and no input.
pub fn write_output(path: &Path, inputs: &[PathBuf], text: &str) -> Result<(), String> {
    let fail = |e: std::io::Error| format!("cannot write `{}`: {e}", path.display());
    let mut file =
        open_nonblocking(OpenOptions::new().write(true).create(true), path).map_err(fail)?;
    let meta = file.metadata().map_err(fail)?;
    guard_output(path, &meta, inputs)?;
    file.set_len(0).map_err(fail)?;
    file.write_all(text.as_bytes()).map_err(fail)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endless_stream_stops_at_the_limit() {
        let endless = std::io::repeat(b'x');
        assert!(matches!(
            read_limited(endless, 1000, 0),
            Err(ReadError::TooLarge(None))
        ));
        assert_eq!(read_limited(&b"abc"[..], 3, 3).unwrap(), b"abc");
        assert!(matches!(
            read_limited(&b"abcd"[..], 3, 0),
            Err(ReadError::TooLarge(None))
        ));
    }

    #[test]
    fn directories_are_refused_by_kind() {
        let err = read_program(&std::env::temp_dir()).unwrap_err();
        assert!(
            err.contains("it is a directory, not a regular file"),
            "{err}"
        );
    }

    #[cfg(unix)]
    #[test]
    fn devices_are_refused_without_reading() {
        let err = read_program(Path::new("/dev/zero")).unwrap_err();
        assert!(err.contains("a character device"), "{err}");
    }
}
