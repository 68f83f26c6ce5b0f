// A map's channel chosen by a parameter or computed per fragment (issue 45: 37 published shaders
// pass `texname[channel]`), environment channels, the "fill" of a channel the map does not have,
// and an array of map names indexed where the parser cannot tell an element from a channel.
surface channel_expressions(string texname = "grain"; float channel = 1; string envname = "sky";
                            float envchannel = 0) {
  float picked = float texture(texname[channel], s, t);
  float computed = float texture(texname[floor(s * 5)], s, t, "fill", 0.25);
  color from = color texture(texname[channel - 1], t, s);
  color env = color environment(envname[envchannel + channel], normalize(N));
  string maps[2] = {"grain", "stripes"};
  color element = color texture(maps[channel], s, t);
  Ci = color(picked, computed, 0.5) * 0.3 + from * 0.2 + env * 0.2 + element * 0.3;
}
