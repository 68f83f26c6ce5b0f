// Untyped triples whose type the context gives: a default, an initializer, an operand, an argument,
// the other branch of a ?: or both branches from the context, a library function's other arguments.
color scale(color c; float k) { return c * k; }

surface untyped_triples(color base = (1, 0.5, 0)) {
  color d = (0.2, 0.3, 0.4) * s;
  color lit = scale((0.5, 0.5, 0.5), 2);
  Ci = base * d + (0.1, 0.1, 0.1) + lit * (0.2, 0.1, 0) ;
  if (Ci == (0, 0, 0)) Ci = (1, 0, 1);
  Ci += (s > 0.5 ? (0.1, 0, 0) : d) + Cs * (t > 0.5 ? (0.1, 0.1, 0.1) : (0, 0, 0.1));
  Ci = mix(Ci, (1, 1, 1), 0.1) + max((0, 0, 0), d) * comp((1, 2, 3), 1) * 0.1;
  Ci = clamp(Ci, (0, 0, 0), (1, 1, 1));
}
