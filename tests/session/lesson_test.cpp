// SPDX-License-Identifier: GPL-3.0-or-later
// Lessons: the Markdown form read into steps, actions and questions; mistakes located by line;
// the questions' verdicts; and every lesson in samples/lessons reads.
#include "session/lesson.h"

#include <gtest/gtest.h>

#include "tests/support/samples.h"

namespace passlab::session {
namespace {

TEST(Lesson, ReadsStepsActionsAndQuestions) {
  const std::string text =
      "# A lesson\nWhat it is about.\n\n## First\nSome *text*.\n@ open shaders/plastic.sl\n@ target RPU (thesis example)\n"
      "? answer expect=42 tolerance=0.5\nHow much?\n## Second\n@ select n3 4\n? fit max-passes=3\n";
  lang::Diagnostics d;
  const auto l = parse_lesson(text, "a.md", &d);
  ASSERT_TRUE(l) << d.text();
  EXPECT_EQ(l->title, "A lesson");
  EXPECT_NE(l->introduction.find("What it is about."), std::string::npos);
  ASSERT_EQ(l->steps.size(), 2u);
  const LessonStep& s = l->steps[0];
  EXPECT_EQ(s.title, "First");
  EXPECT_NE(s.text.find("Some *text*."), std::string::npos);
  EXPECT_NE(s.text.find("How much?"), std::string::npos);
  EXPECT_EQ(s.text.find("@ open"), std::string::npos);  // actions are not text
  ASSERT_EQ(s.actions.size(), 2u);
  EXPECT_EQ(s.actions[0].verb, "open");
  EXPECT_EQ(s.actions[0].line, 6u);
  EXPECT_EQ(s.actions[1].args, (std::vector<std::string>{"RPU", "(thesis", "example)"}));
  ASSERT_TRUE(s.question);
  EXPECT_EQ(s.question->kind, "answer");
  EXPECT_EQ(s.question->options.at("expect"), "42");
  EXPECT_EQ(l->steps[1].actions[0].args.size(), 2u);
  EXPECT_EQ(l->steps[1].question->options.at("max-passes"), "3");
}

TEST(Lesson, AMistakeIsReportedAtItsLine) {
  const auto error_at = [](const std::string& text) -> std::pair<std::uint32_t, std::string> {
    lang::Diagnostics d;
    EXPECT_FALSE(parse_lesson(text, "bad.md", &d));
    if (d.items().empty()) return {0, ""};
    return {d.items().front().span.line, d.items().front().message};
  };
  EXPECT_EQ(error_at("# T\n## S\n@ fly away\n").first, 3u);
  EXPECT_NE(error_at("# T\n## S\n@ fly away\n").second.find("unknown action \"fly\""), std::string::npos);
  EXPECT_NE(error_at("# T\n## S\n@ target\n").second.find("\"target\" takes at least 1 argument"), std::string::npos);
  EXPECT_NE(error_at("# T\n## S\n? guess\n").second.find("unknown question"), std::string::npos);
  EXPECT_NE(error_at("# T\n## S\n? fit passes=3\n").second.find("key=value"), std::string::npos);
  EXPECT_NE(error_at("# T\n## S\n? fit max-passes=three\n").second.find("must be a whole number"), std::string::npos);
  EXPECT_NE(error_at("# T\n## S\n? schedule max-cycles=.5\n").second.find("must be a whole number"), std::string::npos);
  EXPECT_NE(error_at("# T\n## S\n? fit max-passes=99999999999\n").second.find("from 0 to 10^9"), std::string::npos);
  EXPECT_NE(error_at("# T\n## S\n? answer expect=1 tolerance=-1\n").second.find("must be a number"), std::string::npos);
  EXPECT_NE(error_at("# T\n## S\n? answer\n").second.find("needs expect="), std::string::npos);
  EXPECT_NE(error_at("# T\n## S\n? answer expect=1\n? answer expect=2\n").second.find("one question at most"), std::string::npos);
  EXPECT_EQ(error_at("# T\n@ open x.sl\n## S\n").first, 2u);  // an action before any step
  EXPECT_NE(error_at("no title\n## S\n").second.find("begins with its title"), std::string::npos);
  EXPECT_NE(error_at("# T\nno steps\n").second.find("at least one step"), std::string::npos);
}

TEST(Lesson, QuestionsAreChecked) {
  LessonQuestion fit{"fit", {{"max-passes", "2"}, {"max-cost", "40"}}, 1};
  partition::TargetDesc pc5;
  pc5.name = "PC5";
  partition::Partition p;
  p.passes.resize(1);
  p.passes[0].failure = "operations: 9 > 6";
  EXPECT_FALSE(check_fit(fit, nullptr, pc5).ok);
  const Verdict unfit = check_fit(fit, &p, pc5);
  EXPECT_FALSE(unfit.ok);
  EXPECT_NE(unfit.message.find("pass 1 does not fit PC5 (operations: 9 > 6)"), std::string::npos);  // names the limit
  p.passes.assign(3, {});
  p.valid = true;
  p.cost = 35;
  EXPECT_NE(check_fit(fit, &p, pc5).message.find("in 3 passes"), std::string::npos);
  p.passes.resize(2);
  p.cost = 41;
  EXPECT_NE(check_fit(fit, &p, pc5).message.find("at cost 41.00"), std::string::npos);
  p.cost = 40;
  EXPECT_TRUE(check_fit(fit, &p, pc5).ok);

  LessonQuestion sched{"schedule", {{"max-cycles", "11"}}, 1};
  EXPECT_TRUE(check_schedule(sched, 11, "").ok);
  EXPECT_FALSE(check_schedule(sched, 12, "").ok);
  EXPECT_NE(check_schedule(sched, std::nullopt, "3 before 1").message.find("3 before 1"), std::string::npos);

  LessonQuestion number{"answer", {{"expect", "64"}}, 1};
  EXPECT_TRUE(check_answer(number, " 64 ").ok);
  EXPECT_FALSE(check_answer(number, "128").ok);
  EXPECT_FALSE(check_answer(number, "sixty-four").ok);
  LessonQuestion close{"answer", {{"expect", "2.35"}, {"tolerance", "0.01"}}, 1};
  EXPECT_TRUE(check_answer(close, "2.36").ok);
  EXPECT_FALSE(check_answer(close, "2.4").ok);
  LessonQuestion words{"answer", {{"expect", "F-buffer|fbuffer"}}, 1};
  EXPECT_TRUE(check_answer(words, "f-Buffer").ok);
  EXPECT_TRUE(check_answer(words, "FBuffer").ok);
  EXPECT_FALSE(check_answer(words, "render to texture").ok);
}

TEST(Lesson, EverySampleLessonReads) {
  lang::Diagnostics d;
  const auto lessons = load_lessons(test::sample_path("lessons"), &d);
  EXPECT_TRUE(d.empty()) << d.text();
  ASSERT_EQ(lessons.size(), 5u);  // one per system
  for (const auto& l : lessons) {
    EXPECT_FALSE(l.title.empty());
    EXPECT_GE(l.steps.size(), 3u) << l.path;
  }
}

}  // namespace
}  // namespace passlab::session
