// PRMan's gather loop: checks (its outputs are written per ray), and lowering refuses it.
surface gathered(float samples = 16) {
  color hit = 0, sum = 0;
  float n = 0;
  gather("illuminance", P, reflect(I, N), PI / 8, samples, "surface:Ci", hit) {
    sum += hit;
    n += 1;
  } else {
    sum += color(0.1);
  }
  Ci = sum / max(n, 1);
}
