// A point light that dims where the lit surface faces away from it (Ns) and sits at its P.
light ns_light(float intensity = 30; point from = point "shader" (0, 0, 0)) {
  illuminate(from + P) {
    float facing = max(0, normalize(-L) . normalize(Ns));
    Cl = intensity * (0.5 + 0.5 * facing) / (L . L);
  }
}
