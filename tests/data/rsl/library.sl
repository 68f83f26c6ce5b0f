// The standard library beyond the first samples: cellnoise, random, four-dimensional noise,
// fresnel, environment and shadow maps, colour spaces, filterstep, depth and the string functions.
surface library(float Kd = 0.8; string envname = "sky.tex"; string shadowname = "";
                float eta = 0.7; string tint_space = "hsv") {
  normal Nf = faceforward(normalize(N), I);
  vector V = normalize(I);
  float Kr, Kt;
  vector R, T;
  fresnel(V, Nf, eta, Kr, Kt, R, T);
  float cell = cellnoise(P * 4);
  color ccell = cellnoise(s * 8, t * 8);
  float n4 = noise(P, cell);
  float r = random();
  color env = environment(envname, R, "blur", 0.1);
  color hue = color "hsv" (cell, 0.8, 1);
  color back = ctransform("hsl", hue);
  color tint = ctransform(tint_space, "rgb", color(0.3, 0.5, 1));
  float edge = filterstep(0.5, t) + filterstep(0.3, s, s + 0.1);
  float d = depth(P);
  string name = format("%s.%d", "map", 3);
  float m = match("^map", concat(name, ".tex"));
  printf("cell %f at %p\n", cell, P);
  float lit = 1;
  if (shadowname != "") lit = 1 - shadow(shadowname, P, "bias", 0.01);
  color tex = texture("grid.tex", s, t, "width", 2, "filter", "gaussian");
  Ci = Kd * diffuse(Nf) * hue * lit * tex + Kr * Kt * env +
       0.1 * (ccell + tint + back) * (r + n4 + edge + m + d * 0.01);
  Oi = 1;
}
