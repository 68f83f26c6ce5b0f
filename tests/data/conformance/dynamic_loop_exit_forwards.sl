// from gfragment_1700634 (generated: --family fragment --seed 1700634), reduced
// fails: dag loops: refused within its profile ("this loop's condition depends on varying values
// and nothing in it ended the loop within 256 iterations")
// The loop at line 27 leaves to a block that only branches on, through the light's and the outer
// loop's ends, to the outer loop's header. Its exit was taken as that header, so after the loop
// each outer iteration ran on inside the light's branch, one level deeper each time, until the
// depth limit. A loop's exit is now where its own exits meet (their common post-dominator).
// accepts: fragment
float fn0(color a1; normal a2) {
  if ((-1e-06) > 1.78) {
  }
  return 0.91;
}
color fn7(float a8; color a9; vector a10; output float a11) {
  float v12 = acos(clamp((-xcomp((vector(0.27) * a11))), -1, 1));
  return (((v12 > a8) && (a11 <= a11)) ? color((a8 + a8), step(v12, v12), a11) : (color(a11, a11, a8) - color(v12, v12, a8)));
}
surface dynamic_loop_exit_forwards(float k14 = (-1.68); float k15 = (-0.99); float k16 = 3.39; uniform float n17 = 4)
{
  uniform float i18 = 0;
  for (i18 = 0; i18 < 2; i18 += 1) {
    illuminance(P, normalize(N), PI / 2) {
      float i21 = 0;
      for (i21 = 0; i21 < 3; i21 += 1) {
      }
      float i22 = 0;
      for (i22 = 0; i22 < n17 && (atan(i18) >= (u + (-1e-06))); i22 += 1) {
      }
    }
  }
  float arr24[2] = {((s * (-1.95) + k15) - atan(u, k15)), ((k14 + k16) - atan(k16))};
  float v25 = fn0(color(0, (-0.9), (-1.68)), normal(0.86));
  if (arr24[1] == ((k14 < v) ? v : v25)) {
    if ((arr24[0] - k14) > (v + s)) {
      if ((comp(P, 2) <= (-0.5) || comp(P, 0) <= (-0.5) || comp(P, 1) <= (-0.5)) && ((3.1415927 < t) && (2.76 > k15))) {
      }
      if ((1e-06 / v) >= length(normal(0.07))) {
      }
    }
  }
  uniform float i42 = 0;
  for (i42 = 0; i42 < n17; i42 += 1) {
  }
}