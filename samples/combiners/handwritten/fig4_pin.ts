!!TS1.0
texture_2d();
texture_2d();
texture_2d();
texture_cube_map();
