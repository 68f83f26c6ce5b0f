// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/studio/autosave.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>

namespace passlab::studio {

namespace {

bool write_atomically(const QString& path, const QByteArray& data) {
  QSaveFile f(path);
  return f.open(QIODevice::WriteOnly) && f.write(data) == data.size() && f.commit();
}

}  // namespace

Autosave::Autosave() {
  worker_.setMaxThreadCount(1);  // one worker: the files change in the order they were asked for
  worker_.setExpiryTimeout(-1);
}

Autosave::~Autosave() { wait(); }

void Autosave::write(const QString& path, const QByteArray& text, const QByteArray& meta) {
  worker_.start([path, text, meta] {
    QDir().mkpath(QFileInfo(path).absolutePath());
    // The text first: a recovery needs it, the metadata only names the original file.
    if (write_atomically(path, text)) write_atomically(path + ".json", meta);
  });
}

void Autosave::remove(const QString& path) {
  wait();
  QFile::remove(path);
  QFile::remove(path + ".json");
}

void Autosave::wait() { worker_.waitForDone(); }

}  // namespace passlab::studio
