/* A point light whose colour depends on the surface's s and t: a light that reads the surface's
   globals, which the RPU passes to the light's function. */
light stripes(point from = point(2, 3, 4); float count = 6)
{
    illuminate(from)
        Cl = color(mod(floor(s * count), 2), 0.5, t);
}
