// SPDX-License-Identifier: GPL-3.0-or-later
// passlab: the Studio. `passlab [FILE] [--target T] [--cost M] [--dark] [--screenshots DIR]`.
#include <QApplication>
#include <QCoreApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QElapsedTimer>
#include <QIcon>
#include <QMessageBox>
#include <QTimer>

#include <string>

#include "app/studio/main_window.h"
#include "app/studio/samples.h"
#include "app/studio/screenshots.h"

namespace {

void name_application() {
  QCoreApplication::setApplicationName("passlab");
  QCoreApplication::setOrganizationName("Passlab");
  QCoreApplication::setApplicationVersion(PASSLAB_VERSION);
}

// The command line; options are looked up by their long names.
void describe(QCommandLineParser& cli) {
  cli.setApplicationDescription("Passlab Studio: shader compilation under hardware limits");
  cli.addHelpOption();
  cli.addVersionOption();
  cli.addPositionalArgument("file", "the shader or .passlab project to open (default: the bowling-pin sample)");
  cli.addOptions({{{"t", "target"}, "target preset or file", "name"},
                  {{"c", "cost"}, "cost model, e.g. 15p+5t+i", "model"},
                  {"dark", "start with the dark theme"},
                  {"screenshots", "save a screenshot of every panel to DIR and quit", "dir"},
                  {"recover", "recover autosaved work without asking"},
                  {"startup-time", "print the time to a usable window and quit"}});
}

// --help and --version print text and need no display: they are answered before the GUI starts.
bool text_only(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--") break;
    if (a == "-h" || a == "--help" || a == "--help-all" || a == "-?" || a == "-v" || a == "--version") return true;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (text_only(argc, argv)) {
    QCoreApplication app(argc, argv);
    name_application();
    QCommandLineParser cli;
    describe(cli);
    cli.process(app);  // prints and exits
    return 0;
  }
  QElapsedTimer clock;
  clock.start();
  QApplication app(argc, argv);
  name_application();
  // The desktop entry and icon packaging/ installs (Wayland matches windows to entries by this).
  QGuiApplication::setDesktopFileName("org.passlab.Passlab");
  QApplication::setWindowIcon(QIcon::fromTheme("org.passlab.Passlab"));
  QCommandLineParser cli;
  describe(cli);
  cli.process(app);
  const QString target = "target", cost = "cost", dark = "dark", shots = "screenshots", recover = "recover",
                startup = "startup-time";

  passlab::studio::StudioOptions options;
  options.ask_before_recovery = !cli.isSet(recover);
  if (cli.isSet(shots)) {
    // Screenshots are reproducible: no user settings, no autosaves.
    options.settings_file = QDir::temp().filePath(QString("passlab-shots-%1.ini").arg(QCoreApplication::applicationPid()));
    options.autosave_dir = QDir::temp().filePath("passlab-shots-autosave");
  }
  passlab::studio::MainWindow w(options);
  if (cli.isSet(target)) w.set_target(cli.value(target));
  if (cli.isSet(cost)) w.set_cost_model(cli.value(cost));
  if (cli.isSet(dark)) w.set_dark(true);
  const QStringList args = cli.positionalArguments();
  if (!args.isEmpty() && args.front().endsWith(".passlab")) w.open_project(args.front());
  else w.open_file(args.isEmpty() ? passlab::studio::samples_path("shaders/bowling_pin.sl") : args.front());
  w.show();
  if (cli.isSet(startup)) {
    QObject::connect(&w, &passlab::studio::MainWindow::panels_updated, &app, [&] {
      std::printf("usable window after %lld ms (panels showing the first snapshot)\n", static_cast<long long>(clock.elapsed()));
      app.quit();
    });
    return app.exec();
  }
  if (cli.isSet(shots)) {
    passlab::studio::take_screenshots(&w, cli.value(shots));
    return app.exec();
  }
  for (const QString& autosave : w.pending_recoveries()) {
    auto answer = options.ask_before_recovery
                      ? QMessageBox::question(&w, QObject::tr("Recover unsaved work?"),
                                              QObject::tr("Passlab did not close cleanly last time. Recover the unsaved "
                                                          "shader it autosaved?"))
                      : QMessageBox::Yes;
    if (answer == QMessageBox::Yes) {
      w.recover_autosave(autosave);
      break;
    }
  }
  return app.exec();
}
