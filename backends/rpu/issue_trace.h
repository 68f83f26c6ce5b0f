// SPDX-License-Identifier: GPL-3.0-or-later
// What one chunk issued, word by word, with the dependences between its words: the VM records it
// (Vm::set_issue_trace; one trace per chunk, cleared between chunks) and the machine model (machine_model.h) replays it on a core that holds
// many chunks in flight. A chunk's words and their results do not depend on timing, so running
// each chunk alone and timing them together afterwards gives the same cycles as an interleaved
// simulation would.
#pragma once

#include <cstdint>
#include <vector>

namespace passlab::rpu {

// What a word waits for when it waits on an earlier word's result.
enum class WaitCause : std::uint8_t { Arithmetic, Memory, Trace };

struct IssueTrace {
  // The word reads a result of word `word` (an earlier word of the same chunk), readable
  // `latency` cycles after that word issued; a trace result is readable when the trace unit has
  // answered every ray of the word (latency is then not used).
  struct Dep {
    std::uint32_t word = 0;
    std::uint16_t latency = 0;
    WaitCause cause = WaitCause::Arithmetic;
  };
  // The BVH work of one ray, for the trace unit's time.
  struct Ray {
    std::uint32_t boxes = 0, triangles = 0;
  };
  struct Word {
    std::uint32_t first_dep = 0;  // into deps
    std::uint32_t first_ray = 0;  // into rays
    std::uint8_t dep_count = 0;
    std::uint8_t rays = 0;        // rays this word cast (a trace: one per active lane)
    std::uint8_t lanes = 0;       // active lanes
  };
  std::vector<Word> words;
  std::vector<Dep> deps;
  std::vector<Ray> rays;
  std::uint64_t vm_cycles = 0;  // the chunk's cycles alone on the VM (its own timing model)

  void clear() {
    words.clear();
    deps.clear();
    rays.clear();
    vm_cycles = 0;
  }
};

}  // namespace passlab::rpu
