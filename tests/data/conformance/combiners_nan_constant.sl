// generated: --family fragment --seed 808676 (reduced)
// fails: combiners geforce3 RDSh nvparse: pass 1 .rc: 7: expected a number (nvparse reads no exponents), found '-'
// sqrt(-3.89) folds to a NaN constant, which the check for constants outside [-1, 1] let through
// (NaN compares false), and the listing wrote "-nan" into a const0. A NaN constant is now
// refused like any constant a register cannot hold.
// accepts: fragment
surface combiners_nan_constant()
{
  Ci = ((s >= sqrt((-3.89))) ? (((color(0.69))) + 0) : 0);
}
