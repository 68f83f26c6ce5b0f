/* plastic_pervertex: the RenderMan plastic surface written as a 2001 real-time shader was: the
   light's colour, direction and half-angle vector computed per vertex (pervertex()), so what is
   left per fragment fits the register combiners: normalisation cube maps, dot products, MUXes and
   a specular power by repeated squaring. Compare it with ../shaders/plastic.sl. */
surface plastic_pervertex(
    float Ks = .5;               /* specular (highlight) strength */
    float Kd = .5;               /* diffuse strength */
    float Ka = 1;                /* ambient strength */
    float roughness = .1;        /* highlight size: 1/roughness must be a whole number here */
    color specularcolor = 1)     /* colour of the highlight */
{
    normal Nf = faceforward(normalize(N), I);
    vector V = -normalize(I);
    color C = Ka * ambient();
    illuminance(P, Nf, PI / 2) {
        color Clv = pervertex(Cl);
        vector Lv = pervertex(normalize(L));
        vector Hv = pervertex(normalize(normalize(L) + V));
        float diffuse = max(0, Nf . normalize(Lv));
        float highlight = pow(max(0, Nf . normalize(Hv)), 1 / roughness);
        C += Clv * (Kd * Cs * diffuse + Ks * specularcolor * highlight);
    }
    Oi = Os;
    Ci = Os * C;
}
