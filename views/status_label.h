// SPDX-License-Identifier: GPL-3.0-or-later
// A label whose size never depends on its text. A QLabel's setText invalidates every layout up to
// the main window, and with docks that relayout can cost more than a frame; the status lines that
// change on every keystroke (node counts, costs, trace reasons) use this instead. Text that does
// not fit is elided and readable in full in the tooltip.
#pragma once

#include <QString>
#include <QTextDocument>
#include <QWidget>

namespace passlab::views {

class StatusLabel : public QWidget {
 public:
  // `lines` fixes the height; `chars` is the preferred width in average characters.
  explicit StatusLabel(QWidget* parent = nullptr, int lines = 1, int chars = 40);
  // Multi-line labels take rich text (Qt::mightBeRichText); `bold` characters at the start are drawn in bold (a panel title before its figures).
  void set_text(const QString& text, int bold = 0);
  QString text() const { return text_; }
  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 protected:
  void paintEvent(QPaintEvent*) override;

 private:
  QString text_;
  int bold_ = 0;
  int lines_;
  int chars_;
  QTextDocument doc_;  // multi-line: laid out once per text, not per paint
};

}  // namespace passlab::views
