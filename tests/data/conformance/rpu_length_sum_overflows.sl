// generated: --family rpu --seed 1002493 (reduced by hand; --seed 1002533 is the same)
// fails: rpu fp24 chunks: mismatch (-inf, the reference -1.50153e+09, tolerance 7.6e+14)
// Each square of a component is below 24-bit floats' 2^64, but their sum is not: the RPU's dp3
// overflows where the interpreter's length does not. Squares past the range only counted one
// square at a time; they now count the sum.
// accepts: fragment rpu
surface rpu_length_sum_overflows()
{
  float g = length(vector(3e9) * (1 + u * 0.01));
  Ci = color(g) * 1e-9;
}
