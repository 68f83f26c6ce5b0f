/* pointlight: the RenderMan Interface 3.2 point light, with inverse-square falloff */

light pointlight(
    float intensity = 1;                     /* brightness at unit distance */
    color lightcolor = 1;                    /* colour of the emitted light */
    point from = point "shader" (0, 0, 0))   /* position of the light */
{
    illuminate(from)
        Cl = intensity * lightcolor / (L . L);
}
