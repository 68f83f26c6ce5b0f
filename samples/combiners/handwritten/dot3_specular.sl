/* dot3_specular: diffuse and specular bump mapping as the NVIDIA SDK taught it: N . L and N . H
   from a tangent-space normal map and the per-vertex tangent-space light and half-angle vectors
   (the primary and secondary colours), the highlight raised to the 8th power by repeated
   squaring. The program written for it by hand is dot3_specular.rc: two general combiners, the
   final combiner's E x F squaring a third time. */
surface dot3_specular(
    string bumps = "pinnormals";
    string base = "pinbase";
    float bumprepeat = 4)
{
    vector Nbump = 2 * (vector texture(bumps, s * bumprepeat, t * bumprepeat) - .5);
    color Base = color texture(base, s, t);
    vector Tu = normalize(dPdu), Tv = normalize(dPdv), Nn = normalize(N);
    vector V = -normalize(I);
    color C = 0;
    illuminance(P) {
        vector Ln = normalize(L);
        vector H = normalize(Ln + V);
        vector Ltan = pervertex(vector(Ln . Tu, Ln . Tv, Ln . Nn));
        vector Htan = pervertex(vector(H . Tu, H . Tv, H . Nn));
        float NdotH = clamp(Nbump . Htan, 0, 1);
        float NdotH2 = NdotH * NdotH;
        float NdotH4 = NdotH2 * NdotH2;
        C += Base * clamp(Nbump . Ltan, 0, 1) + NdotH4 * NdotH4;
    }
    Ci = C;
    Oi = 1;
}
