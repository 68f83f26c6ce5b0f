// The issue's decoupled bug, on resources/conform/decoupled.json (a floor quad reaching behind
// the eye): bilinear reconstruction read a run index as a tap index and crashed, and
// multisampling shaded pixels as cells of a barycentric grid.
// accepts: fragment rpu
surface decoupled_near_plane() {
  Ci = Cs * (0.3 + 0.7 * s) + color(0, 0.2 * t, 0);
}
