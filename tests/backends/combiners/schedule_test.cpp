// SPDX-License-Identifier: GPL-3.0-or-later
// Stage 5: the greedy scheduler against the exact one on random small shaders: the exact
// schedule is never longer, both obey every rule, and both compute the same colours.
#include <random>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "backends/combiners/lower.h"
#include "tests/backends/combiners/support.h"

namespace passlab::combiners {
namespace {

// A random shader of `ops` operations on colours and scalars from two textures and the
// interpolated colours, with the patterns the compiler maps (1 - x, 2 (x - 1/2), max(0, x)),
// products, sums, dot products and selects.
std::string random_shader(std::mt19937& rng, int ops) {
  std::vector<std::string> colours = {"color texture(\"a\", s, t)", "color texture(\"b\", s, t)", "Cs", "Os"};
  std::vector<std::string> scalars = {"float texture(\"a\"[3], s, t)", "float texture(\"b\"[3], s, t)"};
  std::string body;
  auto pick = [&](const std::vector<std::string>& v) { return v[std::uniform_int_distribution<std::size_t>(0, v.size() - 1)(rng)]; };
  for (int i = 0; i < ops; ++i) {
    const std::string c = fmt::format("c{}", i), f = fmt::format("f{}", i);
    switch (std::uniform_int_distribution<int>(0, 8)(rng)) {
      case 0: body += fmt::format("color {} = {} * {};\n", c, pick(colours), pick(colours)); colours.push_back(c); break;
      case 1: body += fmt::format("color {} = ({} + {}) * .5;\n", c, pick(colours), pick(colours)); colours.push_back(c); break;
      case 2: body += fmt::format("color {} = 1 - {};\n", c, pick(colours)); colours.push_back(c); break;
      case 3: body += fmt::format("float {} = {} * {};\n", f, pick(scalars), pick(scalars)); scalars.push_back(f); break;
      case 4: body += fmt::format("float {} = clamp(vector (2 * ({} - .5)) . vector {}, 0, 1);\n", f, pick(colours), pick(colours)); scalars.push_back(f); break;
      case 5: body += fmt::format("color {} = {} * {};\n", c, pick(scalars), pick(colours)); colours.push_back(c); break;
      case 6: body += fmt::format("color {} = {} >= .5 ? {} : {};\n", c, pick(scalars), pick(colours), pick(colours)); colours.push_back(c); break;
      case 7: body += fmt::format("float {} = 1 - {};\n", f, pick(scalars)); scalars.push_back(f); break;
      default: body += fmt::format("color {} = {} * {} + {} * {};\n", c, pick(colours), pick(scalars), pick(colours), pick(colours)); colours.push_back(c); break;
    }
  }
  return "surface r() {\n" + body + "Ci = " + colours.back() + "; Oi = " + scalars.back() + ";\n}\n";
}

TEST(Schedule, TheExactScheduleIsNeverLongerAndComputesTheSame) {
  std::mt19937 rng(2001);
  const Machine& m = test::machine("geforce3");
  int compared = 0, shorter = 0, total_greedy = 0, total_exact = 0, proven = 0, rescued = 0;
  for (int trial = 0; trial < 120; ++trial) {
    const std::string src = random_shader(rng, 3 + trial % 12);
    test::CombinerShader s = test::combiner_shader(src);
    ASSERT_TRUE(s.dag) << src;
    const dag::FragmentDag d = lower(*s.dag);
    const std::vector<Interval> ranges = intervals(d);
    const CompileResult greedy = compile_single(d, ranges, m);
    CompileOptions eo;
    eo.exact_schedule = true;
    eo.exact_budget = 20000;
    const CompileResult exact = compile_single(d, ranges, m, eo);
    if (!greedy.ok) {
      // The exact search may fit what the greedy one does not (never the other way round).
      if (exact.ok) ++rescued;
      continue;
    }
    ASSERT_TRUE(exact.ok) << src << exact.failure.message;
    proven += exact.schedule_proven ? 1 : 0;
    EXPECT_LE(exact.program.stages.size(), greedy.program.stages.size()) << src;
    ++compared;
    total_greedy += static_cast<int>(greedy.program.stages.size());
    total_exact += static_cast<int>(exact.program.stages.size());
    if (exact.program.stages.size() < greedy.program.stages.size()) ++shorter;
    for (std::uint64_t seed = 1; seed <= 50; ++seed) {
      const ir::FragmentInputs in = ir::random_fragment(seed);
      test::ReferenceSource src_a(d, in, s.ctx);
      const Rgba a = simulate(greedy.program, m, src_a), b = simulate(exact.program, m, src_a);
      for (int k = 0; k < 4; ++k) ASSERT_EQ(a[static_cast<std::size_t>(k)], b[static_cast<std::size_t>(k)]) << src << " fragment " << seed;
    }
  }
  EXPECT_GE(compared, 80);
  std::printf("%d random shaders: greedy %d stages, exact %d (shorter in %d; %d proven minimal); %d fit only exactly\n", compared, total_greedy,
              total_exact, shorter, proven, rescued);
}

}  // namespace
}  // namespace passlab::combiners
