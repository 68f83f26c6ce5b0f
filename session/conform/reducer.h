// SPDX-License-Identifier: GPL-3.0-or-later
// The test-case reducer: shrinks a failing program while it still fails the same way (after
// C-Reduce, Regehr et al., PLDI 2012, and spirv-reduce), by passes over its text:
//   functions    delete a file-scope function
//   inlining     replace the calls of a function `{ return E; }` by E and delete it
//   statements   delete a statement, or keep only a branch or a loop's body
//   expressions  replace an expression by one of its operands, or by 0 or 1
//   parameters   turn a shader parameter into a local variable with its default
//   lines        delete a line (what the other passes cannot name: an #include, a stray comment)
// A candidate the front end does not accept is dropped before the (costly) test. The passes run
// again until none makes progress or the budget is spent.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace passlab::conform {

struct ReduceOptions {
  int max_tests = 2000;       // interestingness tests at most
  double timeout = 60;        // seconds one test may take (used by the caller's test)
  double budget_seconds = 900;
  std::vector<std::string> include_paths;
  std::string path = "reduced.sl";  // the name the candidates are parsed under
};

struct ReduceStats {
  int tests = 0, accepted = 0;
  std::size_t original_bytes = 0, reduced_bytes = 0;
};

// `still_fails(text)` answers whether a candidate fails as the original does. Returns the
// smallest text found (the original when nothing smaller fails the same way).
std::string reduce(const std::string& text, const std::function<bool(const std::string&)>& still_fails, const ReduceOptions& options,
                   ReduceStats* stats = nullptr);

}  // namespace passlab::conform
