; The snapshot theory (paper section 3.2.2), loaded into every Z3 context.
;
; A snapshot stands for the values of a part of the heap: `unit` for none,
; a wrapped value for one location, `combine` for the union of two parts.
; Pure methods are functions of the snapshot of their precondition, so they
; keep their value while that part of the heap is unchanged.
;
; Both inverse laws hold for Int and Ref: Snap, Int and Ref can all be
; countably infinite, so the laws are consistent with each other and with
; `combine` being injective. For Bool only toBool(fromBool(b)) = b is stated:
; fromBool(toBool(s)) = s for every s would make Snap have two elements, and
; with the Int laws the theory would be inconsistent (and prove anything).
; The verifier still rewrites fromBool(toBool(s)) to s syntactically: that
; replaces a snapshot by another that holds the same value, which pure
; methods (functions of heap values) cannot tell apart.

(declare-sort Snap 0)
(declare-sort Ref 0)
(declare-const null Ref)
(declare-const unit Snap)

(declare-fun combine (Snap Snap) Snap)
(declare-fun first (Snap) Snap)
(declare-fun second (Snap) Snap)
(assert (forall ((l Snap) (r Snap)) (! (= (first (combine l r)) l) :pattern ((combine l r)))))
(assert (forall ((l Snap) (r Snap)) (! (= (second (combine l r)) r) :pattern ((combine l r)))))
; Surjective pairing: every snapshot is the combination of its two halves.
; Opening an instance splits its snapshot s into first(s) and second(s);
; closing it again unchanged combines them, and this law makes the result s
; itself, so pure methods over the instance keep their values (docs/language.md
; section 4). Consistent: with the laws below Snap is in bijection with Int
; (fromInt, toInt), so it is countably infinite and a bijection between
; Snap and Snap x Snap exists (Cantor's pairing); combine is that bijection,
; first and second its inverse's components. The pattern needs both halves
; of the same s, so the law only fires for opened instances and cannot
; feed itself.
(assert (forall ((s Snap)) (! (= (combine (first s) (second s)) s) :pattern ((first s) (second s)))))

(declare-fun fromRef (Ref) Snap)
(declare-fun toRef (Snap) Ref)
(assert (forall ((v Ref)) (! (= (toRef (fromRef v)) v) :pattern ((fromRef v)))))
(assert (forall ((s Snap)) (! (= (fromRef (toRef s)) s) :pattern ((toRef s)))))

(declare-fun fromInt (Int) Snap)
(declare-fun toInt (Snap) Int)
(assert (forall ((v Int)) (! (= (toInt (fromInt v)) v) :pattern ((fromInt v)))))
(assert (forall ((s Snap)) (! (= (fromInt (toInt s)) s) :pattern ((toInt s)))))

(declare-fun fromBool (Bool) Snap)
(declare-fun toBool (Snap) Bool)
(assert (forall ((v Bool)) (! (= (toBool (fromBool v)) v) :pattern ((fromBool v)))))

; The elements of an array (the snapshot of `acc(a.elems)`) are Z3's
; array theory, `(Array Int Snap)` with each element wrapped as a snapshot,
; so one sort serves every element type. Chosen over Z3's sequences because
; arrays are a decided theory in every Z3 version (read over write, and
; extensionality: two element sequences that agree everywhere are equal, so
; `untouched(acc(a.elems))` holds after writing back what was read), while
; sequence support in Z3 4.8 is incomplete and slow; the length needs no
; sequence either, it is a function of the array reference (below).
; As for Bool, only toSeq(fromSeq(a)) = a is stated (fromSeq is injective):
; the theory of arrays has countable models (arrays equal to a constant
; outside finitely many indices are closed under store and const), so an
; injection into Snap, which is countably infinite, is consistent with the
; laws above. The verifier rewrites fromSeq(toSeq(s)) to s syntactically,
; which again only replaces a snapshot by one holding the same value.
(declare-fun fromSeq ((Array Int Snap)) Snap)
(declare-fun toSeq (Snap) (Array Int Snap))
(assert (forall ((a (Array Int Snap))) (! (= (toSeq (fromSeq a)) a) :pattern ((fromSeq a)))))

; The length of an array is a function of the reference: immutable, read
; without permission, never negative (consistent: interpret it as 0).
(declare-fun length (Ref) Int)
(assert (forall ((r Ref)) (! (<= 0 (length r)) :pattern ((length r)))))

; A part of an assertion that holds no heap (a pure fact, a conditional's
; empty side) has the snapshot `unit` when consumed; producing one assumes
; its snapshot is `unit` (a fact on the path, not an axiom): snapshots only
; ever come from consumptions, so this excludes no heap. `unit` is just some
; element of Snap, so it adds no contradiction: every law above holds
; whichever element `unit` is.

; Objects allocated by `new` on a path get the numbers 1, 2, ...: distinct
; numbers make distinct objects without a disequality per pair.
; `null` has number 0, so allocated objects are not null either.
(declare-fun alloc (Ref) Int)
(assert (= (alloc null) 0))
