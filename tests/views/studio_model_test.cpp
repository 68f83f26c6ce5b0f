// SPDX-License-Identifier: GPL-3.0-or-later
// The Studio model hands each result to the panels that observe it: those on screen first, a
// panel's pieces in turn, each kind of result to the panels of its kind, a newer result in place of
// one half delivered; the partition shown follows the algorithm and the optimal search's run.
#include "views/studio_model.h"

#include <QCoreApplication>
#include <QThreadPool>

#include <gtest/gtest.h>

#include "backends/rpu/registration.h"
#include "views/work_pool.h"

namespace passlab::views {
namespace {

using Takes = ResultObserver::Takes;

class StudioModelTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    static int argc = 1;
    static char name[] = "studio_model_tests";
    static char* argv[] = {name, nullptr};
    if (!QCoreApplication::instance()) new QCoreApplication(argc, argv);
  }

  static ResultPtr result(std::uint64_t generation, bool rpu = false) {
    auto s = std::make_shared<session::Snapshot>();
    s->generation = generation;
    if (rpu) s->request.target = rpu::target("RPU", "rpu");
    for (const char* a : {"rdsh", "rds"}) {
      session::AlgorithmRun run;
      run.algorithm = a;
      s->runs.push_back(std::move(run));
    }
    auto r = std::make_shared<StudioResult>();
    r->snapshot = std::move(s);
    return r;
  }

  // Runs the event loop until the model says a result was shown; its generation (0: none came).
  static quint64 wait_shown(StudioModel& m) {
    quint64 shown = 0;
    auto c = QObject::connect(&m, &StudioModel::result_shown, [&](quint64 g) { shown = g; });
    for (int i = 0; i < 1000 && shown == 0; ++i) QCoreApplication::processEvents();
    QObject::disconnect(c);
    return shown;
  }
};

TEST_F(StudioModelTest, PanelsOnScreenTakeTheResultFirstThenTheOthersInTheirOrder) {
  StudioModel m;
  std::vector<std::string> log;
  bool b_on_screen = false;
  auto take = [&](const char* name) {
    return [&log, name](const ResultPtr& r, int piece) {
      log.push_back(std::string(name) + ":" + std::to_string(r->snapshot->generation) + "." + std::to_string(piece));
      return false;
    };
  };
  m.observe_result("a", Takes::Dataflow, take("a"));
  m.observe_result("b", Takes::Dataflow, take("b"), [&] { return b_on_screen; });
  // A panel that shows a result in three pieces.
  m.observe_result("pieces", Takes::Dataflow, [&](const ResultPtr&, int piece) {
    log.push_back("pieces." + std::to_string(piece));
    return piece < 2;
  });
  m.observe_result("c", Takes::Dataflow, take("c"));

  m.show_result(result(1));
  EXPECT_TRUE(log.empty()) << "panels take a result on later turns of the event loop, not inside show_result";
  EXPECT_EQ(wait_shown(m), 1u);
  EXPECT_EQ(log, (std::vector<std::string>{"a:1.0", "b:1.0", "pieces.0", "pieces.1", "pieces.2", "c:1.0"}));

  log.clear();
  b_on_screen = true;
  m.show_result(result(2));
  EXPECT_EQ(wait_shown(m), 2u);
  EXPECT_EQ(log, (std::vector<std::string>{"b:2.0", "a:2.0", "pieces.0", "pieces.1", "pieces.2", "c:2.0"}));
  // The latency figures name each panel once, its pieces added up.
  ASSERT_EQ(m.take_ms().size(), 4u);
  EXPECT_EQ(m.take_ms()[0].first, "b");
  EXPECT_EQ(m.take_ms()[2].first, "pieces");
}

TEST_F(StudioModelTest, EachKindOfResultGoesToThePanelsOfItsKind) {
  StudioModel m;
  std::vector<std::string> log;
  for (auto [name, kind] : {std::pair{"fragment", Takes::Dataflow}, {"rpu", Takes::WholeProgram}, {"both", Takes::Both}})
    m.observe_result(name, kind, [&log, name = std::string(name)](const ResultPtr&, int) {
      log.push_back(name);
      return false;
    });
  m.show_result(result(1));
  EXPECT_EQ(wait_shown(m), 1u);
  EXPECT_EQ(log, (std::vector<std::string>{"fragment", "both"}));
  log.clear();
  m.show_result(result(2, true));
  EXPECT_EQ(wait_shown(m), 2u);
  EXPECT_EQ(log, (std::vector<std::string>{"rpu", "both"}));
}

TEST_F(StudioModelTest, ANewerResultReplacesOneHalfDeliveredAndTheOldOnesAreFreed) {
  StudioModel m;
  std::vector<std::string> log;
  ResultPtr newer = result(2);
  // The first panel shows its result in pieces; while it does, a newer result comes.
  m.observe_result("slow", Takes::Dataflow, [&](const ResultPtr& r, int piece) {
    log.push_back("slow:" + std::to_string(r->snapshot->generation) + "." + std::to_string(piece));
    if (r->snapshot->generation == 1 && piece == 0) m.show_result(newer);
    return false;
  });
  m.observe_result("after", Takes::Dataflow, [&](const ResultPtr& r, int) {
    log.push_back("after:" + std::to_string(r->snapshot->generation));
    return false;
  });
  std::weak_ptr<const StudioResult> first;
  {
    ResultPtr r = result(1);
    first = r;
    m.show_result(std::move(r));
  }
  EXPECT_EQ(wait_shown(m), 2u) << "only the newer result is reported shown";
  EXPECT_EQ(log, (std::vector<std::string>{"slow:1.0", "slow:2.0", "after:2"}));
  EXPECT_EQ(m.result()->snapshot->generation, 2u);
  work_pool().waitForDone();
  EXPECT_TRUE(first.expired()) << "the replaced result is freed once no panel can show it";
}

TEST_F(StudioModelTest, ThePartitionShownFollowsTheAlgorithmAndTheOptimalSearch) {
  StudioModel m;
  std::vector<const session::AlgorithmRun*> changes;
  QObject::connect(&m, &StudioModel::run_changed, [&](const session::AlgorithmRun* r) { changes.push_back(r); });
  m.set_algorithm("rds");
  EXPECT_EQ(m.run(), nullptr) << "no result yet";
  // A panel that takes the result records which run it was given with it.
  const session::AlgorithmRun* given = nullptr;
  m.observe_result("graph", Takes::Dataflow, [&](const ResultPtr&, int) {
    given = m.run();
    return false;
  });
  m.show_result(result(1));
  ASSERT_EQ(wait_shown(m), 1u);
  ASSERT_NE(given, nullptr);
  EXPECT_EQ(given->algorithm, "rds");
  EXPECT_EQ(given, m.result()->snapshot->run("rds"));

  // An optimal run does not change what is shown until the optimal algorithm is chosen.
  auto optimal = std::make_shared<session::AlgorithmRun>();
  optimal->algorithm = "optimal";
  changes.clear();
  m.set_optimal_run(optimal);
  EXPECT_TRUE(changes.empty());
  m.set_algorithm("optimal");
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes.back(), optimal.get());
  // A new result drops the old result's optimal run.
  m.show_result(result(2));
  EXPECT_EQ(m.run(), nullptr);
  EXPECT_EQ(m.optimal_run(), nullptr);
}

TEST_F(StudioModelTest, ChoosingAnAlgorithmMidDeliveryFinishesItFirst) {
  StudioModel m;
  m.set_algorithm("rdsh");
  std::vector<std::uint64_t> taken;
  for (int i = 0; i < 3; ++i)
    m.observe_result(QString("panel %1").arg(i), Takes::Dataflow, [&](const ResultPtr& r, int) {
      taken.push_back(r->snapshot->generation);
      return false;
    });
  m.show_result(result(7));
  ASSERT_TRUE(m.delivering());
  std::size_t taken_when_changed = 0;
  QObject::connect(&m, &StudioModel::run_changed, [&] { taken_when_changed = taken.size(); });
  m.set_algorithm("rds");
  EXPECT_EQ(taken_when_changed, 3u) << "every panel holds the result the new run belongs to";
  EXPECT_FALSE(m.delivering());
}

}  // namespace
}  // namespace passlab::views
