// SPDX-License-Identifier: GPL-3.0-or-later
// Diagnostics of the user's other files (targets, scenes, meshes) print as the compiler's do,
// leaving out the parts of the location a reader does not know.
#include "core/lang/diagnostics.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/lang/json_error.h"

namespace passlab::lang {
namespace {

TEST(Diagnostics, TextLeavesOutUnknownPartsOfTheLocation) {
  Diagnostics d;
  const FileId mesh = d.sources().add("a.obj", "");  // a file whose text is not kept
  d.error("mesh", line_span(mesh, 3, 7), "bad");
  d.error("mesh", line_span(mesh, 3, 0), "bad");
  d.error("mesh", file_span(mesh), "bad");
  d.error("cost-model", {}, "bad");
  EXPECT_EQ(d.text(), "a.obj:3:7: error: bad [mesh]\na.obj:3: error: bad [mesh]\na.obj: error: bad [mesh]\nerror: bad [cost-model]\n");
  EXPECT_EQ(d.summary(), "a.obj:3:7: error: bad [mesh]");
  const nlohmann::json j = d.json();
  ASSERT_EQ(j.size(), 4u);
  EXPECT_EQ(j[0]["location"]["line"], 3);
  EXPECT_EQ(j[0]["location"]["column"], 7);
  EXPECT_EQ(j[2]["location"]["file"], "a.obj");
  EXPECT_EQ(j[3]["code"], "cost-model");
}

TEST(Diagnostics, AJsonFilesProblemsPointAtTheirKeyWithTheLineShown) {
  Diagnostics d;
  const FileId f = d.sources().add("t.json", "{\n  \"name\": \"x\",\n  \"limits\": {\"registers\": -3}\n}\n");
  d.error("target", key_span(d.sources(), f, "registers", key_offset(d.sources(), f, "limits")), "negative");
  EXPECT_EQ(d.text(), "t.json:3:14: error: negative [target]\n    \"limits\": {\"registers\": -3}\n               ^~~~~~~~~~~\n");
  // A key that is not in the file points at where the search began.
  const Span absent = key_span(d.sources(), f, "absent", 5);
  EXPECT_EQ(absent.line, 2u);
  EXPECT_EQ(absent.col, 4u);
}

TEST(Diagnostics, InvalidJsonIsAtItsPlace) {
  Diagnostics d;
  const std::string text = "{\n  \"a\": 1,\n}\n";
  const FileId f = d.sources().add("s.json", text);
  try {
    const nlohmann::json parsed = nlohmann::json::parse(text);
    FAIL() << "the text is not JSON, yet it parsed as " << parsed.dump();
  } catch (const nlohmann::json::exception& e) {
    d.report(json_diagnostic("scene", d.sources(), f, e));
  }
  ASSERT_EQ(d.items().size(), 1u);
  EXPECT_EQ(d.items()[0].span.line, 3u);
  EXPECT_EQ(d.items()[0].code, "scene");
  EXPECT_EQ(d.summary().rfind("s.json:3:1: error: invalid JSON: ", 0), 0u) << d.summary();
}

}  // namespace
}  // namespace passlab::lang
