// SPDX-License-Identifier: GPL-3.0-or-later
// What the main window's files (main_window.cpp, main_window_menus.cpp, main_window_files.cpp)
// share: where samples are, the RPU targets of the target box, settings and the palette.
#pragma once

#include <memory>
#include <optional>
#include <utility>

#include <QSettings>
#include <QString>

#include "app/studio/main_window.h"
#include "core/partition/target.h"

namespace passlab::studio::window {

QString samples_dir();

// The RPU targets in the target box: what it shows and the machine preset each loads.
extern const std::pair<const char*, const char*> kRpuTargets[2];
// The RPU target the box's text (or a machine preset's name) names, if it names one.
std::optional<partition::TargetDesc> rpu_target(const QString& name);

std::unique_ptr<QSettings> open_settings(const StudioOptions& o);
void apply_palette(bool dark);

}  // namespace passlab::studio::window
