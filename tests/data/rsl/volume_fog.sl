// A volume shader (RI 3.2 §15.2.4): attenuates Ci along the ray and adds in-scattered light.
volume volume_fog(float distance = 1; color background = 0; float scatter = 0.1) {
  float d = 1 - exp(-length(I) / distance);
  color lit = 0;
  illuminance(P) { lit += Cl; }
  Ci = mix(Ci, background + scatter * lit, d);
  Oi = mix(Oi, color(1, 1, 1), d);
}
