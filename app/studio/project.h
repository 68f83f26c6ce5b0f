// SPDX-License-Identifier: GPL-3.0-or-later
// Passlab project files (.passlab): a shader, its light setup, the output compiled (Ci or an AOV),
// the target, the cost model, the panel state and the marks of a partition made by hand, with file paths relative to the project file. Loading is tolerant: every part that
// cannot be used is reported as a problem and the rest opens.
#pragma once

#include <optional>

#include <QByteArray>
#include <QString>
#include <QStringList>

#include "core/partition/marks.h"
#include "core/partition/target.h"

namespace passlab::studio {

// Project::aov (the project file's "output") when Ci and every output parameter are compiled, each
// to its own render target (session::Request::all_outputs); the output box's item data for it.
inline constexpr char kAllOutputs[] = "*";

struct Project {
  QString shader;                          // absolute after load; "" none
  QString lights;                          // absolute; "" : the light setup beside the shader
  QString aov;                             // the output parameter compiled instead of Ci; "" Ci; kAllOutputs every one
  QString rpu_scene;                       // absolute; "" : the sample scene that uses the shader
  std::optional<partition::TargetDesc> target;
  QString target_reference;                // a preset name or an absolute target file path, "" inline only
  QString cost_model;                      // "15p+5t+i"
  QByteArray window_state;                 // QMainWindow::saveState
  int graph_tab = 0;
  QString algorithm = "rds";               // the passes panel's algorithm (a partition::algorithms() name, or "yours")
  std::vector<partition::Mark> marks;      // the partition made by hand (node ids of the DAG on the target)
  int compile_delay_ms = 30;
  bool manual = false;
};

// Writes `p` as JSON with paths relative to the project file's folder; atomic (QSaveFile).
bool save_project(const Project& p, const QString& path, QString* error);

// Reads a project. Returns nullopt only when the file is not a project at all (unreadable, not
// JSON, not an object); everything else that is wrong goes to *problems, "file: what".
std::optional<Project> load_project(const QString& path, QStringList* problems, QString* error);

}  // namespace passlab::studio
