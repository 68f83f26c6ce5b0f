// Locals and parameters named like globals (t, P, s, v, I, Cl): they hide the global, with a
// warning, as real compilers do.
float ramp(float t; float v) {
  float s = t * v;
  return s;
}

surface shadowing_locals(float u = 0.5; color Cs = color(0.8, 0.7, 0.6)) {
  float t = mod(xcomp(P) * 4, 1);
  point P = transform("shader", P);
  vector I = normalize(I);
  float s = ramp(t, u);
  color Cl = color(0.2);
  normal Nf = faceforward(normalize(N), I);
  Ci = Cs * (diffuse(Nf) + Cl) * s + color(0.1) * noise(P);
}
