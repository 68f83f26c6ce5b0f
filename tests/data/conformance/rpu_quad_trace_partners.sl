// reduced from generated: --family rpu --seed 909177 (rpu ieee chunks: mismatch, NaN where the reference had a value)
// A shader that takes a derivative and casts a ray into an object whose shader takes one too: the
// nested quad's partners are the rays the helpers cast with the same trace. The quad's threads
// met at the trace, then went on one group after another, and the anchor's group reached its
// hit's shader before the helpers had cast: no partners, NaN. A ray now counts as cast when the
// quad meets at it.
// accepts: rpu
surface rpu_quad_trace_partners()
{
  float v12 = ((calculatenormal(P)) . ((0.64, 0, 0.77)));
  color v28 = trace(P, faceforward(N, I));
  Ci = ((color(v12) * 0.2) + v28);
}
