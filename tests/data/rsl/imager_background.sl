// An imager shader (RI 3.2 §15.2.5): composites a background behind the finished pixel.
imager imager_background(color bgcolor = color(0.2, 0.3, 0.5)) {
  Ci += (1 - alpha) * bgcolor * (1 + 0.1 * ncomps * 0);
  Oi = 1;
  alpha = 1;
}
