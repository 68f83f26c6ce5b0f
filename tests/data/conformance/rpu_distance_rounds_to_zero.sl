// generated: --family rpu --seed 1013573 (reduced by hand)
// fails: rpu ieee chunks: mismatch (-nan, the reference -0.287050, tolerance 11.6)
// The RPU's mix(P, P, t) is P, so the distance is exactly 0 and (d - d) / (d + d) is NaN; the
// interpreter's P (1 - t) + P t rounds away from P, and the distance is tiny. A distance is now
// perturbed relative to |a| + |b|, and one its terms leave zero up to rounding is exactly zero in
// some runs, so what divides by it is seen to be undefined.
// accepts: fragment rpu
surface rpu_distance_rounds_to_zero()
{
  float d = distance(P, mix(P, P, 0.3 + u));
  Ci = color((d - d) / (d + d) + 0.5);
}
