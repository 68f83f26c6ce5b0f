/* lerp_alpha: two textures blended by a third's alpha, the NVIDIA SDK's first register-combiner
   example. By hand it is the final combiner alone (lerp_alpha.rc): no general combiner computes
   anything. */
surface lerp_alpha(
    string under = "pinbase";
    string over = "pindecals";
    string mask = "pinbasemarks")
{
    color A = color texture(under, s, t);
    color B = color texture(over, s, t);
    float k = float texture(mask[3], s, t);
    Ci = mix(A, B, k);
    Oi = 1;
}
