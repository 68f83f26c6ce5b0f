// SPDX-License-Identifier: GPL-3.0-or-later
// The runs a panel lists besides its snapshot's: the optimal search's (run on demand) and the
// partition made by hand ("yours"), one per algorithm name.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include <QString>

#include "session/snapshot.h"

namespace passlab::views {

class ExtraRuns {
 public:
  void clear() { runs_.clear(); }
  // `run` in place of the one of `algorithm` (null: none of it).
  void set(const QString& algorithm, std::shared_ptr<const session::AlgorithmRun> run) {
    for (auto& [name, r] : runs_)
      if (name == algorithm) {
        r = std::move(run);
        return;
      }
    runs_.emplace_back(algorithm, std::move(run));
  }
  const session::AlgorithmRun* find(const QString& algorithm) const {
    for (const auto& [name, r] : runs_)
      if (name == algorithm) return r.get();
    return nullptr;
  }

 private:
  std::vector<std::pair<QString, std::shared_ptr<const session::AlgorithmRun>>> runs_;
};

}  // namespace passlab::views
