// generated: --family fragment --seed 20600 (reduced)
// fails: fp PC1 single-pass render: mismatch (pixel (8, 8) NaN, the reference 0)
// The fp target's atan2(y, x) was atan(y * (1/x)): at the origin 0 * inf is NaN where C's
// atan2(0, 0) is 0. Now from the octant, min(|x|,|y|) / max(|x|,|y|) with the divisor kept off zero.
// accepts: fragment rpu
surface fp_atan2_origin()
{
  float v = atan(0, s * 0);
  Ci = color(v) * 0.5;
}
