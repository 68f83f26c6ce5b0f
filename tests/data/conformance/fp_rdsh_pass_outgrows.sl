// generated: --family fragment --seed 1008807 (reduced by the tester)
// fails: fp radeon8500 RDSh: refused within its profile (pass 4 does not fit radeon8500: textures: 7 > 6)
// RDSh merged a pass that fitted, then later merges marked nodes inside it, each one more value
// it restores; a pass that no longer fits now merges again (Subdivider::repair).
// accepts: fragment rpu
surface fp_rdsh_pass_outgrows()
{
  float v7 = ((((0))));
  float v10 = ((((1.76))) + min(s, t));
  v7 = (((((0.13) > u) ? (0) : (v10))));
  uniform float i23 = 0;
  for (0; i23 < 3; i23 += 1) {
    {
      if (floor(v7) <= smoothstep(0.12, 0.59000003, s)) {
        if (((clamp(v, 1, 1)))) continue;
      } else {
        float v25 = sqrt((v7));
        v10 /= (abs((((1.79) * 3.1415927 + v25) - 2.43)) + 0.5);
      }
    }
    if ((mod(v, 1.38))) break;
  }
  Ci = ((color(v10) * 0.33333334));
}
