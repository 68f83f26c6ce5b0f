// SPDX-License-Identifier: GPL-3.0-or-later
// What the combiner compiler works on: one pass of a FragmentDag (PassSpec), its texture units
// (stage 1), its pass inputs, and the DAG of hardware operations that stage 2 rewrites it into
// (Mark & Proudfoot §4): 3-vector (RGB) and scalar (ALPHA) values, MUL, DOT, ADD and MUX, input
// and output mappings, TRIPLE and BLUE.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backends/combiners/intervals.h"
#include "backends/combiners/machine.h"
#include "backends/combiners/mappings.h"
#include "core/dag/fragment_dag.h"

namespace passlab::combiners {

// One pass: `root` computed from `members` (root included); the operations in `restores` were
// computed by earlier passes and are read back from the textures they were saved in.
struct PassSpec {
  const dag::FragmentDag* dag = nullptr;
  const std::vector<Interval>* ranges = nullptr;  // intervals(*dag)
  dag::NodeId root = 0;
  std::vector<dag::NodeId> members;
  std::vector<dag::NodeId> restores;
  bool final() const { return dag && root == dag->root; }
};

// How a value is kept in an 8-bit texture or a colour register that holds [0, 1].
enum class Encoding : std::uint8_t {
  Unsigned,  // as it is (proved to lie in [0, 1])
  Biased,    // (x + 1) / 2, read back through expand(): [-1, 1] at 2/255 a step
};
// The encoding of a saved FragmentDag value, from its interval (both passes agree on it).
Encoding saved_encoding(const Interval& range);

// Stage 1: what each texture unit does (NV_texture_shader's operations and the plain lookups).
enum class UnitOp : std::uint8_t {
  Texture1D, Texture2D, Texture3D,
  CubeNormalize,     // a normalisation cube map looked up with an interpolated vector: (n + 1) / 2
  Restore,           // an intermediate texture at the fragment's window position
  PassThrough,       // GeForce3: the interpolated coordinates themselves, clamped to [0, 1]
  DotProduct,        // GeForce3: s = coords . expand(previous unit), for the next unit
  DotProductTexture2D,  // GeForce3: (s of the unit before, coords . expand(previous)) into a 2D texture
  Table1D,           // a generated function table looked up at an interpolated value (tables.h)
  DependentAR,       // GeForce3: a function table looked up at (alpha, red) of the previous unit
  DependentGB,       // GeForce3: ... at (green, blue)
  CubeDot,           // GeForce3: dot_product_cube_map_1of3/2of3: coords . expand(previous), for the 3of3 unit
  DotProductCubeMap, // GeForce3: the third dot product, then the normalisation cube map at the three
};
const char* to_string(UnitOp op);

struct FunctionTable;

struct TextureUnit {
  UnitOp op = UnitOp::Texture2D;
  std::string texture;                 // the texture's name ("$noise" the noise lattice); "" for others
  std::vector<dag::NodeId> coords;     // FragmentDag interpolant (or constant) nodes: s, t, r in order
  std::vector<std::uint8_t> coord_sizes;  // components each one gives (1, or 3 for a vector)
  std::vector<dag::NodeId> nodes;      // the FragmentDag nodes whose values this unit delivers
  int previous = -1;                   // dependent operations: the unit whose result they read
  bool expand_previous = false;        // dot products read it as expand() (a signed normal)
  int component = 0;                   // CubeDot: 0 for the 1of3 unit, 1 for the 2of3 unit
  // A projective lookup (GL divides s, t, r by q): the coordinates are coords / q, and
  // `quotients` the FragmentDag divisions the unit computes so.
  dag::NodeId q = 0;
  bool projective = false;
  std::vector<dag::NodeId> quotients;
  dag::NodeId restored = 0;            // Restore: the saved node
  Encoding encoding = Encoding::Unsigned;  // Restore: how it was saved; a table: how its texels hold the value
  std::shared_ptr<const FunctionTable> table;  // Table1D and the dependent lookups: the function
};
// Whether the unit's RGB (and alpha) hold (x + 1) / 2, read back through expand().
bool biased_result(const TextureUnit& u);

// A value entering the top of the combiner pipeline (§6): an interpolant, a constant, or a
// texture unit's result.
struct PassInput {
  InputClass cls = InputClass::Interpolant;
  dag::NodeId node = 0;            // the FragmentDag node (interpolant or constant leaf, texture, restore)
  int unit = -1;                   // texture class: the unit
  bool triple = true;              // an RGB value (else a scalar, in an ALPHA part)
  bool biased = false;             // stored (x + 1) / 2 and read through expand()
  bool negated = false;            // a constant stored as -x (every component <= 0), read negated
  std::array<float, 3> value{};    // constants: the value (before bias or negation)
  // Stage 4: where it is. `reg` < 0 until allocated; a scalar may ride in the blue of an RGB part.
  int reg = -1;
  Part part = Part::Rgb;
  bool in_blue = false;
  int stage = -1;                  // per-stage constants (GeForce3): the stage whose C0/C1 hold it
};

using HId = std::uint32_t;
constexpr HId kNoH = 0xFFFFFFFFu;

enum class HOp : std::uint8_t {
  Input,    // a pass input's RGB or ALPHA part (or its blue)
  Const,    // a constant
  Mul,      // a * b (componentwise in RGB)
  Dot,      // RGB only: a . b, copied to all three components
  Add,      // a + b
  Mux,      // kids: control (must be in spare0.a), left (control < 1/2), right (control >= 1/2)
  InMap,    // an input mapping of its operand
  OutMap,   // an output mapping (scale/bias) of a combiner's result
  BothMap,  // 2(x - 1/2) or x - 1/2: an input mapping when x >= 0, or an output mapping
  Triple,   // RGB from a scalar: (x, x, x)
  Blue,     // a scalar from an RGB value: its blue
};
const char* to_string(HOp op);

struct HNode {
  HOp op = HOp::Const;
  Part part = Part::Rgb;
  std::uint8_t map = 0;            // InMap: an InMap; OutMap and BothMap: an OutMap
  std::vector<HId> kids;
  int input = -1;                  // Input: the pass input
  std::array<float, 3> value{};    // Const (a scalar in value[0])
  Interval range;                  // what the register value can be (within [-1, 1])
  dag::NodeId origin = 0;          // the FragmentDag node it came from
  bool has_origin = false;
  bool removed = false;            // replaced by a rewrite
};

struct HDag {
  std::vector<HNode> nodes;
  HId rgb_root = kNoH, alpha_root = kNoH;  // the pass's result (a saved scalar has only alpha)
  std::vector<PassInput> inputs;
  std::vector<TextureUnit> units;

  HId add(HNode n) {
    nodes.push_back(std::move(n));
    return static_cast<HId>(nodes.size() - 1);
  }
  const HNode& operator[](HId i) const { return nodes[i]; }
  HNode& operator[](HId i) { return nodes[i]; }
  // Parents of each node the roots reach, counted once per distinct parent, in topological order.
  std::vector<std::vector<HId>> parents() const;
  // The live nodes in an order where operands come first.
  std::vector<HId> topological() const;
};

// Combiners between x and the pass inputs, roughly (input and output mappings' nodes, TRIPLE and
// BLUE are free: a variable absorbs them). `memo` caches per node (-1: not yet), grown as needed.
int combiner_depth(const HDag& h, HId x, std::vector<int>& memo);

// The DAG in text, one node a line (for --emit, tests and the trace).
std::string to_text(const HDag& h, const dag::FragmentDag& d);
std::string describe(const HNode& n);  // "MUL rgb", "INMAP expand(x)", ...

}  // namespace passlab::combiners
