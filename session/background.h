// SPDX-License-Identifier: GPL-3.0-or-later
// Background work in the Studio (compiles, renders) runs below the UI thread's priority but never
// without CPU: with two cores shared by the UI, the display server, the work and whatever else
// the machine does (a build beside the Studio), the UI must keep painting and the work must go on.
#pragma once

#include <cstdint>

namespace passlab::session {

constexpr int kBackgroundNice = 1;
constexpr std::uint64_t kBackgroundSliceNs = 10'000'000;  // 10 ms
constexpr std::uint64_t kResponsiveSliceNs = 500'000;     // 0.5 ms

// Lowers the calling thread's priority once (threads it starts inherit it). On Linux:
// SCHED_BATCH, so that a worker waking up never preempts the UI thread; nice 1, a weight of 80%
// of the UI's; and a long slice (10 ms), so that once running a worker is not cut up, while the
// UI thread's short one puts its events ahead of it. The UI's lead comes from the slices, not
// from the weight: beside two busy processes nice 3 made Wood's first result take 1.5 s (three
// times idle) for no gain in stalls, nice 1 with the long slice 0.87 s with the worst stall
// 15-17 ms (docs/studio_latency.md). Under load the work slows down in proportion to what the
// other processes take, no more. (It used to be SCHED_IDLE, which gets no CPU at all while any other
// process wants it: beside two busy processes the Studio showed "Compiling…" for seconds, and the
// UI stalled whenever it waited on the work.) Elsewhere a no-op.
void run_in_background();

// The nice run_in_background() gives the calling thread: kBackgroundNice, or the thread's own if
// that is lower already (a Studio started with `nice`).
int background_nice();

// Asks for a short time slice for the calling thread (the UI's), keeping its priority. Linux's
// EEVDF scheduler (6.12 and later) runs a waking thread with a short slice ahead of others with
// the same claim to the CPU, so the UI thread's events (a key, a timer, a repaint) start at once
// beside busy processes, which otherwise made a repaint of 8 ms of CPU take 60 ms; its share of
// the CPU does not change. Older kernels ignore the slice. Elsewhere a no-op.
void run_responsive();

}  // namespace passlab::session
