// reduced from generated: --family rpu --seed 933149 (rpu fp24 chunks: mismatch, -293552 where the reference had 3)
// calculatenormal of a float promoted to a point: its two differences are parallel, so the normal
// is exactly 0 in the reference. The RPU crossed them with the thesis's mul and mad, whose single
// rounding leaves the product's rounding error (times a million here). The derivatives' cross
// product now rounds both products before it subtracts them, and so do the chain rule's terms
// (Dv(u) is exactly 0, and Deriv leaves its term out).
// accepts: rpu
surface rpu_quad_parallel_normal()
{
  color v15 = (u);
  float v17 = 1;
  v17 *= (comp((trace(P, (N)) / (1)), 0) / ((((2.49)))));
  setcomp(v15, 0, ((3) - ((((calculatenormal((((v17))))) . ((0.73, 0.46, 0.48))) * 1000000))));
  Ci = (((v15)));
}
