// SPDX-License-Identifier: GPL-3.0-or-later
// Where the data is found: PASSLAB_DATA_DIR in the installed layout, else (no share/passlab beside
// the test binary) the build tree's folders. The installed case, share/passlab beside bin/, is
// tested on the real package by scripts/package.sh.
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "core/paths/data_dir.h"

namespace passlab::paths {
namespace {

namespace fs = std::filesystem;

class DataDir : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const char* env = std::getenv("PASSLAB_DATA_DIR")) saved_ = env;
    ::unsetenv("PASSLAB_DATA_DIR");
  }
  void TearDown() override {
    if (saved_) ::setenv("PASSLAB_DATA_DIR", saved_->c_str(), 1);
    else ::unsetenv("PASSLAB_DATA_DIR");
  }
  std::optional<std::string> saved_;
};

TEST_F(DataDir, TheEnvironmentNamesAFolderInTheInstalledLayout) {
  ::setenv("PASSLAB_DATA_DIR", "/opt/passlab-data", 1);
  const DataDirs d = data_dirs();
  EXPECT_EQ(d.resources, "/opt/passlab-data");
  EXPECT_EQ(d.samples, "/opt/passlab-data/samples");
  EXPECT_EQ(d.deps, "/opt/passlab-data/deps");
  EXPECT_EQ(d.origin, "PASSLAB_DATA_DIR");
}

TEST_F(DataDir, FromTheBuildTreeTheSourceFoldersAreUsed) {
  const DataDirs d = data_dirs();
  EXPECT_EQ(d.origin, "build tree");
  EXPECT_TRUE(fs::is_regular_file(fs::path(d.resources) / "targets" / "PC5.json")) << d.resources;
  EXPECT_TRUE(fs::is_regular_file(fs::path(d.resources) / "rpu" / "rpu.json")) << d.resources;
  EXPECT_TRUE(fs::is_regular_file(fs::path(d.samples) / "shaders" / "wood.sl")) << d.samples;
}

TEST_F(DataDir, TheExecutableFolderIsThisTestsFolder) {
  EXPECT_EQ(fs::path(executable_dir()), fs::canonical("/proc/self/exe").parent_path());
}

}  // namespace
}  // namespace passlab::paths
