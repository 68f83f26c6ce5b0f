// written for dynamic loops (not a reduced failure)
// On a target with dynamic loops (nv40: REP and BRK) a loop whose exit depends on the fragment
// stays a loop. A break from inside an if, a continue, values read after the loop from either
// exit, a short loop nested in the body (unrolled there) and a lookup in it: every partition, render-to-texture and F-buffer
// render must agree with the reference interpreter. Both outer loops run more than eight
// iterations, so nv40 keeps them as loops (a loop proven to end within eight is unrolled there too);
// elsewhere each unrolls under predicates, one path per iteration (a continue and a break in one
// loop would double the paths with each iteration, so they are in different loops).
// accepts: fragment
surface dynamic_loops(float n = 12)
{
  float zr = 0, zi = 0, i, last = -1;
  float cr = s * 3 - 2, ci = t * 2 - 1;
  for (i = 0; i < n; i += 1) {
    float r = zr * zr - zi * zi + cr;
    zi = 2 * zr * zi + ci;
    zr = r;
    if (zr * zr + zi * zi > 4) {
      last = zr;
      break;
    }
  }
  float g = 0, k = 0;
  while (k < n && g < 1) {
    k += 1;
    if (g > 0.6 * u) continue;
    float j = 0;
    while (j < 3 && g < 0.8) {
      g += 0.1 * float texture("grain", s + j * 0.1, t + k * 0.2) + 0.02;
      j += 1;
    }
  }
  Ci = color(i / n, last * 0.25 + 0.5, g);
}
