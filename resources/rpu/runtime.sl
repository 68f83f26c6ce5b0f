/*
 * The RPU runtime library: the standard library's transcendental functions, written in RSL
 * with only what the RPU computes directly (add, mul, frac, 1/x, 1/sqrt(x), branches). The
 * compiler calls these (it never inlines them: their loops and branches would keep a chunk of
 * four threads apart for longer, the thesis's argument for calling) and compiles into a
 * program only those a shader uses.
 *
 * Accuracy: the series below are cut where the next term is under 1e-8 of the result, so on
 * IEEE arithmetic the error is a few units in the last place of a float; the RPU's 24-bit
 * arithmetic (16-bit mantissa) adds about 1e-5 relative.
 */

/* 2^x: 2^floor(x) by repeated squaring, times e^(frac(x) ln 2) by its Taylor series. */
float __rpu_exp2(float x)
{
    if (x >= 128)
        return 1e30 * 1e30;
    if (x < -150)
        return 0;
    float n = floor(x);
    float f = (x - n) * 0.6931471805599453;
    float p = 1 + f * (1 + f * (0.5 + f * (1.0 / 6 + f * (1.0 / 24 + f * (1.0 / 120 + f * (1.0 / 720 + f * (1.0 / 5040 + f / 40320)))))));
    float b = 2;
    float k = n;
    if (k < 0) {
        b = 0.5;
        k = -k;
    }
    while (k >= 1) {
        float half = floor(k * 0.5);
        if (k - 2 * half >= 1)
            p = p * b;
        b = b * b;
        k = half;
    }
    return p;
}

/* log2(x): x = m 2^e with m in [1, 2), then log2(m) = 2 atanh(t) / ln 2, t = (m - 1) / (m + 1). */
float __rpu_log2(float x)
{
    if (x != x)
        return x;
    if (x < 0)
        return (x - x) / 0;
    if (x == 0)
        return -1e30 * 1e30;
    if (x >= 1e30 * 1e30)
        return x;
    float m = x;
    float e = 0;
    while (m >= 65536) {
        m = m * (1.0 / 65536);
        e = e + 16;
    }
    while (m < 1.0 / 65536) {
        m = m * 65536;
        e = e - 16;
    }
    while (m >= 2) {
        m = m * 0.5;
        e = e + 1;
    }
    while (m < 1) {
        m = m * 2;
        e = e - 1;
    }
    float q = (m - 1) / (m + 1);
    float q2 = q * q;
    float series = q * (1 + q2 * (1.0 / 3 + q2 * (1.0 / 5 + q2 * (1.0 / 7 + q2 * (1.0 / 9 + q2 * (1.0 / 11 + q2 * (1.0 / 13 + q2 / 15)))))));
    return e + series * 2.8853900817779268;
}

float __rpu_exp(float x) { return __rpu_exp2(x * 1.4426950408889634); }

float __rpu_log(float x) { return __rpu_log2(x) * 0.6931471805599453; }

float __rpu_logb(float x; float b) { return __rpu_log2(x) / __rpu_log2(b); }

/* x^y as C's pow: a negative x needs a whole y (an odd one keeps the sign). */
float __rpu_pow(float x; float y)
{
    if (y == 0)
        return 1;
    if (x == 0) {
        if (y > 0)
            return 0;
        return 1e30 * 1e30;
    }
    if (x < 0) {
        float n = floor(y);
        if (n != y)
            return (x - x) / 0;
        float r = __rpu_exp2(y * __rpu_log2(-x));
        if (mod(n, 2) >= 1)
            return -r;
        return r;
    }
    return __rpu_exp2(y * __rpu_log2(x));
}

/* sin of an angle in turns: reduced to [-1/4, 1/4] turn, then the Taylor series to a^15. */
float __rpu_sin_turns(float turns)
{
    float r = turns - floor(turns + 0.5);
    if (r > 0.25)
        r = 0.5 - r;
    if (r < -0.25)
        r = -0.5 - r;
    float a = r * 6.283185307179586;
    float a2 = a * a;
    return a * (1 + a2 * (-1.0 / 6 + a2 * (1.0 / 120 + a2 * (-1.0 / 5040 + a2 * (1.0 / 362880 + a2 * (-1.0 / 39916800 + a2 * (1.0 / 6227020800 - a2 / 1307674368000)))))));
}

float __rpu_sin(float x) { return __rpu_sin_turns(x * 0.15915494309189535); }

float __rpu_cos(float x) { return __rpu_sin_turns(x * 0.15915494309189535 + 0.25); }

float __rpu_tan(float x)
{
    float turns = x * 0.15915494309189535;
    return __rpu_sin_turns(turns) / __rpu_sin_turns(turns + 0.25);
}

/* atan: |x| reduced below tan(pi/8) by atan(x) = pi/2 - atan(1/x) and pi/4 + atan((x-1)/(x+1)). */
float __rpu_atan(float x)
{
    float a = x;
    float sign = 1;
    if (x < 0) {
        a = -x;
        sign = -1;
    }
    float base = 0;
    float z = a;
    if (a > 2.414213562373095) {
        z = -1 / a;
        base = 1.5707963267948966;
    } else if (a > 0.41421356237309503) {
        z = (a - 1) / (a + 1);
        base = 0.7853981633974483;
    }
    float z2 = z * z;
    float p = z * (1 + z2 * (-1.0 / 3 + z2 * (1.0 / 5 + z2 * (-1.0 / 7 + z2 * (1.0 / 9 + z2 * (-1.0 / 11 + z2 * (1.0 / 13 + z2 * (-1.0 / 15 + z2 / 17))))))));
    return sign * (base + p);
}

/* atan2 as C's, quadrant by quadrant. */
float __rpu_atan2(float y; float x)
{
    if (x != x || y != y)
        return x + y;
    if (x > 0)
        return __rpu_atan(y / x);
    if (x < 0) {
        if (y >= 0)
            return __rpu_atan(y / x) + PI;
        return __rpu_atan(y / x) - PI;
    }
    if (y > 0)
        return PI / 2;
    if (y < 0)
        return -PI / 2;
    return 0;
}

float __rpu_asin(float x) { return __rpu_atan2(x, sqrt(1 - x * x)); }

float __rpu_acos(float x) { return __rpu_atan2(sqrt(1 - x * x), x); }

/*
 * noise: the lattice in data memory filtered trilinearly. The compiler expands noise() here
 * (backends/rpu/noise.cpp) and calls these for every lookup elsewhere.
 */
float __rpu_noise1(point p) { return float noise(p); }
color __rpu_noise3(point p) { return color noise(p); }

/*
 * The stand-in image of a texture name that has none (every evaluator's ProceduralTextures):
 * channel c is 0.5 + 0.5 sin(2 pi turns[c]), where the caller computes
 * turns[c] = fs s + ft t + phase / (2 pi) from the name (backends/rpu/texture.cpp).
 */
color __rpu_texture_band(color turns)
{
    return 0.5 + 0.5 * color(__rpu_sin_turns(comp(turns, 0)), __rpu_sin_turns(comp(turns, 1)), __rpu_sin_turns(comp(turns, 2)));
}
