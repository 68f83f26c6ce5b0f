// SPDX-License-Identifier: GPL-3.0-or-later
// What the Studio GUI suites share: a window's options that keep its settings and autosaves in
// the test's own temporary folder and never ask about recovery, and waiting for its panels.
#pragma once

#include <QTemporaryDir>
#include <QTest>

#include "app/studio/main_window.h"

namespace passlab::studio {

inline StudioOptions test_options(const QTemporaryDir& dir) {
  StudioOptions o;
  o.settings_file = dir.filePath("settings.ini");
  o.autosave_dir = dir.filePath("autosave");
  o.ask_before_recovery = false;
  return o;
}

// Waits until the window shows a snapshot newer than `after` and nothing is pending.
inline bool wait_for_panels(MainWindow& w, quint64 after = 0) {
  return QTest::qWaitFor([&] {
    return w.result() && w.shown_generation() > after && w.shown_generation() == w.service()->generation() && !w.service()->busy();
  }, 20000);
}

}  // namespace passlab::studio
