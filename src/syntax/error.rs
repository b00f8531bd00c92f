//! Turning pest's errors (and the builder's own syntax errors) into
//! rustc-style diagnostics: "expected `;`, found `}`".

use pest::error::{Error, ErrorVariant, InputLocation};

use crate::diag::{Diagnostic, Kind, line_col};
use crate::syntax::ast::Span;
use crate::syntax::habits;
use crate::syntax::parse::Rule;
use crate::syntax::scan::{prev_token_end, token_at, too_deep};

/// The diagnostic for a pest failure.
pub fn from_pest(src: &str, err: &Error<Rule>) -> Diagnostic {
    let pos = match err.location {
        InputLocation::Pos(p) => p,
        InputLocation::Span((s, _)) => s,
    };
    match &err.variant {
        ErrorVariant::ParsingError { positives, .. } => {
            let mut items: Vec<&'static str> = Vec::new();
            for r in positives {
                let name = rule_name(*r);
                if !items.contains(&name) {
                    items.push(name);
                }
            }
            if items.len() > 1 {
                items.retain(|n| *n != END_OF_FILE);
            }
            // `[` may follow every type and every operand: named next to
            // other tokens it is noise (`int class` wants an identifier).
            if items.len() > 1 {
                items.retain(|n| *n != BRACKET);
            }
            expected(src, pos, &items)
        }
        ErrorVariant::CustomError { message } => {
            let (span, _) = token_at(src, pos);
            if message.contains("limit") {
                too_deep(span)
            } else {
                Diagnostic::new(Kind::Parse, span, message.clone())
            }
        }
    }
}

const END_OF_FILE: &str = "end of file";
const OPERATOR: &str = "an operator";
const BRACKET: &str = "`[`";

/// How a rule is named in "expected ..." lists.
fn rule_name(rule: Rule) -> &'static str {
    use Rule::*;
    match rule {
        EOI => END_OF_FILE,
        ident => "identifier",
        int_lit => "integer literal",
        semi => "`;`",
        comma => "`,`",
        dot | call_suffix | field_suffix => "`.`",
        lparen | args => "`(`",
        rparen => "`)`",
        lbrack | array_dim | index_suffix => BRACKET,
        rbrack => "`]`",
        decreases_clause | kw_decreases => "`decreases`",
        new_array_expr => "expression",
        lbrace | block => "`{`",
        rbrace => "`}`",
        assign => "`=`",
        qmark => OPERATOR,
        colon => "`:`",
        program | class_decl => "`class`",
        member | field_decl | constructor | method_decl | pure_decl | predicate_decl => {
            "class member"
        }
        params | param | ty => "type",
        stmt | if_stmt | while_stmt | assert_stmt | assume_stmt | return_stmt | open_stmt
        | close_stmt | use_stmt | join_stmt | local_stmt | simple_stmt | for_stmt | local_head
        | simple_head | for_init | for_update | do_stmt | break_stmt | continue_stmt => "statement",
        else_if | else_block => "`else`",
        requires_clause => "`requires`",
        ensures_clause => "`ensures`",
        invariant_clause => "`invariant`",
        expr | term | primary | postfix_expr | op_not | op_neg | opening_expr | using_expr
        | old_expr | acc_expr | untouched_expr | new_expr | name_expr | paren_expr | quant_expr => {
            "expression"
        }
        quant_var => "type",
        dcolon => "`::`",
        kw_forall => "`forall`",
        kw_exists => "`exists`",
        kw_seq => "`seq`",
        op_cond | op_implies | op_or | op_and | op_eq | op_ne | op_le | op_lt | op_ge | op_gt
        | op_add | op_sub | op_mul | op_div | op_rem | op_incr | op_decr => OPERATOR,
        op_add_assign | op_sub_assign | op_mul_assign | op_div_assign | op_rem_assign => "`=`",
        kw_class => "`class`",
        kw_static => "`static`",
        kw_void => "`void`",
        kw_int => "`int`",
        kw_bool => "`bool`",
        kw_pure => "`pure`",
        kw_predicate => "`predicate`",
        kw_requires => "`requires`",
        kw_ensures => "`ensures`",
        kw_invariant => "`invariant`",
        kw_return => "`return`",
        kw_if => "`if`",
        kw_else => "`else`",
        kw_while => "`while`",
        kw_new => "`new`",
        kw_null => "`null`",
        kw_this => "`this`",
        kw_result => "`result`",
        kw_true => "`true`",
        kw_false => "`false`",
        kw_acc => "`acc`",
        kw_old => "`old`",
        kw_untouched => "`untouched`",
        kw_opening => "`opening`",
        kw_using => "`using`",
        kw_in => "`in`",
        kw_open => "`open`",
        kw_close => "`close`",
        kw_use => "`use`",
        kw_assert => "`assert`",
        kw_assume => "`assume`",
        kw_join => "`join`",
        kw_for => "`for`",
        kw_do => "`do`",
        kw_break => "`break`",
        kw_continue => "`continue`",
        kw_object => "`Object`",
        _ => "something else",
    }
}

/// Joins names rustc-style: "`;`", "`;` or `}`", "one of `(`, `;`, or an operator".
pub fn list(items: &[&str]) -> String {
    let mut sorted: Vec<&str> = items.to_vec();
    sorted.sort_by_key(|s| {
        let rank = if s.starts_with('`') {
            0
        } else if *s == OPERATOR {
            2
        } else {
            1
        };
        (rank, *s)
    });
    sorted.dedup();
    match sorted.as_slice() {
        [] => "something else".to_string(),
        [one] => one.to_string(),
        [a, b] => format!("{a} or {b}"),
        [init @ .., last] => format!("one of {}, or {last}", init.join(", ")),
    }
}

/// "expected {items}, found {token at pos}", with help where a fix is obvious.
pub fn expected(src: &str, pos: usize, items: &[&str]) -> Diagnostic {
    let (span, found) = token_at(src, pos);
    let wanted = list(items);
    if let Some(d) = habits::java_habit(src, pos, &found, &wanted) {
        return d;
    }
    if items.is_empty() {
        return Diagnostic::new(Kind::Parse, span, format!("unexpected {found}"))
            .with_label("unexpected token");
    }
    // A `;` that was forgotten at the end of a line.
    if items.contains(&"`;`")
        && let Some(prev) = prev_token_end(src, pos)
        && src
            .get(prev..span.start)
            .is_some_and(|gap| gap.contains(['\n', '\r']))
    {
        let (line, _) = line_col(src, prev);
        return Diagnostic::new(Kind::Parse, span, format!("expected `;`, found {found}"))
            .with_label("unexpected token")
            .with_related(prev..prev, "expected `;` here")
            .with_help(format!("add `;` at the end of line {line}"));
    }
    // Before a closing brace, only a forgotten `;` makes sense.
    if items.contains(&"`;`") && (found == "`}`" || found == END_OF_FILE) {
        return Diagnostic::new(Kind::Parse, span, format!("expected `;`, found {found}"))
            .with_label("expected `;`");
    }
    let mut d = Diagnostic::new(
        Kind::Parse,
        span,
        format!("expected {wanted}, found {found}"),
    )
    .with_label(format!("expected {wanted}"));
    if items.contains(&"`=`") && items.contains(&"`;`") && !found.starts_with("keyword") {
        d = d.with_help(
            "a statement is a declaration `T x = e;`, an assignment `x = e;` or a call `e.m(args);`",
        );
    } else if found.starts_with("keyword") && items.contains(&"identifier") {
        let word = found.trim_start_matches("keyword ");
        d = d.with_help(format!(
            "{word} is a reserved word and cannot be used as a name"
        ));
    }
    d
}

/// A syntax error found by the tree builder at the token starting at `pos`.
pub fn at_token(src: &str, pos: usize, wanted: &str, help: &str) -> Box<Diagnostic> {
    let (span, found) = token_at(src, pos);
    Box::new(
        Diagnostic::new(
            Kind::Parse,
            span,
            format!("expected {wanted}, found {found}"),
        )
        .with_label(format!("expected {wanted}"))
        .with_help(help.to_string()),
    )
}

/// The builder's error for a broken invariant of the grammar (a bug).
pub fn internal(span: Span) -> Box<Diagnostic> {
    Box::new(
        Diagnostic::new(Kind::Internal, span, "internal parser error")
            .with_label("the parser could not handle this"),
    )
}
