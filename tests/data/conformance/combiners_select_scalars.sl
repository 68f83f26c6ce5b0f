// The issue's first combiner row: a colour chosen by ?: between two scalars, reported to make a
// final combiner read spare0.rgb, which nothing wrote. As written here it compiled correctly
// before this change (out.rgb = spare0.a); the same mechanism, a scalar result of colour type
// read from rgb, reproduced with -color(d . d) (combiners_negated_dot.sl), fixed in rewrite.cpp.
// Kept: the select of scalars must stay right.
// accepts: fragment combiners
surface combiners_select_scalars() {
  color c = (s > 0.5) ? 0.2 : 0.8;
  Ci = c;
}
