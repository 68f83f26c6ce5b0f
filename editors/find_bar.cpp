// SPDX-License-Identifier: GPL-3.0-or-later
// Find and replace over the shader editor with QScintilla's search.
#include "editors/find_bar.h"

#include <QCheckBox>
#include <QGridLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QShortcut>
#include <QToolButton>

#include "editors/shader_editor.h"

namespace passlab::editors {

FindBar::FindBar(ShaderEditor* editor, QWidget* parent) : QWidget(parent), editor_(editor) {
  find_ = new QLineEdit(this);
  find_->setPlaceholderText(tr("Find"));
  replace_ = new QLineEdit(this);
  replace_->setPlaceholderText(tr("Replace with"));
  case_ = new QCheckBox(tr("Match case"), this);
  word_ = new QCheckBox(tr("Whole word"), this);
  regex_ = new QCheckBox(tr("Regex"), this);
  status_ = new QLabel(this);
  auto* next = new QPushButton(tr("Next"), this);
  auto* prev = new QPushButton(tr("Previous"), this);
  auto* one = new QPushButton(tr("Replace"), this);
  auto* all = new QPushButton(tr("Replace all"), this);
  auto* close = new QToolButton(this);
  close->setText("✕");
  close->setAutoRaise(true);
  auto* grid = new QGridLayout(this);
  grid->setContentsMargins(4, 2, 4, 2);
  grid->addWidget(find_, 0, 0);
  grid->addWidget(next, 0, 1);
  grid->addWidget(prev, 0, 2);
  grid->addWidget(case_, 0, 3);
  grid->addWidget(word_, 0, 4);
  grid->addWidget(regex_, 0, 5);
  grid->addWidget(status_, 0, 6);
  grid->addWidget(close, 0, 7);
  replace_row_ = new QWidget(this);
  auto* row = new QHBoxLayout(replace_row_);
  row->setContentsMargins(0, 0, 0, 0);
  row->addWidget(replace_, 1);
  row->addWidget(one);
  row->addWidget(all);
  grid->addWidget(replace_row_, 1, 0, 1, 3);
  grid->setColumnStretch(0, 1);
  connect(find_, &QLineEdit::returnPressed, this, [this] { find(true); });
  connect(next, &QPushButton::clicked, this, [this] { find(true); });
  connect(prev, &QPushButton::clicked, this, [this] { find(false); });
  connect(one, &QPushButton::clicked, this, [this] {
    if (editor_->hasSelectedText()) editor_->replace(replace_->text());
    find(true);
  });
  connect(all, &QPushButton::clicked, this, [this] { replace_all(); });
  connect(close, &QToolButton::clicked, this, [this] {
    hide();
    editor_->setFocus();
  });
  auto* esc = new QShortcut(QKeySequence(Qt::Key_Escape), this);
  esc->setContext(Qt::WidgetWithChildrenShortcut);
  connect(esc, &QShortcut::activated, this, [this] {
    hide();
    editor_->setFocus();
  });
  hide();
}

void FindBar::open(bool replace) {
  replace_row_->setVisible(replace);
  show();
  if (editor_->hasSelectedText() && !editor_->selectedText().contains('\n')) find_->setText(editor_->selectedText());
  find_->setFocus();
  find_->selectAll();
}

bool FindBar::find(bool forward) {
  if (find_->text().isEmpty()) return false;
  int line = 0, index = 0;
  editor_->getCursorPosition(&line, &index);
  if (!forward && editor_->hasSelectedText()) {
    int l1, i1, l2, i2;
    editor_->getSelection(&l1, &i1, &l2, &i2);
    line = l1;
    index = i1;
  }
  bool ok = editor_->findFirst(find_->text(), regex_->isChecked(), case_->isChecked(), word_->isChecked(), true,
                               forward, forward ? -1 : line, forward ? -1 : index);
  status_->setText(ok ? QString() : tr("not found"));
  return ok;
}

int FindBar::replace_all() {
  if (find_->text().isEmpty()) return 0;
  int n = 0;
  editor_->beginUndoAction();  // one undo step for the whole replacement
  bool ok = editor_->findFirst(find_->text(), regex_->isChecked(), case_->isChecked(), word_->isChecked(), false, true, 0, 0);
  while (ok && n < 100000) {
    editor_->replace(replace_->text());
    ++n;
    ok = editor_->findNext();
  }
  editor_->endUndoAction();
  status_->setText(tr("%n replaced", nullptr, n));
  return n;
}

}  // namespace passlab::editors
