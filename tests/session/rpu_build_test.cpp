// SPDX-License-Identifier: GPL-3.0-or-later
// The RPU as the Studio builds it: the scene that uses the shader, the editor's text compiled in,
// assembly and IR lines mapped to words and source lines, the compiler's decisions as events,
// and diagnostics at their place.
#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "session/rpu_build.h"
#include "session/scenes.h"
#include "session/snapshot.h"

namespace passlab::session {
namespace {

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const std::string kMirror = PASSLAB_SAMPLES_DIR "/rpu/mirror.sl";

TEST(RpuBuild, FindsTheSampleSceneThatUsesTheShader) {
  EXPECT_NE(rpu_scene_for(kMirror).find("rpu_reflections.json"), std::string::npos) << rpu_scene_for(kMirror);
  EXPECT_NE(rpu_scene_for(PASSLAB_SAMPLES_DIR "/shaders/wood.sl").find("wood.json"), std::string::npos);
  EXPECT_EQ(rpu_scene_for(PASSLAB_SAMPLES_DIR "/shaders/no_such_shader.sl"), "");
}

TEST(RpuBuild, MapsWordsToAssemblyLinesAndSourceLines) {
  std::vector<Message> messages;
  auto b = build_rpu(kMirror, read(kMirror), RpuRequest{}, {}, "", &messages);
  ASSERT_TRUE(b->ok());
  EXPECT_EQ(b->scene_name, "rpu_reflections");
  EXPECT_EQ(std::max(b->width, b->height), 256);
  const std::size_t words = b->compiled().program->code.size();
  ASSERT_EQ(b->word_asm_line.size(), words);
  // Every word is on exactly one assembly line, which names it.
  std::set<int> lines;
  for (std::size_t pc = 0; pc < words; ++pc) {
    const int line = b->word_asm_line[pc];
    ASSERT_GE(line, 0);
    EXPECT_EQ(b->asm_line_word[static_cast<std::size_t>(line)], static_cast<int>(pc));
    lines.insert(line);
  }
  EXPECT_EQ(lines.size(), words);
  // mirror.sl line 12 (Ci = ... trace(...)) made words; they are the mirror shader's.
  const std::vector<std::uint32_t> on12 = b->words_on_line(12);
  ASSERT_FALSE(on12.empty());
  for (std::uint32_t pc : on12) {
    ASSERT_TRUE(b->function_at(pc));
    EXPECT_EQ(b->function_at(pc)->name, "mirror");
    EXPECT_TRUE(b->function_at(pc)->main_file);
  }
  // The IR is the main file's, with its lines' spans.
  EXPECT_NE(b->ir_text.find("func @mirror"), std::string::npos);
  ASSERT_EQ(b->ir_spans.size(), static_cast<std::size_t>(std::count(b->ir_text.begin(), b->ir_text.end(), '\n')));
  // Decisions of every kind, each naming a function of the program.
  std::set<int> stages;
  for (const partition::TraceEvent& e : b->decisions) {
    stages.insert(e.stage);
    ASSERT_GE(e.pass, 0);
    ASSERT_LT(e.pass, static_cast<int>(b->functions.size()));
    EXPECT_EQ(b->decisions.text(e).rfind(b->functions[static_cast<std::size_t>(e.pass)].name + ":", 0), 0u) << b->decisions.text(e);
  }
  EXPECT_EQ(stages, (std::set<int>{kRpuForward, kRpuRemove, kRpuColour, kRpuCycle}));
}

TEST(RpuBuild, CompilesTheEditorsTextAndPlacesItsErrors) {
  std::vector<Message> messages;
  std::string text = read(kMirror);
  text.insert(text.find("    Oi = 1;"), "    float oops = nothing;\n");
  auto b = build_rpu(kMirror, text, RpuRequest{}, {}, "", &messages);
  EXPECT_FALSE(b->ok());
  ASSERT_FALSE(messages.empty());
  EXPECT_TRUE(messages.front().in_main_file);
  EXPECT_EQ(messages.front().line, 13u);
}

TEST(RpuBuild, TheSnapshotOfAnRpuTargetHoldsTheProgramAndItsDecisions) {
  Request r;
  r.path = kMirror;
  r.text = read(kMirror);
  r.target.name = "RPU";
  r.target.backend = "rpu";
  auto s = build_snapshot(r);
  ASSERT_TRUE(s->rpu && s->rpu->ok());
  EXPECT_FALSE(s->has_dag());
  ASSERT_TRUE(s->run("rpu"));
  EXPECT_EQ(s->run("rpu")->trace.size(), s->rpu->decisions.size());
  EXPECT_EQ(s->errors, 0u);
}

}  // namespace
}  // namespace passlab::session
