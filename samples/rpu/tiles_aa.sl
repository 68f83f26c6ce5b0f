/*
 * An antialiased checkered floor with ray-traced shadows: tiles's squares, each box-filtered
 * over the pixel's footprint in s and t. The footprint is filterwidth's, |Du(x) du| + |Dv(x) dv|,
 * which the RPU takes across each hit's pixel quad (a derivative of a ray-traced surface, beyond
 * the thesis). Far from the camera the squares blend to grey instead of aliasing into moire.
 */

/* How much of [x - w/2, x + w/2] lies in the upper half of a unit period (the box-filtered
   square wave): the integral of the wave, F(x) = floor(x)/2 + max(frac(x) - 1/2, 0), differenced. */
float filtered_wave(float x; float w)
{
    float a = x - w / 2, b = x + w / 2;
    float fa = floor(a) / 2 + max(a - floor(a) - 0.5, 0);
    float fb = floor(b) / 2 + max(b - floor(b) - 0.5, 0);
    return w > 0 ? (fb - fa) / w : (x - floor(x) >= 0.5 ? 1 : 0);
}

surface tiles_aa(float Ka = 0.15; float Kd = 0.85; float tiles = 40; color dark = color(0.3, 0.3, 0.34))
{
    normal Nf = faceforward(normalize(N), I);
    float x = s * tiles / 2, y = t * tiles / 2;  /* a wave's period is two squares */
    float wx = abs(Du(x) * du) + abs(Dv(x) * dv);
    float wy = abs(Du(y) * du) + abs(Dv(y) * dv);
    float a = filtered_wave(x, wx), b = filtered_wave(y, wy);
    float check = a * (1 - b) + b * (1 - a);  /* the two waves' exclusive or, filtered */
    color base = mix(Cs, dark, check);
    color direct = 0;
    illuminance (P, Nf, PI / 2)
        direct += Cl * (normalize(L) . Nf) * visibility(P, P + L);
    Ci = base * (Ka + Kd * direct);
    Oi = 1;
}
