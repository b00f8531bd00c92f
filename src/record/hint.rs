//! A suggested fix for a failure, in the program's own terms (the `help`
//! line of a diagnostic). The engine chooses the hint from the state where
//! the path failed (`symbolic::hint`); `record::words` words it.

use serde::{Deserialize, Serialize};

/// The statement before which an instance must be closed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Before {
    Returning,
    TheCall,
    TheLoop,
    TheJoin,
    TheAssert,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Hint {
    /// The member never held `acc(access)`: ask the caller for it.
    RequireAccess { access: String },
    /// The call `call` on the path took `acc(access)` and kept it.
    GiveBack { access: String, call: String },
    /// A pure method or predicate reads `access` before it holds it.
    AccessFirst { access: String },
    /// The path is in a loop body, which starts from its invariant only.
    AddToInvariant { what: String },
    /// The held instance `instance` holds the chunk: open it first.
    OpenFirst { instance: String },
    /// The body of `instance` is held, not the instance: close it.
    CloseFirst { instance: String, before: Before },
    /// The member never held `instance`: ask the caller for it.
    RequireInstance { instance: String },
    /// `open` of an instance whose body is already held.
    AlreadyOpen { instance: String },
    /// The fact is about the pure call `call`, whose definition is unknown
    /// without `use` (inference off).
    UseDefinition { call: String },
    /// Nothing on the path implies `fact` (an `assert`).
    NotImplied { fact: String },
    /// A callee's precondition needs `what` (in the callee's terms).
    CalleeNeeds { what: String },
    /// A callee's precondition `fact` does not hold at the call.
    EstablishBeforeCall { fact: String },
    /// The postcondition `fact` does not hold on this path.
    EstablishBeforeReturn { fact: String },
    /// The invariant `fact` does not hold when the loop is entered.
    EstablishBeforeLoop { fact: String },
    /// The invariant `fact` does not hold at the first test of a `do`
    /// loop, after its body's first run.
    EstablishInFirstRun { fact: String },
    /// The body does not re-establish the invariant `fact`.
    Reestablish { fact: String },
    /// A path reaching a `join` does not satisfy `fact`.
    EstablishBeforeJoin { fact: String },
    /// A predicate body's fact `fact` does not hold at the `close`.
    EstablishBeforeClose { fact: String },
    /// The receiver `receiver` might be null.
    NonNull { receiver: String },
    /// The index of `array[index]` might be outside the array.
    InBounds { array: String, index: String },
    /// The size of a new array might be negative.
    NonNegativeSize { size: String },
    /// The measure of `callee` might not decrease at a recursive call.
    Decreases { callee: String },
    /// The divisor `divisor` might be zero.
    NonZero { divisor: String },
    /// An operation might overflow; `fact` would rule it out.
    InRange { fact: String },
    /// A precondition calls the pure method `callee` it belongs to.
    NoSelfCall { callee: String },
    /// The pure method `callee` calls itself without a measure.
    Recursion { callee: String },
    /// A call inside the cycle of pure methods `cycle` (of which
    /// `unmeasured` have no measure) is not known to terminate.
    Terminate {
        cycle: Vec<String>,
        unmeasured: Vec<String>,
    },
    /// The measure of `owner` calls back into `owner`'s cycle.
    MeasureOutsideCycle { owner: String },
    /// `part` must stay untouched but is written.
    KeepUntouched { part: String },
    /// The solver gave up on the proof.
    HelpTheSolver,
}
