// SPDX-License-Identifier: GPL-3.0-or-later
// An fp program, whole or split into the passes of a partition, as a shader the simulator runs:
// each pass compiled to a straight-line program over batches of fragments in structure-of-arrays
// form, with the same arithmetic as fp::execute (so passes reproduce the single pass bit for bit).
#pragma once

#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "backends/fp/target_dag.h"
#include "core/partition/partition.h"
#include "core/sim/shading.h"

namespace passlab::fp {

class PassShader : public sim::FragmentShader {
 public:
  // The whole program as one pass.
  PassShader(const TargetDag& t, const dag::FragmentDag& d, const ir::EvalContext& ctx);
  // The passes of `part`, their intermediate values in part.texture's buffers.
  PassShader(const TargetDag& t, const dag::FragmentDag& d, const partition::Partition& part, const ir::EvalContext& ctx);

  int passes() const override { return static_cast<int>(programs_.size()); }
  int interpolants() const override { return static_cast<int>(leaves_.size() + grad_nodes_.size()); }
  bool screen_derivatives(int k) const override { return k >= static_cast<int>(leaves_.size()); }
  // A difference interpolant (TNode::difference): its corners hold the value, the renderer differences it.
  int screen_difference(int k) const override {
    return k < static_cast<int>(leaves_.size()) ? leaf_difference_[static_cast<std::size_t>(k)] : 0;
  }
  bool quad_differences() const override { return t_.derivatives == partition::Derivatives::Quad; }
  void corner(const ir::FragmentInputs& in, float* out) const override;
  unsigned interpolant_mask(int pass, int k) const override {
    const auto& m = programs_[static_cast<std::size_t>(pass)].interpolant_mask;
    return static_cast<std::size_t>(k) < m.size() ? m[static_cast<std::size_t>(k)] : 0u;
  }
  int buffers() const override { return buffers_; }
  const std::vector<int>& restores(int pass) const override { return programs_[static_cast<std::size_t>(pass)].restores; }
  int saves(int pass) const override { return programs_[static_cast<std::size_t>(pass)].saves.front(); }
  int outputs(int pass) const override { return static_cast<int>(programs_[static_cast<std::size_t>(pass)].results.size()); }
  int saves(int pass, int k) const override { return programs_[static_cast<std::size_t>(pass)].saves[static_cast<std::size_t>(k)]; }
  void run(int pass, int n, const float* const* in, const float* const* restored, float* out,
           std::vector<float>& scratch) const override;

  // The pass as a GLSL 3.30 fragment shader, to render with OpenGL: interpolant k arrives as
  // `in vec4 v<k>`, restored value r as texelFetch(restore<r>, ...) at the fragment's pixel, the
  // noise texture as `uniform sampler3D noise_lattice` (32^3, linear filtering, repeat), textures
  // the sampler has images for (has_image) as `uniform sampler2D image<i>` with (*images)[i]
  // their names; other names are the procedural stand-ins, computed in the shader. The value
  // goes to `out vec4 result` (a pass of several values: value k to `result<k>` at location k).
  std::string glsl(int pass, const std::function<bool(const std::string&)>& has_image, std::vector<std::string>* images) const;

  // Instructions of a pass (for tests and statistics).
  std::size_t instructions(int pass) const { return count_instructions(programs_[static_cast<std::size_t>(pass)]); }
  long operations() const override {
    long n = 0;
    for (const auto& p : programs_) n += static_cast<long>(count_instructions(p));
    return n;
  }

 private:
  enum class From : std::uint8_t { Register, Interpolant, Restore, Constant };
  struct Source {
    From from = From::Register;
    int index = 0;
    std::array<std::uint8_t, 4> lane{0, 1, 2, 3};
    float sign = 1;
  };
  struct Instruction {
    Opcode op = Opcode::MOV;
    bool saturate = false;
    int dst = 0;  // register
    Source src[3];
    int sources = 0;
    const TNode* node = nullptr;  // TEX: its texture and coordinate count
    std::uint8_t mask = 0xF;      // the components some reader uses; the others are not computed
    int channels = 4;             // TEX: channels up to the last one used (a float lookup needs one)
    int grad = -1;                // TEX of an image: the interpolant with its coordinates' derivatives
    bool shadow = false;          // the quad partner's work for a DDX or DDY (see build)
    std::vector<Source> operands; // a loop (TKind::Loop): every operand, run fragment by fragment
  };
  struct Program {
    std::vector<Instruction> code;
    int registers = 0;
    std::vector<int> results;  // the registers holding the outputs' values, in output order
    std::vector<int> restores;
    std::vector<int> saves;    // per output: the buffer it goes to (-1: the last pass's colour)
    std::vector<std::uint8_t> interpolant_mask;  // per interpolant: the components read
    void reads_interpolant(int k, unsigned components) {
      if (interpolant_mask.size() <= static_cast<std::size_t>(k)) interpolant_mask.resize(static_cast<std::size_t>(k) + 1, 0);
      interpolant_mask[static_cast<std::size_t>(k)] |= static_cast<std::uint8_t>(components);
    }
  };
  // The pass's own instructions (not the quad partner's work).
  static std::size_t count_instructions(const Program& p) {
    return static_cast<std::size_t>(std::count_if(p.code.begin(), p.code.end(), [](const Instruction& i) { return !i.shadow; }));
  }
  void sample_texture(const Instruction& ins, int n, int lanes, const float* const* in, const float* const (&src)[3][4], float sa,
                      float* const (&r)[4]) const;
  void execute(int pass, int n, const float* const* in, const float* const* restored, float* out,
               std::vector<float>& scratch) const;
  std::vector<std::uint8_t> components_needed(const std::vector<TNodeId>& roots) const;
  // The members (`member`) under x, x included, that a DDX or DDY of x recomputes for the quad
  // partner, in operand order; and the DDX and DDY among them, whose values the partner shares.
  std::pair<std::vector<TNodeId>, std::vector<TNodeId>> quad_cone(TNodeId x, const std::vector<char>& member) const;
  void build(const std::vector<std::vector<TNodeId>>& members, const std::vector<std::vector<TNodeId>>& outputs,
             const std::map<TNodeId, int>& texture);

  const TargetDag& t_;
  const dag::FragmentDag& d_;
  ir::EvalContext ctx_;
  std::vector<TNodeId> leaves_;          // the interpolant leaves, in interpolant order
  std::vector<std::uint8_t> leaf_difference_;  // per leaf: its screen_difference (3, 4: a quad partner's value)
  std::map<std::pair<TNodeId, std::uint8_t>, int> partner_index_;  // (leaf, 3 or 4) -> its interpolant
  std::vector<TNodeId> grad_nodes_;      // image lookups, whose derivative interpolants follow the leaves
  std::vector<TNodeId> grad_cone_;       // the nodes their coordinates depend on, in operand order
  std::vector<float> constants_;         // kBatch-wide blocks, one per constant leaf used
  std::vector<Program> programs_;
  int buffers_ = 0;
};

}  // namespace passlab::fp
