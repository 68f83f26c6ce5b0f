// SPDX-License-Identifier: GPL-3.0-or-later
// Autosave files written off the UI thread: a write syncs to disk (QSaveFile), which can take tens
// of milliseconds, and must never stall typing. Writes and removals run in order on one worker, so a
// removal after a save cannot be overtaken by an older write.
#pragma once

#include <QByteArray>
#include <QString>
#include <QThreadPool>

namespace passlab::studio {

class Autosave {
 public:
  Autosave();
  ~Autosave();  // waits for the writes in flight
  Autosave(const Autosave&) = delete;
  Autosave& operator=(const Autosave&) = delete;

  // Writes `text` to `path` and `meta` to `path`.json, each atomically, in the background.
  void write(const QString& path, const QByteArray& text, const QByteArray& meta);
  // Removes both files once the writes queued before have finished; returns when they are gone.
  void remove(const QString& path);
  // Returns when every queued write is on disk.
  void wait();

 private:
  QThreadPool worker_;
};

}  // namespace passlab::studio
