// generated: --family fragment --seed 3010731 (reduced; a first cause of that seed's failure)
// fails: fp PC1 single-pass render: mismatch (pixel (1, 3): 1, the reference 0, tolerance 1e-05)
// acos(1) * 1e6 is uniform: a fragment target folds it on the host, exactly, to 0. The oracle gave
// acos the fp target's polynomial error (7e-5) anyway, so in every perturbed run v22 was
// 1 / 70.5 and the colour 0, and the rounding that matters (a lookup at a million times another
// lookup) never showed in the tolerance. Built-ins err by their approximation only where they
// run per fragment.
// accepts: fragment
surface fp_uniform_builtin_exact()
{
  float k5 = 1000000;
  float arr8[4] = {0, (texture("grain", ((2.63) * v), (0))), (((0))), 0};
  color v22 = (1);
  v22 /= (abs((acos(1) * (k5))) + 0.5);
  v22 /= ((((texture("marks", 1.12, (((arr8[1] * k5))))))) + 0.5);
  v22 -= (1.86);
  Ci = v22;
}
