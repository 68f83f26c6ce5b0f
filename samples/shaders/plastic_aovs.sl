/* plastic_aovs: plastic that also writes its lighting in parts, as a renderer's AOVs (arbitrary
   output variables) or a deferred shader's G-buffer would: the diffuse and specular light, the
   facing normal and the surface colour. Compiled with every output (passlab-cli --all-outputs, or
   Output: All outputs in the Studio) it is a shader of five outputs, each written to a render
   target of its own: what passes of several render targets (MRDS, Foley, Houston and Hanrahan
   2004) are for. The parts share the normal, the view vector and the light loops. */

surface plastic_aovs(
    float Ks = .5;               /* specular (highlight) strength */
    float Kd = .5;               /* diffuse strength */
    float Ka = 1;                /* ambient strength */
    float roughness = .1;        /* highlight size: smaller is tighter and sharper */
    color specularcolor = 1;     /* colour of the highlight */
    output varying color diffuse_light = 0;   /* Kd times the diffuse light, before the surface colour */
    output varying color specular_light = 0;  /* the highlight, before the surface's opacity */
    output varying color normal_colour = 0;   /* the facing normal mapped from [-1, 1] to [0, 1] */
    output varying color albedo = 0)          /* the surface colour */
{
    normal Nf = faceforward(normalize(N), I);
    vector V = -normalize(I);

    diffuse_light = Ka * ambient() + Kd * diffuse(Nf);
    specular_light = specularcolor * Ks * specular(Nf, V, roughness);
    normal_colour = color(0.5 * (xcomp(Nf) + 1), 0.5 * (ycomp(Nf) + 1), 0.5 * (zcomp(Nf) + 1));
    albedo = Cs;

    Oi = Os;
    Ci = Os * (Cs * diffuse_light + specular_light);
}
