// SPDX-License-Identifier: GPL-3.0-or-later
// A compiled pass as nvparse's texture-shader (!!TS1.0) and register-combiner (!!RC1.0) programs,
// the text a GeForce programmer of 2001 would write by hand, with comments saying what each
// texture unit looks up and which source value each register holds; and as JSON.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "backends/combiners/program.h"

namespace passlab::combiners {

struct ListingContext {
  const dag::FragmentDag* dag = nullptr;  // names interpolants and textures in comments (optional)
  int pass_index = 0, pass_count = 1;
};

// A pass's programs as nvparse() loads them, one per file: !!TS1.0 (extension "ts"; GeForce3,
// when the pass uses texture shaders), then !!RC1.0 ("rc"). Each begins with its header, which is
// what nvparse dispatches on, and passes check_nvparse (nvparse_check.h).
struct ListingFile {
  std::string extension;
  std::string text;
};
std::vector<ListingFile> listing_files(const Program& p, const Machine& m, const ListingContext& ctx = {});
// Both, one after the other (what the Studio and the command line show).
std::string listing(const Program& p, const Machine& m, const ListingContext& ctx = {});
std::string rc_program(const Program& p, const Machine& m, const ListingContext& ctx = {});
std::string ts_program(const Program& p, const Machine& m, const ListingContext& ctx = {});

// The program's state, keys in a fixed order (deterministic).
nlohmann::ordered_json to_json(const Program& p, const Machine& m);

// "expand(tex0.rgb)": a variable as nvparse writes it.
std::string rc_variable(const Variable& v, const Machine& m, bool rgb_portion);
// A final combiner variable: "spare0.rgb", "unsigned_invert(zero)".
std::string rc_final_variable(const Variable& v, const Machine& m, bool rgb);
// The final combiner's RGB in nvparse's form: "spare0.rgb", "tex1 * spare0 + final_product",
// "lerp(tex2.a, tex0, tex1)"; and its E x F: "col0 * const0".
std::string rc_final_rgb(const FinalCombiner& f, const Machine& m);
std::string rc_final_product(const FinalCombiner& f, const Machine& m);
// "texture_2d pinnormals": what a texture unit does, in a few words.
std::string unit_summary(const TextureUnit& u);

}  // namespace passlab::combiners
