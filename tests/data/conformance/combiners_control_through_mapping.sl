// generated: --family combiners --seed 5417 (reduced)
// fails: combiners geforce3 RDSh float: mismatch (0.05, the reference 0.37)
// t < 0.5 is t itself as a MUX control, read through expand() (t is stored biased): no combiner
// computed it, so none wrote it into spare0.a, and the MUX read whatever was there.
// accepts: fragment combiners
surface combiners_control_through_mapping() {
  float v = (t < 0.5) ? 0.1 : t;
  Ci = color(v) * 0.5;
}
