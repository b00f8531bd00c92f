//! Concrete values and the concrete heap: objects with field values.

use std::collections::BTreeMap;
use std::fmt;

/// A concrete value. Integers are mathematical in the language; the
/// interpreter uses `i128` and stops with a limit error beyond it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Value {
    Int(i128),
    Bool(bool),
    Null,
    /// An object, by its index in the heap.
    Ref(usize),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(n) => write!(f, "{n}"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Null => write!(f, "null"),
            Value::Ref(o) => write!(f, "#{o}"),
        }
    }
}

/// A heap location: an object and a qualified field name (`Class.f`).
pub type Loc = (usize, String);

#[derive(Clone, Debug)]
pub struct Object {
    pub class: String,
    /// Field values by qualified name.
    pub fields: BTreeMap<String, Value>,
}

#[derive(Clone, Debug, Default)]
pub struct Heap {
    pub objects: Vec<Object>,
}

impl Heap {
    pub fn alloc(&mut self, class: &str, fields: BTreeMap<String, Value>) -> usize {
        self.objects.push(Object {
            class: class.to_string(),
            fields,
        });
        self.objects.len() - 1
    }

    pub fn get(&self, loc: &Loc) -> Option<Value> {
        self.objects.get(loc.0)?.fields.get(&loc.1).copied()
    }

    pub fn set(&mut self, loc: &Loc, v: Value) {
        if let Some(o) = self.objects.get_mut(loc.0) {
            o.fields.insert(loc.1.clone(), v);
        }
    }

    /// A value as the user reads it: objects as `Class#k`.
    pub fn show(&self, v: Value) -> String {
        match v {
            Value::Ref(o) => match self.objects.get(o) {
                Some(obj) => format!("{}#{}", obj.class, o + 1),
                None => format!("#{}", o + 1),
            },
            other => other.to_string(),
        }
    }

    /// Every object with its fields, one line each: `Node#1 {val: 3, next: null}`.
    pub fn render(&self) -> Vec<String> {
        (0..self.objects.len())
            .map(|o| {
                if let Some(elems) = super::array::contents(self, o) {
                    let shown: Vec<String> = elems.iter().map(|v| self.show(*v)).collect();
                    return format!("{} [{}]", self.show(Value::Ref(o)), shown.join(", "));
                }
                let obj = &self.objects[o];
                let fields: Vec<String> = obj
                    .fields
                    .iter()
                    .map(|(f, v)| format!("{}: {}", short(f), self.show(*v)))
                    .collect();
                format!("{} {{{}}}", self.show(Value::Ref(o)), fields.join(", "))
            })
            .collect()
    }
}

/// `f` of a qualified `Class.f`.
pub fn short(qualified: &str) -> &str {
    qualified.rsplit('.').next().unwrap_or(qualified)
}
