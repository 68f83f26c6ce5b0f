/* plastic: the RenderMan Interface 3.2 plastic surface (diffuse base plus a white highlight) */

surface plastic(
    float Ks = .5;               /* specular (highlight) strength */
    float Kd = .5;               /* diffuse strength */
    float Ka = 1;                /* ambient strength */
    float roughness = .1;        /* highlight size: smaller is tighter and sharper */
    color specularcolor = 1)     /* colour of the highlight */
{
    normal Nf = faceforward(normalize(N), I);
    vector V = -normalize(I);

    Oi = Os;
    Ci = Os * (Cs * (Ka * ambient() + Kd * diffuse(Nf)) +
               specularcolor * Ks * specular(Nf, V, roughness));
}
