/*
 * A mirror on a coloured, shadowed base: the reflection is a recursive trace() (the shader of
 * whatever the reflected ray hits runs one ray level deeper, up to the scene's ray_depth).
 */
surface mirror(float Ka = 0.05; float Kd = 0.25; float Kr = 0.7)
{
    normal Nf = faceforward(normalize(N), I);
    vector V = normalize(I);
    color direct = 0;
    illuminance (P, Nf, PI / 2)
        direct += Cl * (normalize(L) . Nf) * visibility(P, P + L);
    Ci = Cs * (Ka + Kd * direct) + Kr * trace(P, reflect(V, Nf));
    Oi = 1;
}
