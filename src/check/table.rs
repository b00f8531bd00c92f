//! The class table: every class with its fields and member signatures, built
//! before any body is checked. Declaration errors (duplicate classes and
//! members, duplicate parameters, unknown types in declarations, constructor
//! names) are reported here.

use std::collections::{HashMap, HashSet};

use super::scope::suggest;
use super::types::Ty;
use super::{error, plural};
use crate::diag::Diagnostic;
use crate::syntax::ast::{Class, MemberKind, OBJECT, Param, Program, Span, Type, TypeKind};

/// The signature of a callable member (method, constructor, pure method or
/// predicate).
#[derive(Clone, Debug)]
pub struct Sig {
    pub name: String,
    pub kind: MemberKind,
    pub is_static: bool,
    pub params: Vec<Ty>,
    /// `Void` for void methods and constructors, `Bool` for predicates.
    pub ret: Ty,
}

impl Sig {
    pub fn noun(&self) -> &'static str {
        kind_noun(self.kind)
    }
}

pub fn kind_noun(kind: MemberKind) -> &'static str {
    match kind {
        MemberKind::Method => "method",
        MemberKind::Constructor => "constructor",
        MemberKind::Pure => "pure method",
        MemberKind::Predicate => "predicate",
    }
}

#[derive(Clone, Copy, Debug)]
enum MemberRef {
    Field(usize),
    Method(usize),
    Pure(usize),
    Predicate(usize),
}

/// A member found by name.
pub enum Member<'a> {
    Field,
    Callable(&'a Sig),
    /// Defined more than once (already reported): no further errors.
    Ambiguous,
}

pub struct ClassInfo {
    pub name: String,
    pub fields: Vec<(String, Ty)>,
    /// Parallel to `Class::methods` (constructors included).
    pub methods: Vec<Sig>,
    pub pures: Vec<Sig>,
    pub predicates: Vec<Sig>,
    /// The constructor used by `new`: an index into `methods`.
    pub ctor: Option<usize>,
    /// The first definition of every member name.
    members: HashMap<String, MemberRef>,
    /// Names defined more than once, with some definition a field.
    dup_fields: HashSet<String>,
    /// Names defined more than once, with some definition callable.
    dup_callables: HashSet<String>,
}

impl ClassInfo {
    /// The built-in `Object`: no fields, no members, the implicit
    /// constructor `Object()`.
    fn object() -> ClassInfo {
        ClassInfo {
            name: OBJECT.to_string(),
            fields: Vec::new(),
            methods: Vec::new(),
            pures: Vec::new(),
            predicates: Vec::new(),
            ctor: None,
            members: HashMap::new(),
            dup_fields: HashSet::new(),
            dup_callables: HashSet::new(),
        }
    }

    /// The member `name`, looked up as a callable.
    pub fn member(&self, name: &str) -> Option<Member<'_>> {
        if self.dup_callables.contains(name) {
            return Some(Member::Ambiguous);
        }
        Some(match *self.members.get(name)? {
            MemberRef::Field(_) => Member::Field,
            MemberRef::Method(i) => Member::Callable(&self.methods[i]),
            MemberRef::Pure(i) => Member::Callable(&self.pures[i]),
            MemberRef::Predicate(i) => Member::Callable(&self.predicates[i]),
        })
    }

    /// The type of field `name` (unknown if it is defined more than once).
    pub fn field(&self, name: &str) -> Option<Ty> {
        if self.dup_fields.contains(name) {
            return Some(Ty::Err);
        }
        match *self.members.get(name)? {
            MemberRef::Field(i) => Some(self.fields[i].1.clone()),
            _ => None,
        }
    }

    pub fn field_names(&self) -> impl Iterator<Item = &str> {
        self.fields.iter().map(|(n, _)| n.as_str())
    }

    pub fn callable_names(&self) -> impl Iterator<Item = &str> {
        self.members
            .iter()
            .filter(|(_, m)| !matches!(m, MemberRef::Field(_)))
            .map(|(n, _)| n.as_str())
    }
}

pub struct Table {
    /// Parallel to `Program::classes`, then the built-in `Object`.
    pub infos: Vec<ClassInfo>,
    by_name: HashMap<String, usize>,
}

impl Table {
    pub fn build(program: &Program, diags: &mut Vec<Diagnostic>) -> Table {
        let mut by_name: HashMap<String, usize> = HashMap::new();
        for (i, class) in program.classes.iter().enumerate() {
            let name = &class.name;
            if let Some(&first) = by_name.get(&name.name) {
                let prev = program.classes[first].name.span.clone();
                diags.push(
                    error(
                        name.span.clone(),
                        format!("the class `{}` is defined multiple times", name.name),
                    )
                    .with_label(format!("`{}` redefined here", name.name))
                    .with_related(prev, format!("previous definition of `{}` here", name.name))
                    .with_help("rename one of the classes"),
                );
            } else {
                by_name.insert(name.name.clone(), i);
            }
        }
        // `Object` is a reserved word: no declared class takes its name.
        by_name.insert(OBJECT.to_string(), program.classes.len());
        let mut table = Table {
            infos: Vec::new(),
            by_name,
        };
        for class in &program.classes {
            let info = table.class_info(class, diags);
            table.infos.push(info);
        }
        table.infos.push(ClassInfo::object());
        table
    }

    pub fn class_index(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
    }

    pub fn class_names(&self) -> impl Iterator<Item = &str> {
        self.by_name.keys().map(String::as_str)
    }

    /// The checker type of a declared type; reports unknown classes.
    pub fn resolve_type(&self, ty: &Type, diags: &mut Vec<Diagnostic>) -> Ty {
        self.resolve_kind(&ty.kind, &ty.span, diags)
    }

    fn resolve_kind(&self, kind: &TypeKind, span: &Span, diags: &mut Vec<Diagnostic>) -> Ty {
        match kind {
            TypeKind::Int => Ty::Int,
            TypeKind::Bool => Ty::Bool,
            TypeKind::Class(c) if self.by_name.contains_key(c) => Ty::Class(c.clone()),
            TypeKind::Class(c) => {
                diags.push(self.unknown_class(c, span.clone()));
                Ty::Err
            }
            TypeKind::Array(e) => match self.resolve_kind(e, span, diags) {
                Ty::Err => Ty::Err,
                t => Ty::Array(Box::new(t)),
            },
        }
    }

    pub fn unknown_class(&self, name: &str, span: Span) -> Diagnostic {
        let similar = suggest(name, self.class_names());
        if similar.is_none()
            && let Some(help) = java_type_help(name)
        {
            return error(span, format!("`{name}` is not a Sift type"))
                .with_label("a Java type")
                .with_help(help);
        }
        let d =
            error(span, format!("cannot find class `{name}`")).with_label("not a declared class");
        match similar {
            Some(s) => d.with_help(format!("a class with a similar name exists: `{s}`")),
            None => d,
        }
    }

    fn params(&self, params: &[Param], diags: &mut Vec<Diagnostic>) -> Vec<Ty> {
        let mut seen: HashMap<&str, &Param> = HashMap::new();
        for p in params {
            if let Some(first) = seen.get(p.name.name.as_str()) {
                diags.push(
                    error(
                        p.name.span.clone(),
                        format!(
                            "identifier `{}` is bound more than once in this parameter list",
                            p.name.name
                        ),
                    )
                    .with_label("used as parameter more than once")
                    .with_related(first.name.span.clone(), "first use here"),
                );
            } else {
                seen.insert(&p.name.name, p);
            }
        }
        params
            .iter()
            .map(|p| self.resolve_type(&p.ty, diags))
            .collect()
    }

    fn class_info(&self, class: &Class, diags: &mut Vec<Diagnostic>) -> ClassInfo {
        let cname = &class.name.name;
        let fields = class
            .fields
            .iter()
            .map(|f| (f.name.name.clone(), self.resolve_type(&f.ty, diags)))
            .collect();
        let mut ctor: Option<usize> = None;
        let mut methods = Vec::new();
        for (i, m) in class.methods.iter().enumerate() {
            let ret = match &m.ret {
                Some(t) => self.resolve_type(t, diags),
                None => Ty::Void,
            };
            let params = self.params(&m.params, diags);
            let kind = if m.is_constructor {
                MemberKind::Constructor
            } else {
                MemberKind::Method
            };
            if m.is_constructor {
                self.constructor_rules(class, i, ctor, diags);
                ctor.get_or_insert(i);
            }
            methods.push(Sig {
                name: m.name.name.clone(),
                kind,
                is_static: m.is_static && !m.is_constructor,
                params,
                ret,
            });
        }
        let pures = class
            .pures
            .iter()
            .map(|p| Sig {
                name: p.name.name.clone(),
                kind: MemberKind::Pure,
                is_static: p.is_static,
                ret: self.resolve_type(&p.ret, diags),
                params: self.params(&p.params, diags),
            })
            .collect();
        let predicates = class
            .predicates
            .iter()
            .map(|p| Sig {
                name: p.name.name.clone(),
                kind: MemberKind::Predicate,
                is_static: false,
                params: self.params(&p.params, diags),
                ret: Ty::Bool,
            })
            .collect();
        // Members in source order, so that the later duplicate is reported.
        let mut order: Vec<(&Span, &str, MemberRef)> = Vec::new();
        for (i, f) in class.fields.iter().enumerate() {
            order.push((&f.name.span, &f.name.name, MemberRef::Field(i)));
        }
        for (i, m) in class.methods.iter().enumerate() {
            if !m.is_constructor {
                order.push((&m.name.span, &m.name.name, MemberRef::Method(i)));
            }
        }
        for (i, p) in class.pures.iter().enumerate() {
            order.push((&p.name.span, &p.name.name, MemberRef::Pure(i)));
        }
        for (i, p) in class.predicates.iter().enumerate() {
            order.push((&p.name.span, &p.name.name, MemberRef::Predicate(i)));
        }
        order.sort_by_key(|(s, _, _)| s.start);
        let mut members: HashMap<String, MemberRef> = HashMap::new();
        let mut spans: HashMap<&str, &Span> = HashMap::new();
        let mut dup_fields = HashSet::new();
        let mut dup_callables = HashSet::new();
        for (span, name, r) in order {
            let Some(prev) = spans.get(name) else {
                spans.insert(name, span);
                members.insert(name.to_string(), r);
                continue;
            };
            diags.push(
                error(
                    span.clone(),
                    format!("the name `{name}` is defined multiple times in class `{cname}`"),
                )
                .with_label(format!("`{name}` redefined here"))
                .with_related(
                    (*prev).clone(),
                    format!("previous definition of `{name}` here"),
                )
                .with_help("members cannot be overloaded; rename one of them"),
            );
            for r in [r, members[name]] {
                match r {
                    MemberRef::Field(_) => dup_fields.insert(name.to_string()),
                    _ => dup_callables.insert(name.to_string()),
                };
            }
        }
        ClassInfo {
            name: cname.clone(),
            fields,
            methods,
            pures,
            predicates,
            ctor,
            members,
            dup_fields,
            dup_callables,
        }
    }

    fn constructor_rules(
        &self,
        class: &Class,
        i: usize,
        first: Option<usize>,
        diags: &mut Vec<Diagnostic>,
    ) {
        let m = &class.methods[i];
        let cname = &class.name.name;
        if m.name.name != *cname {
            diags.push(
                error(
                    m.name.span.clone(),
                    format!("constructor `{}` is not named like its class `{cname}`", m.name.name),
                )
                .with_label(format!("expected `{cname}`"))
                .with_help(format!(
                    "rename it to `{cname}`, or give it a return type (or `void`) to declare a method"
                )),
            );
        } else if let Some(f) = first {
            diags.push(
                error(
                    m.name.span.clone(),
                    format!("class `{cname}` has more than one constructor"),
                )
                .with_label("second constructor")
                .with_related(class.methods[f].name.span.clone(), "first constructor here")
                .with_help("constructors cannot be overloaded; keep one"),
            );
        }
        if m.is_static {
            diags.push(
                error(m.name.span.clone(), "a constructor cannot be `static`")
                    .with_label("constructor")
                    .with_help("remove `static`"),
            );
        }
    }
}

/// "takes 2 arguments but 1 argument was supplied"
pub fn arity_message(what: &str, expected: usize, found: usize) -> String {
    format!(
        "{what} takes {expected} argument{} but {found} argument{} supplied",
        plural(expected),
        if found == 1 { " was" } else { "s were" }
    )
}

/// What a Java programmer's type is called in Sift, if anything.
fn java_type_help(name: &str) -> Option<&'static str> {
    Some(match name {
        "boolean" | "Boolean" => "did you mean `bool`? (Sift's boolean type)",
        "long" | "short" | "byte" | "Integer" | "Long" => {
            "did you mean `int`? (Sift has one integer type: unbounded, or Java's 32-bit `int` with `--overflow`)"
        }
        "String" | "char" | "Character" => "Sift has no strings or characters",
        "double" | "float" | "Double" | "Float" => "Sift has no floating-point numbers",
        _ => return None,
    })
}
