/* spotlight: the RenderMan Interface 3.2 spotlight, a cone with a smooth edge and a beam falloff */

light spotlight(
    float intensity = 1;                     /* brightness on the axis at unit distance */
    color lightcolor = 1;                    /* colour of the emitted light */
    point from = point "shader" (0, 0, 0);   /* apex of the cone */
    point to = point "shader" (0, 0, 1);     /* the cone's axis points from `from` toward `to` */
    float coneangle = radians(30);           /* half-angle of the cone, radians */
    float conedeltaangle = radians(5);       /* width of the soft edge inside the cone, radians */
    float beamdistribution = 2)              /* cosine exponent: how fast light falls off the axis */
{
    float atten, cosangle;
    uniform vector A = (to - from) / length(to - from);

    illuminate(from, A, coneangle) {
        cosangle = (L . A) / length(L);
        atten = pow(cosangle, beamdistribution) / (L . L);
        atten *= smoothstep(cos(coneangle), cos(coneangle - conedeltaangle), cosangle);
        Cl = atten * intensity * lightcolor;
    }
}
