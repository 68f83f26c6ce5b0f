/* bump_pin: the bump-mapped bowling pin of the RDS paper (BMBP), bump-mapped without derivatives */

/* The bump map stores two slopes of a height field, dh/du in red and dh/dv in green, each as
   0.5 + 0.5 * slope. The normal leans against the slopes along the unit tangents dPdu and
   dPdv, so no Du/Dv/calculatenormal is needed. Three texture lookups, one light loop. */

#include "../include/passlab_util.h"

surface bump_pin(
    string pinbase = "pinbase";     /* base colour, as in bowling_pin */
    string bruns = "bruns";         /* front label, premultiplied decal, as in bowling_pin */
    string bumpmap = "pinbumps";    /* slopes: red = dh/du, green = dh/dv, biased to 0..1 */
    float bumpscale = .5;           /* height of the bumps: scales both slopes */
    float bumprepeat = 4;           /* copies of the bump map around and along the pin */
    float Ka = .2;                  /* ambient strength */
    float Kd = .7;                  /* diffuse strength */
    float Ks = .4;                  /* specular strength */
    float roughness = .08;          /* highlight size */
    color specularcolor = 1)        /* highlight colour */
{
    point Pobj = transform("shader", P);
    float lx = 10 * xcomp(Pobj);
    float ly = 10 * ycomp(Pobj);
    float front = step(0, zcomp(Pobj));     /* the label is on the Pobj.z >= 0 side only */

    /* Bump: lean the unit normal against the two slopes. */
    color slope = color texture(bumpmap, s * bumprepeat, t * bumprepeat);
    float bu = bumpscale * (2 * comp(slope, 0) - 1);
    float bv = bumpscale * (2 * comp(slope, 1) - 1);
    normal Nb = normalize(normalize(N) - bu * normalize(dPdu) - bv * normalize(dPdv));
    normal Nf = faceforward(Nb, I);
    vector V = -normalize(I);

    /* Diffuse and Blinn specular from each light, written as an illuminance loop. */
    color Cdiff = 0, Cspec = 0;
    illuminance(P, Nf, PI / 2) {
        vector Ln = normalize(L);
        Cdiff += Cl * (Nf . Ln);
        Cspec += Cl * pow(max(0, Nf . normalize(Ln + V)), 1 / roughness);
    }

    /* Label over base. */
    color Base = color texture(pinbase, s / .667, (ly + 7.5) / 15);
    color Label = front * color texture(bruns, (lx + 2.6) / 5.2, (ly + 2.8) / 5.2);
    color Ct = over(Label, coverage(Label), Base);

    Oi = Os;
    Ci = Os * (Ct * (Ka * ambient() + Kd * Cdiff) + specularcolor * Ks * Cspec);
}
