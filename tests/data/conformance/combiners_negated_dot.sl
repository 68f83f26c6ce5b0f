// generated: --family fragment --seed 58 (reduced)
// fails: combiners geforce1 RDSh float: mismatch (0.66, the reference 0)
// The flattener drops a float's splat to a colour, so -color(d . d) is a negation of colour type
// over a scalar: it was computed in alpha while the final combiner read the un-negated rgb.
// accepts: fragment
surface combiners_negated_dot() {
  Ci = -color(dPdv . dPdv);
}
