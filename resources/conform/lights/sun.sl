/* A distant light for the conformance scenes. */
light sun(color lightcolor = color(0.3, 0.35, 0.4); vector direction = vector(0.5, -1, 0.8))
{
    solar(direction, 0)
        Cl = lightcolor;
}
