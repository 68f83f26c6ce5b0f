// environment() over four directions, read at their centre (RI 3.2 §15.7's area form).
surface area_lookups(string envname = "sky"; float spread = 0.05) {
  vector R = reflect(normalize(I), normalize(N));
  vector du_ = vector(spread, 0, 0), dv_ = vector(0, spread, 0);
  color env = color environment(envname, R - du_, R + du_, R - dv_, R + dv_, "blur", 0.1);
  Ci = Cs * 0.5 + env * 0.5;
}
