// SPDX-License-Identifier: GPL-3.0-or-later
// Test helper: the Studio's snapshot of a sample shader, as the compile service builds it.
#pragma once

#include <fstream>
#include <iterator>
#include <string>

#include "core/partition/target.h"
#include "session/snapshot.h"
#include "tests/support/samples.h"

namespace passlab::test {

// `rel` under samples/ (e.g. "shaders/plastic.sl") on a target preset, under a cost model.
inline session::SnapshotPtr sample_snapshot(const std::string& rel, const std::string& target = "PC4",
                                            const std::string& cost = "15p+5t+i") {
  session::Request r;
  r.path = sample_path(rel);
  std::ifstream in(r.path);
  r.text.assign(std::istreambuf_iterator<char>(in), {});
  r.target = *partition::load_target(target, nullptr);
  r.model = *partition::parse_cost_model(cost, nullptr);
  return session::build_snapshot(r);
}

}  // namespace passlab::test
