// generated: --family combiners --seed 5734 (reduced)
// fails: combiners geforce3 RDSh float: mismatch (0, the reference 0.066)
// min(x, 0.5) is a MUX on x >= 1/2 between 0.5 and x: the product x was absorbed into the MUX
// as its data and was its control too, so spare0.a never held it.
// accepts: fragment combiners
surface combiners_min_control() {
  float v = 0 - min(t * comp(Cs, 1), 0.5);
  Ci = color(v) * 0.25 + color(float texture("marks", s, t) * 0.5) * 0.25;
}
