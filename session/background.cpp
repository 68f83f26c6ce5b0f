#include "session/background.h"

#ifdef __linux__
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace passlab::session {

void run_in_background() {
#ifdef __linux__
  thread_local bool lowered = false;
  if (!lowered) {
    lowered = true;
    const pid_t tid = static_cast<pid_t>(syscall(SYS_gettid));
    sched_param none{};
    sched_setscheduler(tid, SCHED_BATCH, &none);
    setpriority(PRIO_PROCESS, static_cast<id_t>(tid), 3);
  }
#endif
}

}  // namespace passlab::session
