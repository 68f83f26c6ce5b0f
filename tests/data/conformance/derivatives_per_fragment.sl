// written for derivatives of values computed per fragment (not a reduced failure)
// Du, Dv, calculatenormal and area of values no rasterizer interpolates (a texture lookup, a
// product of interpolants, a sine of one): a fragment target computes each again from its
// interpolants one pixel over and subtracts, as a 2x2 quad would; a quad target (nv30, the
// oracle's PC5-quad) takes DDX and DDY where the value fits the pass. A height map bumps the normal
// with a lookup at the neighbouring pixels' coordinates; a derivative of a derivative is 0, as the
// reference has it. Every partition, render-to-texture and F-buffer render must agree with the
// reference interpreter's differences of its own runs on the neighbouring pixels.
// accepts: fragment rpu
surface derivatives_per_fragment(float Km = 0.08; float freq = 3)
{
  float h = Km * float texture("grain", s, t) + 0.02 * sin(freq * 6.28 * s * t);
  normal Nn = normalize(N);
  point Pb = P + Nn * h;
  normal Nb = normalize(calculatenormal(Pb));
  float slope = Du(h) * 0.2 + Dv(s * t) * 0.1;
  float second = Du(Du(s * s)) + Dv(Du(h));
  float a = area(Pb) * 100;
  Ci = color(abs(Nb . Nn), 0.5 + slope, a) * Cs + second;
  Oi = Os;
}
