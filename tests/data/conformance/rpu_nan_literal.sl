// generated: --family rpu --seed 11 (reduced)
// fails: process: hang
// sqrt of a negative constant folds to a NaN literal; forwarding's fixed point compared literals
// with ==, and NaN != NaN kept it iterating forever.
// accepts: fragment rpu
float f(float a) {
  if (a > 0) return sqrt(-3.01);
  return 0;
}
surface rpu_nan_literal() {
  Ci = f(s);
}
