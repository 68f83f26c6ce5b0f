// written for matrices that differ per fragment (not a reduced failure); also a known matrix
// transforming a point computed per fragment, which fp targets refused ("a matrix value reached
// the fragment program") before
// A matrix chosen or built per fragment (a rotation by an angle that varies, a varying choice
// between two, a product of such) is kept as its rows: a transform scales and sums them, a product
// sums rows scaled by elements, comp() and determinant() read elements, == compares row by row,
// ntransform takes cross products of the rows over the determinant (the inverse transpose), and
// a projective matrix divides by w where w is neither 0 nor 1, as the reference does. Every
// partition, render-to-texture and F-buffer render must agree with the reference interpreter.
// accepts: fragment
surface matrices_per_fragment(float turn = 0.7)
{
  matrix spin = rotate(matrix 1, s * turn * 3.14, vector(0, 0, 1));
  matrix m = t > 0.5 ? translate(spin, vector(0.1, 0.2, 0)) : scale(matrix 1, vector(1, 2, 0.5));
  matrix proj = matrix(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, u * 0.5, 0, 0, 0, 1);
  matrix both = m * proj / matrix(2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 1);
  point Q = transform(both, P);
  vector V = vtransform(m * spin, vector(1, 0.5, 0));
  normal Nm = normalize(ntransform(m * spin, N));
  point K = transform(matrix(0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 2, 0, 1, 0, 0, 1), normalize(P) * s);
  float d = determinant(both) + comp(m, 3, 0) + (m == spin ? 1 : 0);
  Ci = (color(Q) * 0.2 + color(V) * 0.3 + color(Nm) * 0.2 + color(K) * 0.1 + d * 0.1) * Cs;
  Oi = Os;
}
