// The passlab-cli subcommands: each takes parsed options and returns the process exit code.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace passlab::cli {

// Exit codes shared by every command.
constexpr int kOk = 0;
constexpr int kDiagnostics = 1;  // the input has errors (or a stage rejected it)
constexpr int kUsage = 2;        // the command line was wrong

struct CommonOptions {
  std::string file;
  std::string lights;  // --lights
  std::vector<std::string> include_paths;
  std::vector<std::string> defines;  // NAME or NAME=VALUE
  std::string format = "text";
};

int run_check(const CommonOptions& o);
int run_ir(const CommonOptions& o, bool optimize);
int run_dag(const CommonOptions& o);
int run_report(const CommonOptions& o);

struct PartitionOptions {
  std::string target = "PC8";
  std::string cost = "15p+5t+i";
  std::string algo = "all";  // rdsh, rds, optimal or all
  double budget = 60;        // seconds for the optimal search
  bool trace = false;
  bool timing = false;       // run times and search statistics (not deterministic)
  std::string emit;          // folder for the per-pass listings
};
int run_partition(const CommonOptions& o, const PartitionOptions& p);

}  // namespace passlab::cli
