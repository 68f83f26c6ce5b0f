// Globals the tables of RI 3.2 §15.2 give every kind (time, dtime, ncomps), and Ps in a surface;
// the light (ns_light.sl, through kind_globals.lights.json) reads its P and the Ns it lights.
surface kind_globals(float Kd = 1) {
  point where = Ps;
  float frame = time + dtime;
  float channels = ncomps;
  normal Nf = faceforward(normalize(N), I);
  Ci = Kd * diffuse(Nf) * (channels / 3) + color(frame) + 0.05 * noise(where);
}
