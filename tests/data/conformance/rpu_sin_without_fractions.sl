// generated: --family rpu --seed 1012477 (reduced by hand)
// fails: rpu fp24 chunks: mismatch (0.268406, the reference 0.308683, tolerance 0.0176)
// On 24-bit floats 1000000 + t is 1000000 (t is lost, and every fraction of the turn with it), so
// the RPU's sin, which reduces its argument by a mod of 2 pi, says nothing there; sin, cos and
// tan of a value past the format's fractions are now undefined, like floor and mod.
// accepts: fragment rpu
float rec(float a) {
  if (a <= 0) return sqrt(mod(a, 3.05));
  return rec(a - 1) * 0.52 + max(atan(0.84), a * -2.22);
}
surface rpu_sin_without_fractions(float k16 = 0.5)
{
  float k = smoothstep(0.27, 0.66, -rec(1) + acos(k16));
  Ci = Cs * (1 - k) + color(0, 0, sin(1000000 + t)) * k;
}
