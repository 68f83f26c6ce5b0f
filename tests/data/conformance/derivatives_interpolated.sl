// written for the derivative functions on fragment targets (not a reduced failure)
// Du, Dv, Deriv, area, calculatenormal, du and dv of values interpolated from the vertices: every
// fp target computes them from the rasterizer's differences (difference interpolants), and every
// partition, render-to-texture and F-buffer render must agree with the reference interpreter's,
// worked out from its own runs on the neighbouring pixels.
// accepts: fragment rpu
surface derivatives_interpolated(float scale = 2)
{
  float x = 3 * u - 2 * v + s * scale;
  point Q = P * 0.5 + vector(1, 0, 0);
  normal n = calculatenormal(Q);
  float a = area(P);
  Ci = color(Du(x) * 0.1, Dv(x) * 0.1 + Deriv(x, u) * 0.05, a * 100) + color(normalize(n)) * 0.2 + color(du + dv);
  Oi = 1;
}
