// reduced by hand from generated: --family fragment --seed 795840143 (fp refused within its profile)
// A derivative of one component of an interpolant, Dv(ycomp(P)): the vertex hoist moved only
// subexpressions with a real operation to the vertices, so the component move stayed per fragment
// and the fp targets refused its difference as "a value computed per fragment". The operand of a
// difference is now hoisted whatever it holds; a difference of a uniform value is 0.
// accepts: fragment rpu
surface derivative_of_component(uniform float k = 2)
{
  float y = Dv(ycomp(P));
  float x = Du(comp(P, 0)) + Deriv(zcomp(P), u);
  float c = Du(k * 3);
  Ci = color(y, x, c) * 0.25 + color(area(P) * 1000);
}
