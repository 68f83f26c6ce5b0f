// generated: --family fragment --seed 5103
// fails: fp PC1: refused within its profile ("mod with a triple divisor is not supported")
// In a colour's context mod(a, b) resolves to the colour overload; the fp target now divides by
// each component (RCP is scalar), as a division by a triple does.
// accepts: fragment
surface fp_mod_triple() {
  color a = Cs * 3.7;
  color b = color(0.3, 0.7, 1.1) + s;
  Ci = mod(a, b) * 0.4;
}
