/*
 * The RPU's light source (thesis §7.2): one point light whose position is in the constant
 * register C0.xyz and whose colour is in C1.xyz, set by the application (the scene's "light").
 * Surface shaders' illuminance loops and diffuse/specular/phong run over it. The compiler binds
 * both parameters at run time, so these defaults only show what the registers mean.
 */
light rpu_light(point from = point "camera" (0, 0, 0); color lightcolor = 1)
{
    illuminate (from)
        Cl = lightcolor;
}
