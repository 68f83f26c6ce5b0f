// SPDX-License-Identifier: GPL-3.0-or-later
// The layering of docs/architecture.md, checked over every #include of the source tree:
//
//   core  <-  backends  <-  session  <-  editors, views  <-  app
//
// with the order of the folders inside each module, no include cycle between files (a header and
// its .cpp count as one unit) or between folders, and no Qt below editors and views. Each failure
// names the file and line of the include that breaks the rule.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace {

namespace fs = std::filesystem;

const fs::path kRoot = PASSLAB_SOURCE_DIR;

struct Include {
  std::string from;  // "core/ir/lower.cpp", relative to the root
  int line = 0;
  std::string to;    // "core/ir/lower_internal.h": a file of the tree, or the text when it is not (<QWidget>)
  bool quoted = true;
  std::string where() const { return from + ":" + std::to_string(line); }
};

const std::vector<std::string> kModules = {"core", "backends", "session", "editors", "views", "app"};

// What each module may include besides itself.
const std::map<std::string, std::set<std::string>> kModuleNeeds = {
    {"core", {}},
    {"backends", {"core"}},
    {"session", {"core", "backends"}},
    {"editors", {"core", "backends", "session"}},
    {"views", {"core", "backends", "session"}},
    {"app", {"core", "backends", "session", "editors", "views"}},
};

// What each folder may include besides itself, inside its own module ("session" alone: the
// module's own top-level files). Listed transitively: the order is the closure of these sets.
const std::map<std::string, std::set<std::string>> kFolderNeeds = {
    {"core/lang", {}},
    {"core/paths", {}},
    {"core/ir", {"core/lang", "core/paths"}},
    {"core/driver", {"core/ir", "core/lang", "core/paths"}},
    {"core/dag", {"core/ir", "core/lang"}},
    {"core/partition", {"core/dag", "core/ir", "core/lang", "core/paths"}},
    {"core/sim", {"core/ir", "core/lang", "core/paths"}},
    {"backends/target", {}},
    {"backends/fp", {"backends/target"}},
    {"backends/combiners", {"backends/target"}},
    {"backends/rpu", {"backends/target"}},
    {"backends/registry", {"backends/target", "backends/fp", "backends/combiners", "backends/rpu"}},
    {"session", {}},
    {"session/conform", {"session"}},
    {"editors", {}},
    {"views", {}},
    {"app/cli", {}},
    {"app/studio", {}},
};

std::string module_of(const std::string& path) { return path.substr(0, path.find('/')); }

// The folder a file belongs to: its module's first-level folder, or the module for its own files.
std::string folder_of(const std::string& path) {
  const std::size_t first = path.find('/');
  const std::size_t second = path.find('/', first + 1);
  return second == std::string::npos ? path.substr(0, first) : path.substr(0, second);
}

// The unit a file belongs to: a header with its .cpp; a header named X_internal.h is X's private
// part, shared by the files that implement X (core/ir/lower_internal.h belongs to core/ir/lower).
std::string unit_of(const std::string& path) {
  const std::string stem = path.substr(0, path.rfind('.'));
  const std::string internal = "_internal";
  if (stem.size() > internal.size() && stem.compare(stem.size() - internal.size(), internal.size(), internal) == 0)
    return stem.substr(0, stem.size() - internal.size());
  return stem;
}

const std::vector<Include>& includes() {
  static const std::vector<Include> all = [] {
    std::vector<Include> out;
    const std::regex quoted(R"re(^\s*#\s*include\s*"([^"]+)")re");
    const std::regex angled(R"(^\s*#\s*include\s*<([^>]+)>)");
    for (const std::string& module : kModules) {
      std::vector<fs::path> files;
      for (const auto& e : fs::recursive_directory_iterator(kRoot / module))
        if (e.is_regular_file() && (e.path().extension() == ".h" || e.path().extension() == ".cpp")) files.push_back(e.path());
      std::sort(files.begin(), files.end());
      for (const fs::path& file : files) {
        const std::string from = fs::relative(file, kRoot).generic_string();
        std::ifstream in(file);
        std::string text;
        for (int line = 1; std::getline(in, text); ++line) {
          std::smatch m;
          if (std::regex_search(text, m, quoted)) {
            std::string to = m[1];
            if (fs::exists(file.parent_path() / to) && !fs::exists(kRoot / to))  // a file beside it
              to = fs::relative(file.parent_path() / to, kRoot).generic_string();
            if (fs::exists(kRoot / to)) out.push_back({from, line, to, true});
          } else if (std::regex_search(text, m, angled)) {
            out.push_back({from, line, m[1], false});
          }
        }
      }
    }
    return out;
  }();
  return all;
}

TEST(Layering, FindsTheTreesIncludes) {
  // A check over nothing would pass: the tree has thousands of includes, among them these.
  EXPECT_GT(includes().size(), 1000u);
  const auto has = [](const std::string& from, const std::string& to) {
    return std::any_of(includes().begin(), includes().end(), [&](const Include& i) { return i.from == from && i.to == to; });
  };
  EXPECT_TRUE(has("core/ir/lower.cpp", "core/ir/lower_internal.h"));
  EXPECT_TRUE(has("session/snapshot.h", "session/messages.h"));
}

TEST(Layering, NoModuleIncludesOneAboveIt) {
  for (const Include& i : includes()) {
    if (!i.quoted) continue;
    const std::string from = module_of(i.from), to = module_of(i.to);
    if (!kModuleNeeds.count(to) || from == to) continue;
    EXPECT_TRUE(kModuleNeeds.at(from).count(to)) << i.where() << ": " << from << "/ includes " << i.to << ", a module above it";
  }
}

TEST(Layering, NoFolderIncludesOneAboveIt) {
  for (const Include& i : includes()) {
    if (!i.quoted || module_of(i.from) != module_of(i.to)) continue;
    const std::string from = folder_of(i.from), to = folder_of(i.to);
    if (from == to) continue;
    ASSERT_TRUE(kFolderNeeds.count(from)) << i.where() << ": the folder " << from << "/ has no place in the layering (tests/layering)";
    EXPECT_TRUE(kFolderNeeds.at(from).count(to)) << i.where() << ": " << from << "/ includes " << i.to << ", a folder above or beside it";
  }
}

// The strongly connected components of more than one node (Tarjan).
std::vector<std::vector<std::string>> cycles(const std::map<std::string, std::set<std::string>>& graph) {
  std::map<std::string, int> index, low;
  std::vector<std::string> stack;
  std::set<std::string> on_stack;
  std::vector<std::vector<std::string>> out;
  int next = 0;
  std::function<void(const std::string&)> visit = [&](const std::string& v) {
    index[v] = low[v] = next++;
    stack.push_back(v);
    on_stack.insert(v);
    if (auto it = graph.find(v); it != graph.end())
      for (const std::string& w : it->second) {
        if (!index.count(w)) {
          visit(w);
          low[v] = std::min(low[v], low[w]);
        } else if (on_stack.count(w)) {
          low[v] = std::min(low[v], index[w]);
        }
      }
    if (low[v] != index[v]) return;
    std::vector<std::string> component;
    std::string w;
    do {
      w = stack.back();
      stack.pop_back();
      on_stack.erase(w);
      component.push_back(w);
    } while (w != v);
    if (component.size() > 1) out.push_back(component);
  };
  for (const auto& [v, _] : graph)
    if (!index.count(v)) visit(v);
  return out;
}

std::string describe(const std::vector<std::string>& component, const std::function<std::string(const std::string&)>& key_of) {
  // The includes that make the cycle: those between two of its members.
  const std::set<std::string> members(component.begin(), component.end());
  std::string text;
  for (const Include& i : includes())
    if (i.quoted && members.count(key_of(i.from)) && members.count(key_of(i.to)) && key_of(i.from) != key_of(i.to))
      text += "\n  " + i.where() + ": includes " + i.to;
  return text;
}

TEST(Layering, CyclesAreTheComponentsOfMoreThanOneNode) {
  const auto found = cycles({{"a", {"b"}}, {"b", {"c"}}, {"c", {"a"}}, {"d", {"a"}}, {"e", {}}});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(std::set<std::string>(found[0].begin(), found[0].end()), (std::set<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(cycles({{"a", {"b"}}, {"b", {}}}).empty());
}

TEST(Layering, NoIncludeCyclesBetweenFilesOrFolders) {
  const std::vector<std::pair<const char*, std::function<std::string(const std::string&)>>> levels = {
      {"files (a header with its .cpp)", unit_of}, {"folders", folder_of}};
  for (const auto& [level, key_of] : levels) {
    std::map<std::string, std::set<std::string>> graph;
    for (const Include& i : includes())
      if (i.quoted && key_of(i.from) != key_of(i.to)) graph[key_of(i.from)].insert(key_of(i.to));
    for (const auto& component : cycles(graph)) ADD_FAILURE() << "an include cycle between " << level << ":" << describe(component, key_of);
  }
}

TEST(Layering, CoreBackendsAndSessionNeverIncludeQt) {
  const std::regex qt(R"(^Q[A-Za-z]*$|^Qt)");
  for (const Include& i : includes()) {
    const std::string module = module_of(i.from);
    if (i.quoted || (module != "core" && module != "backends" && module != "session")) continue;
    EXPECT_FALSE(std::regex_search(i.to, qt)) << i.where() << ": " << module << "/ includes <" << i.to << ">; it never includes Qt";
  }
}

}  // namespace
