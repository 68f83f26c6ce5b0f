// generated: --family rpu --seed 1015005 (reduced by hand)
// fails: rpu ieee chunks: mismatch (-nan, the reference -124035.57, tolerance 24.8)
// P - mix(P, P, s) is exactly zero on the RPU (its mix(a, a, t) is a) and a rounding in the
// interpreter, so normalize() of it is NaN on one and a unit vector on the other. A sum or
// difference within its operands' rounding of zero is now exactly zero in some perturbed runs.
// accepts: fragment rpu
surface rpu_difference_rounds_to_zero()
{
  vector d = normalize(vector(P - mix(P, P, s)));
  Ci = color(xcomp(d) * 0.1 + 0.5);
}
