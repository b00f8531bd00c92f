use super::*;

/// Where the declaring name of the symbol `skip` bytes into the first
/// occurrence of `at` in `src` starts.
fn target(src: &str, at: &str, skip: usize) -> Option<usize> {
    let (program, errors) = crate::lsp::worker::front(src);
    assert!(errors.is_empty(), "{errors:?}");
    let offset = src.find(at).expect("occurrence") + skip;
    symbol_at(&program.expect("checked"), offset).map(|s| s.name.start)
}

#[test]
fn a_for_variable_is_declared_in_the_header() {
    let src = "class A {
  int f;
  static int m(int n) {
    int s = 0;
    for (int i = 0; i < n; i++) invariant i >= 0; { s += i; }
    for (int i = 1; i < n; i += i) { }
    return s;
  }
}
";
    let decl = |text: &str| src.find(text).map(|p| p + text.len() - 1);
    let first = decl("for (int i");
    // The condition, the invariant, the update and the body.
    for (at, skip) in [("i < n", 0), ("i >= 0", 0), ("i++", 0), ("s += i", 5)] {
        assert_eq!(target(src, at, skip), first, "{at}");
    }
    assert_eq!(target(src, "s += i", 0), decl("int s"));
    // The second loop's `i` is its own.
    let second = decl("for (int i = 1").map(|p| p - 4);
    assert_ne!(second, first);
    assert_eq!(target(src, "i += i", 5), second);
    assert_eq!(target(src, "i += i", 0), second);
}

#[test]
fn a_bound_variable_is_declared_in_its_quantifier() {
    let src = "class A {
  static void m(int[] a, int i0)
    requires acc(a.elems) && (forall int i :: 0 <= i && i < a.length ==> a[i] > 0);
    ensures acc(a.elems) && (exists int i :: 0 <= i && i < a.length && a[i] > i0);
  { }
}
";
    let first = src.find("forall int i").map(|p| p + "forall int ".len());
    let second = src.find("exists int i").map(|p| p + "exists int ".len());
    assert_eq!(target(src, "i < a.length ==>", 0), first);
    assert_eq!(target(src, "a[i] > 0", 2), first);
    assert_eq!(target(src, "a[i] > i0", 2), second);
    assert_eq!(target(src, "i0);", 0), src.find("int i0").map(|p| p + 4));
}
