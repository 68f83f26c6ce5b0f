// SPDX-License-Identifier: GPL-3.0-or-later
// Subdivide and greedy merging: the machinery RDSh and RDS share (sections 3.2 and 3.4).
//
// Subdivide(T) asks whether everything under T (its subregion) fits in one pass. If not, it
// recurses into T's children in the partial dominator tree, in DAG postorder so that an operand's
// region is settled before its users', and after each MR child decides whether that child's
// subregion is saved (the child is marked: it heads a pass and is restored where used) or
// recomputed (left unmarked: copied into every pass that uses it). Then it merges greedily,
// bottom up over T's subregion: each node takes as many of its children's subregions as still
// fit in one pass with it (trying the largest subsets first, MERGE breaking ties), and the
// children left out are marked. The minimum-resource assumption makes "the node alone, with its
// operands restored" always fit, so merging always ends.
//
// Decisions this implementation fixes where the paper is silent: a node counts as MR when it has
// two or more distinct parents (x*x is one parent); a fixed SAVE node is marked before Subdivide
// starts; greedy merging runs only when T's subregion did not fit (line 9 inside the `if`: when
// it fits, T's whole subregion is one pass already, and with a monotone VALID merging would
// rebuild exactly that; this reading saves a VALID per node on generous targets); a fixed RECOMPUTE node is still marked when no merge
// including it fits (validity wins); subsets of equal size are tried in lexicographic order of
// the operands they keep.
#include "core/partition/subdivide.h"

#include <algorithm>


namespace passlab::partition {

namespace {

// The number of set bits (operand subsets are small; __builtin_popcount is a library call
// without -mpopcnt).
std::size_t bits(unsigned s) {
  std::size_t n = 0;
  for (; s != 0; s &= s - 1) ++n;
  return n;
}

}  // namespace

Subdivider::Subdivider(const Problem& p, MemoBackend& backend, TraceSink* trace) : p_(p), backend_(backend), trace_(trace) {
  dom_ = dag::dominators(p.graph);
  mr_ = dag::multiply_referenced(p.graph, p.is_op);
  pdt_ = dag::partial_dominator_tree(p.graph, dom_, mr_);
}

const Check& Subdivider::check(NodeId root, const std::vector<NodeId>& members) {
  ++valid_calls_;
  // The pseudo-root of a shader with several outputs fits, at no cost, when every output is saved.
  if (p_.pseudo_root && root == p_.graph.root) {
    pseudo_ = Check{};
    pseudo_.ok = members.size() == 1;
    if (!pseudo_.ok) pseudo_.failure = "outputs: each output of the shader is written by a pass";
  }
  const Check& c = p_.pseudo_root && root == p_.graph.root ? pseudo_ : backend_.answer(root, members);
  if (trace_ && trace_->enabled()) {
    TraceEvent e;
    e.kind = EventKind::ValidCheck;
    e.ok = c.ok;
    e.resources = c.resources;
    e.why = c.ok ? Why::Fits : Why::DoesNotFit;
    trace_->record_region(e, root, members, c.ok ? std::string_view() : std::string_view(c.failure), &c);
  }
  return c;
}

void Subdivider::note(EventKind kind, Why why, NodeId n, bool ok, const Resources& r, NodeId user) {
  if (!trace_ || !trace_->enabled()) return;
  TraceEvent e;
  e.kind = kind;
  e.why = why;
  e.ok = ok;
  e.resources = r;
  e.user = user;
  trace_->record(e, {&n, 1});
}

void Subdivider::mark(NodeId n, Why why, NodeId user) {
  if (marked_[n]) return;
  marked_[n] = 1;
  ++marks_;
  note(EventKind::Mark, why, n, true, {}, user);
}

const std::vector<NodeId>& Subdivider::region(NodeId n) {
  if (scratch_.size() != marked_.size()) scratch_.assign(marked_.size(), 0);
  subregion(p_, n, marked_, scratch_, members_);
  return members_;
}

std::vector<char> Subdivider::run(const std::vector<Fixed>& fixed) {
  fixed_ = &fixed;
  ++runs_;
  marked_.assign(p_.graph.children.size(), 0);
  for (NodeId n = 0; n < fixed.size(); ++n)
    if (fixed[n] == Fixed::Save) mark(n, Why::FixedSave);
  subdivide(pdt_.root);
  mark(p_.graph.root, Why::OutputLastPass);
  if (p_.pseudo_root)
    for (NodeId o : p_.graph.children[p_.graph.root]) mark(o, Why::OutputLastPass);
  return marked_;
}

std::vector<char> Subdivider::repaired(std::vector<char> marks) {
  marked_ = std::move(marks);
  repair();
  return marked_;
}

// A pass merged early can outgrow the target when later merges mark nodes inside it: an operand
// another user left out becomes one more value this pass restores (a generated shader's pass
// came to restore 7 values on a 6-texture Radeon 8500). Each pass that no longer fits merges
// again, leaving operands out until it fits, and the passes that makes are checked in turn. Every
// round marks a node or ends, so it terminates; no pass of the paper's shaders needs it. RDS's
// trials stay as the paper has them (one that does not fit costs infinity and steers the search
// as before); RDSh's partition, which is also RDS's first, is repaired.
void Subdivider::repair() {
  for (bool again = true; again;) {
    again = false;
    for (NodeId n = 0; n < marked_.size(); ++n) {
      if (!marked_[n] || !p_.is_op[n] || check(n, region(n)).ok) continue;
      note(EventKind::Visit, Why::Repair, n, false);
      const long before = marks_;
      merge_node(n);
      again = again || marks_ != before;
    }
  }
}

void Subdivider::subdivide(NodeId t) {
  ++subdivide_calls_;
  note(EventKind::Visit, Why::Subdivide, t, true);
  if (!check(t, region(t)).ok) {
    for (NodeId k : pdt_.children[t]) {
      subdivide(k);
      if (!mr_[k]) continue;
      Fixed f = fixed_ && k < fixed_->size() ? (*fixed_)[k] : Fixed::None;
      bool save;
      Why why;
      Resources r;
      if (f == Fixed::Save) {
        save = true;
        why = Why::FixedSave;
      } else if (f == Fixed::Recompute) {
        save = false;
        why = Why::FixedRecompute;
      } else {
        const Check& own = check(k, region(k));
        r = own.resources;
        save = !own.ok || !backend_.recompute(own.resources);
        why = save ? Why::SaveHalf : Why::RecomputeBelowHalf;
      }
      note(EventKind::SaveRecompute, why, k, save, r);
      if (save) mark(k, why);
      else marked_[k] = 0;
    }
    merge_region(t);
  }
}

void Subdivider::merge_region(NodeId t) {
  nodes_ = region(t);
  for (NodeId n : nodes_) merge_node(n);
}

void Subdivider::merge_node(NodeId n) {
  if (p_.pseudo_root && n == p_.graph.root) {  // it fits only with every output saved: no subsets to try
    for (NodeId c : p_.graph.children[n])
      if (p_.is_op[c]) mark(c, Why::CannotJoinUser, n);
    return;
  }
  std::vector<NodeId>& kids = kids_;
  kids.clear();
  for (NodeId c : p_.graph.children[n])
    if (p_.is_op[c] && !marked_[c] && std::find(kids.begin(), kids.end(), c) == kids.end()) kids.push_back(c);
  if (kids.empty()) return;
  const std::size_t k = kids.size();
  std::vector<unsigned>& subsets = subsets_;
  std::vector<Resources>& fits = fits_;
  for (std::size_t d = k + 1; d-- > 0;) {
    subsets.clear();
    fits.clear();
    // Subsets of size d in lexicographic order of kept operands (bit i = kids[i] kept).
    for (unsigned s = (1u << k); s-- > 0;) {
      if (bits(s) != d) continue;
      // Try the subset with the left-out operands marked, then take the marks back.
      for (std::size_t i = 0; i < k; ++i)
        if (!(s >> i & 1u)) marked_[kids[i]] = 1;
      const Check& c = check(n, region(n));
      for (std::size_t i = 0; i < k; ++i)
        if (!(s >> i & 1u)) marked_[kids[i]] = 0;
      if (c.ok) {
        subsets.push_back(s);
        fits.push_back(c.resources);
      }
    }
    if (fits.empty()) continue;
    std::size_t pick = fits.size() == 1 ? 0 : backend_.merge(fits);
    unsigned chosen = subsets[pick];
    if (trace_ && trace_->enabled()) {
      TraceEvent e;
      e.kind = EventKind::MergeChoice;
      trace_nodes_.clear();
      trace_nodes_.push_back(n);
      for (std::size_t i = 0; i < k; ++i)  // the kept operands, then the ones left out
        if (chosen >> i & 1u) trace_nodes_.push_back(kids[i]);
      e.kept = static_cast<std::uint32_t>(trace_nodes_.size() - 1);
      for (std::size_t i = 0; i < k; ++i)
        if (!(chosen >> i & 1u)) trace_nodes_.push_back(kids[i]);
      e.ok = true;
      e.resources = fits[pick];
      e.why = Why::Merge;
      e.candidates = static_cast<std::uint32_t>(fits.size());
      trace_->record(e, trace_nodes_);
    }
    for (std::size_t i = 0; i < k; ++i)
      if (!(chosen >> i & 1u)) mark(kids[i], Why::CannotJoinUser, n);
    return;
  }
  // Not even the node alone fits: the target breaks the minimum-resource assumption. Mark the
  // operands anyway; the validator will report the pass that does not fit.
  for (NodeId c : kids) mark(c, Why::AloneDoesNotFit, n);
}

}  // namespace passlab::partition
