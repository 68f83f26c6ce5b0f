// passlab-cli end to end: every command on real samples, exit codes, and broken input.
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

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

}  // namespace
}  // namespace passlab
