/* distantlight: the RenderMan Interface 3.2 directional light (parallel rays, no falloff) */

light distantlight(
    float intensity = 1;                     /* brightness */
    color lightcolor = 1;                    /* colour of the emitted light */
    point from = point "shader" (0, 0, 0);   /* with `to`, only the direction from -> to matters */
    point to = point "shader" (0, 0, 1))     /* the light travels from `from` toward `to` */
{
    solar(to - from, 0)
        Cl = intensity * lightcolor;
}
