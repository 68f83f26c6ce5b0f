/* julia.sl: a Julia set coloured by escape time, the classic loop whose trip count differs from
 * fragment to fragment, painted on a matte card. z = z^2 + c from z = (s, t) scaled, until
 * |z| > 2 or `maxiter` steps.
 *
 * The loop is bounded by a uniform count and ended by a varying test. A fragment target without
 * loops (PC1..PC8, nv30) unrolls it under predicates, `maxiter` copies of the body; nv40, whose
 * NV_fragment_program2 has REP and BRK, keeps it as one loop of a dozen instructions. Compare
 *   passlab-cli partition samples/shaders/julia.sl --target nv30
 *   passlab-cli partition samples/shaders/julia.sl --target nv40
 */
surface julia(float Ka = 0.4, Kd = 0.8;
              float maxiter = 32;
              float cr = -0.8, ci = 0.156;
              float zoom = 1.6;
              color inside = color(0.05, 0.02, 0.12);
              color slow = color(0.08, 0.18, 0.55);
              color fast = color(1.0, 0.85, 0.35))
{
  float zr = (s * 2 - 1) * zoom;
  float zi = (t * 2 - 1) * zoom;
  float i = 0;
  while (i < maxiter && zr * zr + zi * zi < 4) {
    float r = zr * zr - zi * zi + cr;
    zi = 2 * zr * zi + ci;
    zr = r;
    i += 1;
  }
  color outside = mix(slow, fast, sqrt(i / maxiter));
  color paint = i >= maxiter ? inside : outside;
  normal Nf = faceforward(normalize(N), I);
  Oi = Os;
  Ci = Oi * paint * (Ka * ambient() + Kd * diffuse(Nf));
}
