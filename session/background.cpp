#include "session/background.h"

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

void run_in_background() {
#ifdef __linux__
  thread_local bool lowered = false;
  if (!lowered) {
    lowered = true;
    // A long slice: a worker started by the UI thread would otherwise keep the UI's short one.
    if (!set_attributes(SCHED_BATCH, kBackgroundNice, kBackgroundSliceNs))
      setpriority(PRIO_PROCESS, 0, kBackgroundNice);
  }
#endif
}

void run_responsive() {
#ifdef __linux__
  set_attributes(SCHED_NORMAL, getpriority(PRIO_PROCESS, 0), kResponsiveSliceNs);
#endif
}

}  // namespace passlab::session
