/* passlab_util.h: macros and functions shared by the Passlab sample shaders */

#ifndef PASSLAB_UTIL_H
#define PASSLAB_UTIL_H

/* ---- macros -------------------------------------------------------------------------------- */

/* Signed noise in [-1,1]. RSL's noise() lies in [0,1] and averages 0.5. */
#define snoise(p) (2 * (float noise(p)) - 1)
#define snoise2(x, y) (2 * (float noise((x), (y))) - 1)
#define vsnoise(p) (2 * (point noise(p)) - 1)

/* 1 on [a,b), 0 elsewhere: the hard-edged pulse of the classic brick shader. */
#define pulse(a, b, x) (step((a), (x)) - step((b), (x)))

/* Soft pulse: rises across [e0,e1] and falls across [e2,e3] (needs e1 <= e2). */
#define smoothpulse(e0, e1, e2, e3, x) (smoothstep((e0), (e1), (x)) - smoothstep((e2), (e3), (x)))

/* ---- functions ----------------------------------------------------------------------------- */

/* Rec. 709 luminance of a linear RGB colour. */
float luminance(color c)
{
    return 0.2126 * comp(c, 0) + 0.7152 * comp(c, 1) + 0.0722 * comp(c, 2);
}

/* Fractional Brownian motion: `octaves` layers of signed noise, each `lacunarity` times finer
   and `gain` times weaker than the one before. Once `octaves` is bound the loop has a constant
   trip count, so fragment targets can unroll it: one noise call per octave. About -1..1. */
float fbm(point p; uniform float octaves, lacunarity, gain)
{
    uniform float i, amp = 1;
    varying float sum = 0;
    varying point pp = p;
    for (i = 0; i < octaves; i += 1) {
        sum += amp * snoise(pp);
        pp *= lacunarity;
        amp *= gain;
    }
    return sum;
}

/* Turbulence: like fbm but sums |signed noise|, which creases the pattern. About 0..1. */
float turbulence(point p; uniform float octaves, lacunarity, gain)
{
    uniform float i, amp = 1;
    varying float sum = 0;
    varying point pp = p;
    for (i = 0; i < octaves; i += 1) {
        sum += amp * abs(snoise(pp));
        pp *= lacunarity;
        amp *= gain;
    }
    return sum;
}

/* Vector-valued fbm, for warping a point or tilting a normal: one point noise per octave. */
vector vfbm(point p; uniform float octaves, lacunarity, gain)
{
    uniform float i, amp = 1;
    varying vector sum = 0;
    varying point pp = p;
    for (i = 0; i < octaves; i += 1) {
        sum += amp * vsnoise(pp);
        pp *= lacunarity;
        amp *= gain;
    }
    return sum;
}

/* Coverage (alpha) of a decal map. Our texture() returns RGB only, so decal maps are stored
   premultiplied over black and their coverage is taken as their strongest channel. */
float coverage(color c)
{
    return max(comp(c, 0), max(comp(c, 1), comp(c, 2)));
}

/* Porter-Duff "a over b" for a premultiplied colour a of coverage aa. */
color over(color a; float aa; color b)
{
    return a + (1 - aa) * b;
}

#endif
