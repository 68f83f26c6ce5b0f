// SPDX-License-Identifier: GPL-3.0-or-later
// Where Passlab's data lives at run time: the target presets, the RPU machines, the samples and
// the files scripts/setup.sh fetched (the bunny). Found relative to the running executable, so a
// relocated install works, and overridable for tests and odd layouts.
//
// The installed layout (cmake --install, the .deb) is
//   <prefix>/bin/passlab, <prefix>/bin/passlab-cli
//   <prefix>/share/passlab/targets/*.json, rpu/*.json|*.sl, samples/…, deps/bunny/bunny.obj
// The order of the search:
//   1. $PASSLAB_DATA_DIR, a folder in that layout (targets/, rpu/, samples/, deps/);
//   2. <the executable's folder>/../share/passlab, when it holds targets/ (an install);
//   3. the build tree: the source tree's resources/ and samples/ and the build's _deps/, whose
//      paths the build compiles in. Only a binary run from its build tree gets here.
#pragma once

#include <string>

namespace passlab::paths {

struct DataDirs {
  std::string resources;  // holds targets/ and rpu/
  std::string samples;    // holds shaders/, lights/, scenes/, textures/, …
  std::string deps;       // what scripts/setup.sh fetched: bunny/bunny.obj
  std::string origin;     // "PASSLAB_DATA_DIR", "install" or "build tree": for --version and errors
};

// Searches on every call (a readlink and a stat: cheap), so a change of PASSLAB_DATA_DIR counts.
DataDirs data_dirs();

// The folder of the running executable ("" if the system cannot say).
std::string executable_dir();

}  // namespace passlab::paths
