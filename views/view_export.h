// SPDX-License-Identifier: GPL-3.0-or-later
// Every chart and graph of the Studio goes into slides and hand-outs: a right click on it offers
// Copy as Image (to the clipboard), Export as SVG… and Export as PNG… (the drawing itself, at
// twice its size for PNG, whatever part of it is scrolled into view).
#pragma once

#include <QString>

class QGraphicsView;
class QWidget;

namespace passlab::views {

// Gives `view` (a graph, the timeline, a Qt Charts chart) that context menu; `title` names its
// exports ("DAG", "Cost breakdown"). A view with a context menu of its own is left alone.
void offer_export(QGraphicsView* view, const QString& title);
// Gives every chart and graph inside `root` the menu (those made later are not seen).
void offer_export_everywhere(QWidget* root);
// Writes the view's drawing to `path` (.svg, else PNG). False with the reason in *error.
bool export_view(QGraphicsView* view, const QString& path, QString* error);
// Puts a picture of `widget` as it is on screen on the clipboard.
void copy_image(QWidget* widget);

}  // namespace passlab::views
