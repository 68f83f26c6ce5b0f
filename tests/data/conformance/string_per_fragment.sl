// written for strings chosen per fragment (not a reduced failure)
// A texture's name chosen by a varying condition among a known set of strings is never a value
// of the fragment program: each lookup runs once per name and a select picks the fragment's, and
// comparisons and format() of the name run per name too. Every partition, render-to-texture and
// F-buffer render must agree with the reference interpreter.
// accepts: fragment
surface string_per_fragment(string first = "grain")
{
  string map = s > 0.45 ? first : "marks";
  if (t * u > 0.3)
    map = "stripes";
  color c = color texture(map, s * 2, t);
  float g = float texture((v < 0.5 ? map : "grain"), t, s);
  string label = format("%s-map", map);
  float known = (map == "grain" ? 1 : 0) + (label == "marks-map" ? 0.5 : 0);
  Ci = (c * g + known * 0.25) * Cs;
  Oi = Os;
}
