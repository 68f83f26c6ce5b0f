// generated: --family combiners --seed 2005017 (reduced, then by hand)
// fails: combiners geforce3 RDSh float: mismatch (fragment 11 (s=0.0426 t=0.0108): 0.0426, the reference 4.75e-09)
// v7 is 1.9e-8, and v7 > 0 is tested on the combiners as 0 - v7 + 1/2 >= 1/2 after v7 crossed a
// pass stored biased, (v7 + 1) / 2: both steps are absolute, of the order of 2^-24, so the test
// says nothing there. The combiners' float mode is now modelled with an absolute error of 2^-22
// besides IEEE single's relative one (it was modelled as IEEE single, relative only).
// accepts: fragment combiners
surface combiners_compare_near_zero()
{
  float v7 = comp(((((((0.3))))) * (((0) ? 0 : s) * (t))), 2);
  v7 *= v7;
  color v8 = ((((1) * ((((v7 > 0) ? 0 : s))))));
  color v9 = (1 * (((0.07) >= 0) ? min(0, (((s)))) : 0));
  float v10 = (v7);
  Ci = (v8) + v9 + color(v10) * 0.25;
}
