// SPDX-License-Identifier: GPL-3.0-or-later
// passlab-cli end to end: every command on real samples, exit codes, and broken input.
#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

#include "core/sim/image.h"
#include "tests/support/samples.h"

namespace passlab {
namespace {

struct CliRun {
  int code = -1;
  std::string out;
};

// Runs the CLI with stdout captured and stderr discarded (or merged when asked).
CliRun cli(const std::string& args, bool merge_stderr = false) {
  std::string cmd = std::string(PASSLAB_CLI) + " " + args + (merge_stderr ? " 2>&1" : " 2>/dev/null");
  CliRun r;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  std::size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  int status = ::pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

std::string sample(const std::string& name) { return test::sample_path("shaders/" + name + ".sl"); }

TEST(Cli, CheckAcceptsEverySample) {
  for (const auto& name : test::sample_surfaces()) EXPECT_EQ(cli("check " + sample(name)).code, 0) << name;
}

TEST(Cli, ReportPrintsTableOneTotals) {
  CliRun r = cli("report " + sample("bowling_pin"));
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("total nodes (n)"), std::string::npos);
  EXPECT_NE(r.out.find("texture operations"), std::string::npos);
  CliRun j = cli("report --format json " + sample("wood"));
  ASSERT_EQ(j.code, 0);
  auto doc = nlohmann::json::parse(j.out);
  EXPECT_GE(doc["dag"]["texture_operations"].get<int>(), 30);
  EXPECT_GE(doc["dag"]["nodes"].get<int>(), 400);
}

TEST(Cli, DagFormats) {
  EXPECT_NE(cli("dag --format dot " + sample("plastic")).out.find("digraph"), std::string::npos);
  EXPECT_TRUE(nlohmann::json::accept(cli("dag --format json " + sample("plastic")).out));
  EXPECT_NE(cli("dag --format text " + sample("plastic")).out.find("output"), std::string::npos);
}

TEST(Cli, IrWithAndWithoutOptimization) {
  CliRun raw = cli("ir " + sample("marble"));
  CliRun opt = cli("ir --opt " + sample("marble"));
  EXPECT_EQ(raw.code, 0);
  EXPECT_EQ(opt.code, 0);
  EXPECT_LT(opt.out.size(), raw.out.size());
  EXPECT_NE(raw.out.find("func @"), std::string::npos);
}

TEST(Cli, ExitCodes) {
  EXPECT_EQ(cli("").code, 2);
  EXPECT_EQ(cli("frobnicate x.sl").code, 2);
  EXPECT_EQ(cli("dag --format png " + sample("plastic")).code, 2);
  EXPECT_EQ(cli("check /nonexistent/file.sl").code, 1);
  EXPECT_EQ(cli("--help").code, 0);
}

TEST(Cli, BrokenInputGivesDiagnosticsNotCrashes) {
  auto dir = std::filesystem::temp_directory_path() / ("passlab_cli_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::vector<std::string> inputs = {
      "", "surface", "surface s(", "surface s() {", "}}}}", "surface s() { Ci = ; }", "\x01\x02\xff\xfe",
      "#if 1\nsurface s() {}\n", "#define A A A\nA", "surface s() { while (1) {} }",
      "surface s() { float x; while (x < s) x += 1; Ci = x; }", std::string(5000, '('),
      "surface s() { Ci = Du(s); }", "light l() { illuminance(P) {} }"};
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    auto path = dir / ("in" + std::to_string(i) + ".sl");
    std::ofstream(path, std::ios::binary) << inputs[i];
    for (const char* cmd : {"check", "ir --opt", "dag --format json", "report"}) {
      CliRun r = cli(std::string(cmd) + " " + path.string(), true);
      EXPECT_TRUE(r.code == 0 || r.code == 1) << cmd << " on input " << i << " exited " << r.code << "\n" << r.out;
    }
  }
  std::filesystem::remove_all(dir);
}

TEST(Cli, DiagnosticsShowLocationSourceLineAndCaret) {
  auto dir = std::filesystem::temp_directory_path() / ("passlab_diag_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto path = dir / "bad.sl";
  std::ofstream(path) << "surface bad() {\n  Ci = Cs * undefined_thing;\n}\n";
  CliRun r = cli("check " + path.string(), true);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("bad.sl:2:13: error: use of undeclared identifier 'undefined_thing'"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("    Ci = Cs * undefined_thing;\n              ^~~~~~~~~~~~~~~"), std::string::npos) << r.out;
  CliRun j = cli("check --format json " + path.string());
  auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["diagnostics"][0]["location"]["line"], 2);
  EXPECT_EQ(doc["diagnostics"][0]["location"]["column"], 13);
  std::filesystem::remove_all(dir);
}

TEST(Cli, PartitionComparesTheThreeAlgorithmsDeterministically) {
  const std::string args = "partition --target PC5 --cost 15p+5t+i --algo all --format json " + sample("bump_pin");
  CliRun a = cli(args), b = cli(args);
  ASSERT_EQ(a.code, 0) << a.out;
  EXPECT_EQ(a.out, b.out);  // byte-identical: no run times unless --timing
  auto doc = nlohmann::json::parse(a.out);
  ASSERT_EQ(doc["results"].size(), 3u);
  const auto& opt = doc["results"][2];
  EXPECT_EQ(opt["algorithm"], "optimal");
  EXPECT_TRUE(opt["proven_optimal"].get<bool>());
  for (const auto& r : doc["results"]) {
    EXPECT_TRUE(r["valid"].get<bool>()) << r["algorithm"];
    EXPECT_GE(r["cost"].get<double>(), opt["cost"].get<double>()) << r["algorithm"];
    EXPECT_FALSE(r.contains("milliseconds"));
    EXPECT_EQ(r["pass_list"].size(), r["passes"].get<std::size_t>());
  }
  auto timed = nlohmann::json::parse(cli(args + " --timing").out);
  EXPECT_TRUE(timed["results"][2].contains("milliseconds"));
  EXPECT_TRUE(timed["results"][2].contains("states_merged"));

  CliRun text = cli("partition --target PC5 --algo optimal " + sample("bump_pin"));
  EXPECT_NE(text.out.find("optimal: proven optimal"), std::string::npos) << text.out;

  // The table's memory changes how fast a proof comes, never what is proven; out of range is a
  // usage error that names the option.
  CliRun small = cli(args + " --table-mb 16");
  ASSERT_EQ(small.code, 0) << small.out;
  EXPECT_EQ(small.out, a.out);
  CliRun tiny = cli(args + " --table-mb 8", true);
  EXPECT_NE(tiny.code, 0);
  EXPECT_NE(tiny.out.find("--table-mb"), std::string::npos) << tiny.out;
}

TEST(Cli, PartitionEmitsListingsAndRejectsUnknownTargets) {
  auto dir = std::filesystem::temp_directory_path() / ("passlab_emit_" + std::to_string(::getpid()));
  CliRun r = cli("partition --target PC1 --algo rds --emit " + dir.string() + " " + sample("bowling_pin"));
  ASSERT_EQ(r.code, 0) << r.out;
  int listings = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    std::ifstream in(e.path());
    std::string first;
    std::getline(in, first);
    EXPECT_EQ(first, "!!ARBfp1.0") << e.path();
    ++listings;
  }
  EXPECT_GT(listings, 10);  // RBP needs many 6-operation passes
  std::filesystem::remove_all(dir);

  CliRun bad = cli("partition --target PC99 " + sample("bowling_pin"), true);
  EXPECT_NE(bad.code, 0);
  EXPECT_NE(bad.out.find("PC99"), std::string::npos) << bad.out;
  CliRun cost = cli("partition --cost 15q+t " + sample("bowling_pin"), true);
  EXPECT_NE(cost.code, 0);
  EXPECT_FALSE(cost.out.empty());
}

// Problems with the other files a command reads (targets, machines, scenes, cost models) are
// diagnostics like the compiler's: the place, the code, the line with a caret; with --format json,
// a document of them on standard output.
TEST(Cli, AProblemWithATargetOrSceneIsADiagnosticAtItsPlace) {
  const auto dir = std::filesystem::temp_directory_path() / ("passlab_inputs_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string target = (dir / "mine.json").string();
  std::ofstream(target) << "{\n  \"name\": \"mine\",\n  \"limits\": {\"registers\": -3}\n}\n";
  const CliRun text = cli("partition --target " + target + " " + sample("bowling_pin"), true);
  EXPECT_EQ(text.code, 2);
  EXPECT_NE(text.out.find(target + ":3:14: error: \"limits.registers\" must not be negative (use null for unlimited), got -3 [target]\n"
                                   "    \"limits\": {\"registers\": -3}\n"
                                   "               ^~~~~~~~~~~\n"),
            std::string::npos)
      << text.out;

  const CliRun json = cli("partition --format json --cost 3q --target " + target + " " + sample("bowling_pin"));
  EXPECT_EQ(json.code, 2);
  const nlohmann::json doc = nlohmann::json::parse(json.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << json.out;
  ASSERT_EQ(doc["diagnostics"].size(), 2u) << json.out;
  EXPECT_EQ(doc["diagnostics"][0]["code"], "target");
  EXPECT_EQ(doc["diagnostics"][0]["location"]["line"], 3);
  EXPECT_EQ(doc["diagnostics"][0]["location"]["column"], 14);
  EXPECT_EQ(doc["diagnostics"][1]["code"], "cost-model");
  EXPECT_EQ(doc["errors"], 2);

  const std::string scene = (dir / "scene.json").string();
  std::ofstream(scene) << "{\"camera\": 3, \"objects\": [{\"mesh\": {\"sphere\": {}}}]}";
  const CliRun render = cli("render " + sample("bowling_pin") + " --scene " + scene + " -o " + (dir / "x.png").string(), true);
  EXPECT_NE(render.code, 0);
  EXPECT_NE(render.out.find(scene + ":1:2: error: \"camera\" must be an object [scene]"), std::string::npos) << render.out;
  std::filesystem::remove_all(dir);
}

// A target that cannot run a shader says so at the source of what it cannot take, as the
// compiler's own errors are, so the editor can underline it.
TEST(Cli, WhatATargetCannotRunIsADiagnosticAtItsSource) {
  const auto dir = std::filesystem::temp_directory_path() / ("passlab_refused_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string shader = (dir / "du.sl").string(), target = (dir / "flat.json").string();
  std::ofstream(shader) << "surface du()\n{\n  Ci = Du(s) * Cs;\n}\n";
  std::ofstream(target) << R"({"name": "flat", "derivatives": "none"})";
  const CliRun run = cli("partition --target " + target + " " + shader, true);
  EXPECT_EQ(run.code, 1);
  EXPECT_NE(run.out.find(shader + ":3:8: error: the fp target cannot run this shader: this target has no screen-space derivatives"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("[fp-target]\n    Ci = Du(s) * Cs;\n"), std::string::npos) << run.out;
  std::filesystem::remove_all(dir);
}

TEST(Cli, EveryCommandCompilesWithTheDefinesGiven) {
  // partition and combiners once compiled without -D: the shader below came out green.
  const auto file = std::filesystem::temp_directory_path() / ("passlab_define_" + std::to_string(::getpid()) + ".sl");
  std::ofstream(file) << "surface s() {\n#ifdef RED\n  Ci = color(1, 0, 0);\n#else\n  Ci = color(0, 1, 0);\n#endif\n}\n";
  const std::string red = "const (1,0,0)", green = "const (0,1,0)";
  EXPECT_NE(cli("dag -D RED " + file.string()).out.find(red), std::string::npos);
  EXPECT_NE(cli("dag " + file.string()).out.find(green), std::string::npos);
  const auto dir = std::filesystem::temp_directory_path() / ("passlab_define_emit_" + std::to_string(::getpid()));
  ASSERT_EQ(cli("partition -D RED --target PC5 --algo rds --emit " + dir.string() + " " + file.string()).code, 0);
  std::ifstream listing(dir / "RDS" / "pass01.fp");
  const std::string text((std::istreambuf_iterator<char>(listing)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("{1, 0, 0, 0}"), std::string::npos) << text;
  CliRun comb = cli("combiners -D RED --target geforce3 " + file.string());
  EXPECT_EQ(comb.code, 0);
  EXPECT_NE(comb.out.find("const0 = (1.0000, 0.0000, 0.0000"), std::string::npos) << comb.out;
  // render too (it once ignored -D): the ball in the middle of the picture is red.
  const std::string png = (dir / "red.png").string(), scene = (dir / "ball.json").string();
  std::ofstream(scene) << R"({"size": [16, 16], "objects": [{"mesh": {"sphere": {"radius": 1.6}}, "translate": [0, 0, 7]}]})";
  ASSERT_EQ(cli("render -D RED --scene " + scene + " -o " + png + " " + file.string()).code, 0);
  std::optional<sim::Image> image = sim::read_png(png, nullptr);
  ASSERT_TRUE(image);
  EXPECT_GT(image->at(8, 8)[0], 0.9f);
  EXPECT_LT(image->at(8, 8)[1], 0.1f);
  std::filesystem::remove_all(dir);
  std::filesystem::remove(file);
}

// --aov compiles an output parameter as the colour; a name the shader lacks lists what it has.
TEST(Cli, AnOutputParameterIsCompiledInsteadOfCiWhenAsked) {
  const auto file = std::filesystem::temp_directory_path() / ("passlab_aov_" + std::to_string(::getpid()) + ".sl");
  std::ofstream(file) << "surface s(output varying color tint = 0) {\n  tint = color(0, 0, 1);\n  Ci = color(0, 1, 0);\n}\n";
  EXPECT_NE(cli("dag --aov tint " + file.string()).out.find("const (0,0,1)"), std::string::npos);
  EXPECT_EQ(cli("partition --target PC5 --algo rds --aov tint " + file.string()).code, 0);
  CliRun bad = cli("report --aov nope " + file.string(), true);
  EXPECT_NE(bad.code, 0);
  EXPECT_NE(bad.out.find("'nope' is not an output parameter of this shader (its outputs: tint) [unknown-aov]"), std::string::npos) << bad.out;
  // --all-outputs: Ci and tint, each to its own render target; a pass each on one render target,
  // one pass of two on four; the register combiners, which write one colour, say so.
  const CliRun one = cli("partition --target PC5 --algo rds --all-outputs " + file.string());
  EXPECT_EQ(one.code, 0) << one.out;
  const CliRun four = cli("partition --target ps_2_0_mrt4 --algo mrds --all-outputs --format json " + file.string());
  EXPECT_EQ(four.code, 0) << four.out;
  EXPECT_NE(four.out.find("\"outputs\": ["), std::string::npos) << four.out;
  CliRun combiners = cli("partition --target geforce3 --all-outputs " + file.string(), true);
  EXPECT_NE(combiners.code, 0);
  EXPECT_NE(combiners.out.find("the register combiners write one colour, and this shader has 2 outputs"), std::string::npos) << combiners.out;
  std::filesystem::remove(file);
}

TEST(Cli, PartitionEvaluatesAPartitionGivenByHand) {
  // A student's partition: RDS's own marks, saved and read back, cost what RDS's partition costs;
  // too few marks give passes that do not fit, each naming the limit it breaks, and exit 1.
  const auto dir = std::filesystem::temp_directory_path() / ("passlab_marks_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string saved = (dir / "rds.json").string();
  CliRun rds = cli("partition --target PC5 --algo rds --format json --save-marks " + saved + " " + sample("bowling_pin"));
  ASSERT_EQ(rds.code, 0) << rds.out;
  const double rds_cost = nlohmann::json::parse(rds.out)["results"][0]["cost"].get<double>();
  std::ifstream in(saved);
  const nlohmann::json file = nlohmann::json::parse(in);
  EXPECT_EQ(file["format"], "passlab-marks");
  ASSERT_GE(file["marks"].size(), 10u);
  EXPECT_TRUE(file["marks"][0].contains("label"));

  CliRun yours = cli("partition --target PC5 --format json --marks " + saved + " " + sample("bowling_pin"));
  ASSERT_EQ(yours.code, 0) << yours.out;
  const auto y = nlohmann::json::parse(yours.out)["results"];
  ASSERT_EQ(y.size(), 1u);  // without --algo, only the partition given
  EXPECT_EQ(y[0]["algorithm"], "yours");
  EXPECT_TRUE(y[0]["valid"].get<bool>());
  EXPECT_DOUBLE_EQ(y[0]["cost"].get<double>(), rds_cost);
  EXPECT_EQ(y[0]["marks"].size(), file["marks"].size());

  const std::string few = (dir / "few.json").string();
  std::ofstream(few) << R"({"marks": [14, {"node": 31, "reason": "the shared dot product"}]})";
  CliRun bad = cli("partition --target PC5 --algo rds --marks " + few + " " + sample("bowling_pin"));
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.out.find("yours: does not fit PC5"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("does not fit: operations: 9 > 6"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("RDS            503.00"), std::string::npos) << bad.out;  // --algo runs beside it

  const std::string wrong = (dir / "wrong.json").string();
  std::ofstream(wrong) << "{\"marks\": [\n  14,\n  999\n]}";
  CliRun located = cli("partition --target PC5 --marks " + wrong + " " + sample("bowling_pin"), true);
  EXPECT_EQ(located.code, 1);
  // As the compiler prints a diagnostic: the place, the code, the line and a caret under it.
  EXPECT_NE(located.out.find(wrong + ":3:3: error: marks[1]: node 999 is not in the DAG (nodes 0 to 102) [marks]\n    999\n    ^\n"),
            std::string::npos) << located.out;
  std::ofstream(wrong) << R"({"marks": [0]})";  // node 0 is an input of the bowling pin
  located = cli("partition --target PC5 --marks " + wrong + " " + sample("bowling_pin"), true);
  EXPECT_NE(located.out.find("is an input, not an operation"), std::string::npos) << located.out;
  CliRun two = cli("partition --target PC5 --save-marks " + saved + " " + sample("bowling_pin"), true);
  EXPECT_EQ(two.code, 2);  // --save-marks needs one partition
  std::filesystem::remove_all(dir);
}

TEST(Cli, DecoupledRenderStatsNameTheCacheTheModeUses) {
  // Issue: --stats named a 4,096-sample cache for supersampling and MSAA, which use none, and
  // --cache 3 with quads silently held one quad (4 samples).
  const auto dir = std::filesystem::temp_directory_path() / ("passlab_ds_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string scene = test::sample_path("scenes/ds_defocus.json"), png = (dir / "b.png").string();
  const std::string base = "render " + sample("plastic") + " --scene " + scene + " --spp 4 --size 32x32 -o " + png + " --stats json";
  CliRun ss = cli(base + " --shading supersample");
  ASSERT_EQ(ss.code, 0) << ss.out;
  const auto s = nlohmann::json::parse(ss.out);
  EXPECT_TRUE(s["cache"].is_null());
  EXPECT_TRUE(s["cache_scope"].is_null());
  EXPECT_EQ(s["block"], "sample");
  CliRun dec = cli(base + " --cache 4097");
  ASSERT_EQ(dec.code, 0) << dec.out;
  const auto d = nlohmann::json::parse(dec.out);
  EXPECT_EQ(d["cache"], 4096);  // whole quads
  EXPECT_EQ(d["block"], "quad");
  const std::vector<std::uint8_t> first = [&] { std::ifstream in(png, std::ios::binary); return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(in), {}); }();
  ASSERT_EQ(cli(base + " --cache 4097").code, 0);
  std::ifstream again(png, std::ios::binary);
  EXPECT_EQ(std::vector<std::uint8_t>(std::istreambuf_iterator<char>(again), {}), first);  // byte-identical
  CliRun tiny = cli(base + " --cache 3", true);
  EXPECT_EQ(tiny.code, 2);
  EXPECT_NE(tiny.out.find("--cache must be 0 or at least 4 (it was 3)"), std::string::npos) << tiny.out;
  EXPECT_EQ(cli(base + " --cache 3 --no-quads").code, 0);
  CliRun text = cli("render " + sample("plastic") + " --scene " + scene + " --spp 4 --size 32x32 -o " + png + " --stats text --shading msaa");
  EXPECT_NE(text.out.find("per-pixel reuse"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("cache hit rate"), std::string::npos) << text.out;
  std::filesystem::remove_all(dir);
}

TEST(Cli, DecoupledRenderReportsItsErrorAgainstTheGroundTruth) {
  const auto dir = std::filesystem::temp_directory_path() / ("passlab_gt_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string scene = test::sample_path("scenes/ds_defocus.json"), png = (dir / "d.png").string(), map = (dir / "e.png").string();
  const std::string base = "render " + sample("plastic") + " --scene " + scene + " --spp 4 --size 32x32 -o " + png + " --stats json";
  CliRun r = cli(base + " --reference accumulation --reference-spp 8 --error-map " + map);
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["reference"]["shading"], "accumulation");
  EXPECT_EQ(j["reference"]["spp"], 8);
  EXPECT_GT(j["reference"]["psnr_db"].get<double>(), 20.0);
  EXPECT_LT(j["reference"]["psnr_db"].get<double>(), 999.0);
  EXPECT_TRUE(std::filesystem::file_size(map) > 0);
  // The hardware studies: 4 samples of 8 bytes in a 128 kB tile, 64 x 64 pixels.
  EXPECT_EQ(j["hardware"]["tile_side"], 64);
  EXPECT_GE(j["hardware"]["bin_spread"].get<double>(), 1.0);
  EXPECT_GT(j["hardware"]["cost"]["decouple"].get<double>(), 0.0);
  CliRun exact = cli(base + " --shading exact");
  ASSERT_EQ(exact.code, 0) << exact.out;
  EXPECT_TRUE(nlohmann::json::parse(exact.out)["cache"].is_null());
  // An error map needs something to measure against.
  CliRun lone = cli(base + " --error-map " + map, true);
  EXPECT_EQ(lone.code, 2);
  EXPECT_NE(lone.out.find("--error-map and --reference-spp describe a reference"), std::string::npos) << lone.out;
  std::filesystem::remove_all(dir);
}

TEST(Cli, JsonOutputSurvivesAStringThatIsNotUtf8) {
  // Found by the combiner fuzzer: a texture name with the byte 0xAD made nlohmann's dump throw,
  // and `dag`/`combiners --format json` ended in an internal error. The byte becomes U+FFFD.
  const auto path = std::filesystem::temp_directory_path() / ("passlab_latin1_" + std::to_string(::getpid()) + ".sl");
  std::ofstream(path) << "surface s(string tx = \"a\xad" "b\") { Ci = color texture(tx, s, t); }\n";
  for (const std::string command : {"dag --format json", "combiners --target geforce3 --format json", "partition --target PC5 --format json"}) {
    CliRun r = cli(command + " " + path.string());
    EXPECT_EQ(r.code, 0) << command;
    ASSERT_TRUE(nlohmann::json::accept(r.out)) << command << ": " << r.out;
    if (command.rfind("partition", 0) != 0) {
      EXPECT_NE(r.out.find("a\xef\xbf\xbd" "b"), std::string::npos) << command;
    }
  }
  std::filesystem::remove(path);
}

TEST(Cli, CombinersEmitWritesEachFunctionTableAsItsTexture) {
  // sin(2 pi s) on GeForce1: a texture_1d table of s over one period, written beside the programs
  // as the 256x1 texture the program binds, its texels (v + 1)/2.
  const auto dir = std::filesystem::temp_directory_path() / ("passlab_table_emit_" + std::to_string(::getpid()));
  const auto file = dir.string() + ".sl";
  std::ofstream(file) << "surface t() { Ci = color(sin(6.2831853 * s) * .5 + .5); Oi = 1; }\n";
  ASSERT_EQ(cli("combiners --target geforce1 --emit " + dir.string() + " " + file).code, 0);
  std::optional<sim::Image> table = sim::read_png((dir / "table0.png").string(), nullptr);
  ASSERT_TRUE(table);
  EXPECT_EQ(table->width, 256);
  EXPECT_EQ(table->height, 1);
  EXPECT_NEAR(table->at(64, 0)[0], 1.0f, 2.0f / 255);   // a quarter period: sin = 1
  EXPECT_NEAR(table->at(192, 0)[0], 0.0f, 2.0f / 255);  // three quarters: sin = -1
  EXPECT_NEAR(table->at(0, 0)[0], 0.5f, 3.0f / 255);    // the start: sin = 0
}

// ---- passlab-cli rpu ---------------------------------------------------------------------------

std::filesystem::path scratch(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("passlab_rpu_cli_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir / name;
}

std::string write(const std::string& name, const std::string& text) {
  const auto path = scratch(name);
  std::ofstream(path) << text;
  return path.string();
}

TEST(CliRpu, CompileWritesAssemblyEntryPointsAndEveryStage) {
  const std::string src = write("fig52.sl", "float add(float a, b) { return a+b; }\nfloat f() { return add(5,2) * 3; }\n");
  CliRun r = cli("rpu compile " + src);
  ASSERT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("call SUBROUTINE_ENTRY_add push 0"), std::string::npos) << r.out;
  const auto out = scratch("fig52.s");
  ASSERT_EQ(cli("rpu compile " + src + " -o " + out.string()).code, 0);
  std::ifstream epts(scratch("fig52.epts"));
  std::string line;
  std::getline(epts, line);
  EXPECT_EQ(line, "add 0");
  const auto emit = scratch("emit");
  ASSERT_EQ(cli("rpu compile " + src + " --emit " + emit.string()).code, 0);
  for (const char* stage : {"ir.txt", "codegen.txt", "simplify.txt", "forward.txt", "dce.txt", "regalloc.txt", "schedule.txt", "final.s"})
    EXPECT_TRUE(std::filesystem::exists(emit / (std::string("fig52.") + stage))) << stage;
  CliRun stats = cli("rpu compile --stats json " + src);
  ASSERT_EQ(stats.code, 0);
  EXPECT_EQ(nlohmann::json::parse(stats.out)["words"], 7);
}

TEST(CliRpu, AssembleRunAndReportErrorsWithTheirPlace) {
  const std::string good = write("cross.s", "mul R0.xyz, R1.yzx, R2.zxy\nmad R0.xyz, -R1.zxy, R2.yzx, R0\nreturn\n");
  CliRun listing = cli("rpu asm " + good);
  ASSERT_EQ(listing.code, 0);
  EXPECT_NE(listing.out.find("0001  mad R0.xyz, -R1.zxy, R2.yzx, R0"), std::string::npos) << listing.out;
  CliRun run = cli("rpu run " + good + " --reg R1=1,2,3,0 --reg R2=4,5,6,0");
  ASSERT_EQ(run.code, 0);
  EXPECT_NE(run.out.find("R0 = (-3.0, 6.0, -3.0, 0.0)"), std::string::npos) << run.out;
  const std::string bad = write("bad.s", "mov R1, R2\nadd R0, R1, R99\n");
  CliRun err = cli("rpu asm " + bad, true);
  EXPECT_EQ(err.code, 1);
  EXPECT_NE(err.out.find("bad.s:2:13: error: there is no register R99"), std::string::npos) << err.out;
}

// A whole chunk: four lanes with their own arguments, run together (a branch that splits them);
// and a scene, so that trace() casts into it and calls the shader of what it hits.
TEST(CliRpu, RunTakesAChunkOfLanesAndAScene) {
  const std::string sign = write("lanes.sl", "float f(float x) { float r = 1; if (x < 0) r = -2 * x; return r; }\n");
  CliRun j = cli("rpu run " + sign + " --lanes 4 --arg \"-1;2;-3;0\" --format json --stats json --ieee");
  ASSERT_EQ(j.code, 0) << j.out;
  const nlohmann::json lanes = nlohmann::json::parse(j.out);
  ASSERT_EQ(lanes["lanes"].size(), 4u);
  const float want[4] = {2, 1, 6, 1};
  for (std::size_t l = 0; l < 4; ++l) EXPECT_EQ(lanes["lanes"][l]["results"]["return"], want[l]) << l;
  EXPECT_GE(lanes["stats"]["splits"].get<int>(), 1) << j.out;  // the lanes went two ways and met again
  EXPECT_EQ(cli("rpu run " + sign + " --lanes 4 --arg \"1;2\"", true).code, 2);  // two values for four lanes
  const std::string probe = write("probe.sl", "color f(point o; vector d) { return trace(o, d); }\n");
  const std::string scene = test::sample_path("scenes/rpu_reflections.json");
  CliRun traced = cli("rpu run " + probe + " --scene " + scene + " --lanes 2 --arg 0,0,0 --arg \"0,-0.2,1;0,1,0.2\" --format json --ieee");
  ASSERT_EQ(traced.code, 0) << traced.out;
  const nlohmann::json t = nlohmann::json::parse(traced.out);
  // Down into the scene: a shaded surface; straight up: the scene's background (0.55, 0.7, 0.9).
  EXPECT_NE(t["lanes"][0]["results"]["return"], nlohmann::json::parse("[0.55, 0.7, 0.9]")) << traced.out;
  for (std::size_t c = 0; c < 3; ++c) EXPECT_NEAR(t["lanes"][1]["results"]["return"][c].get<float>(), (std::array<float, 3>{0.55f, 0.7f, 0.9f})[c], 1e-6);
  CliRun none = cli("rpu run " + probe + " --arg 0,0,0 --arg 0,0,1", true);
  EXPECT_EQ(none.code, 1);
  EXPECT_NE(none.out.find("--scene"), std::string::npos) << none.out;
}

// A memory image puts words where a hand-written program loads them; a bad one is located.
TEST(CliRpu, RunLoadsAMemoryImage) {
  const std::string prog = write("mem.s", "SUBROUTINE_ENTRY_f:\n    mov A, R0.w\n    load I0, A0, 1\n    mov R1, I0\n    return\n");
  const std::string image = write("mem.json", R"([{"at": 40000, "words": [[1, 2, 3, 4], [5, 6, 7, 8]]}])");
  CliRun r = cli("rpu run " + prog + " --reg R0=0,0,0,40000 --memory-image " + image);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("R1 = (5.0, 6.0, 7.0, 8.0)"), std::string::npos) << r.out;
  const std::string bad = write("bad.json", "[{\"at\": 40000,\n  \"words\": [[1, 2, 3]}]");
  CliRun b = cli("rpu run " + prog + " --memory-image " + bad, true);
  EXPECT_EQ(b.code, 2);
  EXPECT_NE(b.out.find("bad.json:2:"), std::string::npos) << b.out;
  const std::string short_word = write("short.json", R"([{"at": 40000, "words": [[1, 2, 3]]}])");
  CliRun s = cli("rpu run " + prog + " --memory-image " + short_word, true);
  EXPECT_EQ(s.code, 2);
  EXPECT_NE(s.out.find("word 1 is not four numbers"), std::string::npos) << s.out;
}

TEST(CliRpu, RunPlacesArgumentsByTheAbiAndPrintsResults) {
  const std::string src = write("f.sl", "color f(vector a; color b; float c) { return b * c + color(a); }\n");
  CliRun r = cli("rpu run " + src + " --arg 1,2,3 --arg 0.5,0.5,1 --arg 4 --stats text");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("return = (3.0, 4.0, 7.0)  (R0.xyz)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("instructions     2"), std::string::npos) << r.out;
  CliRun j = cli("rpu run " + src + " --arg 1,2,3 --arg 0.5,0.5,1 --arg 4 --format json --ieee");
  ASSERT_EQ(j.code, 0);
  EXPECT_EQ(nlohmann::json::parse(j.out)["results"]["return"], nlohmann::json::parse("[3.0, 4.0, 7.0]"));
  EXPECT_EQ(cli("rpu run " + src + " --arg 1,2,3").code, 2);  // too few arguments
  const std::string spin = write("spin.sl", "float f(float x) { float y = x; while (y >= 0) y += 1; return y; }\n");
  CliRun fault = cli("rpu run " + spin + " --arg 1", true);
  EXPECT_EQ(fault.code, 1);
  EXPECT_NE(fault.out.find("without finishing"), std::string::npos) << fault.out;
  EXPECT_EQ(fault.out.find("return ="), std::string::npos) << fault.out;  // the fault, not a result
  CliRun fault_json = cli("rpu run " + spin + " --arg 1 --format json");
  EXPECT_EQ(fault_json.code, 1);
  const nlohmann::json fj = nlohmann::json::parse(fault_json.out);
  EXPECT_EQ(fj["status"], "faulted");
  EXPECT_FALSE(fj.contains("results"));
  // JSON has no infinities or NaNs: they are written as strings, not null.
  const std::string inf = write("inf.sl", "color f(float x) { return color(x * 1e30 * 1e30, -x * 1e30 * 1e30, (x - x) * 1e30 * 1e30); }\n");
  CliRun ij = cli("rpu run " + inf + " --arg 1 --format json --ieee");
  ASSERT_EQ(ij.code, 0) << ij.out;
  EXPECT_EQ(nlohmann::json::parse(ij.out)["results"]["return"], nlohmann::json::parse(R"(["inf", "-inf", 0.0])")) << ij.out;
  const std::string nan = write("nan.sl", "float f(float x) { float i = x * 1e30 * 1e30; return i - i; }\n");
  CliRun nj = cli("rpu run " + nan + " --arg 1 --format json --ieee");
  EXPECT_EQ(nlohmann::json::parse(nj.out)["results"]["return"], "nan") << nj.out;
  const std::string bad = write("bad.sl", "float f(float x) { return Du(x); }\nsurface s() { Ci = f(s); }\n");
  CliRun diag = cli("rpu compile " + bad, true);
  EXPECT_EQ(diag.code, 1);
  EXPECT_NE(diag.out.find("bad.sl:1:27: error: 'Du' takes differences across the pixel quad"), std::string::npos) << diag.out;
}

TEST(CliRpu, CompilePrintsFigure91sTableForEveryBlock) {
  CliRun r = cli("rpu compile " + test::sample_path("rpu/schedule_example.sl") + " --machine thesis_example --schedule-table");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("; fig91, block 0\n#   instruction"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("scheduled: 11 cycles; in program order: 16"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("; schedule_example, block 0"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("SUBROUTINE_ENTRY_"), std::string::npos) << "the table replaces the listing";
}

TEST(CliRpu, ARenderStopsAtItsTimeLimitWithAMessage) {
  // Every pixel loops for the machine's 10 million steps: far past a millisecond.
  const std::string spin = write("spin_main.sl", "color main(point P) { float y = 1; while (y >= 0) y += 1; return color(y); }\n");
  const auto png = scratch("spin.png");
  std::filesystem::remove(png);
  CliRun r = cli("rpu render --scene " + test::sample_path("scenes/rpu_flat.json") + " --main " + spin +
                     " --size 16x16 --threads 1 --time-limit 0.001 -o " + png.string(),
                 true);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("the render stopped at its time limit of 0.001 s, with 0 of 8 rows of chunks done"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(png));
}

TEST(CliRpu, RenderWritesAnImageAndDeterministicStatistics) {
  const std::string scene = test::sample_path("scenes/rpu_flat.json");
  const auto png = scratch("flat.png");
  CliRun a = cli("rpu render --scene " + scene + " --size 48x48 -o " + png.string() + " --stats json");
  ASSERT_EQ(a.code, 0) << a.out;
  EXPECT_TRUE(std::filesystem::exists(png));
  CliRun b = cli("rpu render --scene " + scene + " --size 48x48 -o " + png.string() + " --stats json --threads 1");
  EXPECT_EQ(a.out, b.out);
  auto doc = nlohmann::json::parse(a.out);
  EXPECT_EQ(doc["vm"]["threads"], 48 * 48);
  EXPECT_EQ(doc["vm"]["traces"], 48 * 48);
  const auto ref = scratch("flat_ref.png");
  EXPECT_EQ(cli("rpu render --scene " + scene + " --size 48x48 --reference -o " + ref.string()).code, 0);
  EXPECT_TRUE(std::filesystem::exists(ref));
  EXPECT_EQ(cli("rpu render --scene " + scene + " --size 48 -o " + png.string()).code, 2);
  std::filesystem::remove_all(png.parent_path());
}

TEST(CliRpu, RenderTimesTheChunksOnTheMachineModel) {
  const std::string scene = test::sample_path("scenes/rpu_reflections.json");
  const auto png = scratch("model.png");
  CliRun a = cli("rpu render --scene " + scene + " --size 32x24 -o " + png.string() + " --sweep 1,4,16 --stats json");
  ASSERT_EQ(a.code, 0) << a.out;
  auto doc = nlohmann::json::parse(a.out);
  ASSERT_TRUE(doc.contains("model")) << a.out;
  EXPECT_EQ(doc["model"]["chunks_in_flight"], 16);
  EXPECT_EQ(doc["model"]["issues"], doc["vm"]["issues"]);
  ASSERT_EQ(doc["sweep"].size(), 3u);
  EXPECT_GT(doc["sweep"][0]["cycles"].get<double>(), doc["sweep"][2]["cycles"].get<double>());
  EXPECT_LE(doc["sweep"][2]["trace_unit"]["occupancy"].get<double>(), 1.0);
  // The knobs from the command line, and the text report.
  CliRun t = cli("rpu render --scene " + scene + " --size 32x24 -o " + png.string() + " --cores 2 --chunks-in-flight 4");
  ASSERT_EQ(t.code, 0);
  EXPECT_NE(t.out.find("machine model    2 core(s), 4 chunks in flight each"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("trace unit"), std::string::npos) << t.out;
  EXPECT_EQ(cli("rpu render --scene " + scene + " -o " + png.string() + " --sweep 1,x").code, 2);
  std::filesystem::remove_all(png.parent_path());
}

TEST(CliRpu, RenderRunsAnAssemblyProgram) {
  // The thesis's main shader and flat-shaded bunny compiled to assembly, then rendered from it.
  const auto dir = scratch("asm.png").parent_path();
  const std::string s = (dir / "thesis.s").string();
  ASSERT_EQ(cli("rpu compile " + test::sample_path("rpu/thesis_main.sl") + " " + test::sample_path("rpu/flat.sl") + " -o " + s).code, 0);
  const std::string scene = test::sample_path("scenes/rpu_flat.json");
  const auto png = dir / "asm.png";
  CliRun r = cli("rpu render " + s + " --scene " + scene + " --size 32x32 --main-function m --entry s -o " + png.string() + " --stats json");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(std::filesystem::exists(png));
  EXPECT_EQ(nlohmann::json::parse(r.out)["vm"]["traces"], 32 * 32);
  // An object whose shader the program lacks, and no --entry: said, with the object's name.
  CliRun missing = cli("rpu render " + s + " --scene " + scene + " --size 8x8 --main-function m -o " + png.string(), true);
  EXPECT_EQ(missing.code, 1);
  EXPECT_NE(missing.out.find("object \"bunny\": " + s + " has no entry 'flat'"), std::string::npos) << missing.out;
  EXPECT_NE(cli("rpu render " + s + " --scene " + scene + " --size 8x8 -o " + png.string(), true).out.find("has no entry 'main'"),
            std::string::npos);
  EXPECT_EQ(cli("rpu render " + s + " --scene " + scene + " --reference --main-function m --entry s -o " + png.string()).code, 2);
  std::filesystem::remove_all(dir);
}

TEST(CliRpu, DebugFollowsAPixelsThreadToTheColourItRendered) {
  const std::string scene = test::sample_path("scenes/rpu_reflections.json");
  const auto png = scratch("reflections.png");
  ASSERT_EQ(cli("rpu render --scene " + scene + " --size 48x36 -o " + png.string()).code, 0);
  lang::Diagnostics problems;
  const std::optional<sim::Image> image = sim::read_png(png.string(), &problems);
  ASSERT_TRUE(image);
  for (auto [x, y] : {std::pair{30, 20}, {10, 30}, {47, 35}}) {
    CliRun a = cli("rpu debug --scene " + scene + " --size 48x36 --pixel " + std::to_string(x) + "," + std::to_string(y) + " --format json");
    ASSERT_EQ(a.code, 0) << a.out;
    EXPECT_EQ(a.out, cli("rpu debug --scene " + scene + " --size 48x36 --pixel " + std::to_string(x) + "," + std::to_string(y) + " --format json").out);
    const auto doc = nlohmann::json::parse(a.out);
    ASSERT_EQ(doc["threads"].size(), 1u);
    const auto& t = doc["threads"][0];
    EXPECT_EQ(t["pixel"], nlohmann::json::array({x, y}));
    EXPECT_EQ(t["state"]["status"], "done");
    // Step by step: increasing, the first at depth 0 in the camera's main shader, every one
    // naming its word; the thread ends with the pixel's colour.
    ASSERT_GT(t["steps"].size(), 10u);
    EXPECT_EQ(t["steps"][0]["depth"], 0);
    for (std::size_t i = 1; i < t["steps"].size(); ++i) EXPECT_LT(t["steps"][i - 1]["step"].get<int>(), t["steps"][i]["step"].get<int>());
    for (int c = 0; c < 3; ++c) {
      const float v = t["state"]["registers"]["R0"][static_cast<std::size_t>(c)].get<float>();
      EXPECT_NEAR(std::clamp(v, 0.0f, 1.0f), image->at(x, y)[c], 0.5f / 255 + 1e-6f) << x << "," << y;
    }
  }
  // All four threads of the chunk, a breakpoint, bad pixels.
  CliRun all = cli("rpu debug --scene " + scene + " --size 48x36 --pixel 31,21 --all-threads --format json");
  ASSERT_EQ(all.code, 0);
  EXPECT_EQ(nlohmann::json::parse(all.out)["threads"].size(), 4u);
  CliRun stop = cli("rpu debug --scene " + scene + " --size 48x36 --pixel 34,14 --break mirror.sl:12 --format json");
  ASSERT_EQ(stop.code, 0) << stop.out;
  const auto s = nlohmann::json::parse(stop.out);
  EXPECT_EQ(s["stopped"]["reason"], "breakpoint");
  EXPECT_EQ(cli("rpu debug --scene " + scene + " --size 48x36 --pixel 48,0").code, 2);
  EXPECT_EQ(cli("rpu debug --scene " + scene + " --size 48x36 --pixel 3").code, 2);
  EXPECT_EQ(cli("rpu debug --scene " + scene + " --size 48x36 --pixel 1,1 --break nowhere.sl:3").code, 2);
  std::filesystem::remove_all(png.parent_path());
}

}  // namespace
}  // namespace passlab
