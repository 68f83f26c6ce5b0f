// SPDX-License-Identifier: GPL-3.0-or-later
// Exporting a drawn scene (a graph, the timeline) as SVG, or as PNG at twice its size, written
// atomically.
#pragma once

#include <QString>

class QGraphicsScene;

namespace passlab::views {

// Writes the scene's items, with a 10-unit margin, to `path`: SVG (titled `title`) when the name
// ends in .svg, else PNG. False with the reason in `*error`.
bool export_scene(QGraphicsScene& scene, const QString& path, const QString& title, QString* error);

}  // namespace passlab::views
