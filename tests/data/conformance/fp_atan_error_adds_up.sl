// generated: --family fragment --seed 2008474 (reduced)
// fails: fp PC1 RDSh: mismatch (fragment 2 (s=0.253 t=0.239): 2.43468, the reference 2.43511, tolerance 0.00042)
// The fp target's atan and atan(y, x) are a polynomial within 7e-5 (Abramowitz and Stegun 4.4.45),
// which errs the same way on the same argument: sixteen atan(v, 0) * atan(v) summed add that error
// up, where the oracle drew an independent error per call (a random walk, four times smaller).
// Now in half of the perturbed runs each built-in errs by one amount on every call.
// accepts: fragment
surface fp_atan_error_adds_up()
{
  uniform float n12 = 4;
  float v19 = 2.11 + 2.31;
  float i42;
  for (i42 = 0; i42 < n12; i42 += 1) {
    float i43 = 0;
    while (i43 < n12) {
      i43 += 1;
      v19 += atan(v, 0) * atan(v);
    }
  }
  Ci = color(v19) * 0.33333334;
}
