// Helpers of the shader file that assign the shader's globals themselves, as RI 3.2-era compilers
// allowed (issue 45: six published shaders): one sets the opacity, another the colour through it.
void opaque(float k) { Oi = Os * k; }
void finish(color c; float k) {
  opaque(k);
  Ci = Oi * c + Ci * (1 - k);
}

surface functions_assign_globals(float Kd = 0.8) {
  Ci = Cs * 0.25;
  finish(Cs * Kd * diffuse(faceforward(normalize(N), I)), 0.75);
}
