// The issue's first combiner bug: a colour chosen by ?: between two scalars. The MUX of scalars
// ran in alpha and the final combiner read spare0.rgb, which nothing wrote.
// accepts: fragment combiners
surface combiners_select_scalars() {
  color c = (s > 0.5) ? 0.2 : 0.8;
  Ci = c;
}
