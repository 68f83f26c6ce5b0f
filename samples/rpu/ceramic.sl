/*
 * ceramic: a glazed ceramic for the RPU, a shader only a ray tracer can run. It has a GGX
 * highlight and a clear-coat lobe from each light, ray-traced shadows, Fresnel-weighted mirror
 * reflection by a recursive trace(), ambient occlusion from eight rays around the normal (a
 * loop of visibility() calls), a rim glow, and a procedural glaze of rings and speckles.
 * Its helpers are ordinary RSL functions, which the RPU calls rather than inlines.
 *
 * It is also the input of the compile-time benchmark (bench/rpu_bench): 200 lines.
 */

/* ---- small helpers -------------------------------------------------------------------- */

float saturate(float x)
{
    return clamp(x, 0, 1);
}

float luminance(color c)
{
    return comp(c, 0) * 0.2126 + comp(c, 1) * 0.7152 + comp(c, 2) * 0.0722;
}

/* c with its saturation scaled by k (0: grey, 1: as it was). */
color saturated(color c; float k)
{
    float y = luminance(c);
    return mix(color(y, y, y), c, k);
}

/* Any unit vector perpendicular to n. */
vector perpendicular(vector n)
{
    vector a = vector(1, 0, 0);
    if (abs(xcomp(n)) > 0.9)
        a = vector(0, 1, 0);
    return normalize(a ^ n);
}

/* ---- microfacet reflection -------------------------------------------------------------- */

/* Schlick's approximation of the Fresnel reflectance for a normal reflectance f0. */
float schlick(float cosine; float f0)
{
    float m = 1 - saturate(cosine);
    float m2 = m * m;
    return f0 + (1 - f0) * m2 * m2 * m;
}

/* The GGX (Trowbridge-Reitz) distribution of normals. */
float ggx(float ndoth; float roughness)
{
    float a = roughness * roughness;
    float a2 = a * a;
    float d = ndoth * ndoth * (a2 - 1) + 1;
    return a2 / (PI * d * d);
}

/* Smith's shadowing and masking for GGX (the separable Schlick form). */
float smith(float ndotv; float ndotl; float roughness)
{
    float k = (roughness + 1) * (roughness + 1) / 8;
    float gv = ndotv / (ndotv * (1 - k) + k);
    float gl = ndotl / (ndotl * (1 - k) + k);
    return gv * gl;
}

/* One microfacet lobe: D G F / (4 (N.V) (N.L)), times N.L. */
float lobe(vector n; vector v; vector l; float roughness; float f0)
{
    vector h = normalize(l + v);
    float ndotl = max(n . l, 0);
    float ndotv = max(n . v, 0.001);
    float ndoth = max(n . h, 0);
    float d = ggx(ndoth, roughness);
    float g = smith(ndotv, ndotl, roughness);
    float f = schlick(h . v, f0);
    return d * g * f / (4 * ndotv + 0.0001);
}

/* ---- light and shadow ---------------------------------------------------------------------- */

/* The fraction of eight rays around the hemisphere of n that leave within `radius`. */
float openness(point p; vector n; float radius)
{
    vector t = perpendicular(n);
    vector b = n ^ t;
    float open = 0;
    float i;
    for (i = 0; i < 8; i += 1) {
        float phi = i * 2.399963;                 /* the golden angle */
        float z = (i + 0.5) / 8;
        float r = sqrt(1 - z * z);
        vector d = (t * cos(phi) + b * sin(phi)) * r + n * z;
        open += visibility(p, p + d * radius);
    }
    return open / 8;
}

/* ---- the glaze ------------------------------------------------------------------------------ */

/* A repeatable pseudo-random number in [0, 1) for a cell of the plane. */
float cell_random(float i; float j)
{
    float h = sin(i * 127.1 + j * 311.7) * 43758.5453;
    return h - floor(h);
}

/* Crackle: how close (ss, tt) lies to the border between the cells of a jittered grid, from
 * the nearest and second-nearest cell centres among the 3x3 neighbouring cells (0 on a crack). */
float crackle(float ss; float tt; float scale)
{
    float x = ss * scale, y = tt * scale;
    float ci = floor(x), cj = floor(y);
    float nearest = 10, second = 10;
    float di, dj;
    for (di = -1; di <= 1; di += 1)
        for (dj = -1; dj <= 1; dj += 1) {
            float cx = ci + di + cell_random(ci + di, cj + dj);
            float cy = cj + dj + cell_random(cj + dj, ci + di);
            float d = sqrt((x - cx) * (x - cx) + (y - cy) * (y - cy));
            if (d < nearest) {
                second = nearest;
                nearest = d;
            } else if (d < second) {
                second = d;
            }
        }
    return second - nearest;
}

/* Rings that wobble around the form, a darker band at their edges, and sparse speckles. */
color glaze(float ss; float tt; color base; color rim; float rings)
{
    float wobble = 3 * sin(6 * PI * ss) + 0.5 * sin(17 * PI * ss);
    float ring = 0.5 + 0.5 * sin(rings * tt + wobble);
    float band = smoothstep(0.35, 0.65, ring);
    float edge = 1 - abs(2 * band - 1);
    float speck = step(0.985, cell_random(floor(ss * 157), floor(tt * 233)));
    color c = mix(base, rim, band);
    c = mix(c, c * 0.6, edge * 0.5);
    float crack = 1 - smoothstep(0.0, 0.06, crackle(ss, tt, 12));
    c = mix(c, c * 0.45, 0.6 * crack);
    /* The glaze pools, thicker and darker, towards the foot (v = 0). */
    float pool = 1 - smoothstep(0.0, 0.25, tt);
    c = mix(c, saturated(c, 1.4) * 0.7, 0.5 * pool);
    return mix(c, color(0.15, 0.1, 0.08), 0.7 * speck);
}

/* ---- the shader ---------------------------------------------------------------------------- */

surface ceramic(
    float Ka = 0.25;                   /* ambient, scaled by the open sky (occlusion) */
    float Kd = 0.75;                   /* diffuse */
    float Ks = 0.5;                    /* the glaze's highlight */
    float roughness = 0.35;            /* of the glaze */
    float Kc = 0.35;                   /* the clear coat over it */
    float coat_roughness = 0.08;
    float f0 = 0.04;                   /* normal reflectance of glass-like glaze */
    float Kr = 0.8;                    /* mirror reflection, weighted by Fresnel */
    float occlusion_radius = 0.6;
    float rings = 40;
    float rim_glow = 0.15;
    float saturation = 1.1;
    color rim = color(0.2, 0.35, 0.6))
{
    normal Nf = faceforward(normalize(N), I);
    vector V = -normalize(I);
    float ndotv = max(Nf . V, 0.001);
    color base = saturated(glaze(s, t, Cs, rim, rings), saturation);

    /* Every light: a shadow ray, then the diffuse term and the two highlight lobes. */
    color diffuse_light = 0;
    color glaze_light = 0;
    color coat_light = 0;
    illuminance (P, Nf, PI / 2) {
        vector Ln = normalize(L);
        float visible = visibility(P, P + L);
        float ndotl = max(Nf . Ln, 0);
        diffuse_light += Cl * ndotl * visible;
        glaze_light += Cl * visible * lobe(Nf, V, Ln, roughness, f0) * ndotl;
        coat_light += Cl * visible * lobe(Nf, V, Ln, coat_roughness, f0) * ndotl;
    }

    /* The mirror reflection: one ray, deeper ones only near the camera. */
    float fresnel = schlick(ndotv, f0);
    color reflected = 0;
    if (raylevel() < 2 && fresnel * Kr > 0.01) {
        vector R = reflect(-V, Nf);
        reflected = trace(P, R) * fresnel * Kr;
    }

    /* Sky light through the openings around the point; a faint glow at grazing angles. */
    float open = openness(P, Nf, occlusion_radius);
    float grazing = 1 - ndotv;
    color glow = rim * rim_glow * grazing * grazing * grazing;

    color lit = base * (Ka * open + Kd * diffuse_light) + Ks * glaze_light + Kc * coat_light;
    Ci = lit + reflected * (1 - Kc * 0.5) + glow;
    Oi = 1;
}
