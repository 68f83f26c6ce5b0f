/* toon: cel shading with three quantized diffuse tones, a hard-edged highlight and a rim light */

#include "../include/passlab_util.h"

surface toon(
    float Kd = 1;                          /* brightness of the lit tone */
    float shadowtone = .3;                 /* brightness of the darkest band, relative to the lit one */
    float midtone = .65;                   /* brightness of the middle band */
    float threshold1 = .12;                /* light level (luminance) where the middle band starts */
    float threshold2 = .5;                 /* light level where the lit band starts */
    float softness = .02;                  /* half-width of the band edges; keep above 0 */
    float Ks = .8;                         /* highlight strength */
    float roughness = .08;                 /* highlight size, as in plastic */
    float specthreshold = .6;              /* the highlight is on where the specular level passes this */
    color specularcolor = 1;               /* highlight colour */
    float rimwidth = .3;                   /* rim band, measured in 1 - (N . V) from the silhouette */
    float rimstrength = .5;                /* rim brightness */
    color rimcolor = color (.8, .9, 1))    /* rim colour */
{
    normal Nf = faceforward(normalize(N), I);
    vector V = -normalize(I);

    /* How much light arrives, as one number; then snap it to three tones with soft steps. */
    float lit = luminance(ambient() + diffuse(Nf));
    float tone = shadowtone
               + (midtone - shadowtone) * smoothstep(threshold1 - softness, threshold1 + softness, lit)
               + (1 - midtone) * smoothstep(threshold2 - softness, threshold2 + softness, lit);

    /* A highlight that is either on or off. */
    float highlight = step(specthreshold, luminance(specular(Nf, V, roughness)));

    /* A rim where the surface turns away from the eye. */
    float rim = rimstrength * smoothstep(1 - rimwidth - softness, 1 - rimwidth + softness, 1 - (Nf . V));

    Oi = Os;
    Ci = Os * (Cs * Kd * tone + Ks * highlight * specularcolor + rim * rimcolor);
}
