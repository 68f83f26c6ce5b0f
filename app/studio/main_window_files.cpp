// SPDX-License-Identifier: GPL-3.0-or-later
// The main window's files: shaders, light setups, scenes and projects opened and saved (atomically),
// the recent-files menu, autosave and crash recovery, closing, and drag and drop.
#include "app/studio/main_window.h"

#include <unistd.h>
#include <csignal>

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDateTime>
#include <QElapsedTimer>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QJsonDocument>
#include <QJsonObject>
#include <QInputDialog>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QSaveFile>
#include <QSettings>
#include <QSignalBlocker>
#include <QStandardPaths>
#include <QStatusBar>
#include <QStyleFactory>
#include <QTabWidget>
#include <QThreadPool>
#include <QTimer>
#include <QToolBar>
#include <QToolTip>
#include <QVBoxLayout>

#include "app/studio/main_window_internal.h"
#include "app/studio/marking.h"
#include "app/studio/project.h"
#include "app/studio/samples.h"
#include "backends/registry/registry.h"
#include "backends/rpu/registration.h"
#include "editors/find_bar.h"
#include "editors/shader_editor.h"
#include "session/background.h"
#include "session/hover.h"
#include "views/compare_panel.h"
#include "views/diagnostics_panel.h"
#include "views/graph_view.h"
#include "views/pass_graph_panel.h"
#include "views/passes_panel.h"
#include "views/preview_panel.h"
#include "views/rpu_code_panel.h"
#include "views/rpu_debugger_panel.h"
#include "views/rpu_decisions_panel.h"
#include "views/rpu_render_panel.h"
#include "views/rpu_session.h"
#include "views/sampling_panel.h"
#include "views/studio_model.h"
#include "views/target_panel.h"
#include "views/timeline_panel.h"
#include "views/trace_player.h"
#include "views/work_pool.h"

namespace passlab::studio {

using namespace window;

bool MainWindow::open_file(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) {
    QMessageBox::warning(this, tr("Cannot open"), tr("Cannot open %1: %2").arg(path, f.errorString()));
    return false;
  }
  const QByteArray bytes = f.readAll();
  if (!watcher_->files().isEmpty()) watcher_->removePaths(watcher_->files());
  path_ = QFileInfo(path).absoluteFilePath();
  watcher_->addPath(path_);
  loading_ = true;
  editor_->set_grammar(path.endsWith(".glsl") ? editors::Grammar::Glsl : editors::Grammar::Rsl);
  editor_->setText(QString::fromUtf8(bytes));
  editor_->setModified(false);
  editor_->SendScintilla(QsciScintillaBase::SCI_EMPTYUNDOBUFFER);
  loading_ = false;
  session::Request r = service_->request();
  r.path = path_.toStdString();
  r.text = bytes.toStdString();
  r.lights_path.clear();  // the light setup beside the shader, unless a project names another
  r.rpu.scene.clear();     // the sample scene that uses it
  r.aov.clear();           // its Ci, whatever output the last shader showed
  r.all_outputs = false;
  service_->set_request(r);
  request_changed();
  add_recent(path_);
  update_title();
  return true;
}

bool MainWindow::save() {
  // A file the user cannot write (an installed sample under /usr/share/passlab) is saved as a
  // copy: the dialog opens in the home folder instead of failing with "permission denied".
  const QFileInfo file(path_);
  const bool read_only = !path_.isEmpty() && (file.exists() ? !file.isWritable() : !QFileInfo(file.absolutePath()).isWritable());
  if (path_.isEmpty() || read_only) {
    if (read_only) show_status(tr("%1 is read-only: save a copy").arg(path_));
    const QString start = read_only ? QDir::home().filePath(file.fileName()) : QString();
    QString p = QFileDialog::getSaveFileName(this, read_only ? tr("Save a copy of the shader") : tr("Save shader"), start,
                                             tr("Shaders (*.sl *.glsl)"));
    return !p.isEmpty() && save_as(p);
  }
  return save_as(path_);
}

bool MainWindow::save_as(const QString& path) {
  // QSaveFile writes a temporary beside the file and renames it: a crash never leaves half a file.
  QSaveFile f(path);
  ignore_watch_ = true;
  const bool ok = f.open(QIODevice::WriteOnly) && f.write(editor_->text().toUtf8()) >= 0 && f.commit();
  QTimer::singleShot(300, this, [this] { ignore_watch_ = false; });
  if (!ok) {
    QMessageBox::warning(this, tr("Save failed"), tr("Cannot write %1: %2").arg(path, f.errorString()));
    return false;
  }
  const QString abs = QFileInfo(path).absoluteFilePath();
  if (abs != path_) {
    if (!watcher_->files().isEmpty()) watcher_->removePaths(watcher_->files());
    path_ = abs;
    session::Request r = service_->request();
    r.path = path_.toStdString();
    service_->set_request(r);
    add_recent(path_);
  }
  watcher_->addPath(path_);
  editor_->setModified(false);
  autosave_.remove(autosave_path());
  update_title();
  show_status(tr("Saved %1").arg(QFileInfo(path_).fileName()));
  return true;
}

void MainWindow::set_lights(const QString& path) {
  session::Request r = service_->request();
  r.lights_path = path.isEmpty() ? std::string() : QFileInfo(path).absoluteFilePath().toStdString();
  r.text = editor_->text_utf8();
  service_->set_request(r);
  if (!path_.isEmpty()) {
    set_stale(true);
    service_->compile_now();
  }
}

void MainWindow::set_rpu_scene(const QString& path) {
  session::Request r = service_->request();
  r.rpu.scene = path.isEmpty() ? std::string() : QFileInfo(path).absoluteFilePath().toStdString();
  r.text = editor_->text_utf8();
  service_->set_request(r);
  if (!path_.isEmpty() && rpu_mode_) {
    set_stale(true);
    service_->compile_now();
  }
}

bool MainWindow::save_project_as(const QString& path) {
  if (presentation()) set_presentation(false);  // the project keeps the working layout
  Project p;
  p.shader = path_;
  p.lights = QString::fromStdString(service_->request().lights_path);
  p.rpu_scene = QString::fromStdString(service_->request().rpu.scene);
  p.aov = service_->request().all_outputs ? QString(kAllOutputs) : QString::fromStdString(service_->request().aov);
  p.target = studio_->target();
  if (!target_panel_->edited()) p.target_reference = QString::fromStdString(studio_->target().source.empty() ? studio_->target().name : studio_->target().source);
  p.cost_model = QString::fromStdString(studio_->cost_model().name);
  p.window_state = saveState();
  p.graph_tab = graph_tabs_->currentIndex();
  p.algorithm = studio_->algorithm();
  p.marks = marking_->marks().marks();
  p.compile_delay_ms = service_->delay();
  p.manual = service_->manual();
  QString error;
  if (!studio::save_project(p, path, &error)) {
    QMessageBox::warning(this, tr("Save failed"), error);
    return false;
  }
  project_path_ = QFileInfo(path).absoluteFilePath();
  add_recent(project_path_);
  show_status(tr("Saved project %1").arg(QFileInfo(path).fileName()));
  return true;
}

// A warning that does not block: the box is shown and nothing waits for it to be closed.
void MainWindow::warn_later(const QString& title, const QString& text, const QString& details) {
  auto* box = new QMessageBox(QMessageBox::Warning, title, text, QMessageBox::Ok, this);
  if (!details.isEmpty()) box->setInformativeText(details);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();
}

bool MainWindow::open_project(const QString& path) {
  QString error;
  project_problems_.clear();
  auto p = load_project(path, &project_problems_, &error);
  if (!p) {
    project_problems_ << error;
    warn_later(tr("Cannot open project"), error);
    return false;
  }
  project_path_ = QFileInfo(path).absoluteFilePath();
  service_->set_delay(p->compile_delay_ms);
  service_->set_manual(p->manual);
  manual_action_->setChecked(p->manual);
  if (!p->cost_model.isEmpty()) set_cost_model(p->cost_model);
  if (p->target) set_target_desc(*p->target, p->target_reference.isEmpty());
  if (!p->window_state.isEmpty()) restoreState(p->window_state);
  graph_tabs_->setCurrentIndex(p->graph_tab);
  if (!p->marks.empty() || p->algorithm == views::StudioModel::kYours) marking_->set_pending(p->marks);  // on the first result
  if (p->algorithm == views::StudioModel::kYours) marking_->set_on(true);
  else passes_->set_algorithm(p->algorithm);
  if (!p->shader.isEmpty()) open_file(p->shader);
  if (!p->lights.isEmpty()) set_lights(p->lights);
  if (!p->rpu_scene.isEmpty()) set_rpu_scene(p->rpu_scene);
  if (!p->aov.isEmpty()) {  // (a shader that has no such output compiles Ci: see show_outputs)
    session::Request r = service_->request();
    r.all_outputs = p->aov == QLatin1String(kAllOutputs);
    r.aov = r.all_outputs ? std::string() : p->aov.toStdString();
    service_->set_request(r);
    request_changed();
  }
  add_recent(project_path_);
  if (!project_problems_.isEmpty()) {
    // Reported without blocking: the rest of the project is open and usable.
    warn_later(tr("Project opened with problems"),
               tr("Parts of %1 could not be used:").arg(QFileInfo(path).fileName()), project_problems_.join("\n"));
    show_status(tr("Opened %1 with %n problem(s)", nullptr, static_cast<int>(project_problems_.size())).arg(QFileInfo(path).fileName()));
  } else {
    show_status(tr("Opened project %1").arg(QFileInfo(path).fileName()));
  }
  return true;
}

bool MainWindow::import_marks(const QString& path) {
  QString error;
  if (!marking_->import_file(path, &error)) {
    warn_later(tr("Cannot import marks"), tr("%1 could not be used:").arg(QFileInfo(path).fileName()), error);
    return false;
  }
  marking_->set_on(true);
  const auto n = marking_->marks().marks().size();
  show_status(tr("Imported %1 %2 from %3").arg(n).arg(n == 1 ? tr("mark") : tr("marks"), QFileInfo(path).fileName()));
  return true;
}

bool MainWindow::export_marks(const QString& path) {
  QString error;
  if (!marking_->export_file(path, &error)) {
    QMessageBox::warning(this, tr("Export failed"), error);
    return false;
  }
  const auto n = marking_->marks().marks().size();
  show_status(tr("Saved %1 %2 to %3").arg(n).arg(n == 1 ? tr("mark") : tr("marks"), QFileInfo(path).fileName()));
  return true;
}

void MainWindow::import_marks_dialog() {
  const QString dir = path_.isEmpty() ? QDir::homePath() : QFileInfo(path_).absolutePath();
  const QString p = QFileDialog::getOpenFileName(this, tr("Import marks"), dir, tr("Marks (*.json);;All files (*)"));
  if (!p.isEmpty()) import_marks(p);
}

void MainWindow::export_marks_dialog() {
  const QString dir = path_.isEmpty() ? QDir::homePath() : QFileInfo(path_).absolutePath();
  const QString p = QFileDialog::getSaveFileName(this, tr("Export marks"), dir + "/" + QFileInfo(path_).completeBaseName() + ".marks.json",
                                                 tr("Marks (*.json)"));
  if (!p.isEmpty()) export_marks(p);
}

bool MainWindow::maybe_save() {
  if (!editor_->isModified()) return true;
  auto answer = QMessageBox::question(this, tr("Unsaved changes"), tr("Save the changes to %1?").arg(QFileInfo(path_).fileName()),
                                      QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
  if (answer == QMessageBox::Save) return save();
  return answer == QMessageBox::Discard;
}

void MainWindow::add_recent(const QString& path) {
  auto settings = open_settings(options_);
  QStringList recent = settings->value("files/recent").toStringList();
  recent.removeAll(path);
  recent.prepend(path);
  while (recent.size() > 10) recent.removeLast();
  settings->setValue("files/recent", recent);
  rebuild_recent_menu();
}

void MainWindow::rebuild_recent_menu() {
  recent_menu_->clear();
  auto settings = open_settings(options_);
  for (const QString& p : settings->value("files/recent").toStringList())
    recent_menu_->addAction(p, this, [this, p] {
      if (!maybe_save()) return;
      if (p.endsWith(".passlab")) open_project(p);
      else open_file(p);
    });
  recent_menu_->setEnabled(!recent_menu_->isEmpty());
}

QString MainWindow::autosave_path() const {
  QString dir = options_.autosave_dir.isEmpty()
                    ? QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + "/autosave"
                    : options_.autosave_dir;
  return QString("%1/session-%2.sl").arg(dir).arg(QCoreApplication::applicationPid());
}

void MainWindow::write_autosave() {
  if (!editor_->isModified() || !autosave_dirty_) return;
  autosave_dirty_ = false;
  QJsonObject o{{"path", path_}, {"saved", QDateTime::currentDateTimeUtc().toString(Qt::ISODate)},
                {"pid", static_cast<qint64>(QCoreApplication::applicationPid())}};
  autosave_.write(autosave_path(), editor_->text().toUtf8(), QJsonDocument(o).toJson());
}

void MainWindow::wait_for_autosave() { autosave_.wait(); }

QStringList MainWindow::pending_recoveries() const {
  QStringList out;
  QDir dir(QFileInfo(autosave_path()).absolutePath());
  for (const QFileInfo& fi : dir.entryInfoList({"session-*.sl"}, QDir::Files, QDir::Name)) {
    if (fi.absoluteFilePath() == QFileInfo(autosave_path()).absoluteFilePath()) continue;
    bool ok = false;
    const qint64 pid = fi.completeBaseName().mid(8).toLongLong(&ok);
    // A session whose process still runs is another open Studio, not a crash.
    if (ok && pid > 0 && ::kill(static_cast<pid_t>(pid), 0) == 0) continue;
    out << fi.absoluteFilePath();
  }
  return out;
}

bool MainWindow::recover_autosave(const QString& autosave) {
  QFile f(autosave);
  if (!f.open(QIODevice::ReadOnly)) return false;
  const QByteArray text = f.readAll();
  QFile meta(autosave + ".json");
  QString original;
  if (meta.open(QIODevice::ReadOnly)) original = QJsonDocument::fromJson(meta.readAll()).object().value("path").toString();
  if (!original.isEmpty() && QFileInfo::exists(original)) open_file(original);
  else if (!original.isEmpty()) path_ = original;
  editor_->setText(QString::fromUtf8(text));  // recovered text is unsaved work: the buffer stays modified
  editor_->setModified(true);
  f.remove();
  QFile::remove(autosave + ".json");
  write_autosave();
  update_title();
  show_status(tr("Recovered unsaved work from a session that did not end cleanly"));
  return true;
}

void MainWindow::closeEvent(QCloseEvent* e) {
  if (!maybe_save()) {
    e->ignore();
    return;
  }
  if (presentation()) set_presentation(false);  // the layout saved is the working one
  auto settings = open_settings(options_);
  settings->setValue("window/geometry", saveGeometry());
  settings->setValue("window/state", saveState());
  autosave_.remove(autosave_path());
  e->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
  for (const QUrl& u : e->mimeData()->urls())
    if (u.isLocalFile() && (u.toLocalFile().endsWith(".sl") || u.toLocalFile().endsWith(".glsl") ||
                            u.toLocalFile().endsWith(".passlab"))) {
      e->acceptProposedAction();
      return;
    }
}

void MainWindow::dropEvent(QDropEvent* e) {
  for (const QUrl& u : e->mimeData()->urls())
    if (u.isLocalFile() && maybe_save()) {
      if (u.toLocalFile().endsWith(".passlab")) open_project(u.toLocalFile());
      else open_file(u.toLocalFile());
      return;
    }
}

}  // namespace passlab::studio
