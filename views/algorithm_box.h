// SPDX-License-Identifier: GPL-3.0-or-later
// The algorithm boxes of the passes panel, the timeline and the trace player, filled from the
// partitioning algorithms' registry (partition::algorithms()).
#pragma once

#include <QString>

class QComboBox;

namespace passlab::views {

enum class AlgorithmBox {
  All,     // every algorithm (the searches show once they have run)
  Traced,  // those that record a decision trace worth stepping
};

// Fills `box` (item text the algorithm's label, item data its name, the summary as tooltip) and
// selects partition::kDefaultAlgorithm.
void fill_algorithm_box(QComboBox* box, AlgorithmBox which = AlgorithmBox::All);

// An algorithm's label for a name ("rds" -> "RDS"); the name itself when it is not registered.
QString algorithm_label(const QString& name);

}  // namespace passlab::views
