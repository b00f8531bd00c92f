//! Which declaration a name in a checked program refers to (go to
//! definition, and the declaration part of hovers).
//!
//! The checker resolves fields (`Field::class`), calls (`Call::target`) and
//! bare names (`Var` or a field of `this`) in place, and records what each
//! use of a local or parameter refers to (`Program::bindings`); this module
//! only finds the name at the cursor.

use crate::syntax::ast::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymbolKind {
    Class,
    Field,
    Method,
    Constructor,
    Pure,
    Predicate,
    Param,
    Local,
}

impl SymbolKind {
    pub fn describe(self) -> &'static str {
        match self {
            SymbolKind::Class => "class",
            SymbolKind::Field => "field",
            SymbolKind::Method => "method",
            SymbolKind::Constructor => "constructor",
            SymbolKind::Pure => "pure method",
            SymbolKind::Predicate => "predicate",
            SymbolKind::Param => "parameter",
            SymbolKind::Local => "local variable",
        }
    }
}

/// A declaration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    pub kind: SymbolKind,
    /// The declaring name.
    pub name: Span,
    /// What to show of the declaration: the whole of a field, parameter or
    /// local; a class or member up to its body (the hover cuts at `{`).
    pub decl: Span,
    /// The class declaring a member (empty for classes and locals).
    pub class: String,
}

fn contains(span: &Span, offset: usize) -> bool {
    span.start <= offset && offset <= span.end
}

/// The declaration of the name at `offset` (the cursor may be just after it).
pub fn symbol_at(program: &Program, offset: usize) -> Option<Symbol> {
    let mut w = Walker {
        program,
        offset,
        class: 0,
    };
    w.program()
}

struct Walker<'a> {
    program: &'a Program,
    offset: usize,
    /// The class being walked.
    class: usize,
}

impl<'a> Walker<'a> {
    fn program(&mut self) -> Option<Symbol> {
        for (ci, class) in self.program.classes.iter().enumerate() {
            if !contains(&class.span, self.offset) {
                continue;
            }
            self.class = ci;
            if contains(&class.name.span, self.offset) {
                return Some(class_symbol(class));
            }
            for f in &class.fields {
                if let Some(s) = self.ty(&f.ty) {
                    return Some(s);
                }
                if contains(&f.name.span, self.offset) {
                    return Some(field_symbol(class, f));
                }
            }
            for decl in class.members() {
                if !contains(decl.span(), self.offset) {
                    continue;
                }
                let found = match decl {
                    MemberDecl::Method(m) => self.method(class, m),
                    MemberDecl::Pure(p) => self.pure(class, p),
                    MemberDecl::Predicate(q) => self.predicate(class, q),
                };
                if found.is_some() {
                    return found;
                }
            }
        }
        None
    }

    fn ty(&self, t: &Type) -> Option<Symbol> {
        match &t.kind {
            TypeKind::Class(name) if contains(&t.span, self.offset) => {
                self.class_named(name).map(class_symbol)
            }
            // `C[]`: the element class.
            TypeKind::Array(_) if contains(&t.span, self.offset) => {
                let mut k = &t.kind;
                while let TypeKind::Array(e) = k {
                    k = e;
                }
                match k {
                    TypeKind::Class(name) => self.class_named(name).map(class_symbol),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    fn class_named(&self, name: &str) -> Option<&'a Class> {
        let current = self
            .program
            .classes
            .get(self.class)
            .filter(|c| c.name.name == name);
        current.or_else(|| self.program.classes.iter().find(|c| c.name.name == name))
    }

    fn params(&mut self, params: &[Param]) -> Option<Symbol> {
        for p in params {
            if let Some(s) = self.ty(&p.ty) {
                return Some(s);
            }
            let s = Symbol {
                kind: SymbolKind::Param,
                name: p.name.span.clone(),
                decl: p.ty.span.start..p.name.span.end,
                class: String::new(),
            };
            if contains(&p.name.span, self.offset) {
                return Some(s);
            }
        }
        None
    }

    fn method(&mut self, class: &'a Class, m: &'a Method) -> Option<Symbol> {
        if contains(&m.name.span, self.offset) {
            return Some(method_symbol(class, m));
        }
        if let Some(s) = m.ret.as_ref().and_then(|t| self.ty(t)) {
            return Some(s);
        }
        if let Some(s) = self.params(&m.params) {
            return Some(s);
        }
        for e in m.requires.iter().chain(&m.ensures) {
            if let Some(s) = self.expr(e) {
                return Some(s);
            }
        }
        self.block(&m.body)
    }

    fn pure(&mut self, class: &'a Class, p: &'a Pure) -> Option<Symbol> {
        if contains(&p.name.span, self.offset) {
            return Some(pure_symbol(class, p));
        }
        if let Some(s) = self.ty(&p.ret) {
            return Some(s);
        }
        if let Some(s) = self.params(&p.params) {
            return Some(s);
        }
        for e in p.requires.iter().chain(&p.decreases) {
            if let Some(s) = self.expr(e) {
                return Some(s);
            }
        }
        self.expr(&p.body)
    }

    fn predicate(&mut self, class: &'a Class, q: &'a Predicate) -> Option<Symbol> {
        if contains(&q.name.span, self.offset) {
            return Some(predicate_symbol(class, q));
        }
        if let Some(s) = self.params(&q.params) {
            return Some(s);
        }
        self.expr(&q.body)
    }

    fn block(&mut self, b: &Block) -> Option<Symbol> {
        let offset = self.offset;
        b.stmts
            .iter()
            .filter(|st| contains(&st.span, offset))
            .find_map(|st| self.stmt(st))
    }

    fn stmt(&mut self, st: &Stmt) -> Option<Symbol> {
        match &st.kind {
            StmtKind::Local { ty, name, init } => {
                if let Some(s) = self.ty(ty) {
                    return Some(s);
                }
                if contains(&name.span, self.offset) {
                    return Some(Symbol {
                        kind: SymbolKind::Local,
                        name: name.span.clone(),
                        decl: st.span.clone(),
                        class: String::new(),
                    });
                }
                init.as_ref().and_then(|e| self.expr(e))
            }
            StmtKind::Assign { target, value } => {
                if contains(&target.span, self.offset) {
                    return self.name(target);
                }
                self.expr(value)
            }
            StmtKind::FieldAssign { target, value } | StmtKind::IndexAssign { target, value } => {
                self.expr(target).or_else(|| self.expr(value))
            }
            StmtKind::If { .. } => self.if_chain(st),
            StmtKind::While {
                cond,
                invariants,
                body,
                ..
            } => {
                if let Some(s) = self.expr(cond) {
                    return Some(s);
                }
                for i in invariants {
                    if let Some(s) = self.expr(i) {
                        return Some(s);
                    }
                }
                self.block(body)
            }
            StmtKind::Update { target, value, .. } => self
                .expr(target)
                .or_else(|| value.as_ref().and_then(|v| self.expr(v))),
            StmtKind::For(f) => self.for_loop(f),
            StmtKind::Chain { targets, value } => targets
                .iter()
                .find_map(|t| self.expr(t))
                .or_else(|| self.expr(value)),
            StmtKind::Return(e) => e.as_ref().and_then(|e| self.expr(e)),
            StmtKind::Break | StmtKind::Continue => None,
            StmtKind::Call(e)
            | StmtKind::Assert(e)
            | StmtKind::Assume(e)
            | StmtKind::Open(e)
            | StmtKind::Close(e)
            | StmtKind::Use(e)
            | StmtKind::Join(e) => self.expr(e),
        }
    }

    /// A `for` loop: its header and body (the checker bound the names its
    /// `init` declares).
    fn for_loop(&mut self, f: &For) -> Option<Symbol> {
        f.init
            .as_ref()
            .and_then(|i| self.stmt(i))
            .or_else(|| self.expr(&f.cond))
            .or_else(|| f.invariants.iter().find_map(|i| self.expr(i)))
            .or_else(|| self.block(&f.body))
            .or_else(|| f.update.as_ref().and_then(|u| self.stmt(u)))
    }

    /// An `if` and its `else if` links, in a loop (a chain nests one block
    /// per link, and may have many thousand links).
    fn if_chain(&mut self, st: &Stmt) -> Option<Symbol> {
        let mut cur = st;
        while let StmtKind::If { cond, then, els } = &cur.kind {
            if let Some(s) = self.expr(cond).or_else(|| self.block(then)) {
                return Some(s);
            }
            let b = els.as_ref()?;
            match b.else_if() {
                Some(next) if contains(&next.span, self.offset) => cur = next,
                Some(_) => return None,
                None => return self.block(b),
            }
        }
        None
    }

    /// A bare name: a local or parameter (as the checker bound it), else a
    /// field of the current class.
    fn name(&self, id: &Ident) -> Option<Symbol> {
        if let Some(b) = self.program.bindings.get(&id.span.start) {
            return Some(Symbol {
                kind: if b.param {
                    SymbolKind::Param
                } else {
                    SymbolKind::Local
                },
                name: b.name.clone(),
                decl: b.decl.clone(),
                class: String::new(),
            });
        }
        let class = self.program.classes.get(self.class)?;
        class
            .fields
            .iter()
            .find(|f| f.name.name == id.name)
            .map(|f| field_symbol(class, f))
    }

    fn expr(&mut self, e: &Expr) -> Option<Symbol> {
        if !contains(&e.span, self.offset) {
            return None;
        }
        match &e.kind {
            ExprKind::Int(_)
            | ExprKind::Bool(_)
            | ExprKind::Null
            | ExprKind::This
            | ExprKind::Result => None,
            ExprKind::Name(id) | ExprKind::Var(id) => {
                if contains(&id.span, self.offset) {
                    self.name(id)
                } else {
                    None
                }
            }
            ExprKind::Field { recv, field, class } => {
                if let Some(s) = self.expr(recv) {
                    return Some(s);
                }
                if contains(&field.span, self.offset) {
                    return self.field(class, &field.name);
                }
                None
            }
            ExprKind::Call(call) => self.call(call),
            ExprKind::New { class, args } => {
                if contains(&class.span, self.offset) {
                    let c = self.class_named(&class.name)?;
                    let ctor = c
                        .methods
                        .iter()
                        .find(|m| m.is_constructor && m.params.len() == args.len());
                    let ctor = ctor.or_else(|| c.methods.iter().find(|m| m.is_constructor));
                    return Some(ctor.map_or_else(|| class_symbol(c), |m| method_symbol(c, m)));
                }
                args.iter().find_map(|a| self.expr(a))
            }
            ExprKind::NewArray { elem, size } => self.ty(elem).or_else(|| self.expr(size)),
            ExprKind::Index { arr, index, .. } => self.expr(arr).or_else(|| self.expr(index)),
            ExprKind::Length(a)
            | ExprKind::Unary(_, a)
            | ExprKind::Old(a)
            | ExprKind::Acc(a)
            | ExprKind::Untouched(a)
            | ExprKind::PostStep(_, a)
            | ExprKind::PreStep(_, a)
            | ExprKind::Int32(a) => self.expr(a),
            ExprKind::Binary(_, a, b) => self.expr(a).or_else(|| self.expr(b)),
            ExprKind::Cond(c, a, b) => self
                .expr(c)
                .or_else(|| self.expr(a))
                .or_else(|| self.expr(b)),
            ExprKind::Opening(call, body) | ExprKind::Using(call, body) => {
                self.call(call).or_else(|| self.expr(body))
            }
            ExprKind::Quant(q) => q
                .vars
                .iter()
                .find_map(|v| self.ty(&v.ty))
                .or_else(|| self.expr(&q.body)),
        }
    }

    fn field(&self, class: &str, name: &str) -> Option<Symbol> {
        let by_class = self.class_named(class).and_then(|c| {
            c.fields
                .iter()
                .find(|f| f.name.name == name)
                .map(|f| field_symbol(c, f))
        });
        // Unresolved (after a type error): any field of that name.
        by_class.or_else(|| {
            self.program.classes.iter().find_map(|c| {
                c.fields
                    .iter()
                    .find(|f| f.name.name == name)
                    .map(|f| field_symbol(c, f))
            })
        })
    }

    fn call(&mut self, call: &Call) -> Option<Symbol> {
        match &call.receiver {
            Receiver::Implicit => {}
            Receiver::Expr(e) => {
                if let Some(s) = self.expr(e) {
                    return Some(s);
                }
            }
            Receiver::Class(id) => {
                if contains(&id.span, self.offset) {
                    return self.class_named(&id.name).map(class_symbol);
                }
            }
        }
        if contains(&call.name.span, self.offset) {
            let name = &call.name.name;
            if let Some(t) = &call.target {
                let c = self.class_named(&t.class)?;
                return member_named(c, name, Some(t.kind));
            }
            let current = self.program.classes.get(self.class);
            return current
                .and_then(|c| member_named(c, name, None))
                .or_else(|| {
                    self.program
                        .classes
                        .iter()
                        .find_map(|c| member_named(c, name, None))
                });
        }
        call.args.iter().find_map(|a| self.expr(a))
    }
}

fn member_named(c: &Class, name: &str, kind: Option<MemberKind>) -> Option<Symbol> {
    let methods = || {
        c.methods
            .iter()
            .filter(|m| !m.is_constructor && m.name.name == name)
    };
    let pures = || c.pures.iter().filter(|p| p.name.name == name);
    let preds = || c.predicates.iter().filter(|q| q.name.name == name);
    match kind {
        Some(MemberKind::Method) => methods().next().map(|m| method_symbol(c, m)),
        Some(MemberKind::Constructor) => c
            .methods
            .iter()
            .find(|m| m.is_constructor)
            .map(|m| method_symbol(c, m)),
        Some(MemberKind::Pure) => pures().next().map(|p| pure_symbol(c, p)),
        Some(MemberKind::Predicate) => preds().next().map(|q| predicate_symbol(c, q)),
        None => methods()
            .next()
            .map(|m| method_symbol(c, m))
            .or_else(|| pures().next().map(|p| pure_symbol(c, p)))
            .or_else(|| preds().next().map(|q| predicate_symbol(c, q))),
    }
}

fn class_symbol(c: &Class) -> Symbol {
    Symbol {
        kind: SymbolKind::Class,
        name: c.name.span.clone(),
        decl: c.span.start..c.name.span.end,
        class: String::new(),
    }
}

fn field_symbol(c: &Class, f: &Field) -> Symbol {
    Symbol {
        kind: SymbolKind::Field,
        name: f.name.span.clone(),
        decl: f.span.clone(),
        class: c.name.name.clone(),
    }
}

fn method_symbol(c: &Class, m: &Method) -> Symbol {
    Symbol {
        kind: if m.is_constructor {
            SymbolKind::Constructor
        } else {
            SymbolKind::Method
        },
        name: m.name.span.clone(),
        decl: m.span.start..m.body.span.start,
        class: c.name.name.clone(),
    }
}

fn pure_symbol(c: &Class, p: &Pure) -> Symbol {
    Symbol {
        kind: SymbolKind::Pure,
        name: p.name.span.clone(),
        decl: p.span.start..p.body.span.start,
        class: c.name.name.clone(),
    }
}

fn predicate_symbol(c: &Class, q: &Predicate) -> Symbol {
    Symbol {
        kind: SymbolKind::Predicate,
        name: q.name.span.clone(),
        decl: q.span.start..q.body.span.start,
        class: c.name.name.clone(),
    }
}

#[cfg(test)]
#[path = "definition_tests.rs"]
mod tests;
