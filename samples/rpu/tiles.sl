/* A checkered floor with ray-traced shadows: squares of Cs and `dark`, `tiles` to a side. */
surface tiles(float Ka = 0.15; float Kd = 0.85; float tiles = 8; color dark = color(0.3, 0.3, 0.34))
{
    normal Nf = faceforward(normalize(N), I);
    float check = mod(floor(s * tiles) + floor(t * tiles), 2);
    color base = mix(Cs, dark, check);
    color direct = 0;
    illuminance (P, Nf, PI / 2)
        direct += Cl * (normalize(L) . Nf) * visibility(P, P + L);
    Ci = base * (Ka + Kd * direct);
    Oi = 1;
}
