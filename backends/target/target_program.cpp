// SPDX-License-Identifier: GPL-3.0-or-later
#include "backends/target/target_program.h"

#include <algorithm>

namespace passlab::backends {

std::vector<std::vector<PassFile>> TargetProgram::listing_files(const partition::Partition& part) const {
  std::vector<std::vector<PassFile>> out;
  for (std::string& text : listings(part, nullptr)) out.push_back({{listing_extension(), std::move(text)}});
  return out;
}

Timeline TargetProgram::timeline(const partition::Partition& part, const partition::CostModel& model, partition::Trace*) const {
  Timeline t;
  t.target = target_.name;
  for (const partition::Pass& p : part.passes) {
    TimelinePass tp;
    tp.root = p.root;
    tp.root_label = p.root < problem_.labels.size() ? problem_.labels[p.root] : "";
    tp.resources = p.resources;
    tp.members = p.members;
    tp.failure = p.failure;
    tp.cost = model.pass_cost(p.resources.texture_fetches, p.resources.arithmetic, static_cast<int>(std::max<std::size_t>(1, p.outputs.size())));
    t.passes.push_back(std::move(tp));
  }
  return t;
}

std::vector<std::uint32_t> nodes_on_line(const TargetGraph& g, const lang::SourceManager& sources, const std::string& path, std::uint32_t line) {
  std::vector<std::uint32_t> out;
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    for (const auto& sp : g.nodes[i].spans)
      if (sp.valid() && sp.line == line && sources.file(sp.file).path == path) {
        out.push_back(static_cast<std::uint32_t>(i));
        break;
      }
  return out;
}

}  // namespace passlab::backends
