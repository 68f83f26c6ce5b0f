// Coordinate systems named by string parameters and scene-defined names ("paint", defined by
// named_spaces.lights.json): transform() and cast forms.
surface named_spaces(string space = "paint"; float freq = 4) {
  point Pp = transform(space, P);
  point Pw = transform("world", P);
  vector offset = vector "paint" (0.25, 0, 0);
  float n = noise((Pp + offset) * freq) + 0.1 * noise(Pw);
  Ci = color(n) * diffuse(faceforward(normalize(N), I));
}
