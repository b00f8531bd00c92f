//! The call graph of the pure methods and its cycles, for the termination
//! check (docs/language.md section 7).
//!
//! A pure method `p` reaches `q` when `q` is called in `p`'s precondition,
//! measure or body (also through `using`), or in the body of a predicate
//! `p` mentions (an instance, an `opening`), or further on from those:
//! everything the check of `p`'s body can evaluate in `p`'s name (a
//! callee's precondition and measure, the body of an instance it opens,
//! explicitly or by inference) is reached that way. Predicates are nodes
//! too, so that a predicate body's calls count for every method that
//! mentions the predicate.
//!
//! The components (strongly connected sets) are numbered callees first: a
//! method only reaches methods of its own component or of one with a
//! smaller number. A call that leaves its caller's component therefore
//! goes down, and can never come back.

use std::collections::HashMap;

use crate::syntax::ast::*;
use crate::syntax::walk;

/// A pure method or a predicate, by its class and name.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Node {
    Pure(String, String),
    Pred(String, String),
}

/// The components of the call graph of a program's pure methods.
#[derive(Default)]
pub struct CallGraph {
    /// The component of each pure method, by its function name `C.p`.
    component: HashMap<String, usize>,
    /// Per component, its pure methods (function names, source order).
    members: Vec<Vec<String>>,
    /// Per component, its pure methods without a `decreases` measure.
    unmeasured: Vec<Vec<String>>,
    /// The pure methods whose measure calls back into their own component,
    /// with the first such call.
    cyclic_measure: HashMap<String, Span>,
}

impl CallGraph {
    pub fn new(program: &Program) -> CallGraph {
        let mut nodes: Vec<Node> = Vec::new();
        let mut index: HashMap<Node, usize> = HashMap::new();
        let mut add = |n: Node, nodes: &mut Vec<Node>| {
            *index.entry(n.clone()).or_insert_with(|| {
                nodes.push(n);
                nodes.len() - 1
            })
        };
        // Edges are filled after every node has its number.
        let mut pending: Vec<(usize, Vec<Node>)> = Vec::new();
        let mut measures: Vec<(String, Vec<(Node, Span)>)> = Vec::new();
        for class in &program.classes {
            let c = &class.name.name;
            for p in &class.pures {
                let me = add(Node::Pure(c.clone(), p.name.name.clone()), &mut nodes);
                let mut out = Vec::new();
                for e in p.requires.iter().chain(p.decreases.iter()) {
                    mentions(e, &mut out);
                }
                mentions(&p.body, &mut out);
                pending.push((me, out.into_iter().map(|(n, _)| n).collect()));
                if let Some(m) = &p.decreases {
                    let mut calls = Vec::new();
                    mentions(m, &mut calls);
                    measures.push((format!("{c}.{}", p.name.name), calls));
                }
            }
            for q in &class.predicates {
                let me = add(Node::Pred(c.clone(), q.name.name.clone()), &mut nodes);
                let mut out = Vec::new();
                mentions(&q.body, &mut out);
                pending.push((me, out.into_iter().map(|(n, _)| n).collect()));
            }
        }
        let mut edges: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
        for (from, to) in pending {
            // A name the checker did not resolve to a member has no node:
            // nothing can be evaluated through it.
            edges[from].extend(to.iter().filter_map(|n| index.get(n).copied()));
        }
        let numbers = components(&edges);

        let mut graph = CallGraph::default();
        let count = numbers.iter().copied().max().map_or(0, |n| n + 1);
        graph.members = vec![Vec::new(); count];
        graph.unmeasured = vec![Vec::new(); count];
        let mut measured: HashMap<String, bool> = HashMap::new();
        for class in &program.classes {
            for p in &class.pures {
                measured.insert(
                    format!("{}.{}", class.name.name, p.name.name),
                    p.decreases.is_some(),
                );
            }
        }
        for (i, n) in nodes.iter().enumerate() {
            if let Node::Pure(c, p) = n {
                let fun = format!("{c}.{p}");
                let k = numbers[i];
                graph.members[k].push(fun.clone());
                if !measured.get(&fun).copied().unwrap_or(false) {
                    graph.unmeasured[k].push(fun.clone());
                }
                graph.component.insert(fun, k);
            }
        }
        for (fun, calls) in measures {
            let own = graph.component.get(&fun).copied();
            let back = calls.into_iter().find(|(n, _)| {
                index
                    .get(n)
                    .is_some_and(|&i| Some(numbers[i]) == own && own.is_some())
            });
            if let Some((_, span)) = back {
                graph.cyclic_measure.insert(fun, span);
            }
        }
        graph
    }

    /// Whether `a` and `b` reach each other (a method is in its own
    /// component, whether or not it calls itself). A name without a
    /// component counts as in every one: the cautious answer.
    pub fn same_cycle(&self, a: &str, b: &str) -> bool {
        match (self.component.get(a), self.component.get(b)) {
            (Some(x), Some(y)) => x == y,
            _ => true,
        }
    }

    /// The pure methods of `fun`'s component without a measure.
    pub fn unmeasured(&self, fun: &str) -> &[String] {
        self.component
            .get(fun)
            .and_then(|&k| self.unmeasured.get(k))
            .map_or(&[], |v| v.as_slice())
    }

    /// Whether every pure method of `fun`'s component has a measure.
    pub fn measured(&self, fun: &str) -> bool {
        self.component.contains_key(fun) && self.unmeasured(fun).is_empty()
    }

    /// The pure methods of `fun`'s component, `fun` included.
    pub fn cycle_of(&self, fun: &str) -> &[String] {
        self.component
            .get(fun)
            .and_then(|&k| self.members.get(k))
            .map_or(&[], |v| v.as_slice())
    }

    /// The first call in `fun`'s measure into `fun`'s own component.
    pub fn cyclic_measure(&self, fun: &str) -> Option<&Span> {
        self.cyclic_measure.get(fun)
    }
}

/// The pure methods and predicates `e` names, with where.
fn mentions(e: &Expr, out: &mut Vec<(Node, Span)>) {
    walk::exprs(e, &mut |x| match &x.kind {
        ExprKind::Call(call) => out.extend(node_of(call)),
        ExprKind::Opening(call, _) | ExprKind::Using(call, _) => out.extend(node_of(call)),
        _ => {}
    });
}

fn node_of(call: &Call) -> Option<(Node, Span)> {
    let t = call.target.as_ref()?;
    let (c, n) = (t.class.clone(), call.name.name.clone());
    let node = match t.kind {
        MemberKind::Pure => Node::Pure(c, n),
        MemberKind::Predicate => Node::Pred(c, n),
        MemberKind::Method | MemberKind::Constructor => return None,
    };
    Some((node, call.span.clone()))
}

/// The strongly connected components of a graph (Tarjan's algorithm,
/// without recursion: a program may chain thousands of methods), numbered
/// in the order they are completed, so every edge goes to a component with
/// the same or a smaller number.
fn components(edges: &[Vec<usize>]) -> Vec<usize> {
    const UNSEEN: usize = usize::MAX;
    let n = edges.len();
    let mut order = vec![UNSEEN; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    let mut number = vec![UNSEEN; n];
    let mut next_order = 0;
    let mut next_number = 0;
    for root in 0..n {
        if order[root] != UNSEEN {
            continue;
        }
        // (node, index of the next edge to follow)
        let mut work: Vec<(usize, usize)> = vec![(root, 0)];
        order[root] = next_order;
        low[root] = next_order;
        next_order += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut i)) = work.last_mut() {
            if let Some(&w) = edges[v].get(*i) {
                *i += 1;
                if order[w] == UNSEEN {
                    order[w] = next_order;
                    low[w] = next_order;
                    next_order += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(order[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(u, _)) = work.last() {
                low[u] = low[u].min(low[v]);
            }
            if low[v] == order[v] {
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    number[w] = next_number;
                    if w == v {
                        break;
                    }
                }
                next_number += 1;
            }
        }
    }
    number
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(src: &str) -> CallGraph {
        let mut program = crate::syntax::parse(src).expect("parses");
        let errors = crate::check::check(&mut program);
        assert!(errors.is_empty(), "{errors:?}");
        CallGraph::new(&program)
    }

    #[test]
    fn components_number_callees_first() {
        // 0 -> 1 -> 2 -> 1, 2 -> 3
        let edges = vec![vec![1], vec![2], vec![1, 3], vec![]];
        let n = components(&edges);
        assert_eq!(n[1], n[2]);
        assert!(n[3] < n[1] && n[1] < n[0]);
        assert_ne!(n[0], n[1]);
    }

    #[test]
    fn a_long_chain_needs_no_deep_stack() {
        let edges: Vec<Vec<usize>> = (0..200_000).map(|i| vec![(i + 1) % 200_000]).collect();
        let n = components(&edges);
        assert!(n.iter().all(|&k| k == n[0]));
    }

    #[test]
    fn cycles_through_bodies_preconditions_measures_and_predicates() {
        let g = graph(
            "class A {
               int v;
               predicate p() { return acc(v) && h() >= 0; }
               static pure int f(int n) decreases n; { return n <= 0 ? 0 : g(n - 1); }
               static pure int g(int n) decreases n; { return f(n + 1); }
               static pure int k(int n) requires f(n) >= 0; { return n; }
               static pure int m(int n) decreases m(n); { return n; }
               pure int h() requires p(); { return 0; }
               static pure int e(int n) { return n; }
             }",
        );
        assert!(g.same_cycle("A.f", "A.g"));
        assert!(g.measured("A.f"));
        assert!(!g.same_cycle("A.k", "A.f"));
        assert_eq!(g.cycle_of("A.f"), ["A.f", "A.g"]);
        assert!(g.cyclic_measure("A.m").is_some());
        assert!(g.cyclic_measure("A.f").is_none());
        // h requires p, whose body calls h.
        assert_eq!(g.unmeasured("A.h"), ["A.h"]);
        assert!(!g.same_cycle("A.e", "A.f"));
        assert!(g.same_cycle("A.unknown", "A.f"));
    }
}
