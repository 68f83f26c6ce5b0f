// SPDX-License-Identifier: GPL-3.0-or-later
// The nvparse checker on programs written by hand: what nvparse loads passes, and each way a
// program breaks its grammar or its checks (or the drivers') is reported at its line.
#include <gtest/gtest.h>

#include "backends/combiners/nvparse_check.h"

namespace passlab::combiners {
namespace {

// The problems as "line: message" text ("" when the program loads).
std::string check(const std::string& text, NvparseOptions o = {}) { return to_text(check_nvparse(text, o)); }

// The classic dot3 diffuse program: N from a normal map, L from col0, both expanded.
const char* kDot3 =
    "!!RC1.0\n"
    "# dot3 diffuse, lit by col1\n"
    "const0 = (0.2, 0.2, 0.2, 1);\n"
    "{\n"
    "  rgb {\n"
    "    spare0 = expand(tex0.rgb) . expand(col0.rgb);  // N . L\n"
    "    scale_by_two();\n"
    "  }\n"
    "}\n"
    "/* the final combiner: diffuse times the light's colour, plus ambient */\n"
    "final_product = spare0.rgb * col1.rgb;\n"
    "out.rgb = final_product + const0;\n"
    "out.a = unsigned_invert(zero);\n";

TEST(NvparseCheck, ProgramsNvparseLoadsPass) {
  EXPECT_EQ(check(kDot3), "");
  // A lerp of two textures by a third's alpha, a mux, per-stage constants, every mapping.
  EXPECT_EQ(check("!!RC1.0\n"
                  "const1 = (0.25, 0.25, 0.25, 1);  // what stage 1 reads: per-stage constants copy it\n"
                  "{\n"
                  "  const1 = (0.5, 0.5, 0.5, 0.5);\n"
                  "  rgb {\n"
                  "    discard = tex0.rgb * tex2.a;\n"
                  "    discard = unsigned_invert(tex2.a) * tex1.rgb;\n"
                  "    spare0 = sum();\n"
                  "  }\n"
                  "  alpha {\n"
                  "    spare1 = -expand(col0.a) * half_bias(tex0.b);\n"
                  "    discard = -half_bias(const1.a) * -tex1;\n"
                  "    spare0 = mux();\n"
                  "    bias_by_negative_one_half_scale_by_two();\n"
                  "  }\n"
                  "}\n"
                  "{ rgb { spare1 = spare0.rgb . unsigned(const1.rgb); spare0 = spare0; } }\n"
                  "out.rgb = lerp(spare0.a, spare1, col1) + unsigned(fog);\n"
                  "out.a = spare0.b;\n"),
            "");
  EXPECT_EQ(check("!!TS1.0\n"
                  "texture_2d();\n"
                  "dot_product_2d_1of2(expand(tex0));\n"
                  "dot_product_2d_2of2(expand(tex0));\n"
                  "dependent_ar(tex2);\n"),
            "");
  EXPECT_EQ(check("!!TS1.0\ntexture_2d();\noffset_2d(tex0, 0.5, 0, 0, .5);\ncull_fragment(GEQUAL_TO_ZERO, LESS_THAN_ZERO, GEQUAL_TO_ZERO, GEQUAL_TO_ZERO);\n"), "");
}

TEST(NvparseCheck, NothingMayComeBeforeTheHeaderAndAFileHoldsOneProgram) {
  EXPECT_NE(check(std::string("// a comment first\n") + kDot3).find("must begin with !!RC1.0 or !!TS1.0"), std::string::npos);
  EXPECT_NE(check(std::string(" ") + kDot3).find("must begin with"), std::string::npos);
  EXPECT_NE(check(std::string("!!TS1.0\ntexture_2d();\n\n") + kDot3).find("4: a second program (!!RC1.0): a file holds one"), std::string::npos);
}

TEST(NvparseCheck, TheScannersPitfalls) {
  // .alpha is not a portion: nvparse reads tex0.a, then a word it does not know.
  EXPECT_NE(check("!!RC1.0\n{ alpha { spare0 = tex0.alpha; } }\nout.rgb = spare0;\n").find("2: expected"), std::string::npos);
  // No exponents; a comment on the last line without its newline; a comment that never ends.
  EXPECT_NE(check("!!RC1.0\nconst0 = (1e-1, 0, 0, 0);\nout.rgb = const0;\n").find("2: expected"), std::string::npos);
  EXPECT_NE(check("!!RC1.0\nout.rgb = zero; // no newline").find("needs a newline after it"), std::string::npos);
  EXPECT_NE(check("!!RC1.0\n/* open\nout.rgb = zero;\n").find("2: a /* comment that never ends"), std::string::npos);
  EXPECT_NE(check("!!RC1.0\nout.rgb = zero; @\n").find("2: '@' is not part of nvparse's language"), std::string::npos);
}

TEST(NvparseCheck, WhatTheGrammarLacks) {
  // sum() and mux() only after two plain products: a mux fed by a dot product cannot be written.
  EXPECT_NE(check("!!RC1.0\n{ rgb {\n  discard = tex0 . tex1;\n  discard = tex2 * col0;\n  spare0 = mux();\n} }\nout.rgb = spare0;\n")
                .find("only after two products that are not dot products"),
            std::string::npos);
  EXPECT_NE(check("!!RC1.0\n{ rgb { spare0 = tex0 * tex1; spare1 = sum(); } }\nout.rgb = spare0;\n").find("only after two products"), std::string::npos);
  // The final combiner has no negation or expand(), and needs an out statement.
  EXPECT_NE(check("!!RC1.0\nout.rgb = expand(tex0);\n").find("the final combiner's inputs are unsigned"), std::string::npos);
  EXPECT_NE(check("!!RC1.0\n{ rgb { spare0 = tex0; } }\n").find("'out.rgb =' or 'out.a ='"), std::string::npos);
  EXPECT_NE(check("!!RC1.0\n{ }\nout.rgb = zero;\n").find("a stage needs a portion"), std::string::npos);
  EXPECT_NE(check("!!RC1.0\n{ rgb { out.rgb = tex0; } }\nout.rgb = zero;\n").find("a portion needs a statement"), std::string::npos);
  EXPECT_NE(check("!!RC1.0\n{ rgb { spare0 = -unsigned(tex0); } }\nout.rgb = spare0;\n").find("is not a mapping"), std::string::npos);
}

TEST(NvparseCheck, TheChecksNvparseAndTheDriversMake) {
  auto has = [](const std::string& text, const std::string& what) { return check(text).find(what) != std::string::npos; };
  EXPECT_TRUE(has("!!RC1.0\n{ rgb { const0 = tex0; } }\nout.rgb = zero;\n", "2: writing to a read-only register (const0)"));
  EXPECT_TRUE(has("!!RC1.0\n{ rgb { spare0 = discard; } }\nout.rgb = spare0;\n", "reading from discard"));
  EXPECT_TRUE(has("!!RC1.0\n{ rgb { spare0 = tex0.b; } }\nout.rgb = spare0;\n", "blue register (.b) is read in an rgb portion"));
  EXPECT_TRUE(has("!!RC1.0\n{ alpha { spare0 = tex0.rgb; } }\nout.a = spare0;\n", "rgb register is read in an alpha portion"));
  EXPECT_TRUE(has("!!RC1.0\n{ alpha { spare0 = tex0 . tex1; } }\nout.a = spare0;\n", "a dot product in an alpha portion"));
  EXPECT_TRUE(has("!!RC1.0\n{ alpha { spare0 = fog.a; } }\nout.a = spare0;\n", "fog.a is the final combiner's"));
  EXPECT_TRUE(has("!!RC1.0\n{ rgb { spare0 = tex0; spare0 = tex1; } }\nout.rgb = spare0;\n", "writing to spare0 twice"));
  EXPECT_TRUE(has("!!RC1.0\nout.rgb = lerp(color_sum, tex0, tex1);\n", "variable A) cannot be color_sum"));
  EXPECT_TRUE(has("!!RC1.0\nout.rgb = final_product;\n", "final_product is read but never set"));
  EXPECT_TRUE(has("!!RC1.0\nout.a = tex0.rgb;\n", "out.a cannot read an rgb register"));
  EXPECT_TRUE(has("!!RC1.0\nout.rgb = one;\n", "write unsigned_invert(zero) for 1"));
  EXPECT_TRUE(has("!!RC1.0\nconst0 = (0, 0, 0, 0);\nconst0 = (1, 1, 1, 1);\nout.rgb = const0;\n", "3: global constant const0 is set twice"));
  EXPECT_TRUE(has("!!RC1.0\nconst0 = (2, 0, 0, 0);\nout.rgb = const0;\n", "GL clamps constant colours to [0, 1]"));
  NvparseOptions geforce1;
  geforce1.general_combiners = 2;
  geforce1.per_stage_constants = false;
  const std::string three = "!!RC1.0\n{ rgb { spare0 = tex0; } }\n{ rgb { spare0 = spare0; } }\n{ rgb { spare0 = spare0; } }\nout.rgb = spare0;\n";
  EXPECT_EQ(check(three), "");
  EXPECT_NE(check(three, geforce1).find("4: more than 2 general combiner stages"), std::string::npos);
  EXPECT_NE(check("!!RC1.0\n{ const0 = (1, 0, 0, 1); rgb { spare0 = const0; } }\nout.rgb = spare0;\n", geforce1).find("needs NV_register_combiners2"),
            std::string::npos);
}

TEST(NvparseCheck, EveryConstantReadIsSet) {
  // Read but set nowhere: the stage would read whatever an earlier program left.
  EXPECT_NE(check("!!RC1.0\n{ rgb { spare0 = const0 * tex0; } }\nout.rgb = spare0;\n").find("stage 0 reads const0, which the program does not set"),
            std::string::npos);
  // With per-stage constants on, a stage reads its own copy: set by it, or copied from the global one.
  EXPECT_NE(check("!!RC1.0\n{ const0 = (1, 0, 0, 1); rgb { spare0 = const0; } }\n{ rgb { spare0 = const1 * spare0; } }\nout.rgb = spare0;\n")
                .find("stage 1 reads const1, which the program does not set for that stage"),
            std::string::npos);
  EXPECT_EQ(check("!!RC1.0\nconst1 = (0, 1, 0, 1);\n{ const0 = (1, 0, 0, 1); rgb { spare0 = const0; } }\n{ rgb { spare0 = const1 * spare0; } }\nout.rgb = spare0;\n"),
            "");
  // The final combiner reads the global constants only.
  EXPECT_NE(check("!!RC1.0\n{ const0 = (1, 0, 0, 1); rgb { spare0 = const0; } }\nout.rgb = const0;\n").find("the final combiner reads const0"),
            std::string::npos);
  // The fog colour is GL state: reading it is allowed (the listing says what to set).
  EXPECT_EQ(check("!!RC1.0\nout.rgb = fog;\n"), "");
}

TEST(NvparseCheck, TextureShaderGroupsAndReferences) {
  auto has = [](const std::string& text, const std::string& what) { return check(text).find(what) != std::string::npos; };
  EXPECT_TRUE(has("!!TS1.0\ndependent_ar(tex0);\n", "cannot be in unit 0"));
  EXPECT_TRUE(has("!!TS1.0\ntexture_2d();\ndot_product_2d_1of2(tex0);\ntexture_2d();\n", "needs dot_product_2d_2of2 in the unit after it"));
  EXPECT_TRUE(has("!!TS1.0\ntexture_2d();\ntexture_2d();\ndot_product_2d_2of2(tex0);\n", "needs dot_product_2d_1of2 in the unit before it"));
  EXPECT_TRUE(has("!!TS1.0\ntexture_2d();\ndot_product_2d_1of2(tex0);\ndot_product_2d_2of2(tex1);\n", "reads tex1, which is not before its group"));
  EXPECT_TRUE(has("!!TS1.0\nnop();\ndependent_gb(tex0);\n", "whose nop has no output"));
  EXPECT_TRUE(has("!!TS1.0\ntexture_2d();\ntexture_2d();\ntexture_2d();\ntexture_2d();\ndependent_ar(tex3);\n", "expected tex0, tex1 or tex2"));
  EXPECT_TRUE(has("!!TS1.0\ntexture_2d();\ndependent_ar(expand(tex0));\n", "expand() is for dot products"));
  EXPECT_TRUE(has("!!TS1.0\ntexture_4d();\n", "'texture_4d' is not a texture shader operation"));
  NvparseOptions two;
  two.texture_units = 2;
  EXPECT_NE(check("!!TS1.0\ntexture_2d();\ntexture_2d();\ntexture_2d();\n", two).find("4: more than 2 texture units"), std::string::npos);
}

}  // namespace
}  // namespace passlab::combiners
