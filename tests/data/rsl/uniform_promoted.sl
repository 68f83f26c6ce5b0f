// A uniform loop counter assigned in a loop with a varying `break`: it becomes varying, with a
// warning, as PRMan does.
surface uniform_promoted(float octaves = 6) {
  uniform float i;
  float acc = 0;
  for (i = 0; i < octaves; i += 1) {
    acc += noise(P * pow(2, i)) / pow(2, i);
    if (acc > 0.9) break;
  }
  Ci = color(acc) * diffuse(faceforward(normalize(N), I));
}
