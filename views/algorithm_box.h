// SPDX-License-Identifier: GPL-3.0-or-later
// The algorithm boxes of the passes panel, the timeline and the trace player, filled from the
// partitioning algorithms' registry (partition::algorithms()).
#pragma once

#include <QString>

#include "core/partition/target.h"

class QComboBox;

namespace passlab::views {

enum class AlgorithmBox {
  All,     // every algorithm (the searches show once they have run), then the partition made by hand
  Traced,  // those that record a decision trace worth stepping
};

// Fills `box` (item text the algorithm's label, item data its name, the summary as tooltip) and
// selects partition::kDefaultAlgorithm. With All, the last item is "Yours" (data "yours"): the
// partition the user marks by hand (session/hand_partition.h).
void fill_algorithm_box(QComboBox* box, AlgorithmBox which = AlgorithmBox::All);

// Enables the items of the algorithms `limits` list (partition::algorithms_for): the multiple-
// output ones only where a pass may write several render targets. A disabled current item gives
// way to partition::kDefaultAlgorithm (a change of the box's current index, as the user's would be).
void enable_algorithms(QComboBox* box, const partition::Limits& limits);

// An algorithm's label for a name ("rds" -> "RDS", "yours" -> "Yours"); the name itself when it is
// not registered.
QString algorithm_label(const QString& name);

}  // namespace passlab::views
