// SPDX-License-Identifier: GPL-3.0-or-later
// The IR's text form: deterministic, one instruction per line, with source lines.
#pragma once

#include <string>
#include <vector>

#include "core/ir/ir.h"

namespace passlab::ir {

// With `spans`, one span per line printed: the source an instruction came from, or an empty
// span for headers and labels.
std::string print(const Function& fn, std::vector<lang::Span>* spans = nullptr);
std::string print(const Module& m, std::vector<lang::Span>* spans = nullptr);

}  // namespace passlab::ir
