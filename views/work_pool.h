// SPDX-License-Identifier: GPL-3.0-or-later
// The thread pool the Studio's background work runs on (compiles, layouts, renders), apart
// from Qt's global pool.
#pragma once

class QThreadPool;

namespace passlab::views {

// Qt's raster paint engine splits big fills (a scroll bar, a graph's background) over
// QThreadPool::globalInstance() and waits for them. Work queued there made the UI thread's
// repaints wait for a compile to finish (a 120 ms stall beside two busy processes), and a pool
// thread that had run background work painted at the background priority. So every job of the
// Studio's runs here; a job lowers its own thread (session::run_in_background). One thread per
// core; created on first use, lives as long as the process.
QThreadPool& work_pool();

}  // namespace passlab::views
