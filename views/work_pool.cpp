// SPDX-License-Identifier: GPL-3.0-or-later
// The Studio's own thread pool.
#include "views/work_pool.h"

#include <QThreadPool>

namespace passlab::views {

namespace {
Q_GLOBAL_STATIC(QThreadPool, pool)
}  // namespace

QThreadPool& work_pool() { return *pool(); }

}  // namespace passlab::views
