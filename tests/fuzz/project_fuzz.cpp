// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: arbitrary bytes as a .passlab project through load_project (tolerant: what
// cannot be used is a problem and the rest opens), then the project that opened saved and loaded
// again, which must give the same project with no new problems. A crash, sanitizer report, hang,
// a refusal without a message or a project that does not survive its own save is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include <QString>
#include <QStringList>

#include "app/studio/project.h"
#include "tests/fuzz/fuzz_file.h"

namespace {

bool same(const passlab::studio::Project& a, const passlab::studio::Project& b) {
  return a.shader == b.shader && a.lights == b.lights && a.target_reference == b.target_reference && a.cost_model == b.cost_model &&
         a.window_state == b.window_state && a.graph_tab == b.graph_tab && a.algorithm == b.algorithm &&
         a.compile_delay_ms == b.compile_delay_ms && a.manual == b.manual && a.target.has_value() == b.target.has_value() &&
         (!a.target || passlab::partition::target_to_json(*a.target) == passlab::partition::target_to_json(*b.target));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 64 * 1024) return 0;
  using namespace passlab;
  const QString path = QString::fromStdString(fuzz::write_input(data, size, "project.passlab"));
  QStringList problems;
  QString error;
  const auto project = studio::load_project(path, &problems, &error);
  if (!project) {
    if (error.isEmpty()) std::abort();
    return 0;
  }
  const QString copy = QString::fromStdString((fuzz::scratch_dir() / "copy.passlab").string());
  if (!studio::save_project(*project, copy, &error)) std::abort();
  QStringList again_problems;
  const auto again = studio::load_project(copy, &again_problems, &error);
  if (!again || !same(*project, *again) || again_problems.size() > problems.size()) std::abort();
  return 0;
}
