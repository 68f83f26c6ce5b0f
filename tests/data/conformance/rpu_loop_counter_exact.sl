// generated: --family rpu --seed 1020665 (reduced by the tester)
// fails: rpu fp24 chunks: mismatch (8.98877, the reference 0.488789, tolerance 1)
// The Monte Carlo runs perturbed the loop counter i24 (1 became 0.99997) and the truncated index
// then wrote arr6[0] twice and arr6[1] never, which no machine does: integers that every float
// format holds exactly (constants, floor/round results, sums and products of such) are no longer
// perturbed. The runs then see the machine's rounding of v7 < v.
// accepts: fragment rpu
surface rpu_loop_counter_exact()
{
  float arr6[3] = {(((t))), ((1) - t), ((v * Ng) . Ng)};
  float v7 = arr6[2];
  uniform float i24 = 0;
  for (0; i24 < 2; i24 += 1) {
    arr6[i24] += ((dPdv) . vector(1));
  }
  {
    v7 += round(((v7 < v) ? v : arr6[1]));
  }
  Ci = (color(v7) * 0.5);
}
