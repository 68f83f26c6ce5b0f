// from gfragment_796639231 (generated: --family fragment --seed 796639231), written out by hand
// fails: dag: refused within its profile ("a string value cannot be computed per fragment")
// A texture's name chosen per fragment in a loop's condition: unrolled under predicates, each
// iteration's choice merged where the paths meet again. The merge took the choice for a node (its
// type was read from DAG node 0) instead of selecting among the strings.
// accepts: fragment
surface string_choice_in_a_loop(float n = 3)
{
  float w = t, i;
  for (i = 0; i < n && (0.5 <= float texture(((s <= w) ? "marks" : "grain"), w, s)); i += 1) {
    w = w * 0.5 + 0.1;
  }
  Ci = w;
}
