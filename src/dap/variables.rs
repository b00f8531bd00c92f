//! `scopes` and `variables`: the state at the step in program terms. The
//! references are fixed numbers, valid while the session stands on one
//! step (the protocol asks no more): a scope's number, or a heap chunk's
//! index past `HEAP_CHUNK` / `OLD_CHUNK`.

use serde_json::{Value, json};

use super::protocol::Args;
use super::session::Adapter;
use crate::debug::Run;
use crate::record::{ChunkName, ChunkView};

const STORE: i64 = 1;
const HEAP: i64 = 2;
const PATH_CONDITION: i64 = 3;
const OLD_HEAP: i64 = 4;
const COUNTEREXAMPLE: i64 = 5;
const HEAP_CHUNK: i64 = 1_000_000;
const OLD_CHUNK: i64 = 2_000_000;

fn var(name: &str, value: &str, reference: i64) -> Value {
    json!({ "name": name, "value": value, "variablesReference": reference })
}

/// The failure's counterexample at step `at`, if the step is a failure
/// reported with one.
fn counterexample(run: &Run, at: usize) -> &[(String, String)] {
    let step = run.tree.step(at);
    if !run.tree.is_failure(at) {
        return &[];
    }
    run.member()
        .errors
        .iter()
        .find(|e| e.diag.span == step.span)
        .map_or(&[], |e| e.counterexample.as_slice())
}

/// A symbolic value with the model's value for `name`, when it has one
/// that says more.
fn with_model(run: &Run, at: usize, name: &str, value: &str) -> String {
    match counterexample(run, at).iter().find(|(k, _)| k == name) {
        Some((_, c)) if c != value => format!("{value} (model: {c})"),
        _ => value.to_string(),
    }
}

/// A chunk's name (its location or instance) and value: the field's
/// value, or `held` for a predicate instance (the record shows instances in
/// program terms, without their snapshots).
fn chunk_parts(c: &ChunkView) -> (String, String) {
    match c.text.split_once(" ↦ ") {
        Some((loc, v)) => (loc.to_string(), v.to_string()),
        None => (c.text.clone(), "held".to_string()),
    }
}

impl Adapter {
    pub(super) fn scopes(&mut self, _args: &Value) -> Result<Value, String> {
        let s = &self.launched().session;
        let run = s.run();
        let at = s.at();
        let step = run.tree.step(at);
        let mut scopes = vec![
            json!({ "name": "Store", "presentationHint": "locals", "variablesReference": STORE,
                    "namedVariables": step.store.len(), "expensive": false }),
            json!({ "name": "Heap", "variablesReference": HEAP,
                    "namedVariables": step.heap.len(), "expensive": false }),
            json!({ "name": "Path condition", "variablesReference": PATH_CONDITION,
                    "namedVariables": step.pc.len(), "expensive": false }),
            json!({ "name": "Old heap", "variablesReference": OLD_HEAP, "expensive": false }),
        ];
        let cex = counterexample(run, at);
        if !cex.is_empty() {
            scopes.push(
                json!({ "name": "Counterexample", "variablesReference": COUNTEREXAMPLE,
                                "namedVariables": cex.len(), "expensive": false }),
            );
        }
        Ok(json!({ "scopes": scopes }))
    }

    pub(super) fn variables(&mut self, args: &Value) -> Result<Value, String> {
        let reference = Args(args).need_int("variablesReference")?;
        let s = &self.launched().session;
        let run = s.run();
        let at = s.at();
        let step = run.tree.step(at);
        let old = crate::debug::render::old_entry(run, at);
        let heap_list = |chunks: &[ChunkView], base: i64| -> Vec<Value> {
            chunks
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let (name, value) = chunk_parts(c);
                    let value = with_model(run, at, &name, &value);
                    var(&name, &value, base + i as i64)
                })
                .collect()
        };
        let list = match reference {
            STORE => step
                .store
                .iter()
                .map(|(k, v)| var(k, &with_model(run, at, k, v), 0))
                .collect(),
            HEAP => heap_list(&step.heap, HEAP_CHUNK),
            PATH_CONDITION => step
                .pc
                .iter()
                .enumerate()
                .map(|(i, f)| var(&format!("{}", i + 1), f, 0))
                .collect(),
            OLD_HEAP => match old {
                Some(e) => heap_list(&run.tree.step(e).heap, OLD_CHUNK),
                None => vec![var(
                    "(none)",
                    "no pre-state on this path yet: `old(...)` reads the heap as the precondition leaves it",
                    0,
                )],
            },
            COUNTEREXAMPLE => counterexample(run, at)
                .iter()
                .map(|(k, v)| var(k, v, 0))
                .collect(),
            r if (HEAP_CHUNK..OLD_CHUNK).contains(&r) => {
                chunk_fields(step.heap.get((r - HEAP_CHUNK) as usize))
            }
            r if (OLD_CHUNK..OLD_CHUNK + HEAP_CHUNK).contains(&r) => {
                let heap = old.map(|e| &run.tree.step(e).heap);
                chunk_fields(heap.and_then(|h| h.get((r - OLD_CHUNK) as usize)))
            }
            _ => return Err(format!("no variables under reference {reference}")),
        };
        Ok(json!({ "variables": list }))
    }
}

/// The parts of one heap chunk, when it is expanded.
fn chunk_fields(c: Option<&ChunkView>) -> Vec<Value> {
    let Some(c) = c else {
        return Vec::new();
    };
    let (name, value) = chunk_parts(c);
    match &c.of {
        ChunkName::Field(f) => {
            let recv = name.rsplit_once('.').map_or("", |(r, _)| r);
            vec![
                var("field", f, 0),
                var("receiver", recv, 0),
                var("value", &value, 0),
            ]
        }
        ChunkName::Predicate(p) => {
            // `r.p(args)`, or `p(args)` on `this`.
            let call = format!("{p}(");
            let (recv, args) = match name.rfind(&call) {
                Some(at) => (
                    name[..at].strip_suffix('.').unwrap_or("this"),
                    name[at + call.len()..].strip_suffix(')').unwrap_or(""),
                ),
                None => ("", ""),
            };
            let recv = if recv.is_empty() { "this" } else { recv };
            vec![
                var("predicate", p, 0),
                var("receiver", recv, 0),
                var("arguments", args, 0),
            ]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_split_into_name_and_value() {
        let field = ChunkView {
            of: ChunkName::Field("f".into()),
            text: "a.b.f ↦ 3".into(),
        };
        assert_eq!(chunk_parts(&field), ("a.b.f".into(), "3".into()));
        assert_eq!(chunk_fields(Some(&field))[1]["value"], "a.b");
        let pred = ChunkView {
            of: ChunkName::Predicate("q".into()),
            text: "t.next.q(x, y)".into(),
        };
        assert_eq!(chunk_parts(&pred), ("t.next.q(x, y)".into(), "held".into()));
        let fields = chunk_fields(Some(&pred));
        assert_eq!(
            (&fields[1]["value"], &fields[2]["value"]),
            (&"t.next".into(), &"x, y".into())
        );
        let own = ChunkView {
            of: ChunkName::Predicate("valid".into()),
            text: "valid()".into(),
        };
        assert_eq!(chunk_fields(Some(&own))[1]["value"], "this");
    }
}
