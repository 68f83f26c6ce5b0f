// SPDX-License-Identifier: GPL-3.0-or-later
// A compiled combiner pass as the timeline draws it: each general combiner stage's RGB and ALPHA
// portions unit by unit (inputs, products, combine, output mapping, outputs), its constants, the
// register lifetimes and the final combiner, each piece tied to the FragmentDag nodes it computes.
#include "backends/combiners/timeline.h"

#include <array>

#include <fmt/format.h>

#include "backends/combiners/listing.h"
#include "core/dag/export.h"

namespace passlab::combiners {

using backends::TimelineLane;
using backends::TimelinePass;
using backends::TimelinePortion;
using backends::TimelineStage;
using backends::TimelineUnit;

namespace {

std::vector<std::uint32_t> origins(std::initializer_list<HId> ids, const HDag& h) {
  std::vector<std::uint32_t> out;
  for (HId id : ids)
    if (id != kNoH && id < h.nodes.size() && h[id].has_origin) out.push_back(h[id].origin);
  return out;
}

std::string value_name(HId id, const HDag& h, const dag::FragmentDag& d) {
  if (id == kNoH || id >= h.nodes.size() || !h[id].has_origin) return "";
  return fmt::format("n{} {}", h[id].origin, dag::label(d.node(h[id].origin)));
}

}  // namespace

void fill_timeline_pass(TimelinePass& tp, const Program& p, const Machine& machine, const dag::FragmentDag& d) {
  const HDag& h = p.hdag;
  for (const TextureUnit& u : p.units) tp.texture_units.push_back(unit_summary(u));
  tp.stages.assign(p.stages.size(), TimelineStage{});
  auto reg = [&](int r) { return r < 0 ? std::string("discard") : machine.registers[static_cast<std::size_t>(r)].rc; };
  for (std::size_t s = 0; s < p.stages.size(); ++s) {
    const Stage& st = p.stages[s];
    TimelineStage& ts = tp.stages[s];
    for (int part = 0; part < 2; ++part) {
      const bool rgb = part == 0;
      const Portion& po = rgb ? st.rgb : st.alpha;
      TimelinePortion& out = rgb ? ts.rgb : ts.alpha;
      if (!po.used()) continue;
      std::vector<const PartialCombiner*> pcs;
      for (const PartialCombiner& pc : p.combiners)
        if (pc.stage == static_cast<int>(s) && !is_final(pc.kind) && (part_of(pc.kind) == Part::Rgb) == rgb) pcs.push_back(&pc);
      const bool full = po.sum_out >= 0;
      out.kind = full ? "FULL" : pcs.size() > 1 ? "HALF+HALF" : "HALF";
      auto product = [&](const Variable& a, const Variable& b, bool dot, int dst, const PartialCombiner* pc,
                         HId node, HId written) {
        out.units.push_back({TimelineUnit::Kind::Input, rc_variable(a, machine, rgb), pc ? origins({pc->a.value}, h) : std::vector<std::uint32_t>{}});
        out.units.push_back({TimelineUnit::Kind::Input, rc_variable(b, machine, rgb), pc ? origins({pc->b.value}, h) : std::vector<std::uint32_t>{}});
        out.units.push_back({TimelineUnit::Kind::Product, dot ? "DOT" : "MUL", origins({node}, h)});
        if (dst >= 0) out.units.push_back({TimelineUnit::Kind::Output, reg(dst), origins({written}, h)});
      };
      const PartialCombiner* first = pcs.empty() ? nullptr : pcs.front();
      if (full && first) {
        out.units.push_back({TimelineUnit::Kind::Input, rc_variable(po.a, machine, rgb), origins({first->a.value}, h)});
        out.units.push_back({TimelineUnit::Kind::Input, rc_variable(po.b, machine, rgb), origins({first->b.value}, h)});
        out.units.push_back({TimelineUnit::Kind::Product, po.ab_dot ? "DOT" : "MUL", origins({first->ab_node}, h)});
        if (po.ab_out >= 0) out.units.push_back({TimelineUnit::Kind::Output, reg(po.ab_out), origins({first->ab_value}, h)});
        out.units.push_back({TimelineUnit::Kind::Input, rc_variable(po.c, machine, rgb), origins({first->c.value}, h)});
        out.units.push_back({TimelineUnit::Kind::Input, rc_variable(po.d, machine, rgb), origins({first->d.value}, h)});
        out.units.push_back({TimelineUnit::Kind::Product, po.cd_dot ? "DOT" : "MUL", origins({first->cd_node}, h)});
        if (po.cd_out >= 0) out.units.push_back({TimelineUnit::Kind::Output, reg(po.cd_out), origins({first->cd_value}, h)});
        out.units.push_back({TimelineUnit::Kind::Combine, po.mux ? "MUX" : "ADD", origins({first->combine_node}, h)});
      } else {
        const PartialCombiner* second = pcs.size() > 1 ? pcs[1] : nullptr;
        if (po.ab_out >= 0) product(po.a, po.b, po.ab_dot, -1, first, first ? first->ab_node : kNoH, kNoH);
        if (po.cd_out >= 0) product(po.c, po.d, po.cd_dot, -1, second, second ? second->ab_node : kNoH, kNoH);
      }
      if (po.out != OutMap::None) out.units.push_back({TimelineUnit::Kind::OutMap, paper_name(po.out), {}});
      if (full) out.units.push_back({TimelineUnit::Kind::Output, reg(po.sum_out), origins({first ? first->sum_value : kNoH}, h)});
      else {
        if (po.ab_out >= 0) out.units.push_back({TimelineUnit::Kind::Output, reg(po.ab_out), origins({first ? first->ab_value : kNoH}, h)});
        if (po.cd_out >= 0) out.units.push_back({TimelineUnit::Kind::Output, reg(po.cd_out), origins({pcs.size() > 1 ? pcs[1]->ab_value : kNoH}, h)});
      }
      for (const PartialCombiner* pc : pcs) out.nodes.insert(out.nodes.end(), pc->origin.begin(), pc->origin.end());
    }
    auto constant = [](const char* name, const std::array<float, 4>& c) { return fmt::format("{} ({:.2f}, {:.2f}, {:.2f}, {:.2f})", name, c[0], c[1], c[2], c[3]); };
    if (st.c0) ts.constants += constant("const0", *st.c0);
    if (st.c1) ts.constants += (ts.constants.empty() ? "" : "  ") + constant("const1", *st.c1);
  }
  for (const Lifetime& l : p.lifetimes) {
    TimelineLane lane;
    lane.reg = machine.registers[static_cast<std::size_t>(l.reg)].name + (l.part == Part::Rgb ? ".rgb" : ".alpha");
    lane.first = l.first;
    lane.last = l.last;
    lane.input = l.input;
    lane.value = value_name(l.value, h, d);
    lane.nodes = origins({l.value}, h);
    tp.lanes.push_back(std::move(lane));
  }
  tp.final_rgb = rc_final_rgb(p.final, machine);
  if (p.final.e_times_f_used) tp.final_product = rc_final_product(p.final, machine);
  tp.final_alpha = rc_final_variable(p.final.g, machine, false);
}

}  // namespace passlab::combiners
