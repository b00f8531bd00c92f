//! Building the inputs of a run: from literal arguments (`sift run`), or
//! from the values of a solver model (`sift test`, replayed
//! counterexamples).

use std::collections::{BTreeMap, HashMap};

use super::exec::default_value;
use super::{Heap, Inputs, Value};
use crate::symbolic::program::{MethodInfo, ProgramInfo};
use crate::syntax::ast::TypeKind;

/// A literal argument of type `ty`: `3`, `-2`, `true`, `null`.
pub fn parse_literal(text: &str, ty: &TypeKind) -> Result<Value, String> {
    let t = text.trim();
    match ty {
        TypeKind::Int => t
            .parse::<i128>()
            .map(Value::Int)
            .map_err(|_| format!("`{text}` is not an integer")),
        TypeKind::Bool => match t {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            _ => Err(format!("`{text}` is not a bool (`true` or `false`)")),
        },
        TypeKind::Class(_) | TypeKind::Array(_) => match t {
            "null" => Ok(Value::Null),
            _ => Err(format!(
                "`{text}` is not a `{}`: objects cannot be given on the command line, only `null`",
                type_name(ty)
            )),
        },
    }
}

/// A fresh object of `class` with default field values.
pub fn fresh_object(prog: &ProgramInfo, heap: &mut Heap, class: &str) -> usize {
    let fields = prog
        .class_fields(class)
        .iter()
        .map(|(f, _, ty)| (f.clone(), default_value(ty)))
        .collect();
    heap.alloc(class, fields)
}

/// Inputs from literal arguments; an instance method runs on a fresh
/// object of its class with default field values.
pub fn from_literals(
    prog: &ProgramInfo,
    mi: &MethodInfo,
    args: &[String],
) -> Result<Inputs, String> {
    let params = &mi.decl.params;
    let name = format!("{}.{}", mi.class, mi.decl.name.name);
    if args.len() != params.len() {
        let list: Vec<String> = params
            .iter()
            .map(|p| format!("{} {}", type_name(&p.ty.kind), p.name.name))
            .collect();
        return Err(format!(
            "`{name}` takes {} argument{} ({}), {} given",
            params.len(),
            if params.len() == 1 { "" } else { "s" },
            list.join(", "),
            args.len()
        ));
    }
    let mut inputs = Inputs::default();
    for (p, a) in params.iter().zip(args) {
        let v = parse_literal(a, &p.ty.kind)
            .map_err(|e| format!("argument `{}` of `{name}`: {e}", p.name.name))?;
        inputs.args.push(v);
    }
    if !mi.decl.is_static {
        let o = fresh_object(prog, &mut inputs.heap, &mi.class);
        inputs.this = Some(Value::Ref(o));
    }
    Ok(inputs)
}

pub fn type_name(t: &TypeKind) -> String {
    match t {
        TypeKind::Int => "int".into(),
        TypeKind::Bool => "bool".into(),
        TypeKind::Class(c) => c.clone(),
        TypeKind::Array(e) => format!("{}[]", type_name(e)),
    }
}

/// A value from a model as the solver module prints it: an integer, a
/// boolean, `null` or `object#k` (objects numbered per model).
pub enum ModelValue {
    Plain(Value),
    Object(String),
}

pub fn parse_model_value(text: &str) -> Option<ModelValue> {
    match text {
        "true" => Some(ModelValue::Plain(Value::Bool(true))),
        "false" => Some(ModelValue::Plain(Value::Bool(false))),
        "null" => Some(ModelValue::Plain(Value::Null)),
        t if t.starts_with("object#") => Some(ModelValue::Object(t.to_string())),
        t => t
            .parse::<i128>()
            .ok()
            .map(|n| ModelValue::Plain(Value::Int(n))),
    }
}

/// Builds inputs from a model: `entry` gives the values of `this` and the
/// parameters on entry; `fields` the values of fields of objects
/// (`object#k`, qualified field, value). Objects get the class the type of
/// what refers to them says; fields the model does not mention keep their
/// defaults.
pub fn from_model(
    prog: &ProgramInfo,
    mi: &MethodInfo,
    entry: &HashMap<String, String>,
    fields: &[(String, String, String)],
) -> Result<Inputs, String> {
    // A model says nothing usable about an array's contents here (its
    // elements are one chunk): such inputs are not built, rather than
    // built wrong.
    if let Some(p) = mi
        .decl
        .params
        .iter()
        .find(|p| matches!(p.ty.kind, TypeKind::Array(_)))
    {
        return Err(format!(
            "parameter `{}` is an array: runs from a model do not support array inputs yet",
            p.name.name
        ));
    }
    let mut classes: BTreeMap<String, String> = BTreeMap::new();
    let mut note = |v: &str, ty: &TypeKind| {
        if let (Some(ModelValue::Object(k)), TypeKind::Class(c)) = (parse_model_value(v), ty) {
            classes.entry(k).or_insert_with(|| c.clone());
        }
    };
    if !mi.decl.is_static
        && let Some(v) = entry.get("this")
    {
        note(v, &TypeKind::Class(mi.class.clone()));
    }
    for p in &mi.decl.params {
        if let Some(v) = entry.get(&p.name.name) {
            note(v, &p.ty.kind);
        }
    }
    for (obj, field, value) in fields {
        let class = field.split('.').next().unwrap_or("");
        note(obj, &TypeKind::Class(class.to_string()));
        if let Some((_, _, ty)) = prog.class_fields(class).iter().find(|(f, _, _)| f == field) {
            note(value, ty);
        }
    }
    let mut heap = Heap::default();
    let ids: HashMap<String, usize> = classes
        .iter()
        .map(|(k, c)| (k.clone(), fresh_object(prog, &mut heap, c)))
        .collect();
    let value = |text: &str| -> Result<Value, String> {
        match parse_model_value(text) {
            Some(ModelValue::Plain(v)) => Ok(v),
            Some(ModelValue::Object(k)) => ids
                .get(&k)
                .map(|o| Value::Ref(*o))
                .ok_or_else(|| format!("no object for `{k}`")),
            None => Err(format!("cannot use the model value `{text}`")),
        }
    };
    for (obj, field, v) in fields {
        let Value::Ref(o) = value(obj)? else { continue };
        let v = value(v)?;
        heap.set(&(o, field.clone()), v);
    }
    let mut inputs = Inputs {
        heap,
        ..Inputs::default()
    };
    if !mi.decl.is_static {
        let this = match entry.get("this") {
            Some(v) => value(v)?,
            None => Value::Ref(fresh_object(prog, &mut inputs.heap, &mi.class)),
        };
        inputs.this = Some(this);
    }
    for p in &mi.decl.params {
        let v = match entry.get(&p.name.name) {
            Some(v) => value(v)?,
            None => default_value(&p.ty.kind),
        };
        inputs.args.push(v);
    }
    Ok(inputs)
}
