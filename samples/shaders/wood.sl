/* wood: heavy procedural wood after BMRT wood2.sl (the RDS paper's Wood test shader) */

/* Rings are circles around the shader-space z axis (the trunk's axis), measured after a noise
   warp; the grain is noise stretched along that axis, as in wood2.sl. Every noise octave is a
   loop iteration with a constant trip count, so on a fragment target the shader unrolls into
   33 noise calls with the default octave counts (4+4+3+2+7+5+2+1+3+2). */

#include "../include/passlab_util.h"

surface wood(
    float Ka = 1;                                /* ambient strength */
    float Kd = .75;                              /* diffuse strength */
    float Ks = .4;                               /* specular strength of fresh varnish */
    float roughness = .1;                        /* highlight size */
    color specularcolor = 1;                     /* highlight colour */
    float txtscale = 1;                          /* scales shader space before everything else */
    color lightwood = color (.69, .44, .25);     /* earlywood: the wide, pale part of a ring */
    color darkwood = color (.35, .22, .08);      /* latewood: the narrow, dark part of a ring */
    float ringscale = 8;                         /* rings per shader-space unit of radius */
    float warp = .12;                            /* how far noise pushes points before rings are measured */
    float warpfreq = 1.5;                        /* frequency of that push */
    uniform float warpoctaves = 4;               /* vector-noise octaves of the push */
    float wavy = .06;                            /* wobble of the rings along the trunk */
    float wavefreq = .7;                         /* frequency of the wobble along the axis */
    uniform float waveoctaves = 4;               /* noise octaves of the wobble */
    float ringnoise = .6;                        /* ragged ring edges, in ring widths */
    uniform float ringoctaves = 3;               /* turbulence octaves of the ragged edges */
    float ringvary = .3;                         /* ring-to-ring change of latewood width and darkness */
    float grainy = 1;                            /* 0 = no fine grain, as in wood2.sl */
    float grainfreq = 24;                        /* frequency of the grain streaks across the axis */
    uniform float grainoctaves = 7;              /* noise octaves of the grain streaks */
    float pores = .3;                            /* darkness of the open pores */
    float porefreq = 60;                         /* frequency of the pores across the axis */
    uniform float poreoctaves = 5;               /* turbulence octaves of the pores */
    float colorvary = .15;                       /* slow drift of tone and hue over the board */
    uniform float toneoctaves = 2;               /* noise octaves of the tone drift */
    float bumpy = .12;                           /* tilt of the normal by the grain relief */
    uniform float bumpoctaves = 3;               /* vector-noise octaves of the relief */
    float wear = .5;                             /* how dull the worn patches of varnish are, 0..1 */
    uniform float wearoctaves = 2)               /* noise octaves of the worn patches */
{
    /* Solid-texture space, then a vector-noise warp so that no ring is a perfect circle. */
    point Psh = txtscale * transform("shader", P);
    point PP = Psh + warp * vfbm(Psh * warpfreq, warpoctaves, 2, .5);
    float x = xcomp(PP), y = ycomp(PP), z = zcomp(PP);

    /* Rings: distance to the axis, wobbled along the axis, with ragged edges; in ring units. */
    float wave = wavy * fbm(point (x * .5, y * .5, z * wavefreq), waveoctaves, 2, .5);
    float r = (sqrt(x * x + y * y) + wave) * ringscale;
    r += ringnoise * turbulence(point (x * 3, y * 3, z * .5), ringoctaves, 2, .5);

    /* Within one ring: pale earlywood, then a latewood band whose start and darkness vary
       from ring to ring (one noise sample per ring index). */
    float ring = floor(r);
    float inring = r - ring;
    float latestart = .6 + .5 * ringvary * snoise(ring * .73 + .31);
    float latedark = 1 - ringvary * (float noise(ring * 1.37 + 4.1));
    float ringpat = .2 + .8 * latedark * smoothpulse(latestart - .15, latestart + .05, .88, 1, inring);

    /* Grain: long streaks along the axis (wood2.sl's r2 term), and open pores. */
    point PG = point (x * grainfreq, y * grainfreq, z * grainfreq * .05);
    float streak = .5 + .5 * fbm(PG, grainoctaves, 2, .5);
    float grain = grainy * (1.3 - streak) + (1 - grainy);
    point PQ = point (x * porefreq, y * porefreq, z * porefreq * .1);
    float pore = pores * smoothstep(.35, .6, turbulence(PQ, poreoctaves, 2, .5));

    float dark = clamp(ringpat * grain * grain + pore, 0, 1);
    color Ct = mix(lightwood, darkwood, dark);

    /* Slow drift of tone and hue across the board. */
    float tone = 1 + colorvary * fbm(Psh * .3, toneoctaves, 2, .5);
    color hue = color noise(Psh * .2);
    Ct *= tone * (1 + colorvary * (2 * hue - 1));

    /* Finish: the grain tilts the normal (noise, not derivatives), and the varnish is dull
       in worn patches and in the pores. */
    normal Nb = normalize(normalize(N) + bumpy * vfbm(PG * .5, bumpoctaves, 2, .5));
    normal Nf = faceforward(Nb, I);
    vector V = -normalize(I);
    float dull = smoothstep(0, .6, fbm(Psh * 1.3 + point (7.1, 3.3, 1.9), wearoctaves, 2, .5));
    float ks = Ks * (1 - wear * dull) * (1 - pore);

    Oi = Os;
    Ci = Os * (Ct * (Ka * ambient() + Kd * diffuse(Nf)) +
               specularcolor * ks * specular(Nf, V, roughness));
}
