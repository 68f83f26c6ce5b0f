// SPDX-License-Identifier: GPL-3.0-or-later
// Targets as data: per-pass resource limits of a fragment pipeline, and linear cost models.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/lang/diagnostics.h"

namespace passlab::partition {

constexpr int kUnlimited = -1;

// What one pass may use. kUnlimited means no limit (the paper's ∞).
struct Limits {
  int operations = kUnlimited;    // instructions, texture fetches and restores included
  int registers = kUnlimited;     // temporaries live at once
  int textures = kUnlimited;      // distinct texture units (each restored value takes one)
  int interpolants = kUnlimited;  // distinct vertex-to-fragment interpolants
  int dependent_levels = kUnlimited;  // levels of dependent texturing
  // Render targets a pass may write (multiple render targets, MRT). Unlike the others, a target
  // file that leaves it out means 1, as every pipeline before MRT had; null means unlimited.
  int render_targets = 1;
};

// What one pass uses (filled by a backend's VALID).
struct Resources {
  int operations = 0;
  int registers = 0;
  int textures = 0;
  int interpolants = 0;
  int dependent_levels = 0;
  int texture_fetches = 0;   // TEX instructions, restores included
  int restores = 0;
  int arithmetic = 0;        // non-texture instructions
  int outputs = 0;           // render targets written (0: a backend that does not count them, one)

  friend bool operator==(const Resources&, const Resources&) = default;
};

// Which limit a resource vector breaks, or "" when it fits.
std::string exceeded(const Resources& r, const Limits& l);

// Which screen-space derivatives (Du, Dv, Deriv, area, calculatenormal, du, dv) a target takes:
// none at all, or those its rasterizer's set-up provides: an interpolant's difference across a
// pixel, or its value at the next pixel (delivered as extra interpolants), from which a value
// computed per fragment is computed again and differenced (dag/neighbour_values.cpp); or, on
// hardware that shades 2x2 quads in lockstep, differences across the quad (DDX, DDY: one
// instruction, the value's pixel pair being shaded together), where "the next pixel" is the quad
// partner, one pixel right or left, below or above.
enum class Derivatives { None, Interpolants, Quad };
const char* to_string(Derivatives d);  // "none", "interpolants", "quad": the target file's spelling

struct TargetDesc {
  std::string name;         // "PC5"
  std::string description;  // "balanced: 6o/4r/4t/4v"
  Limits limits;
  bool restore_uses_interpolant = false;  // restores read fragment.position, not an interpolant
  Derivatives derivatives = Derivatives::Interpolants;
  // Dynamic loops (NV_fragment_program2's and ps_3_0's REP/LOOP with BRK): a loop whose exit
  // depends on per-fragment values runs as a loop of at most this many passes through its test
  // (the hardware's loop count) instead of being unrolled under predicates; 0: none ("loops":
  // null or absent; {"max_iterations": N} in JSON).
  int dynamic_loops = 0;
  std::string source;                     // the file it came from ("" for built-in)
  // The backend that runs the target, by the name it registers (backends/registry); "" : the
  // default backend. A backend's own description of the machine (the target file's object named
  // after the backend) is kept as JSON text for the backend to read, or, where the file names one
  // of the backend's presets instead ("rpu": "thesis_example"), as that name; core does not
  // interpret either. Whether the name is known and the machine sound is the registry's to say.
  std::string backend;
  std::string machine_json;
};

// Loads a target by preset name (resources/targets/<name>.json, case-insensitive) or by path.
// JSON: {"name": "PC5", "description": "...", "limits": {"operations": 6, "registers": 4,
//        "textures": 4, "interpolants": 4, "dependent_levels": null}, "restore_uses_interpolant": false,
//        "derivatives": "interpolants", "loops": {"max_iterations": 255}}
// (null or a missing limit means unlimited; derivatives default to "interpolants"); a target of
// another backend adds "backend": NAME and an object NAME describing its machine (e.g. "combiners":
// backends/combiners/machine.h). Returns nullopt on failure, with diagnostics (code "target", at
// the key in the file; "file-not-found") added to *diagnostics when given.
std::optional<TargetDesc> load_target(const std::string& name_or_path, lang::Diagnostics* diagnostics);
std::optional<TargetDesc> parse_target(const std::string& json_text, const std::string& source, lang::Diagnostics* diagnostics);
// The JSON load_target reads, keys in a fixed order (limits in the order above; null = unlimited).
std::string target_to_json(const TargetDesc& t);
std::vector<std::string> preset_targets();  // sorted names of the files in resources/targets
std::string targets_dir();                   // where presets are looked up (core/paths/data_dir.h)

// The per-pass metric of the MRDS implementation (Foley, Houston and Hanrahan, "Efficient
// Partitioning of Fragment Shaders for Multiple-Output Hardware", Graphics Hardware 2004), its
// constants as data. For a pass of a arithmetic and t texture instructions writing o outputs:
//   issue = a + t, fetch = texture_issue * t, average = floor((max(issue, fetch) + issue + fetch) / 2),
//   write = single_output if o == 1 else per_output_write * o,
//   cost = max(average, write) + per_pass + per_output * o.
// Not linear: a pass's cost depends on its own mix, so searches that bound sums of linear terms
// (the optimal search, annealing) do not take it.
struct PassMetric {
  double texture_issue = 8, single_output = 6, per_output_write = 18, per_pass = 9, per_output = 1;
  friend bool operator==(const PassMetric&, const PassMetric&) = default;
};

// cost = per_pass * passes + per_texture * texture fetches + per_instruction * other instructions,
// or, with a per-pass metric, the sum of the metric over the passes.
struct CostModel {
  std::string name;  // "15p+5t+i"
  double per_pass = 15, per_texture = 5, per_instruction = 1;
  std::optional<PassMetric> metric;  // set: the per-pass metric above instead of the linear terms
  bool linear() const { return !metric; }
  // A linear model's cost of totals (a per-pass metric: the totals as one pass of one output).
  double cost(int passes, int texture_fetches, int instructions) const;
  // One pass's cost.
  double pass_cost(int texture_fetches, int arithmetic, int outputs) const;
};

// Parses "15p+5t+i", "15.7p + 1.36t + i", "t+i", or a preset name ("measured" = 15.7p+1.36t+i;
// "mrds", the per-pass metric above with its published constants; "mrds:8/6/18/9/1" gives the
// constants in the order texture_issue/single_output/per_output_write/per_pass/per_output).
// Problems are diagnostics with code "cost-model" (a spec has no file, only its text).
std::optional<CostModel> parse_cost_model(const std::string& spec, lang::Diagnostics* diagnostics);
std::vector<CostModel> paper_cost_models();  // 15p+5t+i, 5p+3t+i, 3p+2t+i, p+t+i, t+i, 15.7p+1.36t+i

}  // namespace passlab::partition
