// SPDX-License-Identifier: GPL-3.0-or-later
// The editor's find and replace bar (Ctrl+F, Ctrl+H, F3, Shift+F3, Escape).
#pragma once

#include <QWidget>

class QCheckBox;
class QLabel;
class QLineEdit;

namespace passlab::editors {

class ShaderEditor;

class FindBar : public QWidget {
  Q_OBJECT

 public:
  FindBar(ShaderEditor* editor, QWidget* parent = nullptr);
  void open(bool replace);
  bool find(bool forward);
  int replace_all();

 private:
  ShaderEditor* editor_;
  QLineEdit* find_;
  QLineEdit* replace_;
  QCheckBox* case_;
  QCheckBox* regex_;
  QCheckBox* word_;
  QLabel* status_;
  QWidget* replace_row_;
};

}  // namespace passlab::editors
