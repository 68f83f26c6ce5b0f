// SPDX-License-Identifier: GPL-3.0-or-later
// The render request both halves of `passlab-cli render` start from (render_command.cpp): the
// shader, its target and partition, the store, the image size and threads from the options.
#pragma once

#include "app/cli/commands.h"
#include "session/render_job.h"

namespace passlab::cli {

// Fills *req from the options; false (having said why on standard error) when --size or
// --fbuffer-size is malformed.
bool render_request(const CommonOptions& o, const RenderCliOptions& r, session::RenderRequest* req);

}  // namespace passlab::cli
