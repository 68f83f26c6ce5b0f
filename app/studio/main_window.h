// SPDX-License-Identifier: GPL-3.0-or-later
// The Studio's main window: the editor in the centre, dockable panels around it, menus, toolbar,
// status bar, files, themes, autosave and crash recovery.
#pragma once

#include <memory>

#include <QMainWindow>
#include <QStringList>

#include "app/studio/autosave.h"
#include "app/studio/compile_service.h"
#include "session/lesson.h"

class QAction;
class QComboBox;
class QFileSystemWatcher;
class QLabel;
class QMenu;
class QTabWidget;
class QTimer;

namespace passlab::editors {
class FindBar;
class ShaderEditor;
}  // namespace passlab::editors
namespace passlab::views {
class ComparePanel;
class DiagnosticsPanel;
class GraphView;
class PassGraphPanel;
class PassesPanel;
class PreviewPanel;
class SamplingPanel;
class StudioModel;
class RpuCodePanel;
class RpuDebuggerPanel;
class RpuDecisionsPanel;
class RpuRenderPanel;
class RpuSession;
class MarkingBar;
class LessonsPanel;
class TargetPanel;
class TimelinePanel;
class TracePlayer;
}  // namespace passlab::views

namespace passlab::studio {

class Marking;
class Presentation;

struct StudioOptions {
  QString settings_file;     // "" : the user's QSettings; tests pass a temporary file
  QString autosave_dir;      // "" : the user's application data directory
  bool ask_before_recovery = true;  // false: recover silently (tests, --recover)
};

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(const StudioOptions& options = {}, QWidget* parent = nullptr);
  ~MainWindow() override;

  bool open_file(const QString& path);
  bool save();
  bool save_as(const QString& path);
  void set_target(const QString& name);
  QString target_name() const;
  void set_cost_model(const QString& spec);
  void set_target_desc(const partition::TargetDesc& target, bool edited);
  bool save_target_as(const QString& path);
  // Projects: shader, light setup, target, cost model and panel state (app/studio/project.h).
  bool open_project(const QString& path);
  bool save_project_as(const QString& path);
  const QStringList& project_problems() const { return project_problems_; }
  // A partition made by hand, read from or written to a marks file (the CLI's --marks, --save-marks).
  bool import_marks(const QString& path);
  bool export_marks(const QString& path);
  void set_lights(const QString& path);
  // The scene the RPU target renders ("": the sample scene that uses the shader, else a sphere);
  // objects without a shader of their own are shaded with the shader being edited.
  void set_rpu_scene(const QString& path);
  const partition::TargetDesc& target() const;
  const partition::CostModel& cost_model() const;
  views::TargetPanel* target_panel() const { return target_panel_; }
  void set_dark(bool dark);
  // Presentation mode (View ▸ Presentation Mode, F12; app/studio/presentation.h): `current` is the
  // panel kept on screen (null: the one with the focus).
  void set_presentation(bool on, QWidget* current = nullptr);
  bool presentation() const;
  // The panel with the focus (or the editor) as a picture on the clipboard (Edit ▸ Copy View as Image).
  void copy_view_image();
  // Lessons (samples/lessons, app/studio/main_window_lessons.cpp): the panel that plays them;
  // whether the shown step's actions are all done; what went wrong carrying them out (by line).
  views::LessonsPanel* lessons() const { return lessons_; }
  bool lesson_idle() const;
  const QStringList& lesson_problems() const { return lesson_problems_; }
  session::Verdict check_lesson_question(const session::LessonQuestion& q, const QString& answer);
  void reset_layout();
  // Autosaved buffers of sessions that did not end cleanly; recover_autosave opens one.
  QStringList pending_recoveries() const;
  bool recover_autosave(const QString& autosave_path);
  // Queues the buffer, if it changed since the last autosave, to be written in the background;
  // wait_for_autosave() returns when it is on disk.
  void write_autosave();
  void wait_for_autosave();

  editors::ShaderEditor* editor() const { return editor_; }
  views::GraphView* dag_view() const { return graphs_[0]; }
  views::GraphView* graph_view(int i) const { return graphs_[i]; }
  views::PassGraphPanel* pass_graph() const { return pass_graph_; }
  QTabWidget* graph_tabs() const { return graph_tabs_; }
  views::PassesPanel* passes() const { return passes_; }
  views::ComparePanel* compare() const { return compare_; }
  views::DiagnosticsPanel* diagnostics() const { return diagnostics_; }
  views::TracePlayer* trace() const { return trace_; }
  views::PreviewPanel* preview() const { return preview_; }
  views::SamplingPanel* sampling() const { return sampling_; }
  QTabWidget* preview_tabs() const { return preview_tabs_; }
  views::TimelinePanel* timeline() const { return timeline_; }
  // Partition it yourself: the marks and their commands, and the bar over the graphs.
  Marking* marking() const { return marking_; }
  views::MarkingBar* marking_bar() const { return marking_bar_; }
  // The RPU target's panels (shown in place of the fragment pipeline's while the target is RPU).
  views::RpuSession* rpu_session() const { return rpu_session_; }
  views::RpuCodePanel* rpu_code() const { return rpu_code_; }
  views::RpuDebuggerPanel* rpu_debugger() const { return rpu_debugger_; }
  views::RpuRenderPanel* rpu_render() const { return rpu_render_; }
  views::RpuDecisionsPanel* rpu_decisions() const { return rpu_decisions_; }
  bool rpu_mode() const { return rpu_mode_; }
  CompileService* service() const { return service_; }
  const ResultPtr& result() const;  // the result the panels show
  // The generation every panel shows (panels take a new result over a few event-loop turns).
  quint64 shown_generation() const { return shown_generation_; }
  QString file_path() const { return path_; }
  QWidget* dock_widget(const QString& object_name) const;
  views::StudioModel* model() const { return studio_; }

 signals:
  // Every panel shows the snapshot of this generation.
  void panels_updated(quint64 generation);

 protected:
  void closeEvent(QCloseEvent* e) override;
  void dragEnterEvent(QDragEnterEvent* e) override;
  void dropEvent(QDropEvent* e) override;

 private:
  void build_menus();
  void build_toolbar(QAction* open);
  void build_docks();
  void observe_results();
  void show_result(ResultPtr result);
  void panels_shown();
  void run_optimal(double budget_seconds);
  void import_marks_dialog();
  void export_marks_dialog();
  views::GraphView* current_graph_view() const;
  void set_stale(bool stale);
  void update_title();
  void show_status(const QString& text);
  void warn_later(const QString& title, const QString& text, const QString& details = {});
  bool maybe_save();
  void add_recent(const QString& path);
  void rebuild_recent_menu();
  void request_changed();
  // The model's target shown in the target box, then compiled.
  void show_target(const partition::TargetDesc& t, bool edited);
  // The model's cost model shown in the cost box, then compiled.
  void show_cost_model(const partition::CostModel& m);
  bool applied(const QString& input, const lang::Diagnostics& problems);
  // The selection's source spans highlighted in the editor (none when the editor chose it).
  void show_selection_in_editor(const std::vector<std::uint32_t>& ids, bool from_editor);
  void on_cursor_line(int line);
  void on_hover(int position, const QPoint& global);
  // Shows the RPU's panels or the fragment pipeline's, remembering which the user had open.
  void set_rpu_mode(bool on);
  void show_rpu_debug_line();
  QString autosave_path() const;

  StudioOptions options_;
  CompileService* service_;
  views::StudioModel* studio_;  // what the panels share and observe: the result, the selection, the trace position, the target
  editors::ShaderEditor* editor_;
  editors::FindBar* find_;
  views::GraphView* graphs_[3];
  views::PassGraphPanel* pass_graph_;  // the fourth graph tab
  views::MarkingBar* marking_bar_;     // over the graph tabs while marking
  Marking* marking_;
  QAction* marking_action_ = nullptr;
  std::unique_ptr<Presentation> presentation_;
  views::LessonsPanel* lessons_ = nullptr;
  std::vector<session::LessonAction> lesson_queue_;  // the step's actions
  std::size_t lesson_next_ = 0;                      // the next to carry out
  bool lesson_running_ = false;                      // continue_lesson is carrying them out
  QStringList lesson_problems_;
  void load_lessons();
  void run_lesson_step(const session::LessonStep& step);
  void continue_lesson();
  void run_lesson_action(const session::LessonAction& a);
  bool result_pending() const;  // a compile is running or its result is not on every panel yet
  QAction* presentation_action_ = nullptr;
  QTabWidget* graph_tabs_;
  views::PassesPanel* passes_;
  views::ComparePanel* compare_;
  views::DiagnosticsPanel* diagnostics_;
  views::TracePlayer* trace_;
  views::PreviewPanel* preview_;
  views::SamplingPanel* sampling_;
  QTabWidget* preview_tabs_;  // the preview dock: the passes' preview and the Sampling view
  views::TimelinePanel* timeline_;
  views::TargetPanel* target_panel_;
  views::RpuSession* rpu_session_;
  views::RpuCodePanel* rpu_code_;
  views::RpuDebuggerPanel* rpu_debugger_;
  views::RpuRenderPanel* rpu_render_;
  views::RpuDecisionsPanel* rpu_decisions_;
  QMenu* debug_menu_ = nullptr;
  bool rpu_mode_ = false;
  QStringList hidden_for_rpu_, shown_for_rpu_;  // the docks each perspective had open
  QComboBox* target_box_;
  QComboBox* cost_box_;
  QComboBox* output_box_;          // Ci, or an output parameter (AOV) compiled as the colour
  QAction* output_action_ = nullptr;  // the box in the toolbar: shown when the shader has outputs
  void show_outputs(const driver::Program& program);
  QMenu* recent_menu_;
  QFileSystemWatcher* watcher_;
  QTimer* autosave_timer_;
  Autosave autosave_;
  bool autosave_dirty_ = false;  // the buffer changed since it was last autosaved
  QTimer* stale_timer_;  // marks the panels stale when a result is slow to come
  quint64 shown_generation_ = 0;
  quint64 latest_generation_ = 0;  // of the latest result for this kind of target
  bool latest_shown_ = false;      // it went to the panels (it has no errors, or nothing was shown before)
  QString path_;
  QString project_path_;
  QStringList project_problems_;
  QAction* manual_action_ = nullptr;
  QByteArray default_state_;
  bool dark_ = false;
  bool loading_ = false;
  bool ignore_watch_ = false;
};

}  // namespace passlab::studio
