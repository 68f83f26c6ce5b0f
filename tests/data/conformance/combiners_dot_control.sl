// generated: --family combiners --seed 5089 (reduced)
// fails: combiners geforce3 RDSh float: mismatch (0.61, the reference 0.51)
// A MUX on a dot product (n . n >= 1/2): the dot product is written in rgb, and its control,
// BLUE of it, had to be moved into spare0.a; the MUX read an alpha nothing wrote.
// accepts: fragment combiners
surface combiners_dot_control() {
  float v = min(normalize(I) . normalize(I), 0.5);
  color w = ((v > 0) ? s : Cs) * (Cs + color texture("stripes", s, t));
  Ci = color(v) * 0.2 + w * 0.2 + 0.2;
}
