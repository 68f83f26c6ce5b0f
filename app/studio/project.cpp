// SPDX-License-Identifier: GPL-3.0-or-later
// Project files: JSON with relative paths, written atomically, read tolerantly.
#include "app/studio/project.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

#include "backends/registry/registry.h"
#include "core/partition/registry.h"
#include "views/algorithm_box.h"

namespace passlab::studio {

namespace {

constexpr int kVersion = 1;

QString relative(const QDir& base, const QString& path) { return path.isEmpty() ? QString() : base.relativeFilePath(path); }

QString absolute(const QDir& base, const QString& path) {
  return path.isEmpty() ? QString() : QDir::cleanPath(base.absoluteFilePath(path));
}

bool is_preset(const QString& reference) { return !reference.contains('/') && !reference.endsWith(".json"); }

}  // namespace

bool save_project(const Project& p, const QString& path, QString* error) {
  const QDir base = QFileInfo(path).absoluteDir();
  QJsonObject o;
  o["passlab_project"] = kVersion;
  o["shader"] = relative(base, p.shader);
  o["lights"] = p.lights.isEmpty() ? QJsonValue() : QJsonValue(relative(base, p.lights));
  if (!p.aov.isEmpty()) o["output"] = p.aov;
  if (!p.rpu_scene.isEmpty()) o["rpu_scene"] = relative(base, p.rpu_scene);
  if (!p.target_reference.isEmpty())
    o["target_file"] = is_preset(p.target_reference) ? p.target_reference : relative(base, p.target_reference);
  if (p.target)
    o["target"] = QJsonDocument::fromJson(QByteArray::fromStdString(partition::target_to_json(*p.target))).object();
  if (!p.cost_model.isEmpty()) o["cost_model"] = p.cost_model;  // "" is no model: reading "" back is a problem
  QJsonObject panels;
  panels["window_state"] = QString::fromLatin1(p.window_state.toBase64());
  panels["graph_tab"] = p.graph_tab;
  panels["algorithm"] = p.algorithm;
  o["panels"] = panels;
  if (!p.marks.empty()) {
    QJsonArray marks;  // as in a marks file: a node id, or {"node", "reason"}
    for (const auto& m : p.marks)
      if (m.reason.empty()) marks.append(static_cast<qint64>(m.node));
      else marks.append(QJsonObject{{"node", static_cast<qint64>(m.node)}, {"reason", QString::fromStdString(m.reason)}});
    o["marks"] = marks;
  }
  o["compile"] = QJsonObject{{"delay_ms", p.compile_delay_ms}, {"manual", p.manual}};
  QSaveFile f(path);
  const QByteArray bytes = QJsonDocument(o).toJson(QJsonDocument::Indented);
  if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size() || !f.commit()) {
    if (error) *error = QString("cannot write %1: %2").arg(path, f.errorString());
    return false;
  }
  return true;
}

std::optional<Project> load_project(const QString& path, QStringList* problems, QString* error) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) {
    if (error) *error = QString("cannot open %1: %2").arg(path, f.errorString());
    return std::nullopt;
  }
  const QByteArray bytes = f.readAll();
  QJsonParseError pe;
  const QJsonDocument doc = QJsonDocument::fromJson(bytes, &pe);
  if (pe.error != QJsonParseError::NoError) {
    // The offset as a line and column, like every other diagnostic.
    const QByteArray before = bytes.left(pe.offset);
    const int line = static_cast<int>(before.count('\n')) + 1;
    const int col = static_cast<int>(pe.offset - before.lastIndexOf('\n'));
    if (error) *error = QString("%1:%2:%3: not a project: %4").arg(path).arg(line).arg(col).arg(pe.errorString());
    return std::nullopt;
  }
  if (!doc.isObject() || !doc.object().contains("passlab_project")) {
    if (error) *error = QString("%1: not a Passlab project (no \"passlab_project\" key)").arg(path);
    return std::nullopt;
  }
  const QJsonObject o = doc.object();
  const QDir base = QFileInfo(path).absoluteDir();
  const QString name = QFileInfo(path).fileName();
  auto problem = [&](const QString& what) {
    if (problems) *problems << QString("%1: %2").arg(name, what);
  };
  Project p;
  if (o["passlab_project"].toInt() > kVersion)
    problem(QString("written by a newer Passlab (version %1); reading what this one knows").arg(o["passlab_project"].toInt()));

  const QString shader = absolute(base, o["shader"].toString());
  if (shader.isEmpty()) problem("no shader");
  else if (!QFileInfo::exists(shader)) problem(QString("the shader %1 is missing").arg(o["shader"].toString()));
  else p.shader = shader;

  if (o["lights"].isString()) {
    const QString lights = absolute(base, o["lights"].toString());
    if (!QFileInfo::exists(lights)) problem(QString("the light setup %1 is missing; using the one beside the shader").arg(o["lights"].toString()));
    else p.lights = lights;
  }

  if (o["rpu_scene"].isString()) {
    const QString scene = absolute(base, o["rpu_scene"].toString());
    if (!QFileInfo::exists(scene)) problem(QString("the RPU scene %1 is missing; using the sample scene that uses the shader").arg(o["rpu_scene"].toString()));
    else p.rpu_scene = scene;
  }

  // The target: its file or preset when it still loads, else the copy saved inline.
  if (o["target_file"].isString()) {
    const QString ref = o["target_file"].toString();
    const QString resolved = is_preset(ref) ? ref : absolute(base, ref);
    lang::Diagnostics problems;
    if (auto t = backends::load_target(resolved.toStdString(), &problems)) {
      p.target = t;
      p.target_reference = resolved;
    } else {
      problem(QString("the target %1 does not load (%2)%3").arg(ref, QString::fromStdString(problems.summary()),
                                                                o["target"].isObject() ? "; using the copy in the project" : ""));
    }
  }
  if (!p.target && o["target"].isObject()) {
    const QByteArray text = QJsonDocument(o["target"].toObject()).toJson();
    lang::Diagnostics problems;
    if (auto t = partition::parse_target(text.toStdString(), name.toStdString() + ": target", &problems)) p.target = t;
    else problem(QString::fromStdString(problems.summary()));
  }

  if (o.contains("output")) {
    if (o["output"].isString()) p.aov = o["output"].toString();
    else problem(QString("\"output\" must be the name of an output parameter; compiling Ci"));
  }
  if (o.contains("cost_model")) {
    const QString spec = o["cost_model"].toString();
    lang::Diagnostics problems;
    if (partition::parse_cost_model(spec.toStdString(), &problems)) p.cost_model = spec;
    else problem(QString("cost model \"%1\": %2").arg(spec, QString::fromStdString(problems.summary())));
  }

  const QJsonObject panels = o["panels"].toObject();
  p.window_state = QByteArray::fromBase64(panels["window_state"].toString().toLatin1());
  p.graph_tab = std::clamp(panels["graph_tab"].toInt(0), 0, 2);
  const QString algo = panels["algorithm"].toString(p.algorithm);
  if (algo == "yours" || partition::find_algorithm(algo.toStdString())) p.algorithm = algo;
  else problem(QString("unknown algorithm \"%1\"; showing %2").arg(algo, views::algorithm_label(p.algorithm)));
  if (o.contains("marks")) {
    if (!o["marks"].isArray()) problem(QString("\"marks\" must be an array of node ids; no marks"));
    for (const QJsonValue& v : o["marks"].toArray()) {
      const QJsonValue id = v.isObject() ? v.toObject()["node"] : v;
      if (!id.isDouble() || id.toDouble() < 0 || id.toDouble() != static_cast<double>(static_cast<qint64>(id.toDouble()))) {
        problem(QString("a mark must be a node id (a whole number ≥ 0) or {\"node\", \"reason\"}; it is left out"));
        continue;
      }
      p.marks.push_back({static_cast<std::uint32_t>(id.toDouble()), v.isObject() ? v.toObject()["reason"].toString().toStdString() : std::string()});
    }
  }
  const QJsonObject compile = o["compile"].toObject();
  p.compile_delay_ms = std::clamp(compile["delay_ms"].toInt(30), 0, 5000);
  p.manual = compile["manual"].toBool(false);
  return p;
}

}  // namespace passlab::studio
