// generated: --family rpu --seed 1010795 (reduced by hand; --seed 1010954 is the same)
// fails: rpu ieee chunks: mismatch (0.263693, the reference 0.263482, tolerance 7.1e-05)
// mix(P, P, -1e6) is P on the RPU, which computes a + (b - a) t, and P up to the rounding of two
// products of 1e6 |P| in the interpreter, which computes a (1 - t) + b t; mix's perturbation was
// relative to its result and is now relative to its terms, |a| |1 - t| + |b| |t|.
// accepts: fragment rpu
surface rpu_mix_far_outside()
{
  Ci = color(zcomp(mix(P, P, -1000000))) * 0.1 + color(comp(mix(Cs, Cs * 2, 300000 * u), 1)) * 1e-6;
}
