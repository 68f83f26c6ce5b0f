// Background work in the Studio (compiles, renders) yields the CPU to the UI thread: with two
// cores shared by the UI, the display server and the work, a worker at the same priority delays
// the UI's repaints while the user types.
#pragma once

namespace passlab::pipeline {

// Lowers the calling thread's priority (nice 10) once; threads it starts inherit it. Linux takes
// a per-thread nice value (QThread priorities are ignored under SCHED_OTHER); elsewhere a no-op.
void run_in_background();

}  // namespace passlab::pipeline
