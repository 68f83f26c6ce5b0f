!!TS1.0
// one pass on geforce3: 6 general combiner stages, 4 texture units
texture_2d();                       // unit 0: texture "pindecals" at (n1 s, n2 t)
texture_2d();                       // unit 1: texture "pinbasemarks" at (n1 s, n2 t)
texture_2d();                       // unit 2: texture "pinnormals" at (n14 v2, n15 v3)
texture_cube_map();                 // unit 3: normalisation cube map of n34 v7
