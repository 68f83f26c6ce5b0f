/*
 * The list-scheduling example of the RPU thesis (section 9.3, Figure 9.1), as RSL.
 *
 * With the thesis_example machine (add 3 cycles, mul and dp3 5), fig91's block is the figure's
 * six instructions, which the scheduler issues in 11 cycles instead of 16 in program order:
 *
 *   1 add X, A, 1     2 dp3 Y, B, B     3 mul Z, X, Y
 *   4 dp3 D, A, B     5 E = A . A       6 add F, D, E
 *
 * The figure's fifth instruction is `mul E, A, 5`; a multiply feeding an add is fused into one
 * mad by forwarding (as it should be), so E is a dot product here, with the same latency and the
 * same place in the dependency graph. Open it in the Studio with the target "RPU (thesis
 * example)" and look at fig91 in the compiler-decisions panel.
 */
void fig91(output vector Z; output float F; vector A; vector B) {
    vector X = A + 1;
    float Y = B . B;
    Z = X * Y;
    float D = A . B;
    float E = A . A;
    F = D + E;
}

surface schedule_example() {
    vector Z;
    float F;
    fig91(Z, F, vector(0.3, 0.2, 0.1) * s, normalize(vector(N)));
    Ci = Cs * color(0.5 + 0.5 * sin(F), 0.6, 0.4) + color(Z) * 0.05;
}
