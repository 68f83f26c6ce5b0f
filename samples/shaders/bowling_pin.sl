/* bowling_pin: the RenderMan bowling pin of the RDS paper (RBP, Figure 4) translated from RTSL */

/* Five texture maps, named by string parameters (RTSL's texref). RTSL's texture matrices
   invert(translate * scale) are written out as (coordinate - offset) / scale. The label maps
   (bruns, circle, coated) are decals stored premultiplied over black: see coverage() in
   passlab_util.h. All maps repeat outside [0,1]; marks.s relies on that, as in the paper. */

#include "../include/passlab_util.h"

surface bowling_pin(
    string pinbase = "pinbase";     /* base colour: white body, neck stripes; wraps around the pin */
    string bruns = "bruns";         /* front label, premultiplied decal */
    string circle = "circle";       /* crown in a circle over the front label, premultiplied decal */
    string coated = "coated";       /* back label, mirrored, premultiplied decal */
    string marks = "marks";         /* scuffs and wear; multiplies the diffuse light */
    float Ka = .4;                  /* lightmodel_diffuse's ambient weight {.4,.4,.4} */
    float Kd = .5;                  /* lightmodel_diffuse's diffuse weight {.5,.5,.5} */
    float Ks = .35;                 /* lightmodel_specular's weight {.35,.35,.35} */
    float roughness = .05)          /* 1/20: lightmodel_specular's exponent 20 */
{
    /* RTSL's Pobj is our shader space; uv_label = 10 * (Pobj.x, Pobj.y), uv_wrap = (s, 10 * Pobj.y). */
    point Pobj = transform("shader", P);
    float lx = 10 * xcomp(Pobj);
    float ly = 10 * ycomp(Pobj);
    float front = step(0, zcomp(Pobj));     /* 1 where Pobj.z >= 0 */
    float back = step(zcomp(Pobj), 0);      /* 1 where Pobj.z <= 0 */

    color Base = color texture(pinbase, s / .667, (ly + 7.5) / 15);
    color Bruns = front * color texture(bruns, (lx + 2.6) / 5.2, (ly + 2.8) / 5.2);
    color Circle = front * color texture(circle, (lx + .8) / 1.4, (ly + 1.15) / 1.4);
    color Coated = back * color texture(coated, (2.6 - lx) / 5.2, (ly + 2.8) / 5.2);
    color Marks = color texture(marks, (s - 2) / 4, (7.5 - ly) / 15);

    /* lightmodel_diffuse and lightmodel_specular over every light bound to the surface. */
    normal Nf = faceforward(normalize(N), I);
    vector V = -normalize(I);
    color Cd = Ka * ambient() + Kd * diffuse(Nf);
    color Cspec = Ks * specular(Nf, V, roughness);

    /* Circle over (Bruns over (Coated over Base)), premultiplied "over" written out. */
    color Ct = Coated + (1 - coverage(Coated)) * Base;
    Ct = Bruns + (1 - coverage(Bruns)) * Ct;
    Ct = Circle + (1 - coverage(Circle)) * Ct;

    Oi = Os;
    Ci = Os * (Ct * (Marks * Cd) + Cspec);
}
