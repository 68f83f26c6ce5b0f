// SPDX-License-Identifier: GPL-3.0-or-later
// Tree-sitter highlighting: RSL words layered on the C grammar, incremental reparses, folds.
#include "editors/syntax_tree.h"

#include <gtest/gtest.h>

namespace passlab::editors {
namespace {

Style style_at(const SyntaxTree& t, std::string_view word, std::size_t nth = 0) {
  std::size_t at = 0;
  for (std::size_t k = 0; k <= nth; ++k) {
    at = t.text().find(word, k == 0 ? 0 : at + 1);
    if (at == std::string::npos) return Style::Count;
  }
  for (const Token& tok : t.tokens(0, static_cast<std::uint32_t>(t.text().size())))
    if (tok.start <= at && at < tok.start + tok.length) return tok.style;
  return Style::Default;
}

constexpr const char* kShader =
    "/* a comment */\n"
    "surface pin(float Kd = .5; string map = \"base\";)\n"
    "{\n"
    "    color c = color texture(map, s, t);\n"
    "    Ci = c * Kd * diffuse(normalize(N));\n"
    "}\n";

TEST(SyntaxTree, ClassifiesRslWordsOnTheCGrammar) {
  SyntaxTree t;
  t.reset(kShader);
  EXPECT_EQ(style_at(t, "a comment"), Style::Comment);
  EXPECT_EQ(style_at(t, "surface"), Style::Keyword);
  EXPECT_EQ(style_at(t, "color"), Style::Type);
  EXPECT_EQ(style_at(t, "texture"), Style::Builtin);
  EXPECT_EQ(style_at(t, "normalize"), Style::Builtin);
  EXPECT_EQ(style_at(t, "Ci"), Style::Global);
  EXPECT_EQ(style_at(t, "\"base\""), Style::String);
  EXPECT_EQ(style_at(t, ".5"), Style::Number);
  EXPECT_EQ(style_at(t, "Kd", 1), Style::Default);  // a parameter is not a keyword
}

TEST(SyntaxTree, ReparsesIncrementallyAndFollowsEdits) {
  SyntaxTree t;
  t.reset(kShader);
  const long full = t.reparses();
  // Turn the last statement into a comment: its words must stop being globals and builtins.
  const auto at = static_cast<std::uint32_t>(t.text().find("    Ci ="));
  t.replace(at, 0, "//");
  EXPECT_EQ(t.reparses(), full + 1);
  EXPECT_EQ(t.incremental_reparses(), 1);
  EXPECT_EQ(style_at(t, "Ci"), Style::Comment);
  // Delete the comment marker again.
  t.replace(at, 2, "");
  EXPECT_EQ(style_at(t, "Ci"), Style::Global);
  EXPECT_EQ(t.text(), kShader);
}

TEST(SyntaxTree, TokensAreOrderedAndDisjointInAnyRange) {
  SyntaxTree t;
  t.reset(kShader);
  const auto n = static_cast<std::uint32_t>(t.text().size());
  for (std::uint32_t begin = 0; begin < n; begin += 7) {
    std::uint32_t last = 0;
    for (const Token& tok : t.tokens(begin, std::min(n, begin + 40))) {
      EXPECT_GE(tok.start, last);
      EXPECT_GT(tok.length, 0u);
      last = tok.start + tok.length;
    }
  }
}

TEST(SyntaxTree, FoldsFollowBracesButNotBracesInComments) {
  SyntaxTree t;
  t.reset("surface s()\n{\n  /* { */\n  if (1) {\n    Ci = 1;\n  }\n}\n");
  auto f = t.folds();
  ASSERT_GE(f.size(), 7u);
  EXPECT_TRUE(f[1].header);   // {
  EXPECT_EQ(f[2].depth, 1);   // the comment's brace does not count
  EXPECT_TRUE(f[3].header);   // if (1) {
  EXPECT_EQ(f[4].depth, 2);
  EXPECT_EQ(f[6].depth, 1);   // the closing brace's line starts inside the block
}

TEST(SyntaxTree, GlslGrammarLoads) {
  SyntaxTree t(Grammar::Glsl);
  t.reset("uniform sampler2D tex;\nvoid main() { gl_FragColor = texture2D(tex, vec2(0.5)); }\n");
  EXPECT_EQ(style_at(t, "uniform"), Style::Keyword);
  EXPECT_EQ(style_at(t, "void"), Style::Type);
}

}  // namespace
}  // namespace passlab::editors
