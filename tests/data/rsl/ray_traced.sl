// Ray-traced lookups (RI 3.2 trace; PRMan's occlusion and gather): they check, and the fragment
// DAG refuses them with one diagnostic naming what can run them.
surface ray_traced(float Kr = 0.5; float samples = 16) {
  normal Nf = faceforward(normalize(N), I);
  color mirror = trace(P, reflect(I, Nf));
  float hidden = occlusion(P, Nf, samples, "maxdist", 2);
  Ci = (1 - hidden) * diffuse(Nf) + Kr * mirror;
}
