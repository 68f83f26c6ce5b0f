// generated: --family rpu --seed 25 (reduced)
// fails: rpu: internal error ("mov R0., nan" does not assemble)
// A constant triple is written lane by lane, the lanes found by comparing numbers with ==: a NaN
// matched no lane, not even its own, and the move got an empty write mask.
// accepts: fragment rpu
surface rpu_nan_triple() {
  float k = -2.93;
  Ci = color(sqrt(k)) * 0.2;
}
