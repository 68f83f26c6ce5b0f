/*
 * Ripples bumped into a shiny surface by calculatenormal: P moved along N by a height field, and
 * the normal of the moved surface, which the RPU takes across each hit's pixel quad (beyond the
 * thesis). On a mesh of flat triangles the moved surface's normal is the facet's, tilted by the
 * bumps; its tilt is added to the smooth normal so that the ball stays round.
 */
surface bumped(float Ka = 0.12; float Kd = 0.7; float Ks = 0.5; float roughness = 0.08; float freq = 9; float Km = 0.004)
{
    normal Nn = normalize(N);
    float h = Km * sin(freq * 6.2832 * t) * sin(2 * freq * 6.2832 * s);
    vector tilt = normalize(calculatenormal(P + Nn * h)) - normalize(calculatenormal(P));
    normal Nb = faceforward(normalize(Nn + tilt), I);
    vector V = -normalize(I);
    color diffuse_ = 0, specular_ = 0;
    illuminance (P, Nb, PI / 2) {
        vector Ln = normalize(L);
        float lit = visibility(P, P + L);
        diffuse_ += Cl * (Ln . Nb) * lit;
        specular_ += Cl * pow(max(0, Nb . normalize(Ln + V)), 1 / roughness) * lit;
    }
    Ci = Cs * (Ka + Kd * diffuse_) + Ks * specular_;
    Oi = 1;
}
