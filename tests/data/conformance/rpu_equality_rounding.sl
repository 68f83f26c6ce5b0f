// generated: --family fragment --seed 1002090 (reduced by hand)
// fails: rpu fp24 chunks: mismatch (pixel (5, 4): 0.620, the reference 0)
// normalize(N) != N holds on IEEE floats at that pixel but not on the RPU's 24-bit ones, where both
// round to the same 16 mantissa bits; and no perturbed run of the reference makes two values
// equal, so the tolerance could not show it. == and != of values a rounding apart are now
// undefined at a precision (ir::Perturbation::equality), like floor beyond the fractions.
// accepts: fragment rpu
surface rpu_equality_rounding()
{
  float g = s;
  if (normal(normalize(N)) != N) g = 0;
  Ci = color(g);
}
