// Background work in the Studio (compiles, renders) runs below the UI thread's priority but never
// without CPU: with two cores shared by the UI, the display server, the work and whatever else
// the machine does (a build beside the Studio), the UI must keep painting and the work must go on.
#pragma once

namespace passlab::session {

// Lowers the calling thread's priority once (threads it starts inherit it). On Linux:
// SCHED_BATCH, so that a worker waking up never preempts the UI thread, and nice 3, a CFS weight
// of about half the UI's. Under load the work slows down in proportion to what the other
// processes take, no more. (It used to be SCHED_IDLE, which gets no CPU at all while any other
// process wants it: beside two busy processes the Studio showed "Compiling…" for seconds, and the
// UI stalled whenever it waited on the work.) Elsewhere a no-op.
void run_in_background();

}  // namespace passlab::session
