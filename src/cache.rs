//! The result cache: a member is verified again only when something its
//! verification reads has changed (`sift verify --cache DIR` on disk, the
//! language server in memory).
//!
//! # The key
//!
//! A member's verification reads its own text, the declarations of every
//! class (fields, contracts and signatures of every method and
//! constructor, every predicate and pure method with its body), the
//! prelude, the options and the verifier itself. It never reads the body of
//! another method or constructor: calls are verified against contracts.
//! So the source is cut into the bodies of methods and constructors and the
//! *shared pieces* between them (everything else, comments and blank space
//! included), and a member's key is a SHA-256 hash of
//!
//! - the cache format, Sift's version, [`ENGINE_ID`] (a hash of Sift's own
//!   source, prelude and locked dependencies, computed at build time), the
//!   Z3 library's version and the prelude;
//! - the options, except the number of threads, which never changes a
//!   result (every member gets a fresh solver);
//! - every shared piece's text, in order;
//! - the member's place in source order, its name and kind, and for a
//!   method or constructor its body's text.
//!
//! An edit inside one body changes only that member's key; any other edit
//! (a contract, a pure method, a field, a comment between members) changes
//! every key. That is conservative, never unsound: two sources with equal
//! keys give the member the same program to verify, so a fresh run reports
//! what the cache holds. Results that a fresh run might not reproduce are
//! not kept: those where the solver gave up (a timeout depends on the load)
//! or the verifier failed, and runs that log SMT queries (the log is output
//! of its own, with absolute line numbers). Should the engine ever read
//! another member's body, [`ENGINE_ID`] changes with that code, but the key
//! must then cover that body too.
//!
//! # Spans
//!
//! Reports hold byte offsets into the file, and an edit above a member
//! shifts them. The cache stores each end of a span as a region and an
//! offset in it: a shared piece (by index) or the member's own body. Both
//! texts are part of the key, so on a hit the offsets are valid in the
//! current text, and the span is rebuilt from the regions' current
//! positions. A span that falls in neither (another member's body) cannot
//! be rebuilt, so such a result is not cached. Line and column numbers
//! are computed from spans when a report is rendered, so they follow.
//!
//! # Files
//!
//! One file per source file (named by a hash of its canonical path):
//! a header line `sift-cache FORMAT SHA256` followed by a JSON body whose
//! SHA-256 the header gives. A file that is missing, unreadable, of another
//! format, truncated, corrupt or foreign is ignored and rewritten; an entry
//! is used only if its key matches. After a run the file holds the
//! entries of the source's current members (every share's, so parallel
//! `--partition` jobs keep each other's results when they run one after
//! another). A cache that cannot be written is a warning, never a failure.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::diag::{Diagnostic, Kind, Label};
use crate::record::{ChunkView, Reason, Replay, ReplayStatus, StepKind};
use crate::syntax::ast::Span;
use crate::verify::{ErrorReport, Member, MemberKind, MemberReport, Options, TraceStep, TreeNode};

/// Bumped by hand when the file format or the meaning of a key changes.
const FORMAT: u32 = 2;
const MAGIC: &str = "sift-cache";
/// A larger file is not a cache file of ours.
const MAX_FILE_BYTES: u64 = 1 << 30;

/// A hash of Sift's source, prelude and `Cargo.lock` (see `build.rs`).
pub const ENGINE_ID: &str = env!("SIFT_ENGINE_ID");

type Key = [u8; 32];

/// Results kept in memory (the language server) or in a directory.
pub struct Cache {
    dir: Option<PathBuf>,
    files: HashMap<String, Entries>,
    warnings: Vec<String>,
}

#[derive(Default)]
struct Entries {
    map: HashMap<Key, Stored>,
    /// Differs from what the directory holds.
    dirty: bool,
}

/// How one version of a source file is cut up, and every member's key.
pub struct Layout<'s> {
    source: &'s str,
    /// The text outside method and constructor bodies, in order.
    shared: Vec<Span>,
    keys: Vec<Key>,
}

impl<'s> Layout<'s> {
    /// `None` when the options rule the cache out, or the members' bodies
    /// are not where a layout can be made from (then nothing is cached).
    pub(crate) fn new(source: &'s str, members: &[Member], opts: &Options) -> Option<Layout<'s>> {
        if opts.smt_log {
            return None;
        }
        let mut bodies: Vec<Span> = members.iter().filter_map(|m| m.body.clone()).collect();
        bodies.sort_by_key(|b| b.start);
        let mut shared = Vec::with_capacity(bodies.len() + 1);
        let mut at = 0;
        for b in &bodies {
            if b.start < at || b.end < b.start || source.get(b.clone()).is_none() {
                return None;
            }
            shared.push(at..b.start);
            at = b.end;
        }
        shared.push(at..source.len());

        let mut common = Sha256::new();
        field(&mut common, MAGIC.as_bytes());
        field(&mut common, &FORMAT.to_le_bytes());
        field(&mut common, env!("CARGO_PKG_VERSION").as_bytes());
        field(&mut common, ENGINE_ID.as_bytes());
        field(&mut common, z3_version().as_bytes());
        field(&mut common, crate::solver::PRELUDE.as_bytes());
        // Every option but the thread count, whatever options are added.
        let mut counted = opts.clone();
        counted.jobs = 0;
        field(&mut common, format!("{counted:?}").as_bytes());
        field(&mut common, &(shared.len() as u64).to_le_bytes());
        for piece in &shared {
            field(&mut common, source.get(piece.clone())?.as_bytes());
        }
        let keys = members
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let mut h = common.clone();
                field(&mut h, &(i as u64).to_le_bytes());
                field(&mut h, m.name.as_bytes());
                field(&mut h, kind_name(m.kind).as_bytes());
                match &m.body {
                    Some(b) => {
                        field(&mut h, b"body");
                        field(&mut h, source.get(b.clone()).unwrap_or("").as_bytes());
                    }
                    None => field(&mut h, b"no body"),
                }
                h.finalize().into()
            })
            .collect();
        Some(Layout {
            source,
            shared,
            keys,
        })
    }

    /// Where a byte offset is, as (region, offset in it): the shared pieces
    /// are regions `0..n`, the member's own body region `n`.
    fn anchor(&self, own: Option<&Span>, x: usize) -> Option<(u32, u32)> {
        let p = self.shared.partition_point(|piece| piece.end < x);
        let (region, start) = match self.shared.get(p) {
            Some(piece) if piece.start <= x => (p, piece.start),
            _ => match own {
                Some(b) if b.start <= x && x <= b.end => (self.shared.len(), b.start),
                _ => return None,
            },
        };
        Some((u32::try_from(region).ok()?, u32::try_from(x - start).ok()?))
    }

    fn anchor_span(&self, own: Option<&Span>, span: &Span) -> Option<At> {
        let (r0, o0) = self.anchor(own, span.start)?;
        let (r1, o1) = self.anchor(own, span.end)?;
        Some(At(r0, o0, r1, o1))
    }

    fn place(&self, own: Option<&Span>, region: u32, offset: u32) -> Option<usize> {
        let region = usize::try_from(region).ok()?;
        let range = match self.shared.get(region) {
            Some(piece) => piece,
            None if region == self.shared.len() => own?,
            None => return None,
        };
        let x = range.start.checked_add(usize::try_from(offset).ok()?)?;
        (x <= range.end && self.source.is_char_boundary(x)).then_some(x)
    }

    fn place_span(&self, own: Option<&Span>, at: &At) -> Option<Span> {
        let start = self.place(own, at.0, at.1)?;
        let end = self.place(own, at.2, at.3)?;
        (start <= end).then_some(start..end)
    }
}

/// A length-prefixed field, so that no two sequences of fields hash alike.
fn field(h: &mut Sha256, bytes: &[u8]) {
    h.update((bytes.len() as u64).to_le_bytes());
    h.update(bytes);
}

fn kind_name(k: MemberKind) -> &'static str {
    match k {
        MemberKind::Method => "method",
        MemberKind::Constructor => "constructor",
        MemberKind::Pure => "pure",
        MemberKind::Predicate => "predicate",
    }
}

/// The Z3 library in use (it is loaded at run time, so it can change
/// under the same Sift build).
fn z3_version() -> String {
    let (mut major, mut minor, mut build, mut revision) = (0, 0, 0, 0);
    // SAFETY: Z3_get_version only writes the four numbers it is given.
    unsafe { z3_sys::Z3_get_version(&mut major, &mut minor, &mut build, &mut revision) };
    format!("{major}.{minor}.{build}.{revision}")
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Option<Key> {
    if s.len() != 64 || !s.is_ascii() {
        return None;
    }
    let mut key = [0u8; 32];
    for (i, k) in key.iter_mut().enumerate() {
        *k = u8::from_str_radix(s.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(key)
}

/// A span as the regions and offsets of its two ends (see
/// [`Layout::anchor`]).
#[derive(Clone, Debug, Serialize, Deserialize)]
struct At(u32, u32, u32, u32);

/// A member's result with relocatable spans.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Stored {
    millis: f64,
    queries: u64,
    errors: Vec<StoredError>,
    tree: Vec<StoredNode>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct StoredError {
    kind: String,
    at: At,
    message: String,
    label: String,
    related: Vec<(At, String)>,
    help: Option<String>,
    notes: Vec<String>,
    reason: Option<Reason>,
    member: String,
    trace: Vec<StoredStep>,
    counterexample: Vec<(String, String)>,
    /// Status and detail.
    replay: Option<(String, String)>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct StoredStep {
    at: At,
    kind: StepKind,
    heap: Vec<ChunkView>,
    store: Vec<(String, String)>,
    pc: Vec<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    elided: bool,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct StoredNode {
    parent: Option<usize>,
    step: StoredStep,
}

#[derive(Serialize, Deserialize)]
struct StoredFile {
    sift: String,
    entries: Vec<StoredEntry>,
}

#[derive(Serialize, Deserialize)]
struct StoredEntry {
    key: String,
    result: Stored,
}

// Every conversion below destructures its struct completely, so that a
// field added to a report is a compile error here rather than a field the
// cache silently drops.

fn store_step(l: &Layout, own: Option<&Span>, s: &TraceStep) -> Option<StoredStep> {
    let TraceStep {
        span,
        kind,
        heap,
        store,
        pc,
        elided,
    } = s;
    Some(StoredStep {
        at: l.anchor_span(own, span)?,
        kind: kind.clone(),
        heap: heap.clone(),
        store: store.clone(),
        pc: pc.clone(),
        elided: *elided,
    })
}

fn load_step(l: &Layout, own: Option<&Span>, s: &StoredStep) -> Option<TraceStep> {
    let StoredStep {
        at,
        kind,
        heap,
        store,
        pc,
        elided,
    } = s;
    Some(TraceStep {
        span: l.place_span(own, at)?,
        kind: kind.clone(),
        heap: heap.clone(),
        store: store.clone(),
        pc: pc.clone(),
        elided: *elided,
    })
}

fn store_error(l: &Layout, own: Option<&Span>, e: &ErrorReport) -> Option<StoredError> {
    let ErrorReport {
        diag,
        reason,
        member,
        trace,
        counterexample,
        replay,
    } = e;
    let Diagnostic {
        kind,
        span,
        message,
        label,
        related,
        help,
        notes,
    } = diag;
    Some(StoredError {
        kind: kind.as_str().to_string(),
        at: l.anchor_span(own, span)?,
        message: message.clone(),
        label: label.clone(),
        related: related
            .iter()
            .map(|Label { span, message }| Some((l.anchor_span(own, span)?, message.clone())))
            .collect::<Option<_>>()?,
        help: help.clone(),
        notes: notes.clone(),
        reason: reason.clone(),
        member: member.clone(),
        trace: trace
            .iter()
            .map(|s| store_step(l, own, s))
            .collect::<Option<_>>()?,
        counterexample: counterexample.clone(),
        replay: replay
            .as_ref()
            .map(|r| (r.status.as_str().to_string(), r.detail.clone())),
    })
}

fn load_error(l: &Layout, own: Option<&Span>, e: &StoredError) -> Option<ErrorReport> {
    let StoredError {
        kind,
        at,
        message,
        label,
        related,
        help,
        notes,
        reason,
        member,
        trace,
        counterexample,
        replay,
    } = e;
    let replay = match replay {
        None => None,
        Some((status, detail)) => Some(Replay {
            status: ReplayStatus::parse(status)?,
            detail: detail.clone(),
        }),
    };
    Some(ErrorReport {
        diag: Diagnostic {
            kind: Kind::parse(kind)?,
            span: l.place_span(own, at)?,
            message: message.clone(),
            label: label.clone(),
            related: related
                .iter()
                .map(|(at, message)| {
                    Some(Label {
                        span: l.place_span(own, at)?,
                        message: message.clone(),
                    })
                })
                .collect::<Option<_>>()?,
            help: help.clone(),
            notes: notes.clone(),
        },
        reason: reason.clone(),
        member: member.clone(),
        trace: trace
            .iter()
            .map(|s| load_step(l, own, s))
            .collect::<Option<_>>()?,
        counterexample: counterexample.clone(),
        replay,
    })
}

/// The cacheable form of a report; `None` if it may not or cannot be kept.
fn store(l: &Layout, m: &Member, r: &MemberReport) -> Option<Stored> {
    let MemberReport {
        name: _,
        kind: _,
        span: _,
        errors,
        tree,
        millis,
        queries,
        smt_log,
        cached: _,
        reusable,
    } = r;
    if !reusable || smt_log.is_some() {
        return None;
    }
    let own = m.body.as_ref();
    Some(Stored {
        millis: *millis,
        queries: *queries,
        errors: errors
            .iter()
            .map(|e| store_error(l, own, e))
            .collect::<Option<_>>()?,
        tree: tree
            .iter()
            .map(|TreeNode { parent, step }| {
                Some(StoredNode {
                    parent: *parent,
                    step: store_step(l, own, step)?,
                })
            })
            .collect::<Option<_>>()?,
    })
}

fn load(l: &Layout, m: &Member, s: &Stored) -> Option<MemberReport> {
    let Stored {
        millis,
        queries,
        errors,
        tree,
    } = s;
    let own = m.body.as_ref();
    let tree: Vec<TreeNode> = tree
        .iter()
        .enumerate()
        .map(|(i, StoredNode { parent, step })| {
            // Parents come before their children (`MemberReport::tree`).
            if parent.is_some_and(|p| p >= i) {
                return None;
            }
            Some(TreeNode {
                parent: *parent,
                step: load_step(l, own, step)?,
            })
        })
        .collect::<Option<_>>()?;
    Some(MemberReport {
        name: m.name.clone(),
        kind: m.kind,
        span: m.span.clone(),
        errors: errors
            .iter()
            .map(|e| load_error(l, own, e))
            .collect::<Option<_>>()?,
        tree,
        millis: if millis.is_finite() { *millis } else { 0.0 },
        queries: *queries,
        smt_log: None,
        cached: true,
        reusable: true,
    })
}

impl Cache {
    /// A cache that lives as long as the value (the language server's).
    pub fn in_memory() -> Cache {
        Cache {
            dir: None,
            files: HashMap::new(),
            warnings: Vec::new(),
        }
    }

    /// A cache kept in files in `dir` (created when first written).
    pub fn in_dir(dir: impl Into<PathBuf>) -> Cache {
        Cache {
            dir: Some(dir.into()),
            ..Cache::in_memory()
        }
    }

    /// Problems met since the last call (a directory that cannot be
    /// written), each once.
    pub fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }

    fn warn(&mut self, msg: String) {
        if !self.warnings.contains(&msg) {
            self.warnings.push(msg);
        }
    }

    fn entries(&mut self, path: &str) -> &mut Entries {
        if !self.files.contains_key(path) {
            let loaded = match &self.dir {
                Some(dir) => read_file(&file_for(dir, path)),
                None => None,
            };
            let entries = match loaded {
                Some(map) => Entries { map, dirty: false },
                // Nothing usable on disk: whatever is there is rewritten.
                None => Entries {
                    map: HashMap::new(),
                    dirty: true,
                },
            };
            self.files.insert(path.to_string(), entries);
        }
        self.files.entry(path.to_string()).or_default()
    }

    /// The cached result of member `i` of `layout`, with its spans placed
    /// in the current text.
    pub(crate) fn get(
        &mut self,
        path: &str,
        layout: &Layout,
        m: &Member,
        i: usize,
    ) -> Option<MemberReport> {
        let key = layout.keys.get(i)?;
        let stored = self.entries(path).map.get(key)?;
        load(layout, m, stored)
    }

    /// Keeps a fresh result of member `i` (unless it may not be kept).
    pub(crate) fn put(
        &mut self,
        path: &str,
        layout: &Layout,
        m: &Member,
        i: usize,
        report: &MemberReport,
    ) {
        let (Some(key), Some(stored)) = (layout.keys.get(i), store(layout, m, report)) else {
            return;
        };
        let entries = self.entries(path);
        entries.map.insert(*key, stored);
        entries.dirty = true;
    }

    /// Drops the entries of members that no longer exist in this form and
    /// writes the file of `path` if it changed.
    pub(crate) fn save(&mut self, path: &str, layout: &Layout) {
        let current: HashSet<&Key> = layout.keys.iter().collect();
        let dir = self.dir.clone();
        let entries = self.entries(path);
        let before = entries.map.len();
        entries.map.retain(|k, _| current.contains(k));
        if entries.map.len() != before {
            entries.dirty = true;
        }
        let Some(dir) = dir else {
            return;
        };
        if !entries.dirty {
            return;
        }
        let file = file_for(&dir, path);
        match write_file(&dir, &file, &entries.map) {
            Ok(()) => entries.dirty = false,
            Err(e) => self.warn(format!(
                "cannot write the cache file `{}`: {e}; results were not cached",
                file.display()
            )),
        }
    }
}

/// The cache file of a source file: named by a hash of its canonical path
/// (or of the path as given, if it has none).
fn file_for(dir: &Path, path: &str) -> PathBuf {
    let canonical = std::fs::canonicalize(path)
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|_| path.to_string());
    let digest = Sha256::digest(canonical.as_bytes());
    dir.join(format!("{}.sift-cache", hex(&digest[..16])))
}

/// The entries of a cache file, or `None` for anything but an intact file
/// of this format.
fn read_file(file: &Path) -> Option<HashMap<Key, Stored>> {
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
    for e in parsed.entries {
        map.insert(unhex(&e.key)?, e.result);
    }
    Some(map)
}

fn write_file(dir: &Path, file: &Path, map: &HashMap<Key, Stored>) -> std::io::Result<()> {
    let mut entries: Vec<StoredEntry> = map
        .iter()
        .map(|(k, v)| StoredEntry {
            key: hex(k),
            result: v.clone(),
        })
        .collect();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbolic::program::ProgramInfo;

    const SRC: &str = "class A {
  int f;
  static void m(int x) requires x > 0; {
    assert x > 1;
  }
  static void n(int y) requires y > 2; {
    int z = y;
  }
}
";

    fn members_of(src: &str) -> Vec<Member> {
        let mut program = crate::syntax::parse(src).expect("parses");
        assert!(crate::check::check(&mut program).is_empty());
        crate::verify::members(&ProgramInfo::new(program))
    }

    fn report(m: &Member, span: Span, related: Span) -> MemberReport {
        MemberReport {
            name: m.name.clone(),
            kind: m.kind,
            span: m.span.clone(),
            errors: vec![ErrorReport {
                diag: Diagnostic::new(Kind::AssertFailed, span, "no").with_related(related, "here"),
                reason: Some(Reason::MightNotHold { fact: "x".into() }),
                member: m.name.clone(),
                trace: Vec::new(),
                counterexample: vec![("x".into(), "1".into())],
                replay: Some(Replay {
                    status: ReplayStatus::Confirmed,
                    detail: "fails".into(),
                }),
            }],
            tree: Vec::new(),
            millis: 1.5,
            queries: 2,
            smt_log: None,
            cached: false,
            reusable: true,
        }
    }

    fn at(src: &str, needle: &str) -> Span {
        let i = src.find(needle).expect("needle");
        i..i + needle.len()
    }

    #[test]
    fn spans_in_the_own_body_and_shared_text_move_with_them() {
        let members = members_of(SRC);
        let l = Layout::new(SRC, &members, &Options::default()).expect("a layout");
        let n = &members[1];
        let r = report(n, at(SRC, "int z = y;"), at(SRC, "x > 0"));
        let stored = store(&l, n, &r).expect("storable");

        // Three lines more inside `m`: `n` moves, its key does not change.
        let edited = SRC.replace("    assert x > 1;\n", "\n\n\n    assert x > 1;\n");
        let members2 = members_of(&edited);
        let l2 = Layout::new(&edited, &members2, &Options::default()).expect("a layout");
        assert_eq!(l2.keys[1], l.keys[1], "`n` is unchanged");
        assert_ne!(l2.keys[0], l.keys[0], "`m` is edited");
        let back = load(&l2, &members2[1], &stored).expect("loads");
        assert_eq!(back.errors[0].diag.span, at(&edited, "int z = y;"));
        assert_ne!(back.errors[0].diag.span, r.errors[0].diag.span);
        assert_eq!(back.errors[0].diag.related[0].span, at(&edited, "x > 0"));
        assert_eq!(back.span, members2[1].span);
        assert!(back.cached && back.reusable);
        assert_eq!((back.millis, back.queries), (1.5, 2));
        assert_eq!(back.errors[0].counterexample, r.errors[0].counterexample);
        assert_eq!(back.errors[0].replay, r.errors[0].replay);
        assert_eq!(back.errors[0].reason, r.errors[0].reason);
    }

    #[test]
    fn results_that_point_into_another_body_or_gave_up_are_not_kept() {
        let members = members_of(SRC);
        let l = Layout::new(SRC, &members, &Options::default()).expect("a layout");
        let m = &members[0];
        let elsewhere = report(m, at(SRC, "x > 1"), at(SRC, "int z = y;"));
        assert!(store(&l, m, &elsewhere).is_none());
        let mut gave_up = report(m, at(SRC, "x > 1"), at(SRC, "y > 2"));
        gave_up.reusable = false;
        assert!(store(&l, m, &gave_up).is_none());
    }

    #[test]
    fn options_and_smt_logs_decide_the_keys() {
        let members = members_of(SRC);
        let base = Layout::new(SRC, &members, &Options::default()).unwrap();
        let threads = Options {
            jobs: 7,
            ..Options::default()
        };
        assert_eq!(
            Layout::new(SRC, &members, &threads).unwrap().keys,
            base.keys
        );
        let timeout = Options {
            timeout_ms: 1,
            ..Options::default()
        };
        assert_ne!(
            Layout::new(SRC, &members, &timeout).unwrap().keys,
            base.keys
        );
        let logged = Options {
            smt_log: true,
            ..Options::default()
        };
        assert!(Layout::new(SRC, &members, &logged).is_none());
        // Every member has a key of its own.
        let distinct: HashSet<&Key> = base.keys.iter().collect();
        assert_eq!(distinct.len(), members.len());
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
