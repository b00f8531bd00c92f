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
//! # Replays
//!
//! An error's concrete replay (`confirmed`, `not reproduced`) does run
//! other members' bodies: the callees', constructors' and overriding
//! methods' reachable from the member. Rather than widen the key to all of
//! them (a callee edit would then verify every caller again), an entry
//! keeps the replay's inputs, which come from the member's own
//! verification, and the replay runs again on a hit ([`Cache::get`]'s
//! `replayer`): a concrete run, cheap next to a verification. So nothing a
//! cached result says depends on text its key does not cover.
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
//! SHA-256 the header gives, a list of entries (key, result, and with a
//! cache key a MAC). A file that is missing, unreadable, of another
//! format, truncated, corrupt or foreign is ignored and rewritten; an entry
//! is used only if its key matches. After a run the file holds the
//! entries of the source's current members (every share's, so parallel
//! `--partition` jobs keep each other's results when they run one after
//! another). A cache that cannot be written is a warning, never a failure.
//!
//! # Authentication
//!
//! The header's hash detects damage, not forgery: anyone who can write the
//! directory can drop a member's errors and hash the body again. A cache
//! shared between CI runs of different branches or users therefore takes a
//! secret [`CacheKey`] ([`Cache::keyed`]): each entry is written with an
//! HMAC-SHA256 (RustCrypto's `hmac` and `sha2`) over the format, its key
//! and its result's JSON text exactly as stored (so that nothing depends on
//! serializing a parsed entry back to the same bytes), and read only if
//! that MAC verifies, compared in constant time. Any other entry (forged,
//! written without a key or under another) is ignored like a missing one,
//! with a warning, and rewritten. Replaying a genuine entry in another file
//! gains nothing: the key names the program it is the result of. Without a
//! cache key, MACs are neither written nor checked.

mod file;

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

pub use file::CacheKey;
use file::{file_for, read_file, write_file};

use crate::diag::{Diagnostic, Kind, Label};
use crate::record::{ChunkView, ModelInputs, Reason, Replay, StepKind};
use crate::syntax::ast::Span;
use crate::verify::{ErrorReport, Member, MemberKind, MemberReport, Options, TraceStep, TreeNode};

/// Bumped by hand when the file format or the meaning of a key changes.
const FORMAT: u32 = 3;
const MAGIC: &str = "sift-cache";

/// A hash of Sift's source, prelude and `Cargo.lock` (see `build.rs`).
pub const ENGINE_ID: &str = env!("SIFT_ENGINE_ID");

type Key = [u8; 32];

/// Results kept in memory (the language server) or in a directory.
pub struct Cache {
    dir: Option<PathBuf>,
    /// When set, entries are written with a MAC and read only with a valid one.
    key: Option<CacheKey>,
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
        field(&mut common, crate::solver::SEQ_PRELUDE.as_bytes());
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
    /// The error had a replay: it is run again on a hit, with `inputs`.
    replayed: bool,
    inputs: Option<ModelInputs>,
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
        inputs,
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
        replayed: replay.is_some(),
        inputs: inputs.clone(),
    })
}

/// Runs a loaded error's replay (the caller's: see [`Cache::get`]).
pub(crate) type Replayer<'r> = &'r dyn Fn(&ErrorReport) -> Replay;

fn load_error(
    l: &Layout,
    own: Option<&Span>,
    e: &StoredError,
    replayer: Replayer,
) -> Option<ErrorReport> {
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
        replayed,
        inputs,
    } = e;
    let mut error = ErrorReport {
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
        replay: None,
        inputs: inputs.clone(),
    };
    if *replayed {
        error.replay = Some(replayer(&error));
    }
    Some(error)
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

fn load(l: &Layout, m: &Member, s: &Stored, replayer: Replayer) -> Option<MemberReport> {
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
            .map(|e| load_error(l, own, e, replayer))
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
            key: None,
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

    /// Entries are written with a MAC under `key`, and read only if theirs
    /// verifies: a cache shared with others who do not hold the key.
    pub fn keyed(self, key: CacheKey) -> Cache {
        Cache {
            key: Some(key),
            ..self
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
                Some(dir) => {
                    let file = file_for(dir, path);
                    let read = read_file(&file, self.key.as_ref());
                    if let Some((_, ignored @ 1..)) = &read {
                        self.warn(format!(
                            "ignored {ignored} entr{} of the cache file `{}` not authenticated by the cache key (written without it, with another key, or altered)",
                            if *ignored == 1 { "y" } else { "ies" },
                            file.display()
                        ));
                    }
                    read
                }
                None => None,
            };
            let entries = match loaded {
                // Ignored entries are dropped from the file when it is
                // written again.
                Some((map, ignored)) => Entries {
                    map,
                    dirty: ignored > 0,
                },
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
    /// in the current text and its errors replayed by `replayer` (a replay
    /// runs the callees' bodies, which the key does not cover).
    pub(crate) fn get(
        &mut self,
        path: &str,
        layout: &Layout,
        m: &Member,
        i: usize,
        replayer: Replayer,
    ) -> Option<MemberReport> {
        let key = layout.keys.get(i)?;
        let stored = self.entries(path).map.get(key)?;
        load(layout, m, stored, replayer)
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
        let key = self.key.clone();
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
        match write_file(&dir, &file, &entries.map, key.as_ref()) {
            Ok(()) => entries.dirty = false,
            Err(e) => self.warn(format!(
                "cannot write the cache file `{}`: {e}; results were not cached",
                file.display()
            )),
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::record::ReplayStatus;
    use crate::symbolic::program::ProgramInfo;

    pub(super) const SRC: &str = "class A {
  int f;
  static void m(int x) requires x > 0; {
    assert x > 1;
  }
  static void n(int y) requires y > 2; {
    int z = y;
  }
}
";

    pub(super) fn members_of(src: &str) -> Vec<Member> {
        let mut program = crate::syntax::parse(src).expect("parses");
        assert!(crate::check::check(&mut program).is_empty());
        crate::verify::members(&ProgramInfo::new(program))
    }

    pub(super) fn report(m: &Member, span: Span, related: Span) -> MemberReport {
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
                inputs: Some(ModelInputs {
                    entry: vec![("x".into(), "1".into())],
                    fields: Vec::new(),
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

    pub(super) fn at(src: &str, needle: &str) -> Span {
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
        // The replay is not kept: it runs again, on the kept inputs.
        let rerun = |e: &ErrorReport| Replay {
            status: ReplayStatus::NotReproduced,
            detail: format!("ran again with {:?}", e.inputs),
        };
        let back = load(&l2, &members2[1], &stored, &rerun).expect("loads");
        assert_eq!(back.errors[0].diag.span, at(&edited, "int z = y;"));
        assert_ne!(back.errors[0].diag.span, r.errors[0].diag.span);
        assert_eq!(back.errors[0].diag.related[0].span, at(&edited, "x > 0"));
        assert_eq!(back.span, members2[1].span);
        assert!(back.cached && back.reusable);
        assert_eq!((back.millis, back.queries), (1.5, 2));
        assert_eq!(back.errors[0].counterexample, r.errors[0].counterexample);
        assert_eq!(back.errors[0].inputs, r.errors[0].inputs);
        assert_eq!(
            back.errors[0].replay,
            Some(Replay {
                status: ReplayStatus::NotReproduced,
                detail: format!("ran again with {:?}", r.errors[0].inputs),
            })
        );
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
}
