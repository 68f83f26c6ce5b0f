// generated: --family fragment --seed 909806 (reduced)
// fails: fp PC1 RDSh: mismatch (fragment 7 (s=0.096 t=0.680): r 0.438179, the reference 0.438040, tolerance 6.4e-05)
// The fp backend evaluated each Catmull-Rom segment as a cubic re-expanded in u = 5 v, whose
// coefficients for the last segments are large and cancel in float arithmetic. Each segment is
// now a cubic in t = u - segment.
// accepts: fragment
surface fp_spline_late_segment()
{
  float v25 = (spline(v, 1.71, (1.38), (1.58), 1.5, 1.32, (-0.11), 0.74));
  Ci = color(v25) * 1;
}
