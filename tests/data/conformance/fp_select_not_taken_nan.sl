// generated: --family fragment --seed 2006380 (reduced by the tester)
// fails: fp PC1 RDSh: mismatch (fragment 1, channel a: NaN, the reference 1)
// The fragment program selected with LRP, c * a + (1 - c) * b, which lets a NaN or infinity of
// the side not taken through (0 * NaN), and packed (Ci, Oi) with LRP too, which let Ci's unused
// fourth lane into alpha. Both are CMP now.
// accepts: fragment
surface fp_select_not_taken_nan()
{
  float v13 = (0 - (v));
  {
    if (mix(N, N, u) == ((1.13) ? Ng : N)) {
      v13 -= (1 * (v13));
    }
  }
  float v28 = ((((((u / ((s))))) + sqrt((v13)))));
  Ci = (color(v28) * 0.33333334);
}
