//! Building the inputs of a run: from literal arguments (`sift run`), or
//! from the values of a solver model (`sift test`, replayed
//! counterexamples).

use std::collections::{BTreeMap, HashMap};

use super::exec::default_value;
use super::{Heap, Inputs, Value};
use crate::symbolic::program::{MethodInfo, ProgramInfo};
use crate::syntax::ast::{OBJECT, TypeKind};

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
    t.to_string()
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
/// (`object#k`, qualified field, value). Objects get the type that what
/// refers to them says (a class, or an array type); fields the model does
/// not mention keep their defaults. An array's length is its `[].length`
/// and its elements the `[]#k/Sort` entries of its element type
/// (`symbolic::array::input_terms`).
pub fn from_model(
    prog: &ProgramInfo,
    mi: &MethodInfo,
    entry: &HashMap<String, String>,
    fields: &[(String, String, String)],
) -> Result<Inputs, String> {
    let types = object_types(prog, mi, entry, fields);
    let mut heap = Heap::default();
    let mut ids: HashMap<String, usize> = HashMap::new();
    for (k, ty) in &types {
        let o = match ty {
            TypeKind::Array(elem) => {
                let n = fields
                    .iter()
                    .find(|(obj, f, _)| obj == k && f == super::array::LENGTH)
                    .and_then(|(_, _, v)| v.parse::<i128>().ok())
                    .unwrap_or(0)
                    .max(0);
                if n > super::array::MAX_LENGTH {
                    return Err(format!(
                        "an input array of {n} elements is too large to run"
                    ));
                }
                super::array::alloc(&mut heap, elem, n)
            }
            TypeKind::Class(c) => fresh_object(prog, &mut heap, c),
            _ => continue,
        };
        ids.insert(k.clone(), o);
    }
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
        if field == super::array::LENGTH {
            continue;
        }
        if let Some((k, sort)) = element_field(field) {
            let Some(TypeKind::Array(elem)) = types.get(obj) else {
                continue;
            };
            let len = super::array::length_of(&heap, o).unwrap_or(0);
            // An element the model makes an object of another type (the
            // solver's references are untyped) keeps its default.
            let typed = match parse_model_value(v) {
                Some(ModelValue::Object(r)) => types.get(&r) == Some(&**elem),
                _ => true,
            };
            if k < len && sort == sort_name(elem) && typed {
                let v = value(v)?;
                heap.set(&(o, super::array::elem_field(k)), v);
            }
            continue;
        }
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

/// `[]#k/Sort`: the index and sort name of an array element entry.
fn element_field(field: &str) -> Option<(i128, &str)> {
    let rest = field.strip_prefix("[]#")?;
    let (k, sort) = rest.split_once('/')?;
    Some((k.parse().ok()?, sort))
}

/// The solver's sort name of a type's values (`Sort::name`).
fn sort_name(t: &TypeKind) -> &'static str {
    match t {
        TypeKind::Int => "Int",
        TypeKind::Bool => "Bool",
        TypeKind::Class(_) | TypeKind::Array(_) => "Ref",
    }
}

/// The type of every object of a model (`object#k`), from what refers to
/// it: `this`, parameters, fields, array elements (an array's elements are
/// typed once the array is, so this repeats until nothing changes).
fn object_types(
    prog: &ProgramInfo,
    mi: &MethodInfo,
    entry: &HashMap<String, String>,
    fields: &[(String, String, String)],
) -> BTreeMap<String, TypeKind> {
    let mut types: BTreeMap<String, TypeKind> = BTreeMap::new();
    let note = |types: &mut BTreeMap<String, TypeKind>, v: &str, ty: &TypeKind| -> bool {
        let is_object = |t: &TypeKind| matches!(t, TypeKind::Class(c) if c == OBJECT);
        match (parse_model_value(v), ty) {
            (Some(ModelValue::Object(k)), TypeKind::Class(_) | TypeKind::Array(_)) => {
                // `Object` says the least: any other type wins over it.
                match types.get(&k) {
                    Some(known) if !is_object(known) || is_object(ty) => false,
                    _ => {
                        types.insert(k, ty.clone());
                        true
                    }
                }
            }
            _ => false,
        }
    };
    if !mi.decl.is_static
        && let Some(v) = entry.get("this")
    {
        note(&mut types, v, &TypeKind::Class(mi.class.clone()));
    }
    for p in &mi.decl.params {
        if let Some(v) = entry.get(&p.name.name) {
            note(&mut types, v, &p.ty.kind);
        }
    }
    // Each round types at least one more object, or stops.
    for _ in 0..=fields.len() {
        let mut changed = false;
        for (obj, field, value) in fields {
            if let Some((_, sort)) = element_field(field) {
                if let Some(TypeKind::Array(elem)) = types.get(obj).cloned()
                    && sort == "Ref"
                {
                    changed |= note(&mut types, value, &elem);
                }
                continue;
            }
            if field == super::array::LENGTH {
                continue;
            }
            let class = field.split('.').next().unwrap_or("");
            changed |= note(&mut types, obj, &TypeKind::Class(class.to_string()));
            if let Some((_, _, ty)) = prog.class_fields(class).iter().find(|(f, _, _)| f == field) {
                changed |= note(&mut types, value, ty);
            }
        }
        if !changed {
            break;
        }
    }
    types
}
