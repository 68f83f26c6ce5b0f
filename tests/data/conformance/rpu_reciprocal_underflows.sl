// generated: --family rpu --seed 3001205 (reduced)
// fails: rpu fp24 chunks: mismatch (pixel (0, 7): 0, the reference 1.98340416, tolerance 0.00456)
// v14 reaches about 1e19 and is divided by mix(u, t, v14), about half of it: the quotient is near 2,
// but the RPU divides by a reciprocal, and 1 / 5e18 is below the 2^-62 where 24-bit floats end, so
// it is 0. A division whose divisor's reciprocal leaves the format's range is now undefined there.
// accepts: fragment rpu
surface rpu_reciprocal_underflows()
{
  float v14 = 0 - (0.09 - xcomp(P) * 1000000);
  v14 *= v14 * ((0 / 1.21) + 0.74);
  v14 *= comp((0 / s) + color(1000000), 0);
  v14 /= mix(u, t, v14);
  Ci = color(v14);
}
