// generated: --family rpu --seed 72 (reduced)
// fails: fp PC1 RDSh: mismatch (-943942, the reference -944076)
// The fp target's atan(x) was asin(x / sqrt(1 + x^2)): for large x the argument rounds to within
// an ulp of 1, where asin turns a rounding of 6e-8 into 3e-4. Now pi/2 - atan(1/x) beyond 1.
// accepts: fragment rpu
surface fp_atan_large() {
  float v = 1 - (1000000 + t);
  v *= atan(v);
  Ci = color(v) * 0.2;
}
