// generated: --family fragment --seed 2009435 (reduced by the tester)
// fails: fp PC1 single-pass render: mismatch (0.191708, the reference 0, tolerance 1e-05)
// round(-0.3) is -0 in the interpreter (C's round) and +0 on the fp target (floor(x + 0.5)), and
// atan(y, x) with y zero and x negative is -pi or pi by that sign: on its branch cut it is now
// undefined.
// accepts: fragment
void fn0(float a1; color a2; output float a3) {
  a3 = round(((2.92) * 1e-06 + a1));
}
surface fp_atan2_branch_cut()
{
  float v16 = v;
  fn0(((((v) - 1)) + 0), 0, v16);
  float v17 = ((((v * (3.59))) + atan(v16, (-0.37))) * u);
  Ci = ((color(v17) * 0.33333334));
}
