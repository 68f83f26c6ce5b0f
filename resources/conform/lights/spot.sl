/* A spotlight for the conformance scenes: a cone with inverse-square falloff. */
light spot(float intensity = 30; color lightcolor = color(1, 0.9, 0.8);
           point from = point(-2, 4, 3); vector axis = vector(0.45, -0.8, 0.6); float angle = 0.6)
{
    illuminate(from, axis, angle)
        Cl = intensity * lightcolor / (L . L);
}
