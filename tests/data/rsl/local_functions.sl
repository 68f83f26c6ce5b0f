// Local functions: defined inside the shader (and inside another function), they read and write
// the enclosing variables, take output parameters, and are inlined at each call.
float fbm(point p; float octaves) {
  float sum = 0, amp = 1;
  float octave(float scale) {  // a local function of a file-level function
    return amp * (noise(p * scale) - 0.5);
  }
  float i;
  for (i = 0; i < octaves; i += 1) {
    sum += octave(pow(2, i));
    amp *= 0.5;
  }
  return sum;
}

surface local_functions(float Ka = 1, Kd = 0.8, freq = 4; color stripe = color(0.8, 0.3, 0.1)) {
  color base = Cs;
  float layers = 0;
  float layer(float scale; output float raw) {
    extern point P;  // the global, named explicitly as RSL allows
    raw = noise(P * scale * freq);
    layers += 1;  // writes the shader's variable
    return raw * scale;
  }
  void tint(color c; float amount) {
    base = mix(base, c, amount);
  }
  float a, b;
  float sum = layer(1, a) + layer(0.5, b);
  if (sum > 0.6) tint(stripe, 0.5);
  float weight(float x) { return smoothstep(0.2, 0.8, x); }
  tint(color(0.1, 0.2, 0.6), weight(fbm(P * freq, 3) + 0.5));
  normal Nf = faceforward(normalize(N), I);
  Ci = base * (Ka * ambient() + Kd * diffuse(Nf)) * (a + b) / layers;
  Oi = Os;
}
