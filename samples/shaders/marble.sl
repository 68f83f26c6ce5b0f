/* marble: polished veined marble, a turbulence loop bending bands through a colour spline */

#include "../include/passlab_util.h"

surface marble(
    float Ka = 1;                                /* ambient strength */
    float Kd = .8;                               /* diffuse strength */
    float Ks = .5;                               /* specular strength: polished stone */
    float roughness = .06;                       /* highlight size */
    color specularcolor = 1;                     /* highlight colour */
    float txtscale = 1;                          /* scales shader space before the pattern */
    float veinfreq = 1.5;                        /* vein bands per shader-space unit along x */
    float veinwarp = 2.5;                        /* how far the turbulence bends the bands */
    float veinsharpness = 3;                     /* higher makes the veins thinner */
    uniform float octaves = 5;                   /* turbulence octaves: the loop's trip count */
    uniform float lacunarity = 2.17;             /* frequency step between octaves */
    uniform float gain = .5;                     /* amplitude step between octaves */
    color basecolor = color (.9, .89, .85);      /* the stone */
    color midcolor = color (.66, .68, .7);       /* grey clouding around the veins */
    color veincolor = color (.22, .24, .3))      /* the veins */
{
    normal Nf = faceforward(normalize(N), I);
    vector V = -normalize(I);
    point PP = txtscale * transform("shader", P);

    /* Turbulence: |signed noise| over `octaves` octaves. The trip count is fixed once the
       parameters are bound, so the loop unrolls into `octaves` noise calls. */
    uniform float i, amp = 1;
    varying point pp = PP;
    varying float turb = 0;
    for (i = 0; i < octaves; i += 1) {
        turb += amp * abs(snoise(pp));
        pp *= lacunarity;
        amp *= gain;
    }

    /* Bands along x, bent by the turbulence, then sharpened into thin veins. */
    float band = .5 + .5 * sin(PI * veinfreq * (xcomp(PP) + veinwarp * turb));
    float vein = pow(band, veinsharpness);

    /* Colour ramp: a Catmull-Rom spline (first and last knots only shape the ends). */
    color Ct = spline(vein, basecolor, basecolor, basecolor, midcolor, veincolor, veincolor);

    Oi = Os;
    Ci = Os * (Ct * (Ka * ambient() + Kd * diffuse(Nf)) +
               specularcolor * Ks * specular(Nf, V, roughness));
}
