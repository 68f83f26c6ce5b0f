// SPDX-License-Identifier: GPL-3.0-or-later
// Partition it yourself: the Studio's side of a partition made by hand. It keeps the marks and
// their history (session::HandMarks), makes their run on the result the panels show (the marks
// follow their nodes through edits), hands it to the model (the panels show it while marking is
// on), and carries out the marking bar's and the Partition menu's commands.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include <QObject>
#include <QString>

#include "session/hand_partition.h"
#include "views/studio_result.h"

namespace passlab::views {
class MarkingBar;
class StudioModel;
}  // namespace passlab::views

namespace passlab::studio {

class Marking : public QObject {
  Q_OBJECT

 public:
  Marking(views::StudioModel* model, views::MarkingBar* bar, QWidget* window);

  // On: the panels show your partition and the DAG view marks nodes by clicks. Off: the panels
  // show `algorithm_after` (RDS unless the user chose another); the marks are kept.
  void set_on(bool on);
  bool on() const;
  // The run of the marks on `next` (a new result), to be shown with it; null when nothing was
  // ever marked and marking is off. Marks follow their nodes from the result shown; another
  // shader's result clears them.
  std::shared_ptr<const session::AlgorithmRun> run_for(const views::ResultPtr& next);

  void toggle(std::uint32_t node);
  void undo();
  void redo();
  void start_from(const QString& algorithm);
  void clear();
  void hint();
  bool import_file(const QString& path, QString* error);
  bool export_file(const QString& path, QString* error) const;
  const session::HandMarks& marks() const { return hand_; }
  // Marks a project saved, applied to its first result (node ids of the project's target).
  void set_pending(std::vector<partition::Mark> marks);

 signals:
  void changed();  // the marks or their run changed (the window updates its actions)

 private:
  void publish();  // the run of the marks on the result shown, to the model and the bar
  void show_bar();
  const session::Snapshot* snapshot() const;

  views::StudioModel* model_;
  views::MarkingBar* bar_;
  QWidget* window_;
  session::HandMarks hand_;
  // The compile the marks' node ids belong to (the model may show no result for a while: the RPU
  // target shows none of the fragment pipeline's, and another shader may be opened meanwhile).
  session::SnapshotPtr base_;
  bool used_ = false;  // marking was on at least once for this shader
  std::optional<std::vector<partition::Mark>> pending_;
  QString previous_algorithm_ = "rds";
};

}  // namespace passlab::studio
