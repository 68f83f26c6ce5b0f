// SPDX-License-Identifier: GPL-3.0-or-later
// Triangle meshes with the per-vertex attributes the RSL globals come from, procedural shapes,
// and mesh files (OBJ and PLY by our own readers, glTF, FBX, Collada and more through Assimp).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/lang/diagnostics.h"
#include "core/sim/math.h"

namespace passlab::sim {

struct Vertex {
  Vec3 p;           // position
  Vec3 n;           // shading normal (unit); zero when the file gives none (then the face normal)
  float s = 0, t = 0;  // texture coordinates
  float u = 0, v = 0;  // surface parameters (procedural shapes; files: u = s, v = t)
  Vec3 dpdu, dpdv;  // surface derivatives; zero when unknown (then derived from s, t per triangle)
};

struct Mesh {
  std::vector<Vertex> vertices;
  std::vector<std::array<std::uint32_t, 3>> triangles;  // counter-clockwise seen from the front
  // Fills missing normals from the faces and missing dPdu/dPdv from the texture coordinates.
  void complete();
};

// The same surface with every triangle's own three vertices carrying its face normal, so that
// interpolation gives flat shading.
Mesh flat_shaded(const Mesh& m);

// Procedural shapes, centred at the origin, with u, v in [0, 1] and s = u, t = v.
Mesh make_sphere(float radius, int slices, int stacks);
Mesh make_torus(float major_radius, float minor_radius, int rings, int sides);
Mesh make_plane(float width, float height, int columns, int rows);  // in the xy plane, facing -z
// A surface of revolution about the y axis through the (radius, height) profile points.
Mesh make_lathe(const std::vector<std::array<float, 2>>& profile, int segments);
// A bowling pin (height 1, standing on y = 0) from a lathe profile.
Mesh make_bowling_pin(int segments = 48);

// Wavefront OBJ (v, vt, vn, f with any of the index forms, negative indices; polygons are
// fanned) and PLY (ascii and binary_little_endian; vertex x y z, optional nx ny nz, s t or u v,
// face vertex_indices). On bad input: nullopt, and each problem a diagnostic (code "mesh") with its
// line (OBJ, ascii PLY) or byte offset in its message (binary PLY).
std::optional<Mesh> load_obj(const std::string& path, lang::Diagnostics* problems);
std::optional<Mesh> load_ply(const std::string& path, lang::Diagnostics* problems);
// The formats other tools export, read through Assimp (mesh_import.cpp): glTF 2.0 (.gltf, .glb),
// FBX, Collada (.dae), STL, 3DS and the rest Assimp reads. Every mesh of the file's scene with its
// node transform applied, polygons triangulated, corners that agree shared, points and lines
// dropped; normals and the first texture coordinates (s = u, t = v) when the file has them.
// Problems are diagnostics (code "mesh") naming the file (with the line and column of a .gltf
// file's JSON syntax error).
std::optional<Mesh> import_mesh(const std::string& path, lang::Diagnostics* problems);
// Whether import_mesh reads this file by its extension (.obj and .ply are not its).
bool imported_extension(const std::string& path);
// Every extension load_mesh takes (".obj", ".ply", then Assimp's, sorted), for dialogs and messages.
std::vector<std::string> mesh_extensions();
// By extension: .obj and .ply by the readers above, the rest through import_mesh.
std::optional<Mesh> load_mesh(const std::string& path, lang::Diagnostics* problems);

}  // namespace passlab::sim
