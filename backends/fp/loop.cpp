// SPDX-License-Identifier: GPL-3.0-or-later
// Running a dynamic loop (TLoop) on one fragment, as REP ... BRK ... ENDREP does: the body over
// the carried values and the invariants, until its test says stop or the count runs out.
#include <algorithm>
#include <cmath>
#include <deque>
#include <map>

#include <fmt/format.h>

#include "backends/fp/target_dag.h"

namespace passlab::fp {

namespace {

// Every node of a loop's body on one fragment, its inputs given.
void run_body(const TargetDag& body, const std::vector<Vec4>& inputs, const ir::EvalContext& ctx, std::vector<Vec4>& values) {
  for (const TNode& n : body.nodes) {
    Vec4& v = values[n.id];
    switch (n.kind) {
      case TKind::Constant: v = n.value; break;
      case TKind::LoopValue: v = inputs.at(static_cast<std::size_t>(n.dims)); break;
      case TKind::Interpolant: v = {NAN, NAN, NAN, NAN}; break;  // a body reads interpolants as invariants
      case TKind::Texture: v = sample(n, read(n.src[0], values), ctx); break;
      case TKind::Loop: v = loop_value(n, [&](const Operand& o) { return read(o, values); }, ctx); break;
      case TKind::Instruction: v = execute(n, [&](const Operand& o) { return read(o, values); }); break;
    }
  }
}

// The body's operations in id order (operands first), where each value is last read, and the
// values kept to the end of an iteration (next values, results, the test): summarize counts
// registers over it and loop_listing allocates them the same way.
struct BodyOrder {
  std::vector<TNodeId> ops;
  std::vector<std::size_t> last;
  std::vector<char> kept;
};
BodyOrder body_order(const TLoop& l) {
  const TargetDag& b = l.body;
  BodyOrder o{{}, std::vector<std::size_t>(b.size(), 0), std::vector<char>(b.size(), 0)};
  for (const TNode& n : b.nodes)
    if (b.is_operation(n.id)) o.ops.push_back(n.id);
  for (const Operand& x : l.next) o.kept[x.node] = 1;
  for (const Operand& x : l.results) o.kept[x.node] = 1;
  o.kept[l.go_on.node] = 1;
  for (std::size_t i = 0; i < o.ops.size(); ++i)
    for (TNodeId c : b.node(o.ops[i]).deps) o.last[c] = i;
  return o;
}

}  // namespace

void summarize(TLoop& l) {
  const TargetDag& b = l.body;
  const BodyOrder order = body_order(l);
  const auto& [ops, last, kept] = order;
  int live = 0, peak = 0, instructions = 0, fetches = 0;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const TNode& n = b.node(ops[i]);
    int extra = 0;
    if (n.kind == TKind::Loop) {
      instructions += loop_instructions(n);
      fetches += n.loop->fetches;
      extra = n.loop->temporaries;
      for (const std::string& t : n.loop->textures)
        if (std::find(l.textures.begin(), l.textures.end(), t) == l.textures.end()) l.textures.push_back(t);
    } else {
      ++instructions;
      if (n.kind == TKind::Texture) {
        ++fetches;
        if (std::find(l.textures.begin(), l.textures.end(), n.name) == l.textures.end()) l.textures.push_back(n.name);
      }
    }
    int dying = 0;
    for (TNodeId c : n.deps)
      if (b.is_operation(c) && last[c] == i && !kept[c]) ++dying;
    peak = std::max(peak, live + extra + 1);  // its operands are read while it is written
    live += 1 - dying;
    peak = std::max(peak, live);
  }
  // A next value that is another carried value (or this one moved) is copied in the body first,
  // so that the MOVs after the test, which overwrite the carried values, read none of them.
  int copies = 0, moves = 0;
  for (std::size_t k = 0; k < l.next.size(); ++k) {
    const Operand& o = l.next[k];
    const TNode& n = b.node(o.node);
    const bool self = n.kind == TKind::LoopValue && n.dims == static_cast<int>(k) && o.swizzle.is_identity() && !o.negate;
    if (self) continue;
    ++moves;
    if (n.kind == TKind::LoopValue) ++copies;
  }
  l.instructions = l.carried + 1 + instructions + copies + 2 + moves + 1;
  l.fetches = fetches;
  l.temporaries = l.carried + peak + copies;
}

int loop_registers(const TLoop& l) {
  int inner = 0;
  for (const TNode& n : l.body.nodes)
    if (n.kind == TKind::Loop) inner = std::max(inner, loop_registers(*n.loop));
  return l.temporaries + inner;
}

std::string loop_listing(const TNode& loop, const std::string& dst, int base, const std::function<std::string(const Operand&)>& outer,
                         const std::function<int(const std::string&)>& unit) {
  const TLoop& l = *loop.loop;
  const TargetDag& b = l.body;
  const int carried = l.carried;
  // Registers: the carried values from `base`, then the body's values (lowest free first), then
  // the copies; loops in the body above all of them.
  std::map<TNodeId, int> reg;
  const BodyOrder order = body_order(l);
  const auto& [ops, last, kept] = order;
  std::vector<int> free;
  int next_reg = base + carried;
  const int inner_base = base + l.temporaries;
  auto name = [&](const Operand& o) -> std::string {
    const TNode& n = b.node(o.node);
    if (n.kind == TKind::LoopValue && n.dims >= carried) {  // an invariant: the pass's operand, swizzled again
      Operand x = loop.src.at(static_cast<std::size_t>(n.dims));
      x.swizzle = o.swizzle.then(x.swizzle);
      x.negate = x.negate != o.negate;
      return outer(x);
    }
    std::string base_name;
    if (n.kind == TKind::LoopValue) base_name = fmt::format("r{}", base + n.dims);
    else if (n.kind == TKind::Constant) base_name = fmt::format("{{{:g}, {:g}, {:g}, {:g}}}", n.value[0], n.value[1], n.value[2], n.value[3]);
    else base_name = fmt::format("r{}", reg.at(o.node));
    return (o.negate ? "-" : "") + base_name + o.swizzle.text();
  };
  std::string out = fmt::format("# {}: at most {} passes through its test; r{}..r{} carry its values\n", l.label, l.max_iterations, base,
                                base + std::max(0, carried - 1));
  for (int k = 0; k < carried; ++k) out += fmt::format("MOV r{}, {};\n", base + k, outer(loop.src[static_cast<std::size_t>(k)]));
  out += fmt::format("REP {{{}}};\n", l.max_iterations);
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const TNode& n = b.node(ops[i]);
    int r;
    if (!free.empty()) {
      auto lowest = std::min_element(free.begin(), free.end());
      r = *lowest;
      free.erase(lowest);
    } else {
      r = next_reg++;
    }
    std::string line;
    if (n.kind == TKind::Loop) {
      line = loop_listing(n, fmt::format("r{}", r), inner_base, name, unit);
    } else if (n.kind == TKind::Texture) {
      const char* target = n.dims == 1 ? "1D" : n.dims == 2 ? "2D" : "3D";
      line = fmt::format("TEX r{}, {}, texture[{}], {};\n", r, name(n.src[0]), unit(n.name), target);
    } else {
      line = fmt::format("{}{} r{}", to_string(n.op), n.saturate ? "_SAT" : "", r);
      for (const Operand& o : n.src) line += ", " + name(o);
      line += ";\n";
    }
    for (TNodeId c : n.deps)
      if (b.is_operation(c) && last[c] == i && !kept[c]) free.push_back(reg.at(c));
    reg[n.id] = r;
    // Indented one step inside REP.
    for (std::size_t at = 0; at < line.size();) {
      const std::size_t end = line.find('\n', at);
      out += "  " + line.substr(at, end - at + 1);
      at = end + 1;
    }
  }
  // Next values that are carried values are copied before any carried value is overwritten.
  std::vector<std::string> next_text(static_cast<std::size_t>(carried));
  for (int k = 0; k < carried; ++k) {
    const Operand& o = l.next[static_cast<std::size_t>(k)];
    const TNode& n = b.node(o.node);
    if (n.kind == TKind::LoopValue && n.dims == k && o.swizzle.is_identity() && !o.negate) continue;
    if (n.kind == TKind::LoopValue) {
      const int r = next_reg++;
      out += fmt::format("  MOV r{}, {};\n", r, name(o));
      next_text[static_cast<std::size_t>(k)] = fmt::format("r{}", r);
    } else {
      next_text[static_cast<std::size_t>(k)] = name(o);
    }
  }
  static constexpr const char* kMask = "xyzw";
  std::size_t lane = 0;
  for (dag::NodeId k : loop.lanes) {
    const int w = l.result_width.at(k);
    // The result's components go to lanes `lane` on: its swizzle moves them there.
    Operand moved = l.results.at(k);
    for (std::size_t c = 0; c < 4; ++c) moved.swizzle.lane[c] = l.results.at(k).swizzle.lane[c < lane ? 0 : std::min<std::size_t>(c - lane, 3)];
    out += fmt::format("  MOV {}.{}, {};\n", dst, std::string(kMask + lane, kMask + lane + static_cast<std::size_t>(w)), name(moved));
    lane += static_cast<std::size_t>(w);
  }
  out += fmt::format("  MOVC RC.x, {};\n  BRK (EQ.x);  # the test failed: leave the loop\n", name(l.go_on));
  for (int k = 0; k < carried; ++k)
    if (!next_text[static_cast<std::size_t>(k)].empty()) out += fmt::format("  MOV r{}, {};\n", base + k, next_text[static_cast<std::size_t>(k)]);
  out += "ENDREP;\n";
  return out;
}

Vec4 run_loop(const TNode& loop, const std::vector<Vec4>& operands, const ir::EvalContext& ctx, int* iterations) {
  const TLoop& l = *loop.loop;
  // Scratch per thread and nesting depth (a deque: growing it for a loop nested in this one's
  // body keeps this one's buffers where they are); the renderer runs a loop per fragment.
  thread_local std::deque<std::vector<Vec4>> scratch;
  thread_local std::size_t depth = 0;
  if (scratch.size() < 2 * (depth + 1)) scratch.resize(2 * (depth + 1));
  std::vector<Vec4>& inputs = scratch[2 * depth];
  std::vector<Vec4>& values = scratch[2 * depth + 1];
  ++depth;
  struct Leave {
    std::size_t& d;
    ~Leave() { --d; }
  } leave{depth};
  inputs.assign(operands.begin(), operands.end());
  values.resize(l.body.size());
  const auto carried = static_cast<std::size_t>(l.carried);
  int runs = 0;
  while (runs < l.max_iterations) {
    ++runs;
    run_body(l.body, inputs, ctx, values);
    if (read(l.go_on, values)[0] == 0.0f) break;
    for (std::size_t k = 0; k < carried; ++k) inputs[k] = read(l.next[k], values);
  }
  if (iterations) *iterations = runs;
  // The results this node takes, packed lane by lane (a float is replicated: its first lane).
  Vec4 out{};
  std::size_t lane = 0;
  for (dag::NodeId k : loop.lanes) {
    const Vec4 r = read(l.results.at(k), values);
    for (int c = 0; c < l.result_width.at(k) && lane < 4; ++c) out[lane++] = r[static_cast<std::size_t>(c)];
  }
  for (; lane < 4 && lane > 0; ++lane) out[lane] = out[lane - 1];
  return out;
}

}  // namespace passlab::fp
