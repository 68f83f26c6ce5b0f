// The IR's text form: deterministic, one instruction per line, with source lines.
#pragma once

#include <string>

#include "core/ir/ir.h"

namespace passlab::ir {

std::string print(const Function& fn);
std::string print(const Module& m);

}  // namespace passlab::ir
