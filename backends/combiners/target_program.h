// SPDX-License-Identifier: GPL-3.0-or-later
// The register combiners' entry in the backend registry (backends/registry).
#pragma once

#include "backends/target/backend.h"

namespace passlab::combiners {

backends::Backend registration();

}  // namespace passlab::combiners
