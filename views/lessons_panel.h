// SPDX-License-Identifier: GPL-3.0-or-later
// The Lessons panel: plays a lesson (session/lesson.h) step by step, forwards and backwards. Each
// step shows its text; showing it asks the window to carry out its actions (open a shader, choose
// a target, go to a trace event, open a panel…); a step with a question has an answer box where
// the question wants one and a Check button, and shows the verdict.
#pragma once

#include <vector>

#include <QWidget>

#include "session/lesson.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTextBrowser;

namespace passlab::views {

class LessonsPanel : public QWidget {
  Q_OBJECT

 public:
  explicit LessonsPanel(QWidget* parent = nullptr);
  void set_lessons(std::vector<session::Lesson> lessons);
  const std::vector<session::Lesson>& lessons() const { return lessons_; }
  // Opens lesson `index` at its first step (or the step given).
  void open_lesson(int index, int step = 0);
  int lesson_index() const;
  int step() const { return step_; }
  const session::Lesson* lesson() const;
  void go(int step);  // shows the step and asks for its actions
  void next() { go(step_ + 1); }
  void previous() { go(step_ - 1); }
  void set_answer(const QString& text);
  void check();  // asks the window to check the step's question
  void show_verdict(const session::Verdict& v);
  QString verdict() const;
  QString text() const;  // the step's text as shown

 signals:
  void step_shown(const passlab::session::LessonStep& step);
  void check_requested(const passlab::session::LessonQuestion& question, const QString& answer);

 private:
  void show_step();

  std::vector<session::Lesson> lessons_;
  int step_ = 0;
  QComboBox* choice_;
  QLabel* where_;
  QTextBrowser* text_;
  QPushButton* previous_;
  QPushButton* next_;
  QPushButton* again_;
  QWidget* question_box_;
  QLabel* question_;
  QLineEdit* answer_;
  QPushButton* check_;
  QLabel* verdict_;
};

}  // namespace passlab::views
