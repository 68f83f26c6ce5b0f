// generated: --family combiners --seed 531147 (reduced)
// fails: combiners geforce1 RDSh hardware: mismatch (fragment 3 (s=0.395 t=0.740): r 0.306, the reference 0.123)
// On GeForce1 the select is decomposed (its condition and arms need more texture units than a
// pass has): s > s became (s - s > 0 ? 1 : 0), and a saved difference of exactly 0 is stored as
// (0 + 1)/2, which 8 bits round up to 128/255: "0 > 0" held. Decomposed comparisons are now
// non-strict (x > y is !(y - x >= 0), the arms swapped).
// accepts: fragment combiners rpu
surface combiners_decomposed_strict_compare()
{
  color v4 = 0;
  v4 = ((((((s > s) ? ((Os)) : ((t)))))));
  Ci = (v4);
}
