// generated: --family combiners --seed 20843 (reduced)
// fails: combiners geforce3 RDS float: mismatch (fragment 1 (s=0.626 t=0.204): 1, the reference 0)
// b in a || b was made positive as 1 - control: for a strict b (g > g, control exactly 1/2) that
// is 1/2 again, which the MUX reads as true. The result of && and || now keeps b's polarity.
// accepts: fragment combiners rpu
surface combiners_or_strict()
{
  float g = comp(Cs, 1);
  float c = 0;
  if ((s <= t) || (g > g)) c = 1;
  Ci = color(c);
}
