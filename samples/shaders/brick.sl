/* brick: the classic procedural brick wall on (s,t), bricks in running bond with mortar joints */

#include "../include/passlab_util.h"

surface brick(
    float Ka = 1;                                /* ambient strength */
    float Kd = 1;                                /* diffuse strength */
    color Cbrick = color (.5, .15, .14);         /* brick colour */
    color Cmortar = color (.5, .5, .5);          /* mortar colour */
    float brickwidth = .25;                      /* brick width, in s units */
    float brickheight = .08;                     /* brick height, in t units */
    float mortarthickness = .01;                 /* joint width, in s and t units */
    float brickvary = .2)                        /* brick-to-brick brightness variation, 0..1 */
{
    /* one brick plus one joint, and half a joint as a fraction of that cell */
    uniform float bmwidth = brickwidth + mortarthickness;
    uniform float bmheight = brickheight + mortarthickness;
    uniform float mwf = mortarthickness * .5 / bmwidth;
    uniform float mhf = mortarthickness * .5 / bmheight;

    normal Nf = faceforward(normalize(N), I);

    float ss = s / bmwidth;
    float tt = t / bmheight;
    if (mod(tt * .5, 1) > .5)
        ss += .5;                                /* shift every other row by half a brick */

    float sbrick = floor(ss);                    /* which brick */
    float tbrick = floor(tt);
    ss -= sbrick;                                /* where in the brick, 0..1 */
    tt -= tbrick;

    float w = pulse(mwf, 1 - mwf, ss);           /* 1 on the brick, 0 in the vertical joints */
    float h = pulse(mhf, 1 - mhf, tt);           /* 1 on the brick, 0 in the horizontal joints */

    /* each brick a little lighter or darker: noise sampled once per brick */
    color Cb = Cbrick * (1 + brickvary * snoise2(sbrick + .5, tbrick + .5));
    color Ct = mix(Cmortar, Cb, w * h);

    Oi = Os;
    Ci = Os * Ct * (Ka * ambient() + Kd * diffuse(Nf));
}
