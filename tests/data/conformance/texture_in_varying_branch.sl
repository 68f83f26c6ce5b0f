// generated: --family combiners --seed 11 (reduced by hand from the reducer's output)
// fails: dag: refused within its profile ("a string value cannot be computed per fragment")
// The flattener merged, at the end of a varying if, every value of the shader, those defined
// inside the branch too: the texture name "marks" became a select of strings.
// accepts: fragment
surface texture_in_varying_branch() {
  float v = s;
  if (t > 0.5) {
    v = mix(float texture("marks", s, t), v, float texture("grain", s, t));
  }
  Ci = v;
}
