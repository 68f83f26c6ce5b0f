// Background work in the Studio (compiles, renders) yields the CPU to the UI thread: with two
// cores shared by the UI, the display server and the work, a worker at the same priority delays
// the UI's repaints while the user types.
#pragma once

namespace passlab::session {

// Lowers the calling thread's priority once: on Linux to SCHED_IDLE (it runs only when no
// ordinary thread wants the CPU, so the UI and the display server never wait for it; nice 10
// alone let renders on both cores delay a repaint by 20-30 ms now and then), and nice 10 should
// that be refused. Threads it starts inherit both. Elsewhere a no-op.
void run_in_background();

}  // namespace passlab::session
