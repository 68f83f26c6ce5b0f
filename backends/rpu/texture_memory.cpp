// SPDX-License-Identifier: GPL-3.0-or-later
// The scene's texture images laid out in RPU data memory.
#include "backends/rpu/texture_memory.h"

#include "backends/rpu/memory_map.h"
#include "core/sim/image.h"

namespace passlab::rpu {

bool TextureMemory::load(const std::map<std::string, std::string>& files, lang::DiagnosticSink& sink) {
  images_.clear();
  texels_ = sim::TextureSet();
  end_ = kTextureMemory;
  bool ok = true;
  for (const auto& [name, path] : files) {
    lang::Diagnostics problems;
    std::optional<sim::Image> image = sim::read_png(path, &problems);
    if (!image) {
      for (const lang::Diagnostic& d : problems.items()) sink.error("rpu-texture", {}, "texture '" + name + "' (" + path + "): " + d.message);
      ok = false;
      continue;
    }
    // The mip chain as every renderer builds it; the largest level the addresses hold.
    sim::TextureSet chain;
    chain.add(name, std::move(*image));
    const std::vector<sim::Image>& levels = *chain.levels(name);
    std::size_t level = 0;
    while (level + 1 < levels.size() && static_cast<std::uint64_t>(levels[level].width) * static_cast<std::uint64_t>(levels[level].height) > kMaxTexels)
      ++level;
    const sim::Image& held = levels[level];
    if (level > 0)
      sink.warning("rpu-texture-reduced", {},
                   "texture '" + name + "' is " + std::to_string(levels[0].width) + "x" + std::to_string(levels[0].height) +
                       "; the RPU holds its mip level " + std::to_string(level) + " (" + std::to_string(held.width) + "x" +
                       std::to_string(held.height) + "), as a texel's index must stay below " + std::to_string(kMaxTexels) +
                       " to be exact in 24-bit floats");
    images_.push_back({name, end_, held.width, held.height, static_cast<int>(level), images_.size()});
    end_ += static_cast<std::uint32_t>(held.width * held.height);
    texels_.add(name, held);
  }
  return ok;
}

const TextureImage* TextureMemory::find(const std::string& name) const {
  for (const TextureImage& t : images_)
    if (t.name == name) return &t;
  return nullptr;
}

void TextureMemory::write(std::vector<Vec4>& memory) const {
  if (memory.size() < end_) memory.resize(end_, Vec4{});
  for (const TextureImage& t : images_) {
    const sim::Image& im = texels_.levels(t.name)->front();
    for (int y = 0; y < t.height; ++y)
      for (int x = 0; x < t.width; ++x) {
        const float* p = im.at(x, y);
        memory[t.base + static_cast<std::uint32_t>(y * t.width + x)] = {p[0], p[1], p[2], p[3]};
      }
  }
}

std::string texels_function(std::size_t index) { return "__rpu_texels_" + std::to_string(index); }

std::string texels_source(const std::vector<TextureImage>& images) {
  std::string text = "\n/* The scene's texture images, one lookup function each (generated: backends/rpu/texture_memory.cpp). */\n";
  for (const TextureImage& t : images) {
    std::string name;
    for (char c : t.name) {
      if (c == '"' || c == '\\') name += '\\';
      name += c;
    }
    text += "color " + texels_function(t.index) + "(point st; output float a)\n{\n    a = float texture(\"" + name +
            "\"[3], xcomp(st), ycomp(st));\n    return color texture(\"" + name + "\", xcomp(st), ycomp(st));\n}\n";
  }
  return text;
}

}  // namespace passlab::rpu
