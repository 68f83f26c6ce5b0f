// SPDX-License-Identifier: GPL-3.0-or-later
// Saves a screenshot of every panel of the Studio (run under Xvfb by scripts/screenshots.sh).
#pragma once

#include <QString>

namespace passlab::studio {

class MainWindow;

// Drives the window through its features, saves PNGs into `dir`, then quits the application.
void take_screenshots(MainWindow* w, const QString& dir);

}  // namespace passlab::studio
