/* fig5: Mark & Proudfoot's Figure 5, the shader they trace through their compiler, in RSL.
   "Since we designed this shader for pedagogical purposes, it doesn't make much sense as a shader."
   g1 and g2 were primitive-group values (uniform here); c, a vertex colour, is Cs and Os; N, which
   the paper leaves undeclared, is the interpolated normal, normalised by a cube map. */
surface fig5(
    string tex1 = "fig5_tex1";   /* texture #1 (its alpha is read too) */
    string tex2 = "fig5_tex2";   /* texture #2, a signed map stored as (x + 1) / 2 */
    float g1 = .8;               /* slowly-changing value #1 */
    float g2 = .1)               /* slowly-changing value #2 */
{
    color t1 = color texture(tex1, s, t);
    float t1a = float texture(tex1[3], s, t);
    color t2 = 2 * (color texture(tex2, s, t) - .5);
    float x1 = g1 * comp(t2, 2) + g2;
    float x2 = vector t1 . normalize(N);
    color x3 = t1 * x1 + x2 * t2;
    float x4 = comp(Os, 0) * t1a;
    Ci = x3;
    Oi = x4;
}
