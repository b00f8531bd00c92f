//! Names and types: resolves the tree in place and reports `type` errors.
//!
//! [`check`] builds the class table ([`table`]), then walks every member:
//! contracts and bodies of methods and constructors, pure methods and
//! predicates. Expressions are typed in [`expr`] and [`calls`], statements in
//! [`stmt`]; [`positions`] says where assertion forms, `old`, `result`,
//! mutator calls and `new` may appear. Every error is reported (sorted by
//! position); an expression whose type is unknown because of an earlier
//! error has the type [`Ty::Err`], which silences follow-up errors.

mod array;
mod calls;
mod constant;
mod expr;
pub mod literals;
mod positions;
mod quant;
mod scope;
mod steps;
mod stmt;
mod table;
mod types;

#[cfg(test)]
mod tests;

use crate::diag::{Diagnostic, Kind};
use crate::syntax::ast::{MemberKind, Method, Param, Predicate, Program, Pure, Span};
use positions::{Clause, Pos};
use scope::{Local, Scopes};
use table::{ClassInfo, Table};
use types::Ty;

/// Stack of the checking thread: the checker recurses once per nesting level
/// of expressions and blocks (bounded by the parser), with large frames in
/// debug builds.
const CHECKER_STACK: usize = 64 << 20;

/// Checks a parsed program: reports every `type` error in source order and
/// resolves names, fields and calls in place (see `syntax::ast`). Runs on a
/// thread of its own with a large stack.
pub fn check(program: &mut Program) -> Vec<Diagnostic> {
    crate::stack::on_thread("sift-checker", CHECKER_STACK, || check_here(program))
        .unwrap_or_else(|_| vec![internal()])
}

/// Reported if the checker itself fails, so that no unchecked tree goes on.
fn internal() -> Diagnostic {
    Diagnostic::new(Kind::Internal, 0..0, "internal error in the type checker")
        .with_label("checking stopped here")
}

fn check_here(program: &mut Program) -> Vec<Diagnostic> {
    let mut diags = Vec::new();
    let table = Table::build(program, &mut diags);
    let mut checker = Checker {
        table,
        diags,
        scopes: Scopes::default(),
        bindings: Default::default(),
        ctx: Ctx::new(0),
        quiet_forms: 0,
        step_ban: None,
    };
    for (ci, class) in program.classes.iter_mut().enumerate() {
        for (mi, method) in class.methods.iter_mut().enumerate() {
            checker.method(ci, mi, method);
        }
        for (pi, pure) in class.pures.iter_mut().enumerate() {
            checker.pure(ci, pi, pure);
        }
        for (pi, pred) in class.predicates.iter_mut().enumerate() {
            checker.predicate(ci, pi, pred);
        }
    }
    program.bindings = checker.bindings;
    let mut diags = checker.diags;
    diags.sort_by_key(|d| d.span.start);
    // A chained comparison `a < b < c` shares `b` between two comparisons:
    // report each error once.
    let mut seen = std::collections::HashSet::new();
    diags.retain(|d| seen.insert((d.span.clone(), d.message.clone())));
    diags
}

/// A `type` error.
pub(crate) fn error(span: Span, message: impl Into<String>) -> Diagnostic {
    Diagnostic::new(Kind::Type, span, message)
}

pub(crate) fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// "mismatched types: expected `int`, found `bool`"
pub(crate) fn mismatch(expected: &Ty, found: &Ty, span: Span) -> Diagnostic {
    error(
        span,
        format!("mismatched types: expected `{expected}`, found `{found}`"),
    )
    .with_label(format!("expected `{expected}`, found `{found}`"))
}

/// The `break` and `continue` statements seen in a loop's body.
#[derive(Clone, Copy, Default)]
struct Jumps {
    broken: bool,
    continued: bool,
}

/// The member being checked.
struct Ctx {
    /// Index of the class in the program (and the table).
    class: usize,
    is_static: bool,
    kind: MemberKind,
    /// The return type: `Void` for void methods and constructors.
    ret: Ty,
    clause: Clause,
    /// One entry per enclosing loop, innermost last: whether a `break`
    /// leaves it (which lets a `while (true)` complete normally) and
    /// whether a `continue` goes to its test (which a `do` needs).
    loops: Vec<Jumps>,
}

impl Ctx {
    fn new(class: usize) -> Ctx {
        Ctx {
            class,
            is_static: false,
            kind: MemberKind::Method,
            ret: Ty::Void,
            clause: Clause::Code,
            loops: Vec::new(),
        }
    }
}

pub(crate) struct Checker {
    table: Table,
    diags: Vec<Diagnostic>,
    scopes: Scopes,
    /// Each use of a local or parameter and its declaration
    /// (`Program::bindings`).
    bindings: std::collections::HashMap<usize, crate::syntax::ast::Binding>,
    ctx: Ctx,
    /// While positive, misplaced assertion forms are not reported (inside an
    /// already reported `untouched`).
    quiet_forms: u32,
    /// Set where code may not hold a postfix `x++` (a loop condition, a
    /// ghost statement): why not.
    step_ban: Option<&'static str>,
}

impl Checker {
    fn report(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    /// The class whose member is being checked.
    fn current(&self) -> &ClassInfo {
        &self.table.infos[self.ctx.class]
    }

    /// The class of a class type (the current class wins over an earlier
    /// duplicate of the same name).
    fn class_info(&self, name: &str) -> Option<&ClassInfo> {
        let cur = self.current();
        if cur.name == name {
            return Some(cur);
        }
        self.table.class_index(name).map(|i| &self.table.infos[i])
    }

    fn enter(&mut self, class: usize, kind: MemberKind, is_static: bool, ret: Ty) {
        self.ctx = Ctx {
            class,
            is_static,
            kind,
            ret,
            clause: Clause::Code,
            loops: Vec::new(),
        };
        self.scopes.reset();
        self.scopes.push();
        self.quiet_forms = 0;
        self.step_ban = None;
    }

    fn declare_params(&mut self, params: &[Param], tys: &[Ty]) {
        for (p, ty) in params.iter().zip(tys) {
            // A duplicate parameter was reported with the signature.
            let _ = self.scopes.declare(Local {
                name: p.name.name.clone(),
                ty: ty.clone(),
                span: p.name.span.clone(),
                decl: p.ty.span.start..p.name.span.end,
                param: true,
            });
        }
    }

    /// Checks a boolean assertion of the given kind.
    fn assertion(&mut self, e: &mut crate::syntax::ast::Expr, clause: Clause) {
        self.ctx.clause = clause;
        let t = self.expr(e, Pos::Assertion);
        self.expect(
            &t,
            &Ty::Bool,
            e.span.clone(),
            "an assertion must be a `bool`",
        );
        self.ctx.clause = Clause::Code;
    }

    /// Reports a mismatch unless `found` fits where `expected` is needed.
    fn expect(&mut self, found: &Ty, expected: &Ty, span: Span, label: &str) {
        if !found.assignable_to(expected) {
            let d = mismatch(expected, found, span);
            let d = if label.is_empty() {
                d
            } else {
                d.with_label(label)
            };
            self.report(d);
        }
    }

    fn method(&mut self, ci: usize, mi: usize, m: &mut Method) {
        let sig = self.table.infos[ci].methods[mi].clone();
        self.enter(ci, sig.kind, sig.is_static, sig.ret.clone());
        self.declare_params(&m.params, &sig.params);
        for r in &mut m.requires {
            self.assertion(r, Clause::Requires);
        }
        for e in &mut m.ensures {
            self.assertion(e, Clause::Ensures);
        }
        let ends = self.block(&mut m.body);
        if sig.ret != Ty::Void && !ends {
            let d = error(m.name.span.clone(), "missing return statement")
                .with_label(format!(
                    "this method must return a value of type `{}`",
                    sig.ret
                ))
                .with_help("end every path through the body with `return e;`");
            self.report(d);
        }
    }

    fn pure(&mut self, ci: usize, pi: usize, p: &mut Pure) {
        let sig = self.table.infos[ci].pures[pi].clone();
        self.enter(ci, MemberKind::Pure, sig.is_static, sig.ret.clone());
        self.declare_params(&p.params, &sig.params);
        for r in &mut p.requires {
            self.assertion(r, Clause::PureRequires);
        }
        self.ctx.clause = Clause::PureBody;
        if let Some(d) = &mut p.decreases {
            let t = self.expr(d, Pos::Value);
            self.expect(
                &t,
                &Ty::Int,
                d.span.clone(),
                "a termination measure is an `int`",
            );
        }
        let t = self.expr(&mut p.body, Pos::Value);
        let label = format!("the pure method returns `{}`", sig.ret);
        self.expect(&t, &sig.ret, p.body.span.clone(), &label);
        self.ctx.clause = Clause::Code;
    }

    fn predicate(&mut self, ci: usize, pi: usize, p: &mut Predicate) {
        let sig = self.table.infos[ci].predicates[pi].clone();
        self.enter(ci, MemberKind::Predicate, false, Ty::Bool);
        self.declare_params(&p.params, &sig.params);
        self.assertion(&mut p.body, Clause::PredicateBody);
    }
}
