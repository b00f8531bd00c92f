//! The typed syntax tree. Every node carries the byte span it was parsed from.
//!
//! The parser leaves names unresolved (`Name`, `Receiver::Implicit`, empty
//! `Field::class`, `Call::target == None`); the checker resolves them in
//! place, so the symbolic engine only ever sees resolved trees.

pub use crate::diag::Span;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

#[derive(Clone, Debug, Default)]
pub struct Program {
    pub classes: Vec<Class>,
    /// Filled by the checker: what each use of a local variable or
    /// parameter refers to, by the use's start offset.
    pub bindings: std::collections::HashMap<usize, Binding>,
}

/// The declaration a local variable or parameter name refers to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    pub param: bool,
    /// The declaring name.
    pub name: Span,
    /// The whole declaration (`int x` of a parameter, the statement of a
    /// local).
    pub decl: Span,
}

#[derive(Clone, Debug)]
pub struct Class {
    pub name: Ident,
    pub fields: Vec<Field>,
    /// Constructors, mutators (static and instance) in source order.
    pub methods: Vec<Method>,
    pub pures: Vec<Pure>,
    pub predicates: Vec<Predicate>,
    pub span: Span,
}

/// A member of a class that is verified on its own: a method (or
/// constructor), a pure method or a predicate.
#[derive(Clone, Copy, Debug)]
pub enum MemberDecl<'a> {
    Method(&'a Method),
    Pure(&'a Pure),
    Predicate(&'a Predicate),
}

impl<'a> MemberDecl<'a> {
    pub fn name(self) -> &'a Ident {
        match self {
            MemberDecl::Method(m) => &m.name,
            MemberDecl::Pure(p) => &p.name,
            MemberDecl::Predicate(q) => &q.name,
        }
    }

    /// The whole declaration.
    pub fn span(self) -> &'a Span {
        match self {
            MemberDecl::Method(m) => &m.span,
            MemberDecl::Pure(p) => &p.span,
            MemberDecl::Predicate(q) => &q.span,
        }
    }
}

impl Class {
    /// Methods, then pure methods, then predicates, each in source order.
    pub fn members(&self) -> impl Iterator<Item = MemberDecl<'_>> {
        let methods = self.methods.iter().map(MemberDecl::Method);
        let pures = self.pures.iter().map(MemberDecl::Pure);
        methods
            .chain(pures)
            .chain(self.predicates.iter().map(MemberDecl::Predicate))
    }
}

#[derive(Clone, Debug)]
pub struct Field {
    pub ty: Type,
    pub name: Ident,
    pub span: Span,
}

/// The name of the built-in class `Object` (a reserved word, so no declared
/// class can take it). Its type is `TypeKind::Class(OBJECT)`: a class with no
/// members, which the engine needs to know nothing about.
pub const OBJECT: &str = "Object";

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TypeKind {
    Int,
    Bool,
    /// A declared class or the built-in [`OBJECT`].
    Class(String),
    /// `T[]` (docs/language.md section 4.4).
    Array(Box<TypeKind>),
}

/// As written in the source: `int`, `C`, `int[][]`.
impl std::fmt::Display for TypeKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TypeKind::Int => f.write_str("int"),
            TypeKind::Bool => f.write_str("bool"),
            TypeKind::Class(c) => f.write_str(c),
            TypeKind::Array(e) => write!(f, "{e}[]"),
        }
    }
}

/// The pseudo-class of `acc(a.elems)`: an array's elements are one field
/// chunk named `[].elems` (`ExprKind::Field` with this class), so every
/// rule about field chunks (separation, inference, framing) applies.
pub const ARRAY_CLASS: &str = "[]";
/// The qualified name of the elements chunk.
pub const ELEMS: &str = "[].elems";

#[derive(Clone, Debug)]
pub struct Type {
    pub kind: TypeKind,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Param {
    pub ty: Type,
    pub name: Ident,
}

#[derive(Clone, Debug)]
pub struct Method {
    /// For a constructor, the class name.
    pub name: Ident,
    pub is_static: bool,
    pub is_constructor: bool,
    /// `None` for `void` and for constructors.
    pub ret: Option<Type>,
    pub params: Vec<Param>,
    /// One entry per `requires` clause, in order (their separating conjunction).
    pub requires: Vec<Expr>,
    pub ensures: Vec<Expr>,
    pub body: Block,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Pure {
    pub name: Ident,
    pub is_static: bool,
    pub ret: Type,
    pub params: Vec<Param>,
    pub requires: Vec<Expr>,
    /// `decreases e;`: the termination measure (docs/language.md section 7).
    pub decreases: Option<Expr>,
    /// The expression of the single `return`.
    pub body: Expr,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Predicate {
    pub name: Ident,
    pub params: Vec<Param>,
    /// The assertion of the single `return`.
    pub body: Expr,
    pub span: Span,
}

/// A block. `Clone` and `Drop` are written out: derived, they would recurse
/// once per nested block, and an `else if` chain nests one block per link
/// (see [`StmtKind::If`]), however flat it is in the source.
#[derive(Debug)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub span: Span,
}

impl Block {
    /// The `if` statement of an `else if` link: the one statement of this
    /// block if it is an `if`. (`else { if ... }` is the same link: the block
    /// declares nothing and holds nothing else.)
    pub fn else_if(&self) -> Option<&Stmt> {
        match self.stmts.as_slice() {
            [s] if matches!(s.kind, StmtKind::If { .. }) => Some(s),
            _ => None,
        }
    }

    pub fn else_if_mut(&mut self) -> Option<&mut Stmt> {
        match self.stmts.as_mut_slice() {
            [s] if matches!(s.kind, StmtKind::If { .. }) => Some(s),
            _ => None,
        }
    }
}

impl Clone for Block {
    fn clone(&self) -> Block {
        Block {
            stmts: self.stmts.iter().map(clone_stmt).collect(),
            span: self.span.clone(),
        }
    }
}

/// Clones a statement; an `if` chain link by link in a loop, then rebuilt
/// from its end, so the recursion follows only the nesting of the source.
fn clone_stmt(s: &Stmt) -> Stmt {
    if !matches!(s.kind, StmtKind::If { .. }) {
        return s.clone();
    }
    // Each link: the statement's span, the span of the `else` block that
    // holds it (none for the first), its condition and its block.
    let mut links: Vec<(Span, Option<Span>, Expr, Block)> = Vec::new();
    let mut holder = None;
    let mut cur = s;
    let mut els = None;
    while let StmtKind::If { cond, then, els: e } = &cur.kind {
        links.push((cur.span.clone(), holder.take(), cond.clone(), then.clone()));
        match e {
            Some(b) => match b.else_if() {
                Some(next) => {
                    holder = Some(b.span.clone());
                    cur = next;
                }
                None => {
                    els = Some(b.clone());
                    break;
                }
            },
            None => break,
        }
    }
    let mut out = None;
    while let Some((span, holder, cond, then)) = links.pop() {
        let st = Stmt {
            kind: StmtKind::If { cond, then, els },
            span,
        };
        match holder {
            Some(span) => {
                els = Some(Block {
                    stmts: vec![st],
                    span,
                });
            }
            None => {
                out = Some(st);
                els = None;
            }
        }
    }
    out.unwrap_or_else(|| s.clone())
}

impl Drop for Block {
    fn drop(&mut self) {
        // The nested blocks are taken out and dropped from a list, each one
        // emptied of its own nested blocks first.
        let mut pending = Vec::new();
        take_blocks(&mut self.stmts, &mut pending);
        while let Some(mut b) = pending.pop() {
            take_blocks(&mut b.stmts, &mut pending);
        }
    }
}

/// Moves the blocks nested in `stmts` to `out`, leaving empty ones.
fn take_blocks(stmts: &mut [Stmt], out: &mut Vec<Block>) {
    let empty = || Block {
        stmts: Vec::new(),
        span: 0..0,
    };
    for s in stmts {
        match &mut s.kind {
            StmtKind::If { then, els, .. } => {
                out.push(std::mem::replace(then, empty()));
                out.extend(els.take());
            }
            StmtKind::While { body, pre, .. } => {
                out.push(std::mem::replace(pre, empty()));
                out.push(std::mem::replace(body, empty()));
            }
            StmtKind::For(f) => out.push(std::mem::replace(&mut f.body, empty())),
            StmtKind::Local { .. }
            | StmtKind::Assign { .. }
            | StmtKind::FieldAssign { .. }
            | StmtKind::IndexAssign { .. }
            | StmtKind::Call(_)
            | StmtKind::Assert(_)
            | StmtKind::Assume(_)
            | StmtKind::Return(_)
            | StmtKind::Open(_)
            | StmtKind::Close(_)
            | StmtKind::Use(_)
            | StmtKind::Join(_)
            | StmtKind::Break
            | StmtKind::Continue
            | StmtKind::Update { .. }
            | StmtKind::Chain { .. } => {}
        }
    }
}

#[derive(Clone, Debug)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum StmtKind {
    /// `T x;` or `T x = e;` (e may be a call or `new`).
    Local {
        ty: Type,
        name: Ident,
        init: Option<Expr>,
    },
    /// `x = e;` (e may be a call or `new`). Before checking, `f = e;` with `f`
    /// a field of `this` is also parsed as this; the checker turns it into
    /// `FieldAssign`.
    Assign {
        target: Ident,
        value: Expr,
    },
    /// `e.f = e;` — `target` is an `ExprKind::Field`.
    FieldAssign {
        target: Expr,
        value: Expr,
    },
    /// `a[i] = e;` — `target` is an `ExprKind::Index`.
    IndexAssign {
        target: Expr,
        value: Expr,
    },
    /// `call;` — an `ExprKind::Call`.
    Call(Expr),
    /// `else if` is an `else` block holding one `If` ([`Block::else_if`]):
    /// walks over the tree follow such chains in a loop, since a chain may
    /// have many thousand links.
    If {
        cond: Expr,
        then: Block,
        els: Option<Block>,
    },
    While {
        cond: Expr,
        invariants: Vec<Expr>,
        body: Block,
        /// Statements run before each evaluation of `cond`, after the
        /// invariant: the postfix updates of the condition, lowered
        /// (`crate::lower`). Empty in the source.
        pre: Block,
        /// `do { body } while (cond) ...;`: the body runs once before the
        /// first evaluation of `cond`, and the invariant is checked at each
        /// evaluation (docs/language.md section 3.4).
        body_first: bool,
    },
    /// `break;`: leaves the innermost loop.
    Break,
    /// `continue;`: ends the current iteration of the innermost loop.
    Continue,
    /// `x op= e;`, and `x++;` / `x--;` (`op` `+` / `-`, no `value`).
    /// `target` is a `Name`, `Var` or `Field` (an array element once arrays
    /// exist). Lowered after checking (`crate::lower`): the engine never
    /// sees it.
    Update {
        target: Expr,
        op: BinOp,
        value: Option<Expr>,
    },
    /// `for (init; cond; update) invariant I; { body }`; lowered after
    /// checking.
    For(Box<For>),
    /// `x = y = e;`: `targets` in source order (at least two), each a
    /// `Name`, `Var`, `Field` or `Index`; `e` is assigned to the last, then
    /// that value to each one before it. Lowered after checking.
    Chain {
        targets: Vec<Expr>,
        value: Expr,
    },
    Assert(Expr),
    Assume(Expr),
    Return(Option<Expr>),
    /// `open e.q(args);` — an `ExprKind::Call` naming a predicate.
    Open(Expr),
    Close(Expr),
    /// `use e.p(args);` — an `ExprKind::Call` naming a pure method.
    Use(Expr),
    Join(Expr),
}

/// A `for` loop (docs/language.md section 3.4).
#[derive(Clone, Debug)]
pub struct For {
    /// A `Local`, `Assign`, `FieldAssign`, `Update` or `Call` statement.
    pub init: Option<Stmt>,
    pub cond: Expr,
    /// An `Assign`, `FieldAssign`, `Update` or `Call` statement.
    pub update: Option<Stmt>,
    pub invariants: Vec<Expr>,
    pub body: Block,
}

#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    Not,
    Neg,
}

/// The `++` and `--` of updates (postfix or prefix).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StepOp {
    Incr,
    Decr,
}

impl StepOp {
    pub fn symbol(self) -> &'static str {
        match self {
            StepOp::Incr => "++",
            StepOp::Decr => "--",
        }
    }

    /// The operator of the update: `x++` is `x = x + 1`.
    pub fn bin_op(self) -> BinOp {
        match self {
            StepOp::Incr => BinOp::Add,
            StepOp::Decr => BinOp::Sub,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Implies,
    Or,
    And,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Add,
    Sub,
    Mul,
    Div,
    Mod,
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Implies => "==>",
            BinOp::Or => "||",
            BinOp::And => "&&",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Mod => "%",
        }
    }
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    /// Decimal digits, no sign (unbounded).
    Int(String),
    Bool(bool),
    Null,
    This,
    Result,
    /// A bare name as parsed; the checker turns it into `Var` or
    /// `Field { recv: This, .. }`.
    Name(Ident),
    /// A local variable or parameter.
    Var(Ident),
    /// `recv.field`; `class` is the class declaring the field, set by the checker.
    Field {
        recv: Box<Expr>,
        field: Ident,
        class: String,
    },
    Call(Box<Call>),
    New {
        class: Ident,
        args: Vec<Expr>,
    },
    /// `new T[size]`; `elem` is `T` (itself an array type for `new T[n][]`).
    NewArray {
        elem: Type,
        size: Box<Expr>,
    },
    /// `a[i]`; `elem` is the element type, set by the checker.
    Index {
        arr: Box<Expr>,
        index: Box<Expr>,
        elem: Option<TypeKind>,
    },
    /// `a.length` of an array `a` (the parser gives `Field`; the checker
    /// turns it into this).
    Length(Box<Expr>),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `c ? a : b`
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    Old(Box<Expr>),
    /// `opening e.q(args) in body` — the call names a predicate.
    Opening(Box<Call>, Box<Expr>),
    /// `using e.p(args) in body` — the call names a pure method.
    Using(Box<Call>, Box<Expr>),
    /// `acc(e.f)` — the argument is an `ExprKind::Field`.
    Acc(Box<Expr>),
    Untouched(Box<Expr>),
    /// `forall T x, ... :: body` or `exists ...` (docs/language.md
    /// section 4c).
    Quant(Box<Quant>),
    /// `x++` / `x--` inside a statement's expression: the old value, then
    /// the update. The target is as in [`StmtKind::Update`]. Lowered after
    /// checking (`crate::lower`): the engine never sees it.
    PostStep(StepOp, Box<Expr>),
    /// `++x` / `--x` inside a statement's expression: the update, then the
    /// new value. Lowered like `PostStep`.
    PreStep(StepOp, Box<Expr>),
    /// The value of an operation in code under `--overflow` (an arithmetic
    /// operator, unary minus, a pure call returning `int`): it must lie in
    /// Java's `int` range, else an `overflow` error at it. Never in the
    /// source: the lowering wraps code's operations (`crate::lower`).
    Int32(Box<Expr>),
}

/// A quantifier: its bound variables (each `int` or `bool`, checked by the
/// checker) and its body, which extends as far right as possible.
#[derive(Clone, Debug)]
pub struct Quant {
    pub forall: bool,
    pub vars: Vec<Param>,
    pub body: Expr,
}

impl Quant {
    /// `forall` or `exists`.
    pub fn word(&self) -> &'static str {
        if self.forall { "forall" } else { "exists" }
    }
}

#[derive(Clone, Debug)]
pub struct Call {
    pub receiver: Receiver,
    pub name: Ident,
    pub args: Vec<Expr>,
    /// Set by the checker.
    pub target: Option<CallTarget>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum Receiver {
    /// `m(args)`. After checking, only static targets keep this form.
    Implicit,
    /// `e.m(args)`. After checking, only instance targets have it (`this`
    /// made explicit where it was omitted).
    Expr(Box<Expr>),
    /// `C.m(args)`: the parser produces `Expr(Name(C))`; the checker turns a
    /// class name into this form.
    Class(Ident),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemberKind {
    Method,
    Constructor,
    Pure,
    Predicate,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CallTarget {
    /// The class declaring the member.
    pub class: String,
    pub kind: MemberKind,
    pub is_static: bool,
}

impl Expr {
    pub fn new(kind: ExprKind, span: Span) -> Expr {
        Expr { kind, span }
    }
}
