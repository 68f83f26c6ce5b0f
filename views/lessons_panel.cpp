// SPDX-License-Identifier: GPL-3.0-or-later
// The Lessons panel.
#include "views/lessons_panel.h"

#include <algorithm>

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace passlab::views {

namespace {

QString what_is_asked(const session::LessonQuestion& q) {
  if (q.kind == "fit") {
    QString s = QObject::tr("Make the shader fit the target by marking nodes yourself (Partition ▸ Partition It Yourself)");
    if (q.options.count("max-passes")) s += QObject::tr(", in at most %1 passes").arg(QString::fromStdString(q.options.at("max-passes")));
    if (q.options.count("max-cost")) s += QObject::tr(", at a cost of at most %1").arg(QString::fromStdString(q.options.at("max-cost")));
    return s + ".";
  }
  if (q.kind == "schedule")
    return q.options.count("max-cycles")
               ? QObject::tr("Order the block's instructions (Schedule it yourself) so that it takes at most %1 cycles.")
                     .arg(QString::fromStdString(q.options.at("max-cycles")))
               : QObject::tr("Put the block's instructions in an order that can run (Schedule it yourself).");
  return QObject::tr("Type your answer and check it.");
}

}  // namespace

LessonsPanel::LessonsPanel(QWidget* parent) : QWidget(parent) {
  choice_ = new QComboBox(this);
  choice_->setObjectName("lesson-choice");
  choice_->setToolTip(tr("The lessons in samples/lessons (one per system Passlab implements)"));
  where_ = new QLabel(this);
  text_ = new QTextBrowser(this);
  text_->setOpenExternalLinks(true);
  previous_ = new QPushButton(tr("◀ Previous"), this);
  next_ = new QPushButton(tr("Next ▶"), this);
  again_ = new QPushButton(tr("Do it again"), this);
  again_->setToolTip(tr("Carry out the step's actions again (open its shader, choose its target, …)"));
  question_box_ = new QWidget(this);
  question_ = new QLabel(question_box_);
  question_->setWordWrap(true);
  answer_ = new QLineEdit(question_box_);
  answer_->setPlaceholderText(tr("Your answer"));
  check_ = new QPushButton(tr("Check"), question_box_);
  verdict_ = new QLabel(question_box_);
  verdict_->setWordWrap(true);
  verdict_->setObjectName("lesson-verdict");
  auto* ql = new QVBoxLayout(question_box_);
  ql->setContentsMargins(0, 4, 0, 0);
  ql->addWidget(question_);
  auto* qa = new QHBoxLayout;
  qa->addWidget(answer_, 1);
  qa->addWidget(check_);
  ql->addLayout(qa);
  ql->addWidget(verdict_);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(previous_);
  buttons->addWidget(next_);
  buttons->addStretch(1);
  buttons->addWidget(again_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(choice_);
  layout->addWidget(where_);
  layout->addWidget(text_, 1);
  layout->addWidget(question_box_);
  layout->addLayout(buttons);
  connect(choice_, &QComboBox::currentIndexChanged, this, [this](int i) { open_lesson(i); });
  connect(previous_, &QPushButton::clicked, this, [this] { previous(); });
  connect(next_, &QPushButton::clicked, this, [this] { next(); });
  connect(again_, &QPushButton::clicked, this, [this] { go(step_); });
  connect(check_, &QPushButton::clicked, this, [this] { check(); });
  connect(answer_, &QLineEdit::returnPressed, this, [this] { check(); });
  show_step();
}

void LessonsPanel::set_lessons(std::vector<session::Lesson> lessons) {
  lessons_ = std::move(lessons);
  QSignalBlocker block(choice_);
  choice_->clear();
  for (const auto& l : lessons_) choice_->addItem(QString::fromStdString(l.title));
  step_ = 0;
  show_step();
}

int LessonsPanel::lesson_index() const { return choice_->currentIndex(); }

const session::Lesson* LessonsPanel::lesson() const {
  const int i = choice_->currentIndex();
  return i >= 0 && i < static_cast<int>(lessons_.size()) ? &lessons_[static_cast<std::size_t>(i)] : nullptr;
}

void LessonsPanel::open_lesson(int index, int step) {
  if (index < 0 || index >= static_cast<int>(lessons_.size())) return;
  {
    QSignalBlocker block(choice_);
    choice_->setCurrentIndex(index);
  }
  step_ = -1;
  go(step);
}

void LessonsPanel::go(int step) {
  const session::Lesson* l = lesson();
  if (!l || l->steps.empty()) return;
  step_ = std::clamp(step, 0, static_cast<int>(l->steps.size()) - 1);
  show_step();
  emit step_shown(l->steps[static_cast<std::size_t>(step_)]);
}

void LessonsPanel::show_step() {
  const session::Lesson* l = lesson();
  const bool any = l && !l->steps.empty();
  previous_->setEnabled(any && step_ > 0);
  next_->setEnabled(any && step_ + 1 < static_cast<int>(l->steps.size()));
  again_->setEnabled(any);
  verdict_->clear();
  answer_->clear();
  if (!any) {
    where_->setText(tr("No lesson"));
    text_->setPlainText(tr("Lessons are Markdown files in samples/lessons."));
    question_box_->hide();
    return;
  }
  const session::LessonStep& s = l->steps[static_cast<std::size_t>(step_)];
  where_->setText(tr("<b>%1</b> — step %2 of %3").arg(QString::fromStdString(l->title).toHtmlEscaped()).arg(step_ + 1).arg(l->steps.size()));
  QString md = QString("## %1\n\n%2").arg(QString::fromStdString(s.title), QString::fromStdString(s.text));
  if (step_ == 0 && !l->introduction.empty()) md = QString::fromStdString(l->introduction) + "\n\n" + md;
  text_->setMarkdown(md);
  question_box_->setVisible(s.question.has_value());
  if (s.question) {
    question_->setText(tr("<b>Question.</b> %1").arg(what_is_asked(*s.question).toHtmlEscaped()));
    answer_->setVisible(s.question->kind == "answer");
  }
}

void LessonsPanel::set_answer(const QString& text) { answer_->setText(text); }

void LessonsPanel::check() {
  const session::Lesson* l = lesson();
  if (!l || step_ < 0 || step_ >= static_cast<int>(l->steps.size())) return;
  const auto& s = l->steps[static_cast<std::size_t>(step_)];
  if (s.question) emit check_requested(*s.question, answer_->text());
}

void LessonsPanel::show_verdict(const session::Verdict& v) {
  verdict_->setText(QString("<span style='color:%1'><b>%2</b></span>")
                        .arg(v.ok ? "#1a7f2a" : "#c01818", QString::fromStdString(v.message).toHtmlEscaped()));
}

QString LessonsPanel::verdict() const { return verdict_->text(); }
QString LessonsPanel::text() const { return text_->toPlainText(); }

}  // namespace passlab::views
