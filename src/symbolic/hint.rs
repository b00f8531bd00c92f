//! Which fix to suggest for a failure (the `help` line), read from the
//! state where the path failed: what the heap holds, whether the path is
//! in a loop body, what was being established. Names are the program's:
//! a chunk's receiver is named by the variable that holds it.

use crate::diag::{Kind, Span};
use crate::logic::term::{Op, Term};
use crate::record::failure::{ChunkName, FailureView, Reason, Related};
use crate::record::hint::{Before, Hint};
use crate::record::step::{StepKind, StmtForm};

use super::ctx::Ctx;
use super::heap::{Chunk, short_name};
use super::state::State;

/// The hint for the failure `view` on the path of `s`, if one is likely.
pub fn hint(ctx: &Ctx, s: &State, view: &FailureView) -> Option<Hint> {
    if view.gave_up.is_some() {
        return Some(Hint::HelpTheSolver);
    }
    let obligation = view.obligation.as_ref().map(|o| o.kind);
    // A `return` inside a loop body has the loop's frame back: what its
    // postcondition lacks there was not held before the loop either.
    let in_loop = ctx.in_loop_body() && obligation != Some(Kind::PostconditionFailed);
    if obligation == Some(Kind::PreconditionFailed)
        && let Some((of, chunk)) = view.reason.missing_chunk()
    {
        return Some(callee_needs(ctx, s, view, chunk, of, in_loop));
    }
    match &view.reason {
        Reason::NoRead { access, .. } | Reason::NoWrite { access, .. } => Some(field_hint(
            ctx,
            s,
            access,
            access,
            &view.reported().1,
            in_loop,
        )),
        Reason::NotHeld {
            chunk,
            of: ChunkName::Field(_),
        } => {
            let access = chunk
                .strip_prefix("acc(")
                .and_then(|c| c.strip_suffix(')'))
                .unwrap_or(chunk);
            Some(field_hint(
                ctx,
                s,
                access,
                access,
                &view.reported().1,
                in_loop,
            ))
        }
        Reason::NotHeld {
            chunk,
            of: ChunkName::Predicate(_),
        } => {
            let body_held = holds_fields_of(s, receiver_of_call(chunk));
            let instance = chunk.clone();
            Some(match obligation {
                Some(Kind::OpenFailed) if body_held => Hint::AlreadyOpen { instance },
                _ if body_held => Hint::CloseFirst {
                    instance,
                    before: before(obligation),
                },
                _ if in_loop => Hint::AddToInvariant { what: instance },
                _ => Hint::RequireInstance { instance },
            })
        }
        Reason::MightNotHold { fact } => {
            if !ctx.infer
                && let Some(call) = pure_call(fact)
            {
                return Some(Hint::UseDefinition { call });
            }
            let fact = fact.clone();
            match obligation? {
                Kind::AssertFailed | Kind::PreconditionFailed if in_loop => {
                    Some(Hint::AddToInvariant { what: fact })
                }
                Kind::AssertFailed => Some(Hint::NotImplied { fact }),
                Kind::PreconditionFailed => Some(Hint::EstablishBeforeCall { fact }),
                Kind::PostconditionFailed => Some(Hint::EstablishBeforeReturn { fact }),
                Kind::InvariantNotEstablished if first_run(view) => {
                    Some(Hint::EstablishInFirstRun { fact })
                }
                Kind::InvariantNotEstablished => Some(Hint::EstablishBeforeLoop { fact }),
                Kind::InvariantNotPreserved => Some(Hint::Reestablish { fact }),
                Kind::JoinFailed => Some(Hint::EstablishBeforeJoin { fact }),
                Kind::CloseFailed => Some(Hint::EstablishBeforeClose { fact }),
                _ => None,
            }
        }
        Reason::MightHaveChanged { part } => Some(Hint::KeepUntouched { part: part.clone() }),
        Reason::DivisorMaybeZero { expr } => Some(Hint::NonZero {
            divisor: divisor_of(expr),
        }),
        Reason::ReceiverMaybeNull { receiver } => Some(Hint::NonNull {
            receiver: receiver.clone(),
        }),
        Reason::ArrayMaybeNull { array } => Some(Hint::NonNull {
            receiver: array.clone(),
        }),
        Reason::NoElements { array, .. } => {
            let access = format!("{array}.elems");
            Some(field_hint(
                ctx,
                s,
                &access,
                &access,
                &view.reported().1,
                in_loop,
            ))
        }
        Reason::IndexMaybeOutside { access } => {
            let (array, index) = split_index(access)?;
            // A postfix update's value is the old value: `i` for `i++`.
            Some(Hint::InBounds {
                array: array.to_string(),
                index: index.replace("++", "").replace("--", ""),
            })
        }
        Reason::SizeMaybeNegative { size } => Some(Hint::NonNegativeSize { size: size.clone() }),
        Reason::MightOverflow { fact, .. } => Some(Hint::InRange { fact: fact.clone() }),
        Reason::MeasureMayNotDecrease { callee, .. } => Some(Hint::Decreases {
            callee: short_name(callee).to_string(),
        }),
        Reason::MeasureCallsCycle { owner, .. } => Some(Hint::MeasureOutsideCycle {
            owner: short_name(owner).to_string(),
        }),
        Reason::PreconditionRecursion { callee, .. } => Some(Hint::NoSelfCall {
            callee: short_name(callee).to_string(),
        }),
        Reason::MayNotTerminate { callee, caller } => {
            let graph = &ctx.prog.calls;
            if callee == caller && graph.cycle_of(caller).len() == 1 {
                return Some(Hint::Recursion {
                    callee: short_name(callee).to_string(),
                });
            }
            let short =
                |names: &[String]| names.iter().map(|n| short_name(n).to_string()).collect();
            Some(Hint::Terminate {
                cycle: short(graph.cycle_of(caller)),
                unmeasured: short(graph.unmeasured(caller)),
            })
        }
    }
}

/// A chunk the callee's precondition names (in the callee's terms) is
/// missing at the call. A chunk of the callee's `this` is named in the
/// caller's terms through the call's receiver; others stay as written.
fn callee_needs(
    ctx: &Ctx,
    s: &State,
    view: &FailureView,
    chunk: &str,
    of: ChunkName,
    in_loop: bool,
) -> Hint {
    let at = view.reported().1;
    let call = ctx.text(&at);
    let head = call.split('(').next().unwrap_or(&call);
    let receiver = head.rsplit_once('.').map(|(r, _)| r);
    let inner = chunk
        .strip_prefix("acc(")
        .and_then(|c| c.strip_suffix(')'))
        .unwrap_or(chunk);
    let own = match &of {
        ChunkName::Field(_) => !inner.contains('.'),
        ChunkName::Predicate(_) => !head_of(inner).contains('.'),
    };
    let in_callers_terms = match receiver {
        _ if !own => None,
        None | Some("this") => Some(inner.to_string()),
        Some(r)
            if r.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.') =>
        {
            Some(format!("{r}.{inner}"))
        }
        Some(_) => None,
    };
    match (in_callers_terms, of) {
        (Some(access), ChunkName::Field(_)) => field_hint(ctx, s, inner, &access, &at, in_loop),
        (Some(instance), ChunkName::Predicate(_)) => {
            // The state's store is the callee's: its `this` is the receiver.
            if holds_fields_of(s, receiver_of_call(inner)) {
                Hint::CloseFirst {
                    instance,
                    before: Before::TheCall,
                }
            } else if in_loop {
                Hint::AddToInvariant { what: instance }
            } else {
                Hint::RequireInstance { instance }
            }
        }
        (None, _) => Hint::CalleeNeeds {
            what: chunk.to_string(),
        },
    }
}

fn head_of(call: &str) -> &str {
    call.split('(').next().unwrap_or(call)
}

/// The hint for a missing field chunk, reported at `span`. `here` names
/// it in the terms of the state's store (a callee's, while its
/// precondition is consumed), `shown` in the terms of the method whose
/// path it is (`c.x`, or `x` of `this`).
fn field_hint(ctx: &Ctx, s: &State, here: &str, shown: &str, span: &Span, in_loop: bool) -> Hint {
    let receiver = receiver_of_access(here);
    // With inference on, a held instance that gave the field would have
    // been opened: only without it is opening the likely fix.
    if !ctx.infer
        && let Some(instance) = held_instance_of(s, receiver)
    {
        return Hint::OpenFirst {
            instance: rename(&instance, receiver_of_access(shown)),
        };
    }
    if let Some(call) = took_away(s, receiver_of_access(shown), shown) {
        return Hint::GiveBack {
            access: shown.to_string(),
            call,
        };
    }
    let access = shown.to_string();
    if in_loop {
        Hint::AddToInvariant {
            what: format!("acc({access})"),
        }
    } else if in_pure_or_predicate(ctx, span) {
        Hint::AccessFirst { access }
    } else {
        Hint::RequireAccess { access }
    }
}

/// `c` of `c.x`, `this` of `x`.
fn receiver_of_access(access: &str) -> &str {
    access.rsplit_once('.').map_or("this", |(r, _)| r)
}

/// `text` (an instance of `this`, `valid()`) as an instance of `receiver`.
fn rename(text: &str, receiver: &str) -> String {
    if receiver == "this" || head_of(text).contains('.') {
        text.to_string()
    } else {
        format!("{receiver}.{text}")
    }
}

/// The call statement on the path that consumed the chunk of `access`
/// (of the object named `receiver`) and did not give it back.
fn took_away(s: &State, receiver: &str, access: &str) -> Option<String> {
    let field = access.rsplit('.').next().unwrap_or(access);
    let held = |st: &super::state::Step| {
        st.heap.iter().any(|(_, c)| {
            matches!(c, Chunk::Field { recv, field: f, .. }
                if short_name(f) == field && name_in(st, recv).as_deref() == Some(receiver))
        })
    };
    let mut step = s.trace.last();
    while let Some(st) = step {
        let parent = st.parent.clone()?;
        if !held(&st) && held(&parent) {
            return match &st.kind {
                StepKind::Statement {
                    form: StmtForm::Call,
                    text,
                } => Some(text.trim_end_matches(';').to_string()),
                _ => None,
            };
        }
        step = Some(parent);
    }
    None
}

/// `name_of` for the store of a recorded step.
fn name_in(st: &super::state::Step, t: &Term) -> Option<String> {
    if st.store.get("this") == Some(t) {
        return Some("this".to_string());
    }
    st.store
        .iter()
        .find(|(_, v)| *v == t)
        .map(|(k, _)| k.to_string())
}

/// The failure is at the first test of a `do` loop (`looping`).
fn first_run(view: &FailureView) -> bool {
    view.obligation
        .as_ref()
        .is_some_and(|o| o.related.iter().any(|(_, r)| *r == Related::DoBody))
}

fn before(obligation: Option<Kind>) -> Before {
    match obligation {
        Some(Kind::PreconditionFailed) => Before::TheCall,
        Some(Kind::InvariantNotEstablished | Kind::InvariantNotPreserved) => Before::TheLoop,
        Some(Kind::JoinFailed) => Before::TheJoin,
        Some(Kind::AssertFailed) => Before::TheAssert,
        _ => Before::Returning,
    }
}

fn in_pure_or_predicate(ctx: &Ctx, span: &Span) -> bool {
    let inside = |outer: &Span| outer.start <= span.start && span.end <= outer.end;
    ctx.prog.pures.values().any(|p| inside(&p.decl.span))
        || ctx.prog.preds.values().any(|p| inside(&p.decl.span))
}

/// The program's name for `t` on the path of `s`: a variable holding it
/// (`this` first), a literal, or a field of a named object.
fn name_of(s: &State, t: &Term) -> Option<String> {
    match t.op() {
        Op::Null => return Some("null".to_string()),
        Op::Int(v) => return Some(v.to_string()),
        Op::True => return Some("true".to_string()),
        Op::False => return Some("false".to_string()),
        _ => {}
    }
    if s.store.get("this") == Some(t) {
        return Some("this".to_string());
    }
    if let Some((name, _)) = s.store.iter().find(|(_, v)| *v == t) {
        return Some(name.to_string());
    }
    s.heap.iter().find_map(|(_, c)| match c {
        Chunk::Field { recv, field, value } if value == t => {
            let r = s.store.iter().find(|(_, v)| *v == recv)?.0;
            Some(format!("{r}.{}", short_name(field)))
        }
        _ => None,
    })
}

/// A held predicate instance of the object named `receiver`, as written.
fn held_instance_of(s: &State, receiver: &str) -> Option<String> {
    s.heap.iter().find_map(|(_, c)| match c {
        Chunk::Pred {
            recv, pred, args, ..
        } if name_of(s, recv).as_deref() == Some(receiver) => {
            let args: Option<Vec<String>> = args.iter().map(|a| name_of(s, a)).collect();
            let call = format!("{}({})", short_name(pred), args?.join(", "));
            Some(if receiver == "this" {
                call
            } else {
                format!("{receiver}.{call}")
            })
        }
        _ => None,
    })
}

/// Whether a field chunk of the object named `receiver` is held.
fn holds_fields_of(s: &State, receiver: &str) -> bool {
    s.heap.iter().any(|(_, c)| {
        matches!(c, Chunk::Field { recv, .. } if name_of(s, recv).as_deref() == Some(receiver))
    })
}

/// `c` of `c.valid(..)`, `this` of `valid(..)`.
fn receiver_of_call(call: &str) -> &str {
    head_of(call).rsplit_once('.').map_or("this", |(r, _)| r)
}

/// The first pure method call in a fact's text (`c.getX()`), with its
/// receiver and arguments as written.
fn pure_call(fact: &str) -> Option<String> {
    const NOT_CALLS: [&str; 5] = ["old", "acc", "untouched", "opening", "using"];
    let bytes = fact.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    for (i, _) in fact.match_indices('(') {
        let mut start = i;
        while start > 0 && word(bytes[start - 1]) {
            start -= 1;
        }
        if start == i || NOT_CALLS.contains(&&fact[start..i]) {
            continue;
        }
        // The receiver chain in front of the name (`a.b.m(`).
        while start > 1 && bytes[start - 1] == b'.' && word(bytes[start - 2]) {
            start -= 1;
            while start > 0 && word(bytes[start - 1]) {
                start -= 1;
            }
        }
        let mut depth = 0;
        for (j, b) in bytes.iter().enumerate().skip(i) {
            match b {
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(fact[start..=j].to_string());
                    }
                }
                _ => {}
            }
        }
    }
    None
}

/// `a` and `i` of an element access's text `a[i]` (the last index).
fn split_index(access: &str) -> Option<(&str, &str)> {
    let inner = access.trim().strip_suffix(']')?;
    let mut depth = 0;
    for (k, b) in inner.bytes().enumerate().rev() {
        match b {
            b']' => depth += 1,
            b'[' if depth == 0 => return Some((inner[..k].trim(), inner[k + 1..].trim())),
            b'[' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// The divisor of a division's text (`y` of `x / y`), or the whole text.
fn divisor_of(expr: &str) -> String {
    let cut = [" / ", " % "]
        .iter()
        .filter_map(|op| expr.rfind(op).map(|k| k + op.len()))
        .max();
    match cut {
        Some(k) => expr[k..].to_string(),
        None => expr.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pure_calls_are_found_with_receiver_and_arguments() {
        assert_eq!(pure_call("c.getX() == v").as_deref(), Some("c.getX()"));
        assert_eq!(
            pure_call("old(x) + a.b.len(i, f(j)) > 0").as_deref(),
            Some("a.b.len(i, f(j))")
        );
        assert_eq!(pure_call("(x > 0)"), None);
        assert_eq!(pure_call("acc(c.x)"), None);
    }

    #[test]
    fn divisors_and_receivers_are_read_from_the_text() {
        assert_eq!(divisor_of("x / y"), "y");
        assert_eq!(divisor_of("(a + b) % (c - d)"), "(c - d)");
        assert_eq!(receiver_of_call("c.next.valid()"), "c.next");
        assert_eq!(receiver_of_call("valid()"), "this");
        assert_eq!(split_index("a[i]"), Some(("a", "i")));
        assert_eq!(
            split_index("l.items[b[j] + 1]"),
            Some(("l.items", "b[j] + 1"))
        );
        assert_eq!(split_index("m[i][j]"), Some(("m[i]", "j")));
        assert_eq!(split_index("x"), None);
    }
}
