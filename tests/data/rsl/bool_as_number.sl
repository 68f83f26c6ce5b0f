// A comparison used as a number (1 when true, 0 when false), as C and the renderers' compilers
// take it, with a warning: `(s > 0.5) * 2`.
surface bool_as_number(float stripes = 4) {
  float band = (mod(s * stripes, 1) > 0.5) * 0.5 + (t > 0.5) * 0.25 + (s > t);
  Ci = Cs * band;
}
