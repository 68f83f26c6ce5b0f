/* rings: a GeForce3 shader of the texture-shading kind (Olano, Hart, Heidrich and McCool,
   Real-Time Shading, 2002, ch. 6): what the register combiners cannot compute is looked up in a
   table the compiler generates. Soft stripes from a sine of t (one table of the interpolated t,
   repeating, that any GeForce can look up), a highlight whose exponent is no whole number (a
   table of the saved N . H, read by a GeForce3 dependent lookup), and a half-angle vector
   normalised per fragment (a cube map indexed by three texture-shader dot products). The light
   is kept within the registers' [-1, 1], as shaders for the hardware were. */
surface rings(
    float Kd = .7;                           /* diffuse strength */
    float Ks = .45;                          /* highlight strength */
    float roughness = .13;                   /* 1 / roughness is no whole number: a table */
    float frequency = 6;                     /* stripes per unit of t */
    color ringcolor = color (.55, .28, .12); /* the stripes */
    color basecolor = color (.9, .7, .45))   /* between them */
{
    normal Nf = faceforward(normalize(N), I);
    vector V = -normalize(I);
    float stripe = smoothstep(-.4, .4, sin(2 * PI * frequency * t));
    color Ct = mix(basecolor, ringcolor, stripe);
    color C = .15 * Ct;
    illuminance(P, Nf, PI / 2) {
        vector H = normalize(normalize(L) + V);
        C += Cl * (Kd * Ct * max(0, Nf . normalize(L)) + Ks * pow(max(0, Nf . H), 1 / roughness));
    }
    Oi = 1;
    Ci = C;
}
