// SPDX-License-Identifier: GPL-3.0-or-later
// Lessons: a lecturer's walk through one of Passlab's systems, step by step, that the Studio's
// Lessons panel plays forwards and backwards. A lesson is a Markdown file (samples/lessons/*.md):
//
//   # RDS on the bowling pin                      <- the title (the first line)
//   Any text: what the lesson is about.
//
//   ## The shader                                 <- a step
//   Text for the student, in Markdown.
//   @ open shaders/bowling_pin.sl                 <- actions the Studio carries out at this step
//   @ target PC5
//   ? fit max-passes=19 max-cost=503             <- a question the Studio can check
//   Text after it is the step's too (what the question asks, in words).
//
// Actions (each on its own line, "@ verb arguments"):
//   open FILE               a shader (a path under samples/, or absolute)
//   target NAME             a target preset or file (the rest of the line: "RPU (thesis example)");
//   cost SPEC               a cost model (15p+5t+i)
//   algorithm NAME          the partition the panels show (rdsh, rds, optimal, yours)
//   panel NAME              brings a panel to the front: graphs, passes, compare, preview, sampling,
//                           timeline, trace, diagnostics, target, rpu-code, rpu-render,
//                           rpu-debugger, rpu-decisions, lessons
//   tab NAME                the graphs' tab: dag, dominators, pdt, passes
//   trace N                 the trace player at event N (from 0)
//   select N...             nodes of the partitioned DAG selected everywhere
//   marking on|off          partition it yourself;  marks ALGORITHM|none   your marks replaced
//   rpu-function NAME       the RPU compiler decisions' function;  rpu-tab NAME   its tab:
//                           scheduling, allocation, forwarding, yourself
//   rpu-pixel X Y           the RPU debugger on the thread that shades pixel (X, Y)
//   rpu-step N              the debugger N steps into the program (back when N < 0)
//   optimal SECONDS         the optimal search, with that budget
//   scene NAME              the Preview's scene (a sample scene's name: transparent, plastic…)
// Questions (one per step at most, "? kind key=value..."):
//   fit [max-passes=N] [max-cost=C]   your partition (Partition it yourself) fits the target,
//                                     in at most N passes and at most cost C
//   schedule [max-cycles=N]           your order of the block (Schedule it yourself) is valid
//                                     and takes at most N cycles
//   answer expect=TEXT [tolerance=X]  the student types an answer: a number within X of TEXT,
//                                     or TEXT itself (or one of TEXT|OTHER|…), case and spaces aside
// Every mistake (an unknown verb or question, a missing argument, a step before the title) is a
// diagnostic at its line.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/lang/diagnostics.h"
#include "core/partition/partition.h"
#include "core/partition/target.h"

namespace passlab::session {

struct LessonAction {
  std::string verb;
  std::vector<std::string> args;
  std::uint32_t line = 0;
};

struct LessonQuestion {
  std::string kind;                           // "fit", "schedule", "answer"
  std::map<std::string, std::string> options;  // key=value
  std::uint32_t line = 0;
};

struct LessonStep {
  std::string title;
  std::string text;  // Markdown, the actions and question lines left out
  std::vector<LessonAction> actions;
  std::optional<LessonQuestion> question;
  std::uint32_t line = 0;
};

struct Lesson {
  std::string path;
  std::string title;
  std::string introduction;  // the text before the first step
  std::vector<LessonStep> steps;
};

std::optional<Lesson> parse_lesson(const std::string& text, const std::string& path, lang::Diagnostics* diagnostics);
std::optional<Lesson> load_lesson(const std::string& path, lang::Diagnostics* diagnostics);
// The lessons in `folder` (*.md), in name order; those that do not parse are reported and left out.
std::vector<Lesson> load_lessons(const std::string& folder, lang::Diagnostics* diagnostics);

// A checked question's verdict: right or not, and why, in words for the student.
struct Verdict {
  bool ok = false;
  std::string message;
};
// "fit": `yours` (null: the student has not partitioned) on `target`.
Verdict check_fit(const LessonQuestion& q, const partition::Partition* yours, const partition::TargetDesc& target);
// "schedule": the cycles of the student's order (nullopt: not a valid order, `problem` says why).
Verdict check_schedule(const LessonQuestion& q, std::optional<int> cycles, const std::string& problem);
// "answer": the student's text.
Verdict check_answer(const LessonQuestion& q, const std::string& answer);

}  // namespace passlab::session
