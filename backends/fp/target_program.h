// SPDX-License-Identifier: GPL-3.0-or-later
// The fp pipeline's entry in the backend registry (backends/registry).
#pragma once

#include "backends/target/backend.h"

namespace passlab::fp {

backends::Backend registration();

}  // namespace passlab::fp
