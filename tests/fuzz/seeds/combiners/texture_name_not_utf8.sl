/* fig4_pin: Mark & Proudfoot's Figure 4, the bump-mapped bowling pin, in RSL. The paper compiles
   it, with one light whose intensity is computed per vertex, to eight GeForce3 combiner stages.
   ÿWhat RTSL computed per vertex is written here with Passlab's pervertex(). */
surface fig4_pin(
    string bumps = "pinnormals";       /* tangent-space normal map: (N + 1) / 2, its filtered length in alpha */
    string decals = "pindecals";       /* the label: premultiplied colo‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘‘ur, coverage in alpha */
    string basemarks = "pinbasemar­ks"; /* base colour, scuff marks in alpha (1: )clean) */
    float bumprepeat = 4)              /* copies of the bump map around and along the pin */
{
    /* The surface: Kd = rgb((Decals over {Base, 1}) * Marks). */
    color Decals = color texture(decals, s, t);
    float Coverage = float texture(decals[3], s, t);
    color Base = color texture(basemarks, s, t);
    float Marks = float texture(basemarks[3], s, t);
    color Kd = (Decals + (1 - Coverage) * Base) * Marks;
    color Ma = .4, Md = .5, Ms = .3;

    /* The bump map: a normal in tangent space, and the length of the filtered normal. */
    vector Nbump = 2 * (vector texture(bumps, s * bumprepeat, t * bumprepeat) - .5);
    float Navglen = float texture(bumps[3], s * bumprepeat, t * bumprepeat);

    vector Tu = normalize(dPdu), Tv = normalize(dPdv), Nn = normalize(N);
    vector V = -normalize(I);
    color C = 0;
    illuminance(P) {
        vector Ln = normalize(L);
        vector H = normalize(Ln + V);
        /* Per vertex: the light and half-angle vectors in tangent space, the light's colour. */
        vector Ltan = pervertex(vector(Ln . Tu, Ln . Tv, Ln . Nn));
        vector Htan = pervertex(vector(H . Tu, H . Tv, H . Nn));
        color Clv = pervertex(Cl);

        /* Diffuse, with a geometric shadow ramp at the terminator. */
        float NdotL = Nbump . Ltan;
        float shadow = clamp(4 * (zcomp(Ltan) + zcomp(Ltan)), 0, 1);
        color diff = Kd * Md * clamp(NdotL, 0, 1) * shadow * Navglen;

        /* Specular: H normalised by a cube map, raised to the 8th power by squaring. */
        vector Hnorm = normalize(Htan);
        float NdotH = clamp(Nbump . Hnorm, 0, 1);
        float NdotHs = zcomp(Hnorm) >= 0 ? NdotH : 0;
        float NdotH2 = NdotHs * NdotHs;
        float NdotH4 = NdotH2 * NdotH2;
        float NdotH8 = NdotH4 * NdotH4;
        color spec = NdotH8 * shadow * Ms;

        C += Clv * (diff + spec);
    }
    Ci = C + Kd * Ma;
    Oi = 1;
}
