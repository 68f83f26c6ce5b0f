/* matte: the RenderMan Interface 3.2 matte surface (ambient plus Lambertian diffuse) */

surface matte(
    float Ka = 1;                /* ambient strength */
    float Kd = 1)                /* diffuse strength */
{
    normal Nf = faceforward(normalize(N), I);

    Oi = Os;
    Ci = Os * Cs * (Ka * ambient() + Kd * diffuse(Nf));
}
