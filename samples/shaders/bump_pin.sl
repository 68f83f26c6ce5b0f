/* bump_pin: the bump-mapped bowling pin of the RDS paper (BMBP), bump-mapped without derivatives */
/* The bump map stores two slopes of a height field, dh/du in red and dh/dv in green, each as
   0.5 + 0.5 * slope. The normal leans against the slopes along the surface tangents dPdu and
   dPdv, so no Du/Dv/calculatenormal is needed: a fragment pipeline can run it. Three texture
   lookups and one point light, as in the paper. */
surface bump_pin(
    string pinbase = "pinbase";     /* base colour, as in bowling_pin */
    string bruns = "bruns";         /* front label: a multiplicative decal, as in bowling_pin */
    string bumpmap = "pinbumps";    /* slopes: red = dh/du, green = dh/dv, biased to 0..1 */
    float bumpscale = .5;           /* height of the bumps: scales both slopes */
    float bumprepeat = 4;           /* copies of the bump map around and along the pin */
    float Kd = .7;                  /* diffuse strength */
    float Ks = .4;                  /* specular strength */
    float roughness = .08)          /* highlight size */
{
    point Pobj = transform("shader", P);
    float ly = 10 * ycomp(Pobj);
    color Base = color texture(pinbase, s / .667, (ly + 7.5) / 15);
    color Label = color texture(bruns, (10 * xcomp(Pobj) + 2.6) / 5.2, (ly + 2.8) / 5.2);
    color Ct = Base * (zcomp(Pobj) >= 0 ? Label : color 1);

    /* Bump: lean the normal against the two slopes. */
    vector slope = vector texture(bumpmap, s * bumprepeat, t * bumprepeat) - 0.5;
    normal Nb = normalize(N - (2 * bumpscale) * (xcomp(slope) * dPdu + ycomp(slope) * dPdv));
    normal Nf = faceforward(Nb, I);
    vector V = -normalize(I);

    /* Diffuse and Blinn specular from each light. */
    color Cdiff = 0, Cspec = 0;
    illuminance(P, Nf, PI / 2) {
        vector Ln = normalize(L);
        Cdiff += Cl * (Nf . Ln);
        Cspec += Cl * pow(max(0, Nf . normalize(Ln + V)), 1 / roughness);
    }
    Ci = Ct * (Kd * Cdiff) + Ks * Cspec;
}
