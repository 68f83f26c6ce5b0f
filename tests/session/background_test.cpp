// SPDX-License-Identifier: GPL-3.0-or-later
// The Studio's threads ask the kernel for what keeps the UI responsive under load: background work
// below the UI thread but never without CPU (it once ran as SCHED_IDLE and got none beside a
// build), with a long slice; the UI thread with a short one. Each check runs on a thread of its
// own, so the test process keeps its priority.
#include <thread>

#include <gtest/gtest.h>

#include "session/background.h"

#ifdef __linux__
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#endif

namespace passlab::session {
namespace {

#ifdef __linux__
// sched_getattr(2)'s record, as the kernel lays it out (glibc has neither the call nor the type,
// and the kernel's header clashes with glibc's <sched.h>).
struct KernelSchedAttr {
  std::uint32_t size;
  std::uint32_t sched_policy;
  std::uint64_t sched_flags;
  std::int32_t sched_nice;
  std::uint32_t sched_priority;
  std::uint64_t sched_runtime, sched_deadline, sched_period;
  std::uint32_t sched_util_min, sched_util_max;
};
static_assert(sizeof(KernelSchedAttr) == 56);

struct Attributes {
  unsigned policy = 0;
  int nice = 0;
  std::uint64_t slice_ns = 0;
  bool ok = false;
};

Attributes current() {
  KernelSchedAttr a{};
  Attributes out;
  out.ok = syscall(SYS_sched_getattr, 0, &a, sizeof a, 0) == 0;
  out.policy = a.sched_policy;
  out.nice = a.sched_nice;
  out.slice_ns = a.sched_runtime;
  return out;
}

// A slice the kernel reports back only where it keeps one (EEVDF, Linux 6.12 and later).
bool kernel_keeps_slices() {
  Attributes a;
  std::thread([&] {
    run_responsive();
    a = current();
  }).join();
  return a.ok && a.slice_ns == kResponsiveSliceNs;
}

TEST(Background, WorkRunsBelowTheUiButNeverIdle) {
  Attributes worker, child;
  int expected_nice = 0;
  std::thread([&] {
    expected_nice = background_nice();
    run_in_background();
    worker = current();
    std::thread([&] { child = current(); }).join();  // threads a worker starts inherit its class
  }).join();
  if (!worker.ok) GTEST_SKIP() << "sched_getattr is not available here";
  EXPECT_EQ(worker.policy, static_cast<unsigned>(SCHED_BATCH));
  EXPECT_NE(worker.policy, static_cast<unsigned>(SCHED_IDLE));
  EXPECT_EQ(worker.nice, expected_nice);
  EXPECT_GE(worker.nice, kBackgroundNice);
  EXPECT_GE(worker.nice, getpriority(PRIO_PROCESS, 0));  // never above the process
  EXPECT_EQ(child.policy, worker.policy);
  EXPECT_EQ(child.nice, worker.nice);
  if (kernel_keeps_slices()) {
    EXPECT_EQ(worker.slice_ns, kBackgroundSliceNs);
  }
}

TEST(Background, TheUiThreadKeepsItsPriorityWithAShortSlice) {
  Attributes ui;
  const int before = getpriority(PRIO_PROCESS, 0);
  std::thread([&] {
    run_responsive();
    ui = current();
  }).join();
  if (!ui.ok) GTEST_SKIP() << "sched_getattr is not available here";
  EXPECT_EQ(ui.policy, static_cast<unsigned>(SCHED_OTHER));
  EXPECT_EQ(ui.nice, before);
  if (kernel_keeps_slices()) {
    EXPECT_EQ(ui.slice_ns, kResponsiveSliceNs);
  }
  EXPECT_LT(kResponsiveSliceNs, kBackgroundSliceNs);
}
#endif

}  // namespace
}  // namespace passlab::session
