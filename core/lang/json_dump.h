// SPDX-License-Identifier: GPL-3.0-or-later
// JSON text of values that may hold strings from a shader's source (texture names, messages,
// program text), which need not be UTF-8: an invalid byte becomes U+FFFD instead of an exception
// (nlohmann's dump throws type_error 316; the combiner fuzzer found it with a texture name).
#pragma once

#include <string>

namespace passlab::lang {

template <class Json>
std::string dump_json(const Json& j, int indent = -1) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace passlab::lang
