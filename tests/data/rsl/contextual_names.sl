// The last row: `light` as a variable name (the shader kinds are keywords only where a
// definition starts), spline with a basis name and thirteen knots, and noise(point, float).
surface contextual_names(float freq = 3; float phase = 0.25) {
  float light = 0;
  illuminance(P, N, PI / 2) { light += comp(Cl, 0); }
  float n = noise(P * freq, phase);
  float shade = spline("catmull-rom", n, 0, 0, 0.1, 0.2, 0.35, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1, 1);
  float soft = spline("bspline", n, 0, 0, 0.2, 0.6, 1, 1);
  Ci = color(shade, soft, 0.5) * light;
}
