/* ambientlight: the RenderMan Interface 3.2 ambient light (no direction, seen by ambient()) */

light ambientlight(
    float intensity = 1;                     /* brightness */
    color lightcolor = 1)                    /* colour of the light */
{
    /* No illuminate or solar statement: that is what makes this an ambient light. */
    Cl = intensity * lightcolor;
}
