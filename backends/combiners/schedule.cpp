// SPDX-License-Identifier: GPL-3.0-or-later
// Stage 5 (Mark & Proudfoot §7, lost; designed here): partial combiners placed into general
// combiner stages, temporaries given registers, GeForce3's per-stage constants placed.
//
// The walk is bottom-up, as the paper says: from the leaves toward the roots, filling stage 0,
// then stage 1, ... (list scheduling). A partial combiner is ready when every value it reads is
// written in an earlier stage; ready ones are tried longest-remaining-path first (the chain of
// combiners between it and the final combiner), and one is placed in the current stage when
//   - its portion has room: one FULL, or two HALFs that agree on the OUTMAP (the three outputs of
//     a portion share one scale/bias);
//   - a MUX finds its control in spare0.a: every MUX of a stage (RGB and ALPHA) reads the one
//     spare0.a, and that register part holds a control from the stage after it is written until
//     its last MUX;
//   - the values alive after the stage still fit the writable register parts (spare0, spare1,
//     and, once their pass inputs are dead, the texture and colour registers: REUSE);
//   - GeForce3: the stage's constants fit its two constant registers (C0, C1: an RGB and an
//     ALPHA part each, joined freely).
// When nothing fits an empty stage the pass fails with the constraint that stopped it. Then each
// value gets a register part for its lifetime (interval colouring, pass inputs and MUX controls
// pinned first), and the stages are written out as the hardware state.
#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "backends/combiners/stages.h"

namespace passlab::combiners {

namespace {

bool special(float v) { return v == 0.0f || v == 1.0f || v == 0.5f || v == -0.5f || v == -1.0f; }

struct PortionState {
  int halves = 0;  // 2 = full
  OutMap out = OutMap::None;
};

class Scheduler {
 public:
  Scheduler(HDag& h, std::vector<PartialCombiner>& pcs, const Machine& m, bool final_pass, Program& p, Failure& f, CompileTrace& t,
            const ScheduleOptions& options)
      : h_(h), pcs_(pcs), m_(m), final_pass_(final_pass), p_(p), f_(f), t_(t), options_(options) {}

  bool run() {
    index_values();
    if (options_.exact) {
      if (!place_exact()) return false;
    } else if (!place_all()) {
      return false;
    }
    if (!colour()) return false;
    emit();
    return true;
  }
  bool proven() const { return proven_; }

 private:
  // ---- what reads what ----------------------------------------------------------------------

  std::vector<HId> reads_of(const PartialCombiner& pc) const {
    std::vector<HId> r;
    for (const Operand* o : {&pc.a, &pc.b, &pc.c, &pc.d})
      if (o->value != kNoH && h_[o->value].op != HOp::Const) r.push_back(o->value);
    if (pc.control != kNoH) r.push_back(pc.control);
    std::sort(r.begin(), r.end());
    r.erase(std::unique(r.begin(), r.end()), r.end());
    return r;
  }
  std::vector<HId> writes_of(const PartialCombiner& pc) const {
    std::vector<HId> w;
    for (HId v : {pc.sum_value, pc.ab_value, pc.cd_value})
      if (v != kNoH) w.push_back(v);
    return w;
  }

  void index_values() {
    for (std::size_t i = 0; i < pcs_.size(); ++i) {
      for (HId v : writes_of(pcs_[i])) producer_[v] = static_cast<int>(i);
      for (HId v : reads_of(pcs_[i])) readers_[v].push_back(static_cast<int>(i));
    }
    // The longest chain of combiners from each one to the final combiner.
    height_.assign(pcs_.size(), 0);
    for (int guard = 0; guard < static_cast<int>(pcs_.size()) + 1; ++guard) {
      bool changed = false;
      for (std::size_t i = 0; i < pcs_.size(); ++i)
        for (HId v : writes_of(pcs_[i]))
          for (int r : readers_[v]) {
            const int hgt = height_[static_cast<std::size_t>(r)] + (is_final(pcs_[static_cast<std::size_t>(r)].kind) ? 0 : 1);
            if (hgt > height_[i]) height_[i] = hgt, changed = true;
          }
      if (!changed) break;
    }
  }

  bool is_input(HId v) const { return h_[v].op == HOp::Input; }
  const PassInput& input_of(HId v) const { return h_.inputs[static_cast<std::size_t>(h_[v].input)]; }
  // Whether a live value takes a writable register part (pass inputs in read-only ones do not).
  bool occupies(HId v) const {
    if (!is_input(v)) return true;
    const PassInput& in = input_of(v);
    return m_.registers[static_cast<std::size_t>(in.reg)].writable;
  }
  Part part_of_value(HId v) const {
    if (is_input(v)) {
      const PassInput& in = input_of(v);
      if (in.in_blue) return Part::Rgb;
      return in.cls == InputClass::Texture ? h_[v].part : (in.triple ? Part::Rgb : Part::Alpha);
    }
    return h_[v].part;
  }

  // ---- placing ------------------------------------------------------------------------------

  bool place_all() {
    std::vector<int> general;
    for (std::size_t i = 0; i < pcs_.size(); ++i)
      if (!is_final(pcs_[i].kind)) general.push_back(static_cast<int>(i));
    stage_of_.assign(pcs_.size(), -1);
    capacity_[0] = capacity_[1] = 0;
    for (const RegisterDesc& r : m_.registers)
      if (r.writable) capacity_[0] += (r.parts & kRgbBit) ? 1 : 0, capacity_[1] += (r.parts & kAlphaBit) ? 1 : 0;
    std::size_t done = 0;
    for (int s = 0; done < general.size(); ++s) {
      if (s >= m_.general_stages) {
        // How many the schedule would take, at least: the stages so far and two partial
        // combiners (RGB and alpha) in each further one.
        const std::size_t left = general.size() - done;
        const int need = s + static_cast<int>((left + 1) / 2);
        return fail("stages", fmt::format("stages: the pass needs at least {} general combiner stages and the target has {} ({} partial combiners left after stage {})",
                                          need, m_.general_stages, left, m_.general_stages - 1),
                    first_origin(general, done));
      }
      std::array<PortionState, 2> portion{};
      HId control_here = kNoH;
      std::set<std::tuple<int, float, float, float>> stage_constants;
      std::string refused;
      std::vector<int> ready;
      for (int i : general) {
        if (stage_of_[static_cast<std::size_t>(i)] >= 0) continue;
        bool ok = true;
        for (HId v : reads_of(pcs_[static_cast<std::size_t>(i)])) {
          auto it = producer_.find(v);
          if (it != producer_.end() && (stage_of_[static_cast<std::size_t>(it->second)] < 0 || stage_of_[static_cast<std::size_t>(it->second)] >= s)) ok = false;
        }
        if (ok) ready.push_back(i);
      }
      std::stable_sort(ready.begin(), ready.end(), [&](int a, int b) {
        const auto ka = std::make_tuple(-height_[static_cast<std::size_t>(a)], -pcs_[static_cast<std::size_t>(a)].priority, a);
        const auto kb = std::make_tuple(-height_[static_cast<std::size_t>(b)], -pcs_[static_cast<std::size_t>(b)].priority, b);
        return ka < kb;
      });
      int placed_here = 0;
      for (int i : ready) {
        PartialCombiner& pc = pcs_[static_cast<std::size_t>(i)];
        const std::size_t part = static_cast<std::size_t>(part_of(pc.kind));
        PortionState& ps = portion[part];
        const std::string where = fmt::format("{} portion of stage {}", to_string(part_of(pc.kind)), s);
        if (is_full(pc.kind) ? ps.halves != 0 : (ps.halves >= 2 || (ps.halves == 1 && ps.out != pc.out))) {
          refused = ps.halves == 1 && !is_full(pc.kind) ? "the OUTMAP: the two halves of a portion share one scale/bias" : "room: the " + where + " is full";
          continue;
        }
        // spare0.a: one control a stage; and no other control may be written while one waits.
        if (pc.mux && control_here != kNoH && control_here != pc.control) {
          refused = "spare0.a: two MUXes in one stage need different controls";
          continue;
        }
        bool writes_control = false;
        for (HId v : writes_of(pc))
          if (is_control(v)) writes_control = true;
        if (writes_control && control_busy(s, i)) {
          refused = "spare0.a: it still holds a control another MUX waits for";
          continue;
        }
        // Per-stage constants.
        auto constants = stage_constants;
        if (m_.per_stage_constants) {
          for (const Operand* o : {&pc.a, &pc.b, &pc.c, &pc.d}) {
            if (o->value == kNoH || h_[o->value].op != HOp::Const || h_[o->value].input < 0) continue;
            const PassInput& in = h_.inputs[static_cast<std::size_t>(h_[o->value].input)];
            if (in.stage == -1) continue;
            constants.insert({in.triple ? 0 : 1, in.value[0], in.value[1], in.value[2]});
          }
          if (!constants_fit(constants)) {
            refused = "constants: the stage's two constant registers are full";
            continue;
          }
        }
        // Registers: what is alive after this stage must fit.
        stage_of_[static_cast<std::size_t>(i)] = s;
        std::array<int, 2> live{};
        std::string over;
        if (!pressure_ok(s, &live)) {
          stage_of_[static_cast<std::size_t>(i)] = -1;
          refused = fmt::format("registers: {} RGB and {} ALPHA values would be alive after stage {}; {} RGB and {} ALPHA register parts are writable",
                                live[0], live[1], s, capacity_[0], capacity_[1]);
          continue;
        }
        ps.halves += is_full(pc.kind) ? 2 : 1;
        ps.out = pc.out;
        pc.half = is_full(pc.kind) ? 0 : ps.halves - 1;
        pc.stage = s;
        if (pc.mux) control_here = pc.control;
        stage_constants = constants;
        ++placed_here;
        ++done;
        if (t_.on())
          t_.add({CEvent::Place, 5, pc.origin, i, s, -1, -1, part_of(pc.kind), to_string(pc.kind),
                  is_full(pc.kind) ? "the whole portion" : pc.half == 0 ? "the AB half" : "the CD half, sharing the OUTMAP"});
      }
      if (placed_here == 0)
        return fail(refused.substr(0, refused.find(':')), fmt::format("{} (nothing fits stage {})", refused, s), first_origin(ready, 0));
      stages_used_ = s + 1;
    }
    return true;
  }

  dag::NodeId first_origin(const std::vector<int>& list, std::size_t from) {
    for (std::size_t k = from; k < list.size(); ++k)
      for (dag::NodeId n : pcs_[static_cast<std::size_t>(list[k])].origin) return origin_ok_ = true, n;
    for (const PartialCombiner& pc : pcs_)
      if (stage_of_.empty() || !pc.origin.empty()) {
        if (!pc.origin.empty()) return origin_ok_ = true, pc.origin.front();
      }
    origin_ok_ = false;
    return 0;
  }

  bool is_control(HId v) const {
    for (int r : readers_.count(v) ? readers_.at(v) : std::vector<int>{})
      if (pcs_[static_cast<std::size_t>(r)].control == v) return true;
    return false;
  }
  // Whether a control written before stage s still holds spare0.a after stage s, so that a new
  // control written at s (readable from s + 1) would overwrite it: a MUX reading it sits in a
  // later stage, or is not placed yet (unless it is `writer`, the combiner about to go into s).
  // A MUX at s itself reads spare0.a before the stage writes (the exact scheduler's rule:
  // a control holds spare0.a from the stage after it is written to its last MUX).
  bool control_busy(int s, int writer) const {
    for (const auto& [v, prod] : producer_) {
      if (!is_control(v)) continue;
      const int ps = stage_of_[static_cast<std::size_t>(prod)];
      if (ps < 0 || ps >= s) continue;
      for (int r : readers_.at(v)) {
        if (pcs_[static_cast<std::size_t>(r)].control != v || r == writer) continue;
        const int rs = stage_of_[static_cast<std::size_t>(r)];
        if (rs < 0 || rs > s) return true;
      }
    }
    return false;
  }

  bool constants_fit(const std::set<std::tuple<int, float, float, float>>& cs) const {
    int rgb = 0, alpha = 0;
    for (const auto& c : cs) (std::get<0>(c) == 0 ? rgb : alpha)++;
    const int regs = static_cast<int>(m_.constant_registers().size()) - 1;  // C0, C1 (the fog colour is global)
    if (rgb > regs) return false;
    // Scalars take the alpha parts, then the blue of unused RGB parts.
    return alpha <= regs + (regs - rgb);
  }

  // Values alive after stage s: written by then (or pass inputs) and read later, or by a
  // combiner not placed yet. Counted per part against the writable register parts.
  bool pressure_ok(int s, std::array<int, 2>* live) const {
    std::array<int, 2> n{};
    auto alive = [&](HId v) {
      auto rit = readers_.find(v);
      if (rit == readers_.end()) return false;
      for (int r : rit->second) {
        const PartialCombiner& pc = pcs_[static_cast<std::size_t>(r)];
        if (is_final(pc.kind)) return true;
        const int rs = stage_of_[static_cast<std::size_t>(r)];
        if (rs < 0 || rs > s) return true;
      }
      return false;
    };
    for (const auto& [v, prod] : producer_) {
      const int ps = stage_of_[static_cast<std::size_t>(prod)];
      if (ps < 0 || ps > s || is_final(pcs_[static_cast<std::size_t>(prod)].kind)) continue;
      if (alive(v)) ++n[static_cast<std::size_t>(part_of_value(v))];
    }
    std::set<std::pair<int, int>> input_parts;  // a texture register holds one input, both parts
    for (const auto& [v, readers] : readers_) {
      if (!is_input(v) || !occupies(v) || !alive(v)) continue;
      const PassInput& in = input_of(v);
      input_parts.insert({in.reg, static_cast<int>(part_of_value(v))});
    }
    for (const auto& [reg, part] : input_parts) ++n[static_cast<std::size_t>(part)];
    *live = n;
    return n[0] <= capacity_[0] && n[1] <= capacity_[1];
  }

  bool fail(const std::string& constraint, std::string message, dag::NodeId at) {
    f_ = {constraint, std::move(message), at, origin_ok_};
    trace().add({CEvent::Fail, 5, origin_ok_ ? std::vector<dag::NodeId>{at} : std::vector<dag::NodeId>{}, -1, -1, -1, -1, Part::Rgb, constraint, f_.message});
    return false;
  }
  CompileTrace& trace() { return trace_ ? *trace_ : t_; }

  // ---- the exact scheduler --------------------------------------------------------------------
  //
  // For small passes: the fewest stages any schedule of the same partial combiners needs, by
  // depth-first search over stage assignments in dependency order (each combiner from the stage
  // after its operands' to the last that leaves room for the chain above it), for 1, 2, ...
  // stages from the longest chain up, every complete assignment checked against all of the
  // greedy scheduler's rules (room and OUTMAPs, spare0.a, per-stage constants, register pressure)
  // and then coloured. `options_.budget` bounds the assignments tried; past it the result is not
  // proven minimal.

  bool place_exact() {
    std::vector<int> general;
    for (std::size_t i = 0; i < pcs_.size(); ++i)
      if (!is_final(pcs_[i].kind)) general.push_back(static_cast<int>(i));
    stage_of_.assign(pcs_.size(), -1);
    capacity_[0] = capacity_[1] = 0;
    for (const RegisterDesc& r : m_.registers)
      if (r.writable) capacity_[0] += (r.parts & kRgbBit) ? 1 : 0, capacity_[1] += (r.parts & kAlphaBit) ? 1 : 0;
    // Dependencies among general combiners; an order where producers come first.
    deps_.assign(pcs_.size(), {});
    for (int i : general)
      for (HId v : reads_of(pcs_[static_cast<std::size_t>(i)])) {
        auto it = producer_.find(v);
        if (it != producer_.end() && !is_final(pcs_[static_cast<std::size_t>(it->second)].kind)) deps_[static_cast<std::size_t>(i)].push_back(it->second);
      }
    order_.clear();
    std::vector<char> done(pcs_.size(), 0);
    while (order_.size() < general.size()) {
      const std::size_t before = order_.size();
      for (int i : general) {
        if (done[static_cast<std::size_t>(i)]) continue;
        bool ready = true;
        for (int d : deps_[static_cast<std::size_t>(i)]) ready = ready && done[static_cast<std::size_t>(d)];
        if (ready) {
          done[static_cast<std::size_t>(i)] = 1;
          order_.push_back(i);
        }
      }
      if (order_.size() == before)
        throw std::logic_error("partial combiners depend on each other in a cycle");
    }
    int lower = 0;
    for (int i : general) lower = std::max(lower, height_[static_cast<std::size_t>(i)] + 1);
    proven_ = true;
    tried_ = 0;
    if (general.empty()) return true;
    for (int stages = lower; stages <= m_.general_stages; ++stages) {
      if (search(0, stages)) {
        stages_used_ = 0;
        for (int i : general) stages_used_ = std::max(stages_used_, stage_of_[static_cast<std::size_t>(i)] + 1);
        for (std::size_t s = 0; s < static_cast<std::size_t>(stages_used_); ++s)
          for (int part = 0; part < 2; ++part) {
            int half = 0;
            for (int i : general) {
              PartialCombiner& pc = pcs_[static_cast<std::size_t>(i)];
              if (stage_of_[static_cast<std::size_t>(i)] != static_cast<int>(s) || static_cast<int>(part_of(pc.kind)) != part) continue;
              pc.stage = static_cast<int>(s);
              pc.half = is_full(pc.kind) ? 0 : half++;
            }
          }
        return true;
      }
      if (tried_ > options_.budget) proven_ = false;
    }
    return fail("stages", fmt::format("stages: no schedule of this pass fits {} general combiner stages{}", m_.general_stages,
                                      proven_ ? "" : " (the search stopped at its budget)"),
                first_origin(general, 0));
  }

  bool search(std::size_t k, int stages) {
    if (++tried_ > options_.budget) return false;
    if (k == order_.size()) return feasible(stages) && colour_quietly();
    const int i = order_[k];
    const PartialCombiner& pc = pcs_[static_cast<std::size_t>(i)];
    int earliest = 0;
    for (int d : deps_[static_cast<std::size_t>(i)]) earliest = std::max(earliest, stage_of_[static_cast<std::size_t>(d)] + 1);
    const int latest = stages - 1 - height_[static_cast<std::size_t>(i)];
    for (int s = earliest; s <= latest; ++s) {
      // Room in the portion: a FULL alone, or two HALFs with one OUTMAP.
      int halves = 0;
      bool outmap_ok = true, control_ok = true;
      for (int j : order_) {
        if (stage_of_[static_cast<std::size_t>(j)] != s || j == i) continue;
        const PartialCombiner& q = pcs_[static_cast<std::size_t>(j)];
        if (pc.mux && q.mux && q.control != pc.control) control_ok = false;
        if (part_of(q.kind) != part_of(pc.kind)) continue;
        halves += is_full(q.kind) ? 2 : 1;
        if (q.out != pc.out) outmap_ok = false;
      }
      if (halves + (is_full(pc.kind) ? 2 : 1) > 2 || (halves && !outmap_ok) || !control_ok) continue;
      stage_of_[static_cast<std::size_t>(i)] = s;
      if (search(k + 1, stages)) return true;
      stage_of_[static_cast<std::size_t>(i)] = -1;
      if (tried_ > options_.budget) return false;
    }
    return false;
  }

  // The rules no partial assignment could check: spare0.a's controls, constants, pressure.
  bool feasible(int stages) const {
    // Two controls may not share spare0.a: each holds it from the stage after it is written to
    // its last MUX.
    std::vector<std::tuple<int, int, HId>> held;
    for (const auto& [v, prod] : producer_) {
      if (!is_control(v)) continue;
      int last = -1;
      for (int r : readers_.at(v))
        if (pcs_[static_cast<std::size_t>(r)].control == v) last = std::max(last, stage_of_[static_cast<std::size_t>(r)]);
      held.push_back({stage_of_[static_cast<std::size_t>(prod)] + 1, last, v});
    }
    for (std::size_t a = 0; a < held.size(); ++a)
      for (std::size_t b = a + 1; b < held.size(); ++b)
        if (!(std::get<1>(held[a]) < std::get<0>(held[b]) || std::get<1>(held[b]) < std::get<0>(held[a]))) return false;
    for (int s = 0; s < stages; ++s) {
      if (m_.per_stage_constants) {
        std::set<std::tuple<int, float, float, float>> cs;
        for (std::size_t i = 0; i < pcs_.size(); ++i) {
          if (stage_of_[i] != s) continue;
          for (const Operand* o : {&pcs_[i].a, &pcs_[i].b, &pcs_[i].c, &pcs_[i].d}) {
            if (o->value == kNoH || h_[o->value].op != HOp::Const || h_[o->value].input < 0) continue;
            const PassInput& in = h_.inputs[static_cast<std::size_t>(h_[o->value].input)];
            if (in.stage != -1) cs.insert({in.triple ? 0 : 1, in.value[0], in.value[1], in.value[2]});
          }
        }
        if (!constants_fit(cs)) return false;
      }
      std::array<int, 2> live{};
      if (!pressure_ok(s, &live)) return false;
    }
    return true;
  }

  bool colour_quietly() {
    const bool was = t_.on();
    CompileTrace quiet(false);
    CompileTrace* saved = trace_;
    trace_ = &quiet;
    (void)was;
    p_.lifetimes.clear();
    reg_of_.clear();
    stages_used_ = 0;
    for (std::size_t i = 0; i < pcs_.size(); ++i)
      if (!is_final(pcs_[i].kind)) {
        stages_used_ = std::max(stages_used_, stage_of_[i] + 1);
        pcs_[i].stage = stage_of_[i];
      }
    const Failure before = f_;
    const bool ok = colour();
    f_ = before;
    trace_ = saved;
    p_.lifetimes.clear();
    reg_of_.clear();
    return ok;
  }

  // ---- registers ----------------------------------------------------------------------------

  bool colour() {
    // Lifetimes: a value written in stage s is read from s + 1 to its last reader (the final
    // combiner reads after the last stage).
    const int end = stages_used_;
    struct Live {
      HId v;
      int first, last;
      Part part;
    };
    std::vector<Live> values;
    for (const auto& [v, prod] : producer_) {
      const PartialCombiner& pc = pcs_[static_cast<std::size_t>(prod)];
      if (is_final(pc.kind)) continue;
      int last = pc.stage + 1;
      for (int r : readers_[v]) last = std::max(last, is_final(pcs_[static_cast<std::size_t>(r)].kind) ? end : stage_of_[static_cast<std::size_t>(r)]);
      values.push_back({v, pc.stage + 1, last, h_[v].part});
    }
    // Register parts in use per stage boundary: occupancy[reg][part] = stages [first, last] taken.
    std::vector<std::array<std::vector<std::pair<int, int>>, 2>> busy(m_.registers.size());
    auto free_over = [&](int reg, Part part, int first, int last) {
      for (auto [a, b] : busy[static_cast<std::size_t>(reg)][static_cast<std::size_t>(part)])
        if (!(last < a || first > b)) return false;
      return true;
    };
    // Pass inputs hold their registers from the top to their last read.
    for (const auto& [v, readers] : readers_) {
      if (!is_input(v)) continue;
      const PassInput& in = input_of(v);
      int last = 0;
      for (int r : readers) last = std::max(last, is_final(pcs_[static_cast<std::size_t>(r)].kind) ? end : stage_of_[static_cast<std::size_t>(r)]);
      const Part part = part_of_value(v);
      busy[static_cast<std::size_t>(in.reg)][static_cast<std::size_t>(part)].push_back({0, last});
      if (in.cls == InputClass::Texture) busy[static_cast<std::size_t>(in.reg)][1 - static_cast<std::size_t>(part)].push_back({0, last});
      p_.lifetimes.push_back({v, in.reg, part, 0, last, true});
    }
    // Controls first (pinned to spare0.a), then by start.
    const int s0 = m_.find_rc("spare0");
    std::stable_sort(values.begin(), values.end(), [&](const Live& a, const Live& b) {
      const bool ca = is_control(a.v), cb = is_control(b.v);
      if (ca != cb) return ca;
      return std::tie(a.first, a.last, a.v) < std::tie(b.first, b.last, b.v);
    });
    // Preference: the spares, then texture and colour registers once free.
    std::vector<int> order;
    for (const char* rc : {"spare0", "spare1"})
      if (m_.find_rc(rc) >= 0) order.push_back(m_.find_rc(rc));
    for (std::size_t r = 0; r < m_.registers.size(); ++r)
      if (m_.registers[r].writable && std::find(order.begin(), order.end(), static_cast<int>(r)) == order.end()) order.push_back(static_cast<int>(r));
    for (const Live& l : values) {
      int chosen = -1;
      if (is_control(l.v)) {
        if (s0 < 0 || !free_over(s0, Part::Alpha, l.first, l.last))
          return fail("registers", "registers: spare0.a is needed by two MUX controls at once", origin(l.v));
        chosen = s0;
      } else {
        for (int r : order) {
          const RegisterDesc& rd = m_.registers[static_cast<std::size_t>(r)];
          if (!(rd.parts & (l.part == Part::Rgb ? kRgbBit : kAlphaBit))) continue;
          if (free_over(r, l.part, l.first, l.last)) {
            chosen = r;
            break;
          }
        }
      }
      if (chosen < 0)
        return fail("registers", fmt::format("registers: no {} register part is free from stage {} to {}", to_string(l.part), l.first, l.last), origin(l.v));
      busy[static_cast<std::size_t>(chosen)][static_cast<std::size_t>(l.part)].push_back({l.first, l.last});
      reg_of_[l.v] = chosen;
      p_.lifetimes.push_back({l.v, chosen, l.part, l.first, l.last, false});
      if (trace().on())
        trace().add({CEvent::Register, 5, h_[l.v].has_origin ? std::vector<dag::NodeId>{h_[l.v].origin} : std::vector<dag::NodeId>{}, producer_[l.v], l.first - 1,
                -1, chosen, l.part, m_.registers[static_cast<std::size_t>(chosen)].rc,
                is_control(l.v) ? "a MUX control lives in spare0.a" : fmt::format("free from stage {} to {}", l.first, l.last)});
    }
    return true;
  }

  dag::NodeId origin(HId v) {
    origin_ok_ = h_[v].has_origin;
    return h_[v].origin;
  }

  // ---- the hardware state -------------------------------------------------------------------

  Variable variable(const Operand& o, Part portion, int stage) {
    Variable var;
    var.usage = o.usage;
    var.map = o.map;
    const int zero = m_.zero_register();
    if (o.value == kNoH) {
      var.reg = zero;
      return var;
    }
    const HNode& v = h_[o.value];
    if (v.op == HOp::Const) {
      const float c = v.value[0];
      const bool uniform = v.part == Part::Alpha || (v.value[1] == c && v.value[2] == c);
      if (uniform && special(c) && v.input < 0) {
        var.reg = zero;
        var.map = c == 0.0f ? InMap::SignedIdentity : c == 1.0f ? InMap::UnsignedInvert : c == 0.5f ? InMap::HalfBiasNegate
                  : c == -0.5f ? InMap::HalfBiasNormal : InMap::ExpandNormal;
        if (o.map == InMap::UnsignedIdentity && c == 0.0f) var.map = InMap::UnsignedIdentity;  // the final combiner's zero
        return var;
      }
      const PassInput& in = h_.inputs[static_cast<std::size_t>(v.input)];
      var.reg = in.stage == -1 ? in.reg : per_stage_reg(stage, in);
      const bool blue = in.stage == -1 ? in.in_blue : per_stage_blue_;
      var.usage = portion == Part::Rgb ? (in.triple ? Usage::Rgb : Usage::Alpha) : (blue ? Usage::Blue : in.triple ? Usage::Blue : Usage::Alpha);
      var.map = in.negated ? InMap::SignedNegate : in.biased ? InMap::ExpandNormal : InMap::SignedIdentity;
      if (o.map == InMap::UnsignedIdentity && !in.negated && !in.biased) var.map = InMap::UnsignedIdentity;
      return var;
    }
    if (v.op == HOp::Input) {
      const PassInput& in = input_of(o.value);
      var.reg = in.reg;
      if (in.in_blue && portion == Part::Alpha) var.usage = Usage::Blue;
      return var;
    }
    auto it = reg_of_.find(o.value);
    if (it == reg_of_.end())
      throw std::logic_error(fmt::format("h{} ({}) is read but no combiner writes it", o.value, describe(v)));
    var.reg = it->second;
    return var;
  }

  // A per-stage constant's register in `stage` (assigned on first use, in C0, C1 order).
  int per_stage_reg(int stage, const PassInput& in) {
    Stage& st = p_.stages[static_cast<std::size_t>(stage)];
    const std::array<float, 3> stored = stored_value(in);
    auto& slots = stage_slots_[stage];
    const auto key = std::make_tuple(in.triple, in.value[0], in.value[1], in.value[2]);
    per_stage_blue_ = false;
    if (auto it = slots.find(key); it != slots.end()) {
      per_stage_blue_ = it->second.second;
      return it->second.first;
    }
    const std::vector<int> regs = m_.constant_registers();
    std::optional<std::array<float, 4>>* cs[2] = {&st.c0, &st.c1};
    auto& used = stage_used_[stage];  // [slot][part]
    for (std::size_t k = 0; k < 2 && k < regs.size(); ++k) {
      const std::size_t part = in.triple ? 0 : 1;
      if (used[k][part]) continue;
      used[k][part] = true;
      if (!*cs[k]) *cs[k] = std::array<float, 4>{0, 0, 0, 0};
      auto& c = **cs[k];
      if (in.triple) c[0] = stored[0], c[1] = stored[1], c[2] = stored[2];
      else c[3] = stored[0];
      slots[key] = {regs[k], false};
      if (t_.on()) t_.add({CEvent::Constant, 5, {in.node}, -1, stage, -1, regs[k], in.triple ? Part::Rgb : Part::Alpha, m_.registers[static_cast<std::size_t>(regs[k])].rc, "a per-stage constant"});
      return regs[k];
    }
    // A scalar in the blue of an unused RGB part.
    for (std::size_t k = 0; k < 2 && k < regs.size(); ++k) {
      if (used[k][0]) continue;
      used[k][0] = true;
      if (!*cs[k]) *cs[k] = std::array<float, 4>{0, 0, 0, 0};
      (**cs[k])[2] = stored[0];
      slots[key] = {regs[k], true};
      per_stage_blue_ = true;
      return regs[k];
    }
    return regs.empty() ? m_.zero_register() : regs[0];  // constants_fit() made this unreachable
  }

  static std::array<float, 3> stored_value(const PassInput& in) {
    std::array<float, 3> s = in.value;
    for (float& x : s) x = in.negated ? -x : in.biased ? (x + 1.0f) * 0.5f : x;
    return s;
  }

  void emit() {
    p_.machine = m_.name;
    p_.stages.assign(static_cast<std::size_t>(stages_used_), Stage{});
    for (const PassInput& in : h_.inputs) {
      if (in.cls != InputClass::Constant || in.stage != -1 || in.reg < 0) continue;
      const std::array<float, 3> s = stored_value(in);
      const std::string& rc = m_.registers[static_cast<std::size_t>(in.reg)].rc;
      std::array<float, 4>& c = rc == "const1" ? p_.c1 : rc == "fog" ? p_.fog : p_.c0;
      if (in.in_blue) c[2] = s[0];
      else if (in.triple) c[0] = s[0], c[1] = s[1], c[2] = s[2];
      else c[3] = s[0];
    }
    HId final_product = kNoH;
    for (const PartialCombiner& pc : pcs_)
      if (pc.kind == PcKind::FinalProduct) final_product = pc.ab_value;
    // A final combiner variable: unsigned, or E x F.
    auto final_variable = [&](const Operand& o) {
      if (o.value != kNoH && o.value == final_product) return Variable{kFinalProduct, Usage::Rgb, InMap::UnsignedIdentity};
      Variable v = variable(o, Part::Rgb, -1);
      if (v.map == InMap::SignedIdentity) v.map = InMap::UnsignedIdentity;
      if (v.map != InMap::UnsignedIdentity && v.map != InMap::UnsignedInvert)
        throw std::logic_error(fmt::format("a final combiner variable reads {} through {}", describe(h_[o.value]), paper_name(v.map)));
      return v;
    };
    for (const PartialCombiner& pc : pcs_) {
      if (pc.kind == PcKind::FinalProduct) {
        p_.final.e = final_variable(pc.a);
        p_.final.f = final_variable(pc.b);
        p_.final.e_times_f_used = true;
        continue;
      }
      if (pc.kind == PcKind::FinalRgb && pc.combine_node != kNoH) {
        p_.final.a = final_variable(pc.a);
        p_.final.b = final_variable(pc.b);
        p_.final.c = final_variable(pc.c);
        p_.final.d = final_variable(pc.d);
        p_.final.arithmetic = true;
        continue;
      }
      if (is_final(pc.kind)) {
        const Part portion = part_of(pc.kind);
        Variable v = variable(pc.d, portion, -1);
        if (v.map != InMap::UnsignedInvert) v.map = InMap::UnsignedIdentity;
        if (pc.kind == PcKind::FinalRgb) {
          const int zero = m_.zero_register();
          p_.final.a = p_.final.b = p_.final.c = Variable{zero, Usage::Rgb, InMap::UnsignedIdentity};
          p_.final.d = v;
        } else {
          p_.final.g = v;
        }
        continue;
      }
      Stage& st = p_.stages[static_cast<std::size_t>(pc.stage)];
      const Part portion = part_of(pc.kind);
      Portion& po = portion == Part::Rgb ? st.rgb : st.alpha;
      po.out = pc.out;
      auto reg = [&](HId v) { return v == kNoH ? -1 : reg_of_.at(v); };
      if (is_full(pc.kind)) {
        po.a = variable(pc.a, portion, pc.stage);
        po.b = variable(pc.b, portion, pc.stage);
        po.c = variable(pc.c, portion, pc.stage);
        po.d = variable(pc.d, portion, pc.stage);
        po.ab_dot = pc.ab_dot;
        po.cd_dot = pc.cd_dot;
        po.mux = pc.mux;
        po.sum_out = reg(pc.sum_value);
        po.ab_out = reg(pc.ab_value);
        po.cd_out = reg(pc.cd_value);
      } else if (pc.half == 0) {
        po.a = variable(pc.a, portion, pc.stage);
        po.b = variable(pc.b, portion, pc.stage);
        po.ab_dot = pc.ab_dot;
        po.ab_out = reg(pc.ab_value);
      } else {
        po.c = variable(pc.a, portion, pc.stage);
        po.d = variable(pc.b, portion, pc.stage);
        po.cd_dot = pc.ab_dot;
        po.cd_out = reg(pc.ab_value);
      }
    }
    // Unused variables read zero.
    const int zero = m_.zero_register();
    for (Stage& st : p_.stages)
      for (Portion* po : {&st.rgb, &st.alpha})
        for (Variable* v : {&po->a, &po->b, &po->c, &po->d})
          if (v->reg < 0) {
            v->reg = zero;
            v->usage = po == &st.rgb ? Usage::Rgb : Usage::Alpha;
          }
    if (p_.final.d.reg == -1) p_.final.d = Variable{zero, Usage::Rgb, InMap::UnsignedIdentity};
    if (!p_.final.arithmetic) p_.final.a = p_.final.b = p_.final.c = Variable{zero, Usage::Rgb, InMap::UnsignedIdentity};
    if (p_.final.g.reg == -1) p_.final.g = Variable{zero, Usage::Alpha, final_pass_ ? InMap::UnsignedInvert : InMap::UnsignedIdentity};
    if (!p_.final.e_times_f_used) p_.final.e = p_.final.f = Variable{zero, Usage::Rgb, InMap::UnsignedIdentity};
  }

  HDag& h_;
  std::vector<PartialCombiner>& pcs_;
  const Machine& m_;
  bool final_pass_;
  Program& p_;
  Failure& f_;
  CompileTrace& t_;
  std::map<HId, int> producer_;
  std::map<HId, std::vector<int>> readers_;
  std::vector<int> height_, stage_of_;
  std::array<int, 2> capacity_{};
  int stages_used_ = 0;
  bool origin_ok_ = false;
  std::map<HId, int> reg_of_;
  std::map<int, std::map<std::tuple<bool, float, float, float>, std::pair<int, bool>>> stage_slots_;
  std::map<int, std::array<std::array<bool, 2>, 2>> stage_used_;
  bool per_stage_blue_ = false;
  ScheduleOptions options_;
  std::vector<std::vector<int>> deps_;
  std::vector<int> order_;
  long tried_ = 0;
  bool proven_ = true;
  CompileTrace* trace_ = nullptr;  // while the exact search colours quietly
};

}  // namespace

bool schedule(HDag& h, std::vector<PartialCombiner>& pcs, const Machine& m, bool final_pass, Program& p, Failure& f, CompileTrace& t,
              const ScheduleOptions& options, bool* proven) {
  Scheduler s(h, pcs, m, final_pass, p, f, t, options);
  const bool ok = s.run();
  if (proven) *proven = s.proven();
  return ok;
}

}  // namespace passlab::combiners
