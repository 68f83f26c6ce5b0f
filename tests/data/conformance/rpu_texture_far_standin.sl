// generated: --family rpu --seed 796566864 (reduced)
// fails: rpu ieee chunks: mismatch (pixel (4, 5): 0.2253, the reference 0.2248)
// A stand-in's bands at s = 1e6: sin(2 pi (fs s + ft t) + phase) depends on digits neither
// machine holds, and the literal coordinate was never perturbed. A lookup's coordinates are now
// rounded in the perturbed runs like any other value.
// accepts: rpu
surface rpu_texture_far_standin()
{
  color c = texture("stripes", 1000000 + 0, t);
  Ci = c;
}
