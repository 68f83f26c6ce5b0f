// SPDX-License-Identifier: GPL-3.0-or-later
// The samples folder (shaders, scenes, light setups, textures) as the Studio opens them: the
// installed share/passlab/samples, or the source tree's (core/paths/data_dir.h).
#pragma once

#include <QDir>
#include <QString>

#include "core/paths/data_dir.h"

namespace passlab::studio {

inline QString samples_path(const QString& relative = {}) {
  const QDir samples(QString::fromStdString(paths::data_dirs().samples));
  return QDir::cleanPath(relative.isEmpty() ? samples.absolutePath() : samples.absoluteFilePath(relative));
}

}  // namespace passlab::studio
