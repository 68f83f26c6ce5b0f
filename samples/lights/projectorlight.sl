/* projectorlight: a slide projector that casts the colour texture `mapname` along its axis */
/* Written the way a real-time projector is: every quantity the slide coordinates need is an
   affine function of the surface point, so Passlab computes them per vertex (three
   interpolants) and the fragment only divides by depth and fetches. The light does not take
   part in diffuse() or specular() (__nondiffuse, __nonspecular); surfaces gather it with
   illuminance("projector", P). Outside the frustum the slide repeats, like a tiled gobo. */
light projectorlight(
    float intensity = 1;                     /* brightness of a white texel (no falloff) */
    color lightcolor = 1;                    /* tint multiplied into the slide */
    string mapname = "slide";                /* the slide */
    point from = point "shader" (0, 0, 0);   /* the projector's lens */
    point to = point "shader" (0, 0, 1);     /* a point on the projector's optical axis */
    vector up = vector "shader" (0, 1, 0);   /* top of the slide; not parallel to to - from */
    float fov = 30;                          /* full field of view of the square slide, degrees */
    string __category = "projector";         /* gathered by illuminance("projector", ...) */
    float __nondiffuse = 1;                  /* not part of diffuse() */
    float __nonspecular = 1)                 /* not part of specular() */
{
    /* The projector's frame: right, top and dir play camera space's x, y and z at the lens. */
    uniform vector dir = normalize(to - from);
    uniform vector right = normalize(up ^ dir);
    uniform vector top = dir ^ right;
    uniform float k = 0.5 / tan(radians(fov) * 0.5);   /* slide half-size at unit depth -> 0.5 */
    illuminate(from) {
        /* L runs from the lens to Ps: depth along the axis, offsets across the slide. */
        float depth = L . dir;
        float ss = (0.5 * depth + k * (L . right)) / depth;   /* 0 .. 1 across the slide */
        float tt = (0.5 * depth - k * (L . top)) / depth;     /* 0 .. 1 down the slide */
        Cl = (intensity * lightcolor) * color texture(mapname, ss, tt);
    }
}
