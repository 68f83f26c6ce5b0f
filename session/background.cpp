// SPDX-License-Identifier: GPL-3.0-or-later
#include "session/background.h"

#include <algorithm>

#ifdef __linux__
#include <linux/sched.h>
#include <linux/sched/types.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>
#endif

namespace passlab::session {

#ifdef __linux__
namespace {

// sched_setattr(2) for the calling thread: a normal-class policy, a nice value and a time slice
// (0: the kernel's default). glibc has no wrapper.
bool set_attributes(unsigned policy, int nice, std::uint64_t slice_ns) {
  sched_attr a;
  std::memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.sched_policy = policy;
  a.sched_nice = nice;
  a.sched_runtime = slice_ns;
  return syscall(SYS_sched_setattr, 0, &a, 0) == 0;
}

}  // namespace
#endif

int background_nice() {
#ifdef __linux__
  return std::max(getpriority(PRIO_PROCESS, 0), kBackgroundNice);
#else
  return kBackgroundNice;
#endif
}

void run_in_background() {
#ifdef __linux__
  thread_local bool lowered = false;
  if (!lowered) {
    lowered = true;
    // A long slice: a worker started by the UI thread would otherwise keep the UI's short one.
    // Never above the process's own nice (started with `nice`, asking for less would be refused).
    const int nice = background_nice();
    if (!set_attributes(SCHED_BATCH, nice, kBackgroundSliceNs)) setpriority(PRIO_PROCESS, 0, nice);
  }
#endif
}

void run_responsive() {
#ifdef __linux__
  set_attributes(SCHED_NORMAL, getpriority(PRIO_PROCESS, 0), kResponsiveSliceNs);
#endif
}

}  // namespace passlab::session
