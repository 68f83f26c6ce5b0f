// generated: --family rpu --seed 5876 (reduced)
// fails: rpu fp24 chunks: mismatch (-0.2, the reference 0)
// ceil(x) is x + frac(-x); forwarding fused the product behind x into that add as a mad, which
// subtracted from the exact product: ceil(-0.76) was 2e-6 on 24-bit floats, and its ceil 1.
// accepts: fragment rpu
surface rpu_ceil_exact() {
  float a[2] = {0, ceil(u * -3.86)};
  float v = -ceil(a[1]);
  Ci = color(v) * 0.2;
}
