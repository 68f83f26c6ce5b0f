// found while reducing gcombiners_5089: a number used as a condition means x != 0; the
// combiners tested it >= 1/2 (right only for a bool made a number), so min(n . n, 0.5) ? s : Cs
// took 0.25 as false. Now refused: the combiners have no test for x != 0.
// accepts: fragment
surface combiners_number_as_condition() {
  float v = min(normalize(I) . normalize(I), 0.25);
  Ci = (v ? s : comp(Cs, 0)) * 0.5;
}
