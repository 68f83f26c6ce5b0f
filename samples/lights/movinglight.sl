/* movinglight: a point light that moves while the shutter is open, from `from` at the start of the
   unit of motion (time 0) to `to` at its end (time 1), with inverse-square falloff. RSL's `time` is
   the time a point is shaded at. */

light movinglight(
    float intensity = 1;                     /* brightness at unit distance */
    color lightcolor = 1;                    /* colour of the emitted light */
    point from = point "shader" (0, 0, 0);   /* where the light is at time 0 */
    point to = point "shader" (0, 0, 0))     /* where the light is at time 1 */
{
    point at = from + time * (to - from);
    illuminate(at)
        Cl = intensity * lightcolor / (L . L);
}
