// generated: --family fragment --seed 2002311 (reduced by hand; 2002630 and 2002633 are the same)
// fails: combiners geforce3 RDSh float: mismatch (0.41307, the reference 0.47978)
// A colour from channel 1 is (g, b, a); the combiners read the unit's RGB as (r, g, b). They
// cannot swizzle it, and now refuse it with a diagnostic.
// accepts: fragment
surface combiners_colour_from_channel()
{
  Ci = color texture("stripes"[1], s, t) * 0.5 + color texture("stripes", s, t) * 0.25 + float texture("marks"[2], s, t) * 0.25;
}
