// SPDX-License-Identifier: GPL-3.0-or-later
// Subdivide and greedy merging: the machinery RDSh and RDS share (sections 3.2 and 3.4).
#pragma once

#include <vector>

#include "core/dag/dominators.h"
#include "core/partition/memo.h"
#include "core/partition/partition.h"

namespace passlab::partition {

// What RDS has fixed for an MR node; None leaves the decision to the RECOMPUTE heuristic.
enum class Fixed : std::uint8_t { None, Save, Recompute };

class Subdivider {
 public:
  // Asks VALID through a memo (RDS's trials repeat most questions) and reads its answers in place.
  Subdivider(const Problem& p, MemoBackend& backend, TraceSink* trace);

  // One full Subdivide from the PDT root with the given fixings; returns the marks (root marked).
  std::vector<char> run(const std::vector<Fixed>& fixed);
  // The marks with every pass that does not fit merged again until it does (see repair()).
  std::vector<char> repaired(std::vector<char> marks);

  const std::vector<char>& mr() const { return mr_; }
  const dag::PartialDominatorTree& pdt() const { return pdt_; }
  long subdivide_calls() const { return subdivide_calls_; }  // recursive Subdivide visits
  long runs() const { return runs_; }                        // top-level Subdivides (RDS: 2k + 1)
  long valid_calls() const { return valid_calls_; }

 private:
  void subdivide(NodeId t);
  void merge_region(NodeId t);
  void merge_node(NodeId n);
  void repair();
  // VALID's answer, by reference: valid until the next question.
  const Check& check(NodeId root, const std::vector<NodeId>& members);
  void mark(NodeId n, Why why, NodeId user = 0);
  // Records an event about one node when a trace is on.
  void note(EventKind kind, Why why, NodeId n, bool ok, const Resources& r = {}, NodeId user = 0);

  const Problem& p_;
  MemoBackend& backend_;
  TraceSink* trace_;
  dag::DominatorTree dom_;
  std::vector<char> mr_;
  dag::PartialDominatorTree pdt_;
  std::vector<char> marked_;
  std::vector<char> scratch_;
  std::vector<NodeId> members_;
  std::vector<NodeId> trace_nodes_;  // the nodes of the event being recorded, reused: no allocation per event
  std::vector<NodeId> nodes_;        // merge_region()'s copy of the region it walks
  // merge_node()'s scratch: the node's unmarked operations, and the subsets of one size that fit.
  std::vector<NodeId> kids_;
  std::vector<unsigned> subsets_;
  std::vector<Resources> fits_;
  const std::vector<NodeId>& region(NodeId n);  // subregion(n) under the current marks, reused buffer
  const std::vector<Fixed>* fixed_ = nullptr;
  Check pseudo_;  // check()'s answer for a pseudo-root (Problem::pseudo_root)
  long subdivide_calls_ = 0;
  long runs_ = 0;
  long valid_calls_ = 0;
  long marks_ = 0;  // nodes mark() has marked, over all runs
};

}  // namespace passlab::partition
