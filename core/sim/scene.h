// SPDX-License-Identifier: GPL-3.0-or-later
// Scenes: a camera, objects (meshes with a transform, colours and a shader) and named textures,
// read from a JSON file.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/lang/diagnostics.h"
#include "core/sim/mesh.h"
#include "core/sim/raster.h"

namespace passlab::sim {

struct SceneObject {
  std::string name;
  Mesh mesh;                    // in object space
  Mat4 to_camera;               // object space -> camera space (the camera applied)
  std::string shader;           // absolute path; "" : the shader the renderer is given
  std::string lights;           // absolute path of its light setup; "" : the one beside its shader
  Vec3 cs{1, 1, 1}, os{1, 1, 1};  // the RSL globals Cs and Os
  Cull cull = Cull::None;
  bool transparent = false;     // blended over what is behind it and does not write depth (Os < 1)
  bool flat = false;            // "normals": "faces": each triangle shaded with its face normal
  // Motion blur: where the object is at the end of the unit of motion (the camera's "end" pose and
  // the object's "motion" applied); corners move linearly between to_camera and this.
  Mat4 to_camera_end;
  bool moving = false;          // to_camera_end differs from to_camera
  float shading_rate = 1;       // "shading_rate": decoupled sampling's pixels of area per shading sample
};

// The one point light a ray-traced renderer (the RPU) passes to its shaders, in camera space.
struct PointLight {
  Vec3 from{0, 0, 0};
  Vec3 color{1, 1, 1};
};

struct Scene {
  std::string path;
  float fov_degrees = 40;
  std::array<float, 4> background{0, 0, 0, 1};
  int width = 512, height = 512;  // the default image size
  bool sort_transparent = true;   // transparent objects drawn back to front (else in file order)
  std::map<std::string, std::string> textures;  // texture name -> absolute PNG path
  std::vector<SceneObject> objects;
  PointLight light;               // "light": {"from": [...], "color": [...]} in world space
  // "lights": light shaders for a ray tracer (the RPU), in a light setup's form with world-space
  // positions: [{"shader": "../lights/spotlight.sl", "params": {"from": [...], ...}}, ...].
  // Read with their shaders by driver::load_scene_lights; here only whether there are any.
  bool has_lights = false;
  Mat4 world_to_camera;           // the camera's pose at the start of the motion
  int ray_depth = 4;              // "ray_depth": rays a ray-traced shader may nest (primary = 1)
  // A thin lens (defocus blur) and a shutter (motion blur), used by decoupled sampling
  // (sim/decoupled.h); the other renderers see a pinhole at the start of the motion.
  float aperture = 0;             // "camera": "aperture": the lens radius in camera-space units; 0 is a pinhole
  float focus = 1;                // "camera": "focus": the distance (camera z) of the plane in focus
  std::array<float, 2> shutter{0, 1};  // "camera": "shutter": the span of the unit of motion the exposure sees
  bool blurred() const;           // a lens, or something that moves while the shutter is open
};

// Reads a scene:
//   { "camera": {"from": [0,0,0], "to": [0,0,1], "up": [0,1,0], "fov": 40,
//                "aperture": 0.1, "focus": 6, "shutter": [0, 1],
//                "end": {"from": [...], "to": [...], "up": [...]}},
//     "size": [512, 512], "background": [0,0,0,1], "sort_transparent": true,
//     "textures": {"grain": "textures/grain.png"},
//     "objects": [ {"name": "pin", "mesh": {"bowling_pin": {"segments": 48}},
//                   "translate": [0,-0.5,3], "rotate": [30, 0,1,0], "scale": 1.5,
//                   "Cs": [1,1,1], "Os": [1,1,1], "cull": "back", "shader": "../shaders/wood.sl",
//                   "lights": "../shaders/wood.lights.json",
//                   "normals": "vertex", "shading_rate": 1,
//                   "motion": {"translate": [0.3,0,0], "rotate": [20, 0,1,0], "scale": 1}} ],
//     "light": {"from": [0,5,0], "color": [1,1,1]}, "ray_depth": 4,
//     "lights": [ {"shader": "../lights/spotlight.sl", "params": {"from": [0,5,0], "to": [0,0,0]}} ] }
// Meshes: {"sphere": {radius, slices, stacks}}, {"torus": {major, minor, rings, sides}},
// {"plane": {width, height, columns, rows}}, {"bowling_pin": {segments}},
// {"lathe": {profile: [[r, y], ...], segments}}, or a path to a mesh file (OBJ, PLY, glTF, GLB, FBX,
// Collada, STL and the rest load_mesh reads).
// Paths are relative to the scene file; "$deps/..." is a file that scripts/setup.sh fetched
// (e.g. the Stanford bunny from npm), found in deps/ of the data folder (core/paths/data_dir.h). Camera space is RenderMan's (eye at the origin looking
// down +z), which the light setups next to the shaders use; the default camera is exactly that.
// Motion: over one unit of time the camera goes from its pose to its "end" pose, and an object
// moves by its "motion" (added to its translation, rotation about its own origin, and scale);
// the shutter sees times shutter[0] to shutter[1] of that unit.
// Every problem is a diagnostic (code "scene", or the mesh's or texture's) at its line and column
// in the JSON (or in a mesh file); the scene file is kept in the diagnostics' sources.
std::optional<Scene> load_scene(const std::string& path, lang::Diagnostics* problems);

// Where "$deps/" paths point: deps/ of the data folder, or the build tree's _deps.
std::string deps_dir();

}  // namespace passlab::sim
