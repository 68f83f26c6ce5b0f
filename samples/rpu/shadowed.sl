/*
 * A matte surface with ray-traced shadows: each light counts only where nothing lies between
 * the point and the light (BMRT's visibility()), which the thesis's shaders could not do.
 */
surface shadowed(float Ka = 0.15; float Kd = 0.85)
{
    normal Nf = faceforward(normalize(N), I);
    color direct = 0;
    illuminance (P, Nf, PI / 2)
        direct += Cl * (normalize(L) . Nf) * visibility(P, P + L);
    Ci = Cs * (Ka + Kd * direct);
    Oi = 1;
}
