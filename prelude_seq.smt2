; The sequence theory (`seq<T>`, issue 23), loaded after
; `prelude.smt2` only into the contexts of programs that use sequences:
; mentioning Z3's sequence sort makes Z3 set up its sequence solver, which
; changes the search (and so the counterexamples) of every other query.

; A `seq<T>` value is Z3's sequence theory over snapshots, `(Seq Snap)`,
; each element wrapped as a snapshot as in arrays (src/logic/term/seq.rs).
; Only toList(fromList(s)) = s is stated, for the reason given for arrays:
; sequences over a countable Snap are countably many, so an injection into
; Snap is consistent with the laws of `prelude.smt2`.
(declare-fun fromList ((Seq Snap)) Snap)
(declare-fun toList (Snap) (Seq Snap))
(assert (forall ((s (Seq Snap))) (! (= (toList (fromList s)) s) :pattern ((fromList s)))))

; Element i of a sequence is `seqAt`, equal to Z3's `seq.nth`: Z3 4.8
; rewrites `seq.nth` inside its sequence theory, so a quantifier triggered
; by it is never instantiated; `seqAt` is an ordinary function and triggers
; like an array read. The two laws after its definition carry an element of
; a concatenation or a slice to the sequence it comes from, where the
; program's quantified facts about that sequence match it. Each law is a
; theorem of the sequence theory under its guard (the bounds the verifier
; proves before indexing), so none can make the theory inconsistent, and
; each instance yields only terms over smaller sequences (no matching loop).
(declare-fun seqAt ((Seq Snap) Int) Snap)
(assert (forall ((s (Seq Snap)) (i Int)) (! (= (seqAt s i) (seq.nth s i)) :pattern ((seqAt s i)))))
(assert (forall ((s (Seq Snap)) (t (Seq Snap)) (i Int))
  (! (and (=> (and (<= 0 i) (< i (seq.len s))) (= (seqAt (seq.++ s t) i) (seqAt s i)))
          (=> (and (<= (seq.len s) i) (< i (+ (seq.len s) (seq.len t))))
              (= (seqAt (seq.++ s t) i) (seqAt t (- i (seq.len s))))))
     :pattern ((seqAt (seq.++ s t) i)))))
(assert (forall ((s (Seq Snap)) (i Int) (n Int) (j Int))
  (! (=> (and (<= 0 i) (<= 0 n) (<= (+ i n) (seq.len s)) (<= 0 j) (< j n))
         (= (seqAt (seq.extract s i n) j) (seqAt s (+ i j))))
     :pattern ((seqAt (seq.extract s i n) j)))))
