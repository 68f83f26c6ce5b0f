// reduced from generated: --family rpu --seed 909952 (rpu ieee chunks: mismatch, 0 where the reference had -150720)
// area() in an illuminance loop of four light shaders: the RPU computed du and dv where area()
// first asked for them, in the first light's body, which a pixel that light does not reach skips,
// so the other lights' bodies read du = 0. du and dv are now computed at the shader's entry, with
// the differences of u and v.
// accepts: rpu
surface rpu_quad_du_in_a_light()
{
  float v22 = (((((v / ((u))) * 2.64)) * 3.51));
  illuminance(P, N, 1) {
    v22 -= (area(P) * 10000);
  }
  Ci = (color(v22) * 0.5);
}
