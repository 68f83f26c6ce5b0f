/* An ambient light for the conformance scenes. */
light glow(float intensity = 0.2)
{
    Cl = intensity * color(1, 0.95, 0.9);
}
