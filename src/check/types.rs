//! The checker's types: `int`, `bool`, classes, the type of `null`, `void`
//! (a call of a method without a result) and an error type that silences
//! follow-up errors.

use std::fmt;

use crate::syntax::ast::OBJECT;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ty {
    Int,
    Bool,
    Class(String),
    /// `T[]`.
    Array(Box<Ty>),
    /// The type of the `null` literal: assignable to every class type.
    Null,
    /// The "value" of a call of a `void` method.
    Void,
    /// Unknown because of an earlier error; compatible with everything.
    Err,
}

impl Ty {
    pub fn is_err(&self) -> bool {
        matches!(self, Ty::Err)
    }

    /// A value of type `self` may be stored where `to` is expected: the
    /// same type, `null` into a class type, any class type into `Object`
    /// (array types will join them here). Nothing converts from `Object`.
    pub fn assignable_to(&self, to: &Ty) -> bool {
        match (self, to) {
            (Ty::Err, _) | (_, Ty::Err) => true,
            (Ty::Null, Ty::Class(_) | Ty::Array(_)) => true,
            (Ty::Class(_) | Ty::Array(_), Ty::Class(o)) if o == OBJECT => true,
            (a, b) => a == b && *a != Ty::Void,
        }
    }

    /// `==` and `!=` accept operands when one is assignable to the other.
    pub fn comparable(&self, other: &Ty) -> bool {
        if *self == Ty::Void || *other == Ty::Void {
            return self.is_err() || other.is_err();
        }
        self.assignable_to(other)
            || other.assignable_to(self)
            || (*self == Ty::Null && *other == Ty::Null)
    }

    /// The type of `c ? a : b` with branches of types `self` and `other`:
    /// the one the other converts to (`Object` for two different classes,
    /// as Java's least upper bound would be here).
    pub fn join(&self, other: &Ty) -> Option<Ty> {
        match (self, other) {
            (Ty::Err, _) | (_, Ty::Err) => Some(Ty::Err),
            (Ty::Void, _) | (_, Ty::Void) => None,
            _ if self.assignable_to(other) => Some(other.clone()),
            _ if other.assignable_to(self) => Some(self.clone()),
            (Ty::Class(_) | Ty::Array(_), Ty::Class(_) | Ty::Array(_)) => {
                Some(Ty::Class(OBJECT.to_string()))
            }
            _ => None,
        }
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Int => f.write_str("int"),
            Ty::Bool => f.write_str("bool"),
            Ty::Class(c) => f.write_str(c),
            Ty::Array(e) => write!(f, "{e}[]"),
            Ty::Null => f.write_str("null"),
            Ty::Void => f.write_str("void"),
            Ty::Err => f.write_str("{unknown}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn null_fits_classes_only() {
        let c = Ty::Class("C".into());
        assert!(Ty::Null.assignable_to(&c));
        assert!(!Ty::Null.assignable_to(&Ty::Int));
        assert!(!c.assignable_to(&Ty::Null));
        assert!(Ty::Null.comparable(&c) && c.comparable(&Ty::Null));
        assert!(Ty::Null.comparable(&Ty::Null));
        assert!(!Ty::Int.comparable(&Ty::Bool));
        assert!(!Ty::Class("D".into()).comparable(&c));
        assert_eq!(Ty::Null.join(&c), Some(c.clone()));
        assert_eq!(Ty::Int.join(&Ty::Bool), None);
        assert!(!Ty::Void.assignable_to(&Ty::Void));
    }

    #[test]
    fn classes_convert_to_object_and_nothing_back() {
        let c = Ty::Class("C".into());
        let d = Ty::Class("D".into());
        let o = Ty::Class(OBJECT.into());
        assert!(c.assignable_to(&o) && Ty::Null.assignable_to(&o) && o.assignable_to(&o));
        assert!(!o.assignable_to(&c) && !Ty::Int.assignable_to(&o) && !o.assignable_to(&Ty::Bool));
        assert!(o.comparable(&c) && c.comparable(&o) && !o.comparable(&Ty::Int));
        assert_eq!(c.join(&d), Some(o.clone()));
        assert_eq!(c.join(&o), Some(o.clone()));
        assert_eq!(o.join(&Ty::Null), Some(o.clone()));
        assert_eq!(o.join(&Ty::Int), None);
        assert_eq!(Ty::Null.join(&Ty::Null), Some(Ty::Null));
    }
}
