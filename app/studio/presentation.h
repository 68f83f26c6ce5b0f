// SPDX-License-Identifier: GPL-3.0-or-later
// Presentation mode, for the lecture hall (View ▸ Presentation Mode, F12): larger fonts
// everywhere, thicker lines and bolder nodes in the graphs, high contrast, the current panel
// maximised (the others and, for a panel, the editor put away), and a laser-pointer cursor.
// Turning it off puts everything back as it was.
#pragma once

#include <QByteArray>
#include <QFont>
#include <QPalette>

class QMainWindow;
class QsciScintilla;
class QWidget;

namespace passlab::studio {

class Presentation {
 public:
  Presentation(QMainWindow* window, QsciScintilla* editor) : window_(window), editor_(editor) {}
  // `current`: the dock (or the editor) to keep on screen; null: the one with the focus.
  void set_on(bool on, QWidget* current = nullptr);
  bool on() const { return on_; }
  static constexpr double kFontScale = 1.6;

 private:
  QWidget* current_panel() const;
  QMainWindow* window_;
  QsciScintilla* editor_;
  bool on_ = false;
  QByteArray state_;  // the window's docks as they were
  QFont font_;
  QPalette palette_;
  int editor_zoom_ = 0;
};

}  // namespace passlab::studio
