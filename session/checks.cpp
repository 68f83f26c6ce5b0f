// SPDX-License-Identifier: GPL-3.0-or-later
// The partition checks and listings shared by passlab-cli and the Studio.
#include "session/checks.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "backends/fp/execute.h"
#include "core/partition/validate.h"

namespace passlab::session {

std::vector<std::string> check_partition(const partition::Problem& problem, fp::FpBackend& backend,
                                         const dag::FragmentDag& fdag, const partition::Partition& part,
                                         const partition::CostModel& model, const ir::Binding& binding) {
  std::vector<std::string> problems = partition::validate(problem, backend, part, model);
  ir::EvalContext ctx;
  ctx.spaces = binding.spaces;
  const fp::TargetDag& t = backend.dag();
  for (std::uint64_t seed = 1; seed <= 16 && problems.empty(); ++seed) {
    ir::FragmentInputs in = ir::random_fragment(seed);
    const ir::Neighbours next = ir::random_neighbours(in, seed);  // for the derivatives' differences
    fp::ExecutionResult run = fp::run_passes(t, fdag, part, in, ctx, &next);
    std::vector<fp::Vec4> whole = fp::evaluate_all(t, fdag, in, ctx, &next);
    if (!run.ok) problems.push_back("execution: " + run.error);
    else if (std::memcmp(run.output.data(), whole[t.root].data(), sizeof(fp::Vec4)) != 0)
      problems.push_back(fmt::format("execution: fragment {} differs from the single-pass result", seed));
  }
  return problems;
}

std::vector<std::string> listings(const fp::TargetDag& t, const partition::Partition& part,
                                  const partition::TargetDesc& target,
                                  std::vector<std::vector<std::uint32_t>>* line_nodes) {
  fp::ListingContext lc;
  lc.pass_count = static_cast<int>(part.passes.size());
  for (std::size_t i = 0; i < part.passes.size(); ++i) lc.saved_by_pass[part.passes[i].root] = static_cast<int>(i);
  for (const auto& [n, tex] : part.texture) lc.saved_texture[n] = tex;
  std::vector<std::string> out;
  for (std::size_t i = 0; i < part.passes.size(); ++i) {
    lc.pass_index = static_cast<int>(i);
    fp::PassProgram prog = fp::generate_pass(t, part.passes[i].root, part.passes[i].members, target.limits,
                                             target.restore_uses_interpolant);
    out.push_back(fp::listing(t, prog, lc));
    if (line_nodes) {
      // The schedule's instructions are the listing's last lines before END, in issue order.
      std::size_t lines = static_cast<std::size_t>(std::count(out.back().begin(), out.back().end(), '\n'));
      std::vector<std::uint32_t> map(lines, kNoNode);
      std::size_t first = lines - 1 - prog.schedule.size();
      for (std::size_t k = 0; k < prog.schedule.size(); ++k) map[first + k] = prog.schedule[k];
      line_nodes->push_back(std::move(map));
    }
  }
  return out;
}

}  // namespace passlab::session
