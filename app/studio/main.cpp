// passlab: the Studio. `passlab [FILE] [--target T] [--cost M] [--dark] [--screenshots DIR]`.
#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QElapsedTimer>
#include <QIcon>
#include <QMessageBox>
#include <QTimer>

#include "app/studio/main_window.h"
#include "app/studio/samples.h"
#include "app/studio/screenshots.h"

int main(int argc, char** argv) {
  QElapsedTimer clock;
  clock.start();
  QApplication app(argc, argv);
  QApplication::setApplicationName("passlab");
  QApplication::setOrganizationName("Passlab");
  QApplication::setApplicationVersion(PASSLAB_VERSION);
  // The desktop entry and icon packaging/ installs (Wayland matches windows to entries by this).
  QGuiApplication::setDesktopFileName("org.passlab.Passlab");
  QApplication::setWindowIcon(QIcon::fromTheme("org.passlab.Passlab"));
  QCommandLineParser cli;
  cli.setApplicationDescription("Passlab Studio: shader compilation under hardware limits");
  cli.addHelpOption();
  cli.addVersionOption();
  cli.addPositionalArgument("file", "the shader or .passlab project to open (default: the bowling-pin sample)");
  QCommandLineOption target({"t", "target"}, "target preset or file", "name");
  QCommandLineOption cost({"c", "cost"}, "cost model, e.g. 15p+5t+i", "model");
  QCommandLineOption dark("dark", "start with the dark theme");
  QCommandLineOption shots("screenshots", "save a screenshot of every panel to DIR and quit", "dir");
  QCommandLineOption recover("recover", "recover autosaved work without asking");
  QCommandLineOption startup("startup-time", "print the time to a usable window and quit");
  cli.addOptions({target, cost, dark, shots, recover, startup});
  cli.process(app);

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
