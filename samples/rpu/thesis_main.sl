/* The thesis's main shader (§12.1): a ray per pixel through a 90-degree view, then the shader of what it hits. */
color m(point P) {
    point orig = (0.0, 0.0, 0.0);
    vector dir0 = (0.0, 0.0, 1.0);
    vector diri = (2.0, -2.0, 0.0);
    vector s = (0.5, 0.5, 0.0);
    vector dir = normalize(dir0 + (P - s) * diri);

    return trace(orig, dir);
}
