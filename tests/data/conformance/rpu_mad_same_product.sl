// generated: --family rpu --seed 1083 (reduced)
// fails: rpu fp24 chunks: mismatch (1.01, the reference 0.52)
// Ng == Ng subtracts Ng from itself; forwarding fused the product behind one operand into a mad
// with the other: a * b - round(a * b) is the rounding error, not 0, on 24-bit floats.
// accepts: fragment rpu
surface rpu_mad_same_product() {
  Ci = color((Ng == Ng) ? u : 0, 0, 0);
}
