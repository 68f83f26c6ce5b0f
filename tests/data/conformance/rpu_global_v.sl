// generated: --family rpu --seed 5 (reduced)
// fails: rpu ieee chunks: mismatch (0.64 against 0.69)
// The RPU read the global v from the .w of a vector temporary, which holds .xyz only: v was u.
// accepts: fragment rpu
surface rpu_global_v() {
  Ci = color(s, u, v);
}
