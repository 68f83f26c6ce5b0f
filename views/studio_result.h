// SPDX-License-Identifier: GPL-3.0-or-later
// One compile result as the Studio's panels draw it: the pipeline's snapshot with its graphs laid
// out. Immutable once published; panels share it.
#pragma once

#include <memory>

#include <QMetaType>

#include "session/snapshot.h"
#include "views/draw_graph.h"

namespace passlab::views {

struct StudioResult {
  session::SnapshotPtr snapshot;
  std::shared_ptr<const DrawGraph> graphs[3];  // DAG, dominator tree, partial dominator tree
  std::shared_ptr<const Layout> layouts[3];
  double layout_ms = 0;
};
using ResultPtr = std::shared_ptr<const StudioResult>;

}  // namespace passlab::views

Q_DECLARE_METATYPE(passlab::views::ResultPtr)
