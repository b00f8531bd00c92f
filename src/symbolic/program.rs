//! What the engine needs to know about the checked program: members by
//! name, contracts as single assertions, and the implicit parts of
//! constructors (docs/language.md section 2, paper section 4).

use std::collections::{BTreeSet, HashMap};

use super::calls::CallGraph;
use super::term::Sort;
use crate::solver::{FunDecl, Theories};
use crate::syntax::ast::*;
use crate::syntax::walk;

/// A mutator or constructor with its contract joined into one assertion.
pub struct MethodInfo {
    pub class: String,
    pub decl: Method,
    /// `requires` clauses as one separating conjunction (for constructors,
    /// preceded by `acc(f) && f == default` for every field).
    pub pre: Expr,
    pub post: Expr,
    pub ret: Option<Sort>,
    /// Locals and parameters assigned anywhere in the body (for `join`).
    pub assigned: BTreeSet<String>,
}

pub struct PureInfo {
    pub class: String,
    pub decl: Pure,
    pub pre: Expr,
    pub ret: Sort,
    /// The Z3 function `Class.name`.
    pub fun: String,
}

pub struct PredInfo {
    pub class: String,
    pub decl: Predicate,
}

pub struct ProgramInfo {
    pub program: Program,
    pub methods: HashMap<(String, String), MethodInfo>,
    pub pures: HashMap<(String, String), PureInfo>,
    pub preds: HashMap<(String, String), PredInfo>,
    /// Fields of each class, in declaration order: (qualified name, sort, type).
    pub fields: HashMap<String, Vec<(String, Sort, TypeKind)>>,
    /// The pure methods' call graph, for the termination check.
    pub calls: CallGraph,
}

pub fn sort_of(t: &TypeKind) -> Sort {
    match t {
        TypeKind::Int => Sort::Int,
        TypeKind::Bool => Sort::Bool,
        TypeKind::Class(_) | TypeKind::Array(_) => Sort::Ref,
    }
}

pub fn default_literal(t: &TypeKind, span: Span) -> Expr {
    let kind = match t {
        TypeKind::Int => ExprKind::Int("0".into()),
        TypeKind::Bool => ExprKind::Bool(false),
        TypeKind::Class(_) | TypeKind::Array(_) => ExprKind::Null,
    };
    Expr::new(kind, span)
}

/// `a && (b && (c && …))`, or `true` for no clause.
pub fn conjoin(clauses: &[Expr], empty_span: Span) -> Expr {
    match clauses.split_last() {
        None => Expr::new(ExprKind::Bool(true), empty_span),
        Some((last, rest)) => rest.iter().rev().fold(last.clone(), |acc, c| {
            let span = c.span.start..acc.span.end.max(c.span.end);
            Expr::new(
                ExprKind::Binary(BinOp::And, Box::new(c.clone()), Box::new(acc)),
                span,
            )
        }),
    }
}

impl ProgramInfo {
    pub fn new(program: Program) -> ProgramInfo {
        let mut info = ProgramInfo {
            program: Program::default(),
            methods: HashMap::new(),
            pures: HashMap::new(),
            preds: HashMap::new(),
            fields: HashMap::new(),
            calls: CallGraph::new(&program),
        };
        for class in &program.classes {
            let cname = class.name.name.clone();
            let fields: Vec<(String, Sort, TypeKind)> = class
                .fields
                .iter()
                .map(|f| {
                    (
                        format!("{cname}.{}", f.name.name),
                        sort_of(&f.ty.kind),
                        f.ty.kind.clone(),
                    )
                })
                .collect();
            for m in &class.methods {
                let mut requires = Vec::new();
                if m.is_constructor {
                    for f in &class.fields {
                        requires.push(implicit_field_pre(&cname, f, m.name.span.clone()));
                    }
                }
                requires.extend(m.requires.iter().cloned());
                let mut assigned = BTreeSet::new();
                collect_assigned(&m.body.stmts, &mut assigned);
                info.methods.insert(
                    (cname.clone(), m.name.name.clone()),
                    MethodInfo {
                        class: cname.clone(),
                        pre: conjoin(&requires, m.name.span.clone()),
                        post: conjoin(&m.ensures, m.name.span.clone()),
                        ret: m.ret.as_ref().map(|t| sort_of(&t.kind)),
                        decl: m.clone(),
                        assigned,
                    },
                );
            }
            for p in &class.pures {
                info.pures.insert(
                    (cname.clone(), p.name.name.clone()),
                    PureInfo {
                        class: cname.clone(),
                        pre: conjoin(&p.requires, p.name.span.clone()),
                        ret: sort_of(&p.ret.kind),
                        fun: format!("{cname}.{}", p.name.name),
                        decl: p.clone(),
                    },
                );
            }
            for q in &class.predicates {
                info.preds.insert(
                    (cname.clone(), q.name.name.clone()),
                    PredInfo {
                        class: cname.clone(),
                        decl: q.clone(),
                    },
                );
            }
            info.fields.insert(cname, fields);
        }
        info.program = program;
        info
    }

    pub fn method(&self, class: &str, name: &str) -> Option<&MethodInfo> {
        self.methods.get(&(class.to_string(), name.to_string()))
    }

    pub fn pure_method(&self, class: &str, name: &str) -> Option<&PureInfo> {
        self.pures.get(&(class.to_string(), name.to_string()))
    }

    pub fn predicate(&self, class: &str, name: &str) -> Option<&PredInfo> {
        self.preds.get(&(class.to_string(), name.to_string()))
    }

    pub fn constructor(&self, class: &str) -> Option<&MethodInfo> {
        self.method(class, class).filter(|m| m.decl.is_constructor)
    }

    pub fn class_fields(&self, class: &str) -> &[(String, Sort, TypeKind)] {
        self.fields.get(class).map_or(&[], |v| v.as_slice())
    }

    pub fn field_sort(&self, qualified: &str) -> Sort {
        if qualified == ELEMS {
            return Sort::Seq;
        }
        let class = qualified.split('.').next().unwrap_or("");
        self.class_fields(class)
            .iter()
            .find(|(q, _, _)| q == qualified)
            .map_or(Sort::Ref, |(_, s, _)| *s)
    }

    /// The optional theories the program's solver contexts load. No
    /// program has sequences yet (the grammar rejects `seq<T>`), and
    /// loading their theory would change other programs' counterexamples
    /// (`solver::SEQ_PRELUDE`), so it stays out until a type says so.
    pub fn theories(&self) -> Theories {
        Theories::default()
    }

    /// The Z3 functions of the pure methods: `C.p(snapshot, this?, args…)`.
    pub fn fun_decls(&self) -> Vec<FunDecl> {
        let mut out: Vec<FunDecl> = self
            .pures
            .values()
            .map(|p| {
                let mut args = vec![Sort::Snap];
                if !p.decl.is_static {
                    args.push(Sort::Ref);
                }
                args.extend(p.decl.params.iter().map(|x| sort_of(&x.ty.kind)));
                FunDecl {
                    name: p.fun.clone(),
                    args,
                    ret: p.ret,
                }
            })
            .collect();
        out.sort_by(|a, b| a.name.cmp(&b.name));
        out
    }
}

/// `acc(this.f) && this.f == default`, placed at the constructor's name.
fn implicit_field_pre(class: &str, f: &Field, span: Span) -> Expr {
    let field = || {
        Expr::new(
            ExprKind::Field {
                recv: Box::new(Expr::new(ExprKind::This, span.clone())),
                field: Ident {
                    name: f.name.name.clone(),
                    span: span.clone(),
                },
                class: class.to_string(),
            },
            span.clone(),
        )
    };
    let acc = Expr::new(ExprKind::Acc(Box::new(field())), span.clone());
    let eq = Expr::new(
        ExprKind::Binary(
            BinOp::Eq,
            Box::new(field()),
            Box::new(default_literal(&f.ty.kind, span.clone())),
        ),
        span.clone(),
    );
    Expr::new(
        ExprKind::Binary(BinOp::And, Box::new(acc), Box::new(eq)),
        span,
    )
}

/// Names of the locals and parameters a statement list assigns.
pub fn collect_assigned(stmts: &[Stmt], out: &mut BTreeSet<String>) {
    out.extend(walk::statements(stmts).filter_map(|s| walk::assigned(s).map(|v| v.name.clone())));
}
