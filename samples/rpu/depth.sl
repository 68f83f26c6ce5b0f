/* The thesis's depth-shaded bunny (Węgrzanowski 2006, §12.1): green near the eye, magenta far. */
surface s() {
    float dist = distance(P, E);
    float g = 1.8 - dist;
    float rb = 1.0 - g;
    Ci = (rb, g, rb);
}
