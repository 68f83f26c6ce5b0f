// SPDX-License-Identifier: GPL-3.0-or-later
// Atomic writes: the whole new file or the old one, with a reason when it cannot be written and
// no temporary left behind.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "core/paths/atomic_file.h"

namespace passlab::paths {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class AtomicFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("passlab_atomic_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(AtomicFile, WritesAndReplacesWholeFiles) {
  const fs::path p = dir_ / "pass01.fp";
  ASSERT_TRUE(write_atomically(p, "!!ARBfp1.0\nEND\n"));
  EXPECT_EQ(read(p), "!!ARBfp1.0\nEND\n");
  const std::string bytes("a\0b", 3);  // bytes, not a C string
  ASSERT_TRUE(write_atomically(p, bytes));
  EXPECT_EQ(read(p), bytes);
  EXPECT_FALSE(fs::exists(dir_ / "pass01.fp.tmp"));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

TEST_F(AtomicFile, AFailureSaysWhyAndLeavesNothing) {
  std::string why;
  EXPECT_FALSE(write_atomically(dir_ / "missing" / "out.csv", "x", &why));
  EXPECT_EQ(why, "cannot write '" + (dir_ / "missing" / "out.csv").string() + "': No such file or directory");
  // A folder in the way of the rename: the old folder stays and the temporary is removed.
  fs::create_directories(dir_ / "taken");
  fs::create_directories(dir_ / "taken" / "inside");
  EXPECT_FALSE(write_atomically(dir_ / "taken", "x", &why));
  EXPECT_NE(why.find("cannot write '" + (dir_ / "taken").string() + "': "), std::string::npos) << why;
  EXPECT_TRUE(fs::is_directory(dir_ / "taken" / "inside"));
  EXPECT_FALSE(fs::exists(dir_ / "taken.tmp"));
  EXPECT_FALSE(write_atomically(dir_ / "taken", "x"));  // no reason wanted: still refused
}

}  // namespace
}  // namespace passlab::paths
