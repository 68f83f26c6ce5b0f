/* projectorlight: a slide projector that casts the colour texture `mapname` along its view frustum */

light projectorlight(
    float intensity = 1;                     /* brightness of a white texel (no distance falloff) */
    color lightcolor = 1;                    /* tint multiplied into the slide */
    string mapname = "";                     /* the slide; "" projects plain white */
    point from = point "shader" (0, 0, 0);   /* the projector's lens */
    point to = point "shader" (0, 0, 1);     /* a point on the projector's optical axis */
    vector up = vector "shader" (0, 1, 0);   /* top of the slide; must not be parallel to to - from */
    float fov = 30)                          /* full field of view of the square slide, degrees */
{
    /* The projector's frame, built with cross products instead of a named space:
       right, top and dir play the roles of camera space's x, y and z for a viewer at the lens. */
    uniform vector dir = normalize(to - from);
    uniform vector right = normalize(up ^ dir);
    uniform vector top = dir ^ right;
    uniform float halfwidth = tan(radians(fov) * 0.5);    /* slide half-size at unit depth */
    uniform float coneangle = atan(halfwidth * 1.4142136); /* smallest cone holding the corners */

    illuminate(from, dir, coneangle) {
        /* L runs from the lens to Ps. Divide its offsets across the slide by its depth. */
        float depth = max(L . dir, 1e-6);
        float x = (L . right) / (depth * halfwidth);       /* -1 .. 1 across the slide */
        float y = (L . top) / (depth * halfwidth);         /* -1 .. 1 up the slide */
        float ss = 0.5 + 0.5 * x;
        float tt = 0.5 - 0.5 * y;                          /* texture t grows downward */
        float inside = step(abs(x), 1) * step(abs(y), 1);  /* 0 outside [0,1]x[0,1] */
        color slide = 1;
        if (mapname != "")
            slide = color texture(mapname, ss, tt);
        Cl = inside * intensity * lightcolor * slide;
    }
}
