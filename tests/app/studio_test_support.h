// SPDX-License-Identifier: GPL-3.0-or-later
// What the Studio GUI suites share: a window's options that keep its settings and autosaves in
// the test's own temporary folder and never ask about recovery.
#pragma once

#include <QTemporaryDir>

#include "app/studio/main_window.h"

namespace passlab::studio {

inline StudioOptions test_options(const QTemporaryDir& dir) {
  StudioOptions o;
  o.settings_file = dir.filePath("settings.ini");
  o.autosave_dir = dir.filePath("autosave");
  o.ask_before_recovery = false;
  return o;
}

}  // namespace passlab::studio
