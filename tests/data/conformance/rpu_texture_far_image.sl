// generated: --family rpu --seed 796568261 (reduced)
// fails: rpu ieee chunks: mismatch (pixel (7, 5): 1.2009, the reference 1.3888)
// An image read at t = -3e6: its texel row, t H, is past 2^22, where the RPU's repeat (the row
// modulo the height, through a reciprocal) has lost its units. Such a lookup is undefined at the
// machine's precision, as noise at coordinates without fractions is.
// accepts: rpu
surface rpu_texture_far_image()
{
  float v = (1.5 + u) - 3 * 1000000;
  v = texture("marks"[1], s, v) - s * 1.19 + s;
  Ci = color(v) * 0.33333334;
}
