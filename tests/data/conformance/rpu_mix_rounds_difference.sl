// generated: --family rpu --seed 2003827 (reduced by the tester)
// fails: rpu ieee chunks: mismatch (-20.3385, the reference -20.2807, tolerance 0.0025)
// The RPU's mix, a + (b - a) t, rounds b - a before t scales it: mix(1e6 u, u, 1) is u up to
// 1e6 u's rounding there and exactly u in the interpreter. mix's terms now include
// |a| + (|a| + |b|) |t|.
// accepts: fragment rpu
surface rpu_mix_rounds_difference()
{
  float v12 = (((u) * 1000000));
  {
    v12 = mix((v12), ((u)), step(t, s));
  }
  Ci = color(v12) * 1;
}
