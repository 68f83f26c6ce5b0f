// reduced from generated: --family rpu --seed 920139 (rpu fp24 chunks: mismatch, -inf where the reference had -1.6e12)
// area() of a vector a million long: its cross product's squares pass the 24-bit floats' range
// (2^64) before the square root brings the length back, so the RPU's dp3 is infinite. The
// reference now calls such an area undefined at that precision, as it does a length.
// accepts: rpu
surface rpu_quad_area_overflow()
{
  float arr2[4] = {((t)), ((v)), (0), ((0))};
  arr2[0] = ((((((v)) * 1) * 1000000)) + 0.04);
  color v3 = 0;
  {
    v3 -= (((area((N * ((((((arr2[0])))))))))));
  }
  Ci = (v3);
}
