/*
 * The thesis's "more realistic bunny" (§12.2): the normal flipped to face the viewer, one point
 * light at (-0.2, 0.5, 0) and Ci = Cs * clamp(0.6 * clamp(N.L, 0, 1) + 0.4, 0, 1).
 */
surface s() {
    vector norm = N;
    if (norm . I > 0)
        norm = -norm;

    vector light_source = vector(-0.2, 0.5, 0.0);
    vector hit_to_light = normalize(light_source - P);

    float uf = clamp(norm . hit_to_light, 0, 1);
    float i  = clamp(0.6 * uf + 0.4, 0, 1);
    Ci = Cs * i;
}
