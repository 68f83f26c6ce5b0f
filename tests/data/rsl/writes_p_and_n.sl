// A surface that displaces its own P and N before shading, which PRMan, BMRT and Aqsis allow.
surface writes_p_and_n(float Km = 0.05; float freq = 6) {
  float bump = noise(P * freq);
  P += Km * bump * normalize(N);
  N = normalize(N + vector(0.2 * (bump - 0.5), 0, 0));
  normal Nf = faceforward(normalize(N), I);
  Ci = Cs * diffuse(Nf) + 0.2 * specular(Nf, -normalize(I), 0.2);
}
