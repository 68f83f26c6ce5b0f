// The scene's images as textures: bilinear filtering with repeat wrapping, and a mip chain.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/ir/value.h"
#include "core/sim/image.h"
#include "core/sim/problem.h"

namespace passlab::sim {

class TextureSet : public ir::TextureSampler {
 public:
  // Loads each name -> PNG path; problems for files that cannot be read (those names fall back to
  // the procedural stand-ins, as unbound names do).
  bool load(const std::map<std::string, std::string>& files, Problems* problems);
  void add(const std::string& name, Image image);
  // Level 0, bilinear, s and t wrapping (repeat); names without an image use
  // ir::ProceduralTextures so that every shader renders.
  std::array<float, 4> sample(const std::string& name, int dims, const float* coords) const override;
  // Trilinear between mip levels `lod` (0 = full size).
  std::array<float, 4> sample_lod(const std::string& name, float s, float t, float lod) const;
  bool has(const std::string& name) const { return textures_.count(name) > 0; }
  const Image* image(const std::string& name) const {  // level 0, or null
    auto it = textures_.find(name);
    return it == textures_.end() ? nullptr : &it->second.front();
  }

 private:
  std::map<std::string, std::vector<Image>> textures_;  // name -> mip chain, largest first
  ir::ProceduralTextures fallback_;
};

}  // namespace passlab::sim
