// generated: --family rpu --seed 1003347 (reduced by hand)
// fails: rpu fp24 chunks: mismatch (-1.94977, the reference -1.95150, tolerance 0.00094)
// I ^ I is exactly zero in the interpreter, but a fused multiply-add leaves one product's rounding
// on 24-bit floats; the perturbation of a cross or dot product was relative to its result (zero)
// and is now relative to its terms, |a| |b|.
// accepts: fragment rpu
surface rpu_cross_cancels()
{
  float g = log(abs((-P) . point(I ^ I)) + 0.1);
  Ci = color(g) * 0.5;
}
