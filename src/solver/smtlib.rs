//! SMT-LIB text for terms, for `--smt-log` (replayable with the `z3` binary).

use crate::logic::term::{ListOp, Op, Sort, Term};
use std::collections::HashMap;

/// A unique Z3 name for a variable: its display name and number.
pub fn var_name(t: &Term) -> String {
    match t.op() {
        Op::Var { id, name, .. } => format!("{name}@{id}"),
        _ => unreachable!("var_name of a non-variable"),
    }
}

pub fn quote(name: &str) -> String {
    let simple = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "_~!$^&*+-<>=?/".contains(c))
        && !name.starts_with(|c: char| c.is_ascii_digit());
    if simple {
        name.to_string()
    } else {
        format!("|{name}|")
    }
}

pub fn declare_fun(name: &str, args: &[Sort], ret: Sort) -> String {
    let args: Vec<&str> = args.iter().map(|s| s.name()).collect();
    format!(
        "(declare-fun {} ({}) {})\n",
        quote(name),
        args.join(" "),
        ret.name()
    )
}

pub fn to_smtlib(t: &Term) -> String {
    to_smtlib_in(t, &HashMap::new())
}

/// `t`, with the subterms `named` maps written as those constants (the
/// products the solver abstracts, `solver::degree`).
pub fn to_smtlib_in(t: &Term, named: &HashMap<Term, String>) -> String {
    let mut out = String::new();
    write(t, named, &mut out);
    out
}

fn write(t: &Term, named: &HashMap<Term, String>, out: &mut String) {
    if let Some(name) = named.get(t) {
        out.push_str(&quote(name));
        return;
    }
    let head = match t.op() {
        Op::Var { .. } => {
            out.push_str(&quote(&var_name(t)));
            return;
        }
        Op::Int(v) if *v < 0 => {
            out.push_str(&format!("(- {})", v.unsigned_abs()));
            return;
        }
        Op::Int(v) => {
            out.push_str(&v.to_string());
            return;
        }
        Op::BigInt(d) => {
            out.push_str(d);
            return;
        }
        Op::True => "true",
        Op::False => "false",
        Op::Null => "null",
        Op::Unit => "unit",
        Op::App(name) => {
            if t.args().is_empty() {
                out.push_str(&quote(name));
                return;
            }
            out.push('(');
            out.push_str(&quote(name));
            for a in t.args() {
                out.push(' ');
                write(a, named, out);
            }
            out.push(')');
            return;
        }
        Op::Ite => "ite",
        Op::Not => "not",
        Op::And => "and",
        Op::Or => "or",
        Op::Implies => "=>",
        Op::Eq => "=",
        Op::Add => "+",
        Op::Sub => "-",
        Op::Mul => "*",
        Op::Div => "div",
        Op::Mod => "mod",
        Op::Neg => "-",
        Op::Lt => "<",
        Op::Le => "<=",
        Op::Select => "select",
        Op::Store => "store",
        Op::ConstSeq => "(as const (Array Int Snap))",
        Op::List(ListOp::Contains) => {
            // Element containment is containment of the unit sequence.
            if let [seq, e] = t.args() {
                out.push_str("(seq.contains ");
                write(seq, named, out);
                out.push_str(" (seq.unit ");
                write(e, named, out);
                out.push_str("))");
            }
            return;
        }
        Op::List(k) => k.smtlib(),
        Op::Quant { .. } => {
            write_quant(t, named, out);
            return;
        }
    };
    if t.args().is_empty() {
        out.push_str(head);
        return;
    }
    out.push('(');
    out.push_str(head);
    for a in t.args() {
        out.push(' ');
        write(a, named, out);
    }
    out.push(')');
}

/// `(forall ((|i@3| Int)) (! body :pattern (t1 t2)))`: the bound variables
/// keep their names, which shadow the constants of the same name.
fn write_quant(t: &Term, named: &HashMap<Term, String>, out: &mut String) {
    let Some((forall, vars, body, trigger)) = t.quant_parts() else {
        return;
    };
    out.push_str(if forall { "(forall (" } else { "(exists (" });
    for (i, v) in vars.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(&format!("({} {})", quote(&var_name(v)), v.sort().name()));
    }
    out.push_str(") (! ");
    write(body, named, out);
    if !trigger.is_empty() {
        out.push_str(" :pattern (");
        for (i, p) in trigger.iter().enumerate() {
            if i > 0 {
                out.push(' ');
            }
            write(p, named, out);
        }
        out.push(')');
    }
    out.push_str("))");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logic::term::VarKind;

    #[test]
    fn prints_smtlib() {
        let x = Term::var(3, "x", Sort::Int, VarKind::Plain);
        // (x + -1 is built as x - 1; a product keeps its negative literal.)
        let t = Term::lt(Term::mul(x, Term::int(-1)), Term::int(2));
        assert_eq!(to_smtlib(&t), "(< (* |x@3| (- 1)) 2)");
        assert_eq!(quote("Cell.getX"), "|Cell.getX|");
    }
}
