/* bowling_pin: the RenderMan bowling pin of the RDS paper (RBP, Figure 4) translated from RTSL */
/* Five texture maps on the pin, lit by one point light (diffuse and specular) and four textured
   projector lights (projectorlight.sl), as in the paper: 9 texture fetches in all. As in RTSL,
   the texture coordinates are affine in the shader-space position, so they are computed per
   vertex and arrive as interpolants. The label maps (bruns, circle, coated) are multiplicative
   decals, white where the pin shows through; RTSL's `select` on the sign of Pobj.z picks the
   front labels or the back one. All maps repeat outside [0,1]; marks.s relies on that. */
surface bowling_pin(
    string pinbase = "pinbase";     /* base colour: white body, neck stripes; wraps around the pin */
    string bruns = "bruns";         /* front label */
    string circle = "circle";       /* crown in a circle over the front label */
    string coated = "coated";       /* back label, mirrored */
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
    color Base = color texture(pinbase, s / .667, (ly + 7.5) / 15);
    color Bruns = color texture(bruns, (lx + 2.6) / 5.2, (ly + 2.8) / 5.2);
    color Circle = color texture(circle, (lx + .8) / 1.4, (ly + 1.15) / 1.4);
    color Coated = color texture(coated, (2.6 - lx) / 5.2, (ly + 2.8) / 5.2);
    color Marks = color texture(marks, (s - 2) / 4, (7.5 - ly) / 15);
    color Label = zcomp(Pobj) >= 0 ? Bruns * Circle : Coated;

    /* lightmodel_diffuse and lightmodel_specular: the point light; the slides add their light. */
    normal Nf = faceforward(normalize(N), I);
    color Cslides = 0;
    illuminance("projector", P)
        Cslides += Cl;
    color Cd = Ka * ambient() + Kd * diffuse(Nf) + Cslides;
    color Cspec = Ks * specular(Nf, -normalize(I), roughness);
    Ci = (Base * Label) * (Marks * Cd) + Cspec;
}
