/* dot3_diffuse: per-pixel diffuse bump mapping as the NVIDIA SDK taught it ("Dot3 bump mapping"):
   a tangent-space normal map dotted with the tangent-space light vector, which the vertex stage
   passes in the primary colour, clamped, times a base texture. The program a GeForce programmer
   wrote for it by hand is dot3_diffuse.rc: one general combiner. */
surface dot3_diffuse(
    string bumps = "pinnormals";  /* tangent-space normals, stored (N + 1) / 2 */
    string base = "pinbase";      /* the base colour */
    float bumprepeat = 4)
{
    vector Nbump = 2 * (vector texture(bumps, s * bumprepeat, t * bumprepeat) - .5);
    color Base = color texture(base, s, t);
    vector Tu = normalize(dPdu), Tv = normalize(dPdv), Nn = normalize(N);
    color C = 0;
    illuminance(P) {
        vector Ln = normalize(L);
        vector Ltan = pervertex(vector(Ln . Tu, Ln . Tv, Ln . Nn));
        C += Base * clamp(Nbump . Ltan, 0, 1);
    }
    Ci = C;
    Oi = 1;
}
