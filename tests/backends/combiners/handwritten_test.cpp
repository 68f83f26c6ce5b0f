// SPDX-License-Identifier: GPL-3.0-or-later
// The classic hand-written GeForce programs (samples/combiners/handwritten/programs.json): each
// file loads in nvparse as written, and the compiler, given the shader the program computes,
// needs at most one general combiner stage more than the hand count.
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "backends/combiners/listing.h"
#include "backends/combiners/nvparse_check.h"
#include "tests/backends/combiners/support.h"

namespace passlab::combiners {
namespace {

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Classic {
  std::string name, shader;
  std::vector<std::string> files;
};

std::vector<Classic> classics() {
  const nlohmann::json j = nlohmann::json::parse(read(test::sample_path("combiners/handwritten/programs.json")));
  std::vector<Classic> out;
  for (const auto& p : j.at("programs"))
    out.push_back({p.at("name").get<std::string>(), "combiners/handwritten/" + p.at("shader").get<std::string>(),
                   p.at("files").get<std::vector<std::string>>()});
  return out;
}

TEST(Handwritten, EachProgramLoadsAndTheCompilerIsWithinOneStageOfIt) {
  const std::vector<Classic> all = classics();
  ASSERT_GE(all.size(), 4u);
  const Machine& g3 = test::machine("geforce3");
  for (const Classic& c : all) {
    SCOPED_TRACE(c.name);
    int hand = -1;
    for (const std::string& f : c.files) {
      const std::string text = read(test::sample_path("combiners/handwritten/" + f));
      ASSERT_FALSE(text.empty()) << f;
      NvparseFacts facts;
      const std::vector<NvparseProblem> problems = check_nvparse(text, {}, &facts);
      EXPECT_TRUE(problems.empty()) << f << ":\n" << to_text(problems);
      if (text.rfind("!!RC1.0", 0) == 0) hand = facts.general_combiners;
    }
    ASSERT_GE(hand, 0) << "no !!RC1.0 program";
    test::CombinerShader s = test::combiner_sample(c.shader);
    ASSERT_TRUE(s.dag);
    const dag::FragmentDag low = lower(*s.dag);
    const CompileResult r = compile_single(low, intervals(low), g3);
    ASSERT_TRUE(r.ok) << r.failure.message;
    const int compiled = static_cast<int>(r.program.stages.size());
    EXPECT_LE(compiled, hand + 1) << "hand-written: " << hand << " stages, compiled: " << compiled;
    // What the compiler writes loads too.
    for (const ListingFile& f : listing_files(r.program, g3))
      EXPECT_TRUE(check_nvparse(f.text).empty()) << f.text << to_text(check_nvparse(f.text));
  }
}

TEST(Handwritten, TheHandCountIsTheProgramsOwn) {
  // The checker counts the general combiners a program configures; a program with more than the
  // card has is an error.
  NvparseFacts facts;
  const std::string two = "!!RC1.0\n{\n  rgb {\n    spare0 = tex0 * col0;\n  }\n}\n{\n  rgb {\n    spare0 = spare0 * tex1;\n  }\n}\nout.rgb = spare0;\nout.a = unsigned_invert(zero);\n";
  EXPECT_TRUE(check_nvparse(two, {}, &facts).empty()) << to_text(check_nvparse(two));
  EXPECT_EQ(facts.general_combiners, 2);
  NvparseOptions g1;
  g1.general_combiners = 1;
  EXPECT_FALSE(check_nvparse(two, g1).empty());
  const std::string none = "!!RC1.0\nout.rgb = lerp(tex2.a, tex1, tex0);\nout.a = unsigned_invert(zero);\n";
  EXPECT_TRUE(check_nvparse(none, {}, &facts).empty()) << to_text(check_nvparse(none));
  EXPECT_EQ(facts.general_combiners, 0);
}

}  // namespace
}  // namespace passlab::combiners
