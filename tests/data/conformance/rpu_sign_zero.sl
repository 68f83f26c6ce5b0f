// generated: --family fragment --seed 1003218 (reduced by hand)
// fails: rpu ieee chunks: mismatch (pixel (5, 4): 0.05, the reference 0.55)
// sign(0) is 1 on the RPU, as the thesis chose for the hardware, and 0 in the interpreter; the
// fragment family calls sign and its programs run on the RPU too. sign of an exact zero is now
// undefined at the RPU's precisions (ir::Perturbation::sign_of_zero_undefined).
// accepts: fragment rpu
surface rpu_sign_zero()
{
  normal n = ((v >= s) ? N : normal(-3.87, 2.03, -3.31)) + Ng;
  color c = color(1.1) - sign(smoothstep(0.09, 0.56, (n . n) * -2.61 + 1.22));
  Ci = c * 0.5;
}
