// Arrays: fixed-size locals and parameters with `{...}` values, array parameters of any length,
// output arrays, arraylength, constant and computed indices, and splines through arrays of knots.
float total(float a[]) {
  float sum = 0, i;
  for (i = 0; i < arraylength(a); i += 1) sum += a[i];
  return sum;
}

void normalize_weights(output float a[]) {
  float sum = total(a), i;
  for (i = 0; i < arraylength(a); i += 1) a[i] /= sum;
}

surface arrays(float weights[3] = {2, 3, 5};
               color palette[4] = {color(0.9, 0.2, 0.1), color(0.2, 0.8, 0.2), color(0.1, 0.3, 0.9), color(0.9, 0.9, 0.2)}) {
  float w[3] = weights;
  normalize_weights(w);
  float band = mod(s * 8, 4);  // a computed index: a chain of selects
  color base = palette[band];
  float knots[6] = {0, 0, 0.4, 0.7, 1, 1};
  float ramp = spline(t, knots);
  color across = spline("linear", t, palette);
  normal Nf = faceforward(normalize(N), I);
  Ci = (w[0] * base + w[1] * across + w[2] * palette[2]) * ramp * diffuse(Nf);
}
