//! The typed syntax tree. Every node carries the byte span it was parsed from.
//!
//! The parser leaves names unresolved (`Name`, `Receiver::Implicit`, empty
//! `Field::class`, `Call::target == None`); the checker resolves them in
//! place, so the symbolic engine only ever sees resolved trees.

pub type Span = std::ops::Range<usize>;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

#[derive(Clone, Debug, Default)]
pub struct Program {
    pub classes: Vec<Class>,
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

#[derive(Clone, Debug)]
pub struct Field {
    pub ty: Type,
    pub name: Ident,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TypeKind {
    Int,
    Bool,
    Class(String),
}

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

#[derive(Clone, Debug)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub span: Span,
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
    /// `call;` — an `ExprKind::Call`.
    Call(Expr),
    /// `else if` is an `else` block holding one `If`.
    If {
        cond: Expr,
        then: Block,
        els: Option<Block>,
    },
    While {
        cond: Expr,
        invariants: Vec<Expr>,
        body: Block,
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
