// SPDX-License-Identifier: GPL-3.0-or-later
// A scene's texture images in RPU data memory (beyond the thesis, which names texture loads but
// gives them no semantics). Each image lies row by row from its base address, one texel per word
// (r, g, b, a), the images one after another from kTextureMemory in name order; the scene's
// records follow them. A lookup is a bilinear filter written out in RPU instructions
// (backends/rpu/texture.cpp) with the image's base as the loads' offset, so a texel's index
// within its image is the only address the shader computes: 24-bit floats hold integers to 2^17,
// and an image larger than kMaxTexels is stored as its first mip level that fits (a warning).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "backends/rpu/isa.h"
#include "backends/rpu/memory_map.h"
#include "core/lang/diagnostic.h"
#include "core/sim/texture.h"

namespace passlab::rpu {

inline constexpr std::uint32_t kMaxTexels = 1u << 16;

struct TextureImage {
  std::string name;
  std::uint32_t base = 0;  // the word of texel (0, 0); texel (x, y) is base + y * width + x
  int width = 0, height = 0;
  int level = 0;  // the mip level of the file's image held (0: the image as it is)
  std::size_t index = 0;  // its place in TextureMemory::images()
};

// The runtime function that filters image `index` (backends/rpu/texture.cpp), and the RSL that
// defines every image's: `color __rpu_texels_<k>(point st; output float a)`, compiled with the
// runtime library.
std::string texels_function(std::size_t index);
std::string texels_source(const std::vector<TextureImage>& images);

class TextureMemory {
 public:
  // Reads `files` (texture name -> PNG path, a scene's "textures"). A file that cannot be read is
  // an error in `sink`; false then.
  bool load(const std::map<std::string, std::string>& files, lang::DiagnosticSink& sink);

  const TextureImage* find(const std::string& name) const;
  const std::vector<TextureImage>& images() const { return images_; }
  // The first word after the texels: where the scene's records begin.
  std::uint32_t end() const { return end_; }
  // Writes the texels into memory[kTextureMemory, end()), growing it.
  void write(std::vector<Vec4>& memory) const;
  // The same images as the reference renderer samples them (level 0 bilinear, repeating; names
  // without an image are the procedural stand-ins).
  const sim::TextureSet& sampler() const { return texels_; }

 private:
  std::vector<TextureImage> images_;
  sim::TextureSet texels_;  // each name's level 0 is the image held in memory
  std::uint32_t end_ = kTextureMemory;
};

}  // namespace passlab::rpu
