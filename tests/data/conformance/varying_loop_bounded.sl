// written for loops whose condition differs per fragment (not a reduced failure)
// A loop whose condition depends on the fragment but which a uniform bound ends (a counter
// compared with a constant or a uniform parameter, beside a varying condition or a varying break)
// unrolls on fragment targets under predicates, one exit path per iteration; every partition,
// render-to-texture and F-buffer render must agree with the reference interpreter.
// accepts: fragment
surface varying_loop_bounded(float n = 5)
{
  float v = s * 4, steps = 0, i;
  for (i = 0; i < n && v > 0.3; i += 1) {
    v *= 0.6;
    steps += 1;
  }
  float w = t, k = 0;
  while (w < 1 && k < 4) {
    w += 0.3 * float texture("grain", s, w);
    k += 1;
    if (w * u > 0.5)
      break;
  }
  Ci = color(v, steps / n, w) * Cs;
  Oi = Os;
}
