// SPDX-License-Identifier: GPL-3.0-or-later
// The second opinion: a scene rendered with real OpenGL (Mesa's llvmpipe, headless through
// surfaceless EGL) from the GLSL of each pass, the way sim::render draws it in one pass or pass by
// pass with render-to-texture intermediates (OpenGL has no F-buffer).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/fp/pass_shader.h"
#include "core/sim/image.h"
#include "core/sim/scene.h"
#include "core/sim/texture.h"

namespace passlab::gl {

class GlRenderer {
 public:
  // A GL 3.3 core context without a window; nullptr and *error when EGL or GL is missing.
  static std::unique_ptr<GlRenderer> create(std::string* error);
  ~GlRenderer();
  std::string renderer() const;  // GL_RENDERER, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)"

  // shaders[i] shades scene.objects[i], in one pass or several (intermediates in textures). Only
  // fp programs (fp::PassShader) have a GLSL form; another kind of shader is an error.
  // milliseconds: the time from clearing the frame buffer to the last draw's end (glFinish before
  // and after). Programs are compiled on first use and kept, so a repeated render measures drawing.
  std::optional<sim::Image> render(const sim::Scene& scene, const std::vector<const sim::FragmentShader*>& shaders,
                                   const sim::TextureSet& textures, int width, int height, std::string* error,
                                   double* milliseconds = nullptr);

 private:
  GlRenderer() = default;
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace passlab::gl
