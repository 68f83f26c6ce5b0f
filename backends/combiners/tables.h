// SPDX-License-Identifier: GPL-3.0-or-later
// Function tables ("texture shading": Olano, Hart, Heidrich and McCool, Real-Time Shading, 2002,
// ch. 6): what the combiners cannot compute (a root, a power, a division, a sine, mod, floor,
// smoothstep, spline, noise at computed coordinates) is, as a function of one value, a lookup in a
// texture the compiler generates. The value indexes the table in one of two ways:
//  - it is interpolated: the table is looked up at it as a texture coordinate (any card), over
//    its interval (bounded) or one period (GL_REPEAT);
//  - it comes from a texture unit (a value an earlier pass saved, a lookup, another table): a
//    GeForce3 texture shader reads it as the coordinates of a dependent lookup
//    (DEPENDENT_AR_TEXTURE_2D / DEPENDENT_GB_TEXTURE_2D), one texel per 8-bit value.
#pragma once

#include <array>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backends/combiners/hw_dag.h"

namespace passlab::combiners {

// How the argument reaches the table.
enum class TableIndex : std::uint8_t {
  Coordinate,  // an interpolant, as texture coordinate s (the texture matrix maps the domain)
  Dependent,   // a previous unit's texel: (s, t) = (alpha, red) or (green, blue)
};

struct FunctionTable {
  // The function: FragmentDag nodes copied with their operands renumbered into `expr` (operands
  // first, the table's value last); `expr[slot]` is the argument.
  std::vector<dag::Node> expr;
  std::vector<dag::NodeId> origin;     // expr[i] is FragmentDag node origin[i]
  std::size_t slot = 0;
  dag::NodeId node = 0, argument = 0;  // in the FragmentDag
  std::string text;                    // "sqrt(x)": what the listing and timeline say
  bool triple = false;                 // a colour (RGB texels) rather than a scalar (all four)

  TableIndex index = TableIndex::Coordinate;
  // Dependent: which of the previous unit's channels holds the argument (0-3: r, g, b, a; the
  // pair is AR for alpha and red, GB for green and blue) and how it is stored there.
  int channel = 3;
  Encoding argument_encoding = Encoding::Unsigned;
  // Coordinate: the argument values the table covers; periodic: [lo, lo + period) repeats.
  Interval domain;
  bool periodic = false;

  int size = 256;                  // texels
  bool linear = true;              // filtering (nearest for dependent tables: a texel per value)
  Encoding encoding = Encoding::Unsigned;  // how the texels hold the value
  std::vector<std::array<float, 4>> texels;  // encoded, multiples of 1/255
  float max_error = 0;             // of the 8-bit table against the function, in its units
  float error_share = 0;           // the share of the domain where that error exceeds 2/255

  bool dependent_gb() const { return channel == 1 || channel == 2; }
};

// Operations the register combiners cannot compute, which a table can.
bool needs_table(const dag::FragmentDag& d, dag::NodeId id);

// The function's value at `x`, clamped to what the texels can hold (exact, no table).
std::array<float, 3> table_value(const FunctionTable& t, float x);
// What the texture unit returns for an argument coordinate: exact (`hardware` false) or from the
// 8-bit texels with the table's filtering. `coord` is the raw coordinate (Dependent: the previous
// unit's channel in [0, 1]; Coordinate: the interpolant).
std::array<float, 4> table_lookup(const FunctionTable& t, float coord, bool hardware);

// The function a table of `root` computes: its operands down to the nodes where `enters` says a
// value enters the pass (constants belong to the function; conditions are always followed).
// `arguments` are those nodes, distinct, in id order; a table needs exactly one. Fails (with
// `why`) when the function would read what a table cannot evaluate or grow past 64 nodes.
struct TableExpression {
  std::vector<dag::Node> expr;  // renumbered, operands first, the root last
  std::vector<dag::NodeId> origin;  // expr[i] is FragmentDag node origin[i]
  std::vector<dag::NodeId> arguments;
  std::vector<std::size_t> slots;  // arguments[i] is expr[slots[i]]
  std::string why;
};
bool table_expression(const dag::FragmentDag& d, dag::NodeId root, const std::function<bool(dag::NodeId)>& enters, TableExpression& out);
// The function written with its argument as x: "sqrt(x)", "smoothstep(0.2, 0.8, x)".
std::string table_text(const std::vector<dag::Node>& expr, std::size_t slot);

// The function's period in its argument, or 0 when it is not periodic: sin/cos and mod(y, c) of an
// affine y, the fract idiom y - floor(y), and anything whose only varying operands share a period.
float table_period(const std::vector<dag::Node>& expr, std::size_t slot);

// The texture matrix of a Coordinate table: s = first * x + second puts the texels where
// texel_argument says (GL's texel centres at (i + 1/2) / size).
std::pair<float, float> texture_matrix(const FunctionTable& t);

// Marks (by FragmentDag id, in `exact`, sized to the DAG) the values these texture units use
// without the registers' clamp: texture coordinates (floats: a cube map normalises I however long
// it is) and the steps inside each table's function. The units' own results are clamped like any
// register's. (backend.h's unclamped_nodes() takes back what a pass also loads into a register.)
void mark_unclamped(const std::vector<TextureUnit>& units, std::vector<char>& exact);

// Where the function can change, when its argument enters only through clamp(x, a, b) or
// smoothstep(a, b, x) with constant bounds: outside [a, b] it is constant, so a table over [a, b]
// with GL_CLAMP_TO_EDGE covers every argument. False otherwise.
bool table_saturation(const std::vector<dag::Node>& expr, std::size_t slot, Interval* domain);

// Builds the texels and measures the error (after expr, slot, index and domain are set).
void build_table(FunctionTable& t);
// The same, remembered: VALID compiles a pass many times while the partitioner searches, and the
// same table recurs (a per-thread cache of the last few hundred tables built).
std::shared_ptr<const FunctionTable> built_table(FunctionTable t);

// The texture's shape: "256x1" (indexed by s: a coordinate table, or a dependent one whose argument
// is the previous unit's alpha or green) or "1x256" (indexed by t: its red or blue).
std::string table_layout(const FunctionTable& t);

// "table of sqrt(x) on [0, 1], 256 texels nearest, max error 0.5/255".
std::string describe(const FunctionTable& t);

}  // namespace passlab::combiners
