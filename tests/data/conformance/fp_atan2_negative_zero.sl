// generated: --family fragment --seed 3000231 (reduced)
// fails: fp PC1 RDSh: mismatch (fragment 1 (s=0.626 t=0.204): 75432.8, the reference -205212)
// v10 is round(-1 / u) * 0, which is -0 in C, and atan(0, -0) is pi there; the fp target's atan2
// tests x < 0, which -0 is not, and gives 0 (so does a GPU). The branch cut's undefined region now
// takes x of -0 as well as negative x.
// accepts: fragment rpu
float fn0(float a1) {
  return round(-(1000000 / a1));
}
surface fp_atan2_negative_zero()
{
  float v10 = fn0(u * 1000000);
  v10 *= 0;
  float v20 = fn0(-atan(0, v10));
  Ci = color(v20) * 0.2;
}
