// SPDX-License-Identifier: GPL-3.0-or-later
// The scene's images as textures: repeat wrapping, a mip chain (2x2 box filtered), bilinear
// lookups within a level and trilinear ones between levels chosen by the screen footprint.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/ir/value.h"
#include "core/lang/diagnostics.h"
#include "core/sim/image.h"

namespace passlab::sim {

class TextureSet : public ir::TextureSampler {
 public:
  // Loads each name -> PNG path; problems for files that cannot be read (those names fall back to
  // the procedural stand-ins, as unbound names do).
  bool load(const std::map<std::string, std::string>& files, lang::Diagnostics* problems);
  void add(const std::string& name, Image image);
  // Level 0, bilinear, s and t wrapping (repeat); names without an image use
  // ir::ProceduralTextures so that every shader renders.
  std::array<float, 4> sample(const std::string& name, int dims, const float* coords) const override;
  // Trilinear between mip levels `lod` (0 = full size).
  std::array<float, 4> sample_lod(const std::string& name, float s, float t, float lod) const;
  // The level of detail is log2 of the larger of the footprint's two sides in level-0 texels, as
  // OpenGL defines it; magnified (lod <= 0), the lookup is level 0's bilinear one.
  std::array<float, 4> sample_grad(const std::string& name, float s, float t, const float* grad) const override;
  void sample_grad_batch(const std::string& name, int n, const float* s, const float* t, const float* const grad[4],
                         float* const rgb[3]) const override;
  static float level_of_detail(const float* grad, int width, int height);
  bool has_image(const std::string& name) const override { return has(name); }
  std::array<int, 2> image_size(const std::string& name) const override {
    auto it = textures_.find(name);
    return it == textures_.end() ? std::array<int, 2>{0, 0} : std::array<int, 2>{it->second.front().width, it->second.front().height};
  }
  bool has(const std::string& name) const { return textures_.count(name) > 0; }
  const std::vector<Image>* levels(const std::string& name) const {  // the mip chain, largest first
    auto it = textures_.find(name);
    return it == textures_.end() ? nullptr : &it->second;
  }

 private:
  std::map<std::string, std::vector<Image>> textures_;  // name -> mip chain, largest first
  ir::ProceduralTextures fallback_;
};

}  // namespace passlab::sim
