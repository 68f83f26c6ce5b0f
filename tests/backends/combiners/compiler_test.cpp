// SPDX-License-Identifier: GPL-3.0-or-later
// The register-combiner compiler, stage by stage (Mark & Proudfoot 2001), on small shaders whose
// expected hardware operations are worked out in the comments, and on the paper's two examples.
#include <algorithm>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <nlohmann/json.hpp>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include "backends/combiners/listing.h"
#include "backends/combiners/nvparse_check.h"
#include "backends/combiners/lower.h"
#include "tests/backends/combiners/support.h"

namespace passlab::combiners {
namespace {

using ::testing::HasSubstr;

// The shader's whole DAG (lowered as the partitioner sees it) compiled as one pass.
struct One {
  test::CombinerShader shader;
  dag::FragmentDag lowered;
  std::vector<Interval> ranges;
  CompileResult result;
};

// `paper`: as Mark & Proudfoot's compiler (out.rgb = D, products in the source's order), for the
// tests of the paper's own rules.
CompileOptions options(bool paper) {
  CompileOptions co;
  co.trace = true;
  co.final_arithmetic = co.reassociate = !paper;
  return co;
}

One compile(const std::string& body_or_source, const std::string& machine = "geforce3", bool whole = false, bool paper = false) {
  One o;
  o.shader = test::combiner_shader(whole ? body_or_source : "surface t() {\n" + body_or_source + "\n}\n");
  if (!o.shader.dag) return o;
  o.lowered = lower(*o.shader.dag);
  o.ranges = intervals(o.lowered);
  o.result = compile_single(o.lowered, o.ranges, test::machine(machine), options(paper));
  return o;
}
One compile_paper(const std::string& body, const std::string& machine = "geforce3") { return compile(body, machine, false, true); }

One compile_file(const std::string& rel, const std::string& machine, bool paper = false) {
  One o;
  o.shader = test::combiner_sample(rel);
  if (!o.shader.dag) return o;
  o.lowered = lower(*o.shader.dag);
  o.ranges = intervals(o.lowered);
  o.result = compile_single(o.lowered, o.ranges, test::machine(machine), options(paper));
  return o;
}

int count_nodes(const HDag& h, HOp op, int map = -1) {
  int n = 0;
  for (HId i : h.topological())
    if (h[i].op == op && (map < 0 || h[i].map == map)) ++n;
  return n;
}

std::string trace_text(const CompileResult& r, const Machine& m) {
  std::string s;
  for (const CompileEvent& e : r.trace) s += reason(e, m) + "\n";
  return s;
}

// ---- the machines -------------------------------------------------------------------------------

TEST(Machine, GeForce1And3AreTheirExtensionsRegisterSets) {
  const Machine& g1 = test::machine("geforce1");
  EXPECT_EQ(g1.general_stages, 2);
  EXPECT_EQ(g1.texture_units, 2);
  EXPECT_FALSE(g1.per_stage_constants);
  EXPECT_FALSE(g1.texture_shaders);
  const Machine& g3 = test::machine("geforce3");
  EXPECT_EQ(g3.general_stages, 8);
  EXPECT_EQ(g3.texture_units, 4);
  EXPECT_TRUE(g3.per_stage_constants);
  EXPECT_TRUE(g3.texture_shaders);
  // NV_register_combiners Table 1: spare0/1, textures and the colours are writable; the zero,
  // constant and fog registers are read-only.
  for (const Machine* m : {&g1, &g3}) {
    for (const char* w : {"S0", "S1", "V0", "V1", "T0", "T1"}) EXPECT_TRUE(m->registers[static_cast<std::size_t>(m->find(w))].writable) << w;
    for (const char* r : {"Z0", "C0", "C1", "F"}) EXPECT_FALSE(m->registers[static_cast<std::size_t>(m->find(r))].writable) << r;
    // V1 takes interpolated vectors only; V0 vectors and scalars (the paper's §6 examples).
    const auto interp = static_cast<std::size_t>(InputClass::Interpolant);
    EXPECT_EQ(m->registers[static_cast<std::size_t>(m->find("V1"))].accepts[interp], kRgbBit);
    EXPECT_EQ(m->registers[static_cast<std::size_t>(m->find("V0"))].accepts[interp], kRgbBit | kAlphaBit);
    // Texture registers belong to their unit, all or nothing; constants may be split and joined.
    EXPECT_FALSE(m->rules[static_cast<std::size_t>(InputClass::Texture)].join);
    EXPECT_TRUE(m->rules[static_cast<std::size_t>(InputClass::Constant)].split);
  }
  // GeForce3 passes interpolants through its texture units; GeForce1 cannot.
  const auto interp = static_cast<std::size_t>(InputClass::Interpolant);
  EXPECT_TRUE(g3.registers[static_cast<std::size_t>(g3.find("T2"))].accepts[interp]);
  EXPECT_FALSE(g1.registers[static_cast<std::size_t>(g1.find("T1"))].accepts[interp]);
}

TEST(Machine, AMalformedDescriptionNamesTheKey) {
  partition::TargetDesc t;
  t.name = "bad";
  t.backend = "combiners";
  // The problem reading the machine, as printed.
  const auto problem = [&t] {
    lang::Diagnostics d;
    return parse_machine(t, &d) ? std::string("accepted") : d.text();
  };
  t.machine_json = R"({"general_stages": 0, "registers": [{"name": "Z0", "rc": "zero", "zero": true}]})";
  EXPECT_THAT(problem(), HasSubstr("combiners.general_stages"));
  t.machine_json = R"({"registers": [{"name": "Z0", "rc": "zero", "zero": true, "accepts": {"colours": "rgb"}}]})";
  EXPECT_THAT(problem(), HasSubstr("accepts.colours"));
  t.machine_json = R"({"texture_units": 1, "registers": [{"name": "Z0", "rc": "zero", "zero": true}]})";
  EXPECT_THAT(problem(), HasSubstr("texture unit 0"));
}

TEST(Machine, TwoEntriesForOneHardwareRegisterAreRefused) {
  // Found by the target fuzzer: C0 renamed "const1" made C0 and C1 one register holding two
  // constants, and the partition the compiler produced failed its execution check.
  partition::TargetDesc t;
  t.name = "bad";
  t.backend = "combiners";
  // The problem reading the machine, as printed.
  const auto problem = [&t] {
    lang::Diagnostics d;
    return parse_machine(t, &d) ? std::string("accepted") : d.text();
  };
  t.machine_json = R"({"registers": [{"name": "Z0", "rc": "zero", "zero": true},
                                     {"name": "C0", "rc": "const1"}, {"name": "C1", "rc": "const1"}]})";
  EXPECT_THAT(problem(), HasSubstr("registers[2].rc"));
  EXPECT_THAT(problem(), HasSubstr("already C0's"));
  t.machine_json = R"({"texture_units": 1, "registers": [{"name": "Z0", "rc": "zero", "zero": true},
      {"name": "T0", "rc": "tex0", "texture_unit": 0}, {"name": "T1", "rc": "tex0", "texture_unit": 0}]})";
  EXPECT_THAT(problem(), HasSubstr("'tex0' is already T0's"));
}

TEST(Machine, AnEntrysFlagsAreThoseOfItsHardwareRegister) {
  // Found by the target fuzzer: GeForce1 with C0's nvparse name misspelt "cnnst0" took a constant
  // that the simulator (which loads const0, const1 and fog) never loaded, and the partition
  // failed its execution check. The nvparse name says which register an entry is; the flags
  // must be that register's (NV_register_combiners Table 1).
  partition::TargetDesc t;
  t.name = "bad";
  t.backend = "combiners";
  const auto refused = [&t](const std::string& registers) {
    t.machine_json = R"({"texture_units": 1, "registers": [{"name": "Z0", "rc": "zero", "zero": true},
        {"name": "T0", "rc": "tex0", "writable": true, "texture_unit": 0, "accepts": {"texture": "rgba"}}, )" +
                     registers + "]}";
    lang::Diagnostics problems;
    return parse_machine(t, &problems) ? std::string("accepted") : problems.text();
  };
  EXPECT_EQ(refused(R"({"name": "S0", "rc": "spare0", "writable": true})"), "accepted");
  EXPECT_THAT(refused(R"({"name": "C0", "rc": "cnnst0", "accepts": {"constant": "rgba"}})"),
              HasSubstr("registers[2]: \"rc\": 'cnnst0' is not an nvparse register"));
  EXPECT_THAT(refused(R"({"name": "S0", "rc": "spare0", "writable": true, "accepts": {"constant": "rgba"}})"),
              HasSubstr("constants go to const0, const1 or fog, not to 'spare0'"));
  EXPECT_THAT(refused(R"({"name": "C0", "rc": "const0", "writable": true})"), HasSubstr("'const0' is read-only"));
  EXPECT_THAT(refused(R"({"name": "S0", "rc": "spare0"})"), HasSubstr("needs \"writable\": true"));
  EXPECT_THAT(refused(R"({"name": "Z1", "rc": "spare1", "writable": true, "zero": true})"), HasSubstr("the zero register"));
  EXPECT_THAT(refused(R"({"name": "T1", "rc": "tex1", "writable": true})"), HasSubstr("needs \"texture_unit\": 1"));
  EXPECT_THAT(refused(R"({"name": "T01", "rc": "tex01", "writable": true, "texture_unit": 1})"), HasSubstr("not an nvparse register"));
  EXPECT_THAT(refused(R"({"name": "V0", "rc": "col0", "writable": true, "texture_unit": 1})"),
              HasSubstr("a texture unit's result is in its 'tex<unit>' register, not in 'col0'"));
  EXPECT_THAT(refused(R"({"name": "V0", "rc": "col0", "writable": true, "accepts": {"texture": "rgba"}})"),
              HasSubstr("texture results go to a 'tex<unit>' register"));
  EXPECT_THAT(refused(R"({"name": "F", "rc": "fog", "parts": "rgb", "accepts": {"interpolant": "rgb"}})"),
              HasSubstr("interpolants go to col0, col1 or a texture register, not to 'fog'"));
}

// ---- stage 1: texture units -----------------------------------------------------------------

TEST(Stage1, LookupsAtInterpolatedCoordinatesAndCubeMapNormalisation) {
  // Two lookups of the same texture at the same coordinates share a unit; normalize(N) is a
  // normalisation cube map.
  One o = compile("Ci = color texture(\"a\", s, t) * float texture(\"a\"[3], s, t) + color normalize(N); Oi = 1;");
  ASSERT_TRUE(o.result.ok) << o.result.failure.message;
  const auto& u = o.result.program.units;
  ASSERT_EQ(u.size(), 2u);
  EXPECT_EQ(u[0].op, UnitOp::Texture2D);
  EXPECT_EQ(u[0].texture, "a");
  EXPECT_EQ(u[1].op, UnitOp::CubeNormalize);
}

TEST(Stage1, ADependentLookupIsRefusedWhereTheHardwareCannotDoIt) {
  // Coordinates computed per fragment: no unit can look it up in one pass.
  for (const char* m : {"geforce1", "geforce3"}) {
    One o = compile("float k = float texture(\"a\", s, t); Ci = color texture(\"b\", k * k, t); Oi = 1;", m);
    ASSERT_FALSE(o.result.ok) << m;
    EXPECT_EQ(o.result.failure.constraint, "dependent-texture") << m;
    EXPECT_THAT(o.result.failure.message, HasSubstr("'b'"));
    ASSERT_TRUE(o.result.failure.has_node);
    EXPECT_EQ(o.lowered.node(o.result.failure.node).name, "b");
  }
}

TEST(Stage1, GeForce3DotProductTexture2D) {
  // texture(name, dot(a, X), dot(b, X)) with X a lookup read as expand(): DOT_PRODUCT and
  // DOT_PRODUCT_TEXTURE_2D after X's unit (NV_texture_shader); GeForce1 has no such units.
  const char* body =
      "vector n = 2 * (vector texture(\"normals\", s, t) - .5);"
      "Ci = color texture(\"light\", n . dPdu, n . dPdv); Oi = 1;";
  One g3 = compile(body, "geforce3");
  ASSERT_TRUE(g3.result.ok) << g3.result.failure.message;
  const auto& u = g3.result.program.units;
  ASSERT_EQ(u.size(), 3u);
  EXPECT_EQ(u[0].op, UnitOp::Texture2D);
  EXPECT_EQ(u[1].op, UnitOp::DotProduct);
  EXPECT_EQ(u[2].op, UnitOp::DotProductTexture2D);
  EXPECT_TRUE(u[1].expand_previous && u[2].expand_previous);
  EXPECT_EQ(u[2].previous, 0);
  EXPECT_THAT(ts_program(g3.result.program, test::machine("geforce3")), HasSubstr("dot_product_2d_2of2(expand(tex0));"));
  One g1 = compile(body, "geforce1");
  EXPECT_FALSE(g1.result.ok);
  EXPECT_EQ(g1.result.failure.constraint, "dependent-texture");
}

TEST(Stage1, AProjectiveLookupDividesInTheUnit) {
  // texture(name, a / q, b / q) of interpolants is GL's projective lookup (a projector's slide):
  // the unit divides, on either card, and no combiner computes the quotients.
  const char* body = "float q = 2 + s; Ci = color texture(\"slide\", t / q, (1 - s) / q); Oi = 1;";
  for (const char* m : {"geforce1", "geforce3"}) {
    One o = compile(body, m);
    ASSERT_TRUE(o.result.ok) << m << ": " << o.result.failure.message;
    const auto& u = o.result.program.units;
    ASSERT_EQ(u.size(), 1u) << m;
    EXPECT_EQ(u[0].op, UnitOp::Texture2D);
    EXPECT_TRUE(u[0].projective);
    EXPECT_EQ(u[0].quotients.size(), 2u);
    EXPECT_THAT(ts_program(o.result.program, test::machine("geforce3")), HasSubstr("projective"));
    for (std::uint64_t seed = 1; seed <= 200; ++seed) {  // the simulator divides as the unit does
      const ir::FragmentInputs in = ir::random_fragment(seed);
      const ir::Value want = dag::evaluate(o.lowered, in, o.shader.ctx);
      test::ReferenceSource src(o.lowered, in, o.shader.ctx);
      const Rgba got = simulate(o.result.program, test::machine(m), src);
      for (std::size_t k = 0; k < 3; ++k) EXPECT_NEAR(got[k], std::clamp(want.f[k], 0.0f, 1.0f), 1e-5f) << m << " seed " << seed;
    }
  }
  // A quotient something else reads too is computed, so it is no projective lookup.
  One shared = compile("float q = 2 + s; float a = t / q; Ci = color texture(\"slide\", a, a) * a; Oi = 1;");
  EXPECT_FALSE(shared.result.ok);
  EXPECT_EQ(shared.result.failure.constraint, "table-argument");  // a quotient of two values, computed
}

TEST(Stage1, MoreLookupsThanUnitsNamesTheConstraint) {
  One o = compile("Ci = color texture(\"a\", s, t) * color texture(\"b\", s, t) * color texture(\"c\", s, t); Oi = 1;", "geforce1");
  ASSERT_FALSE(o.result.ok);
  EXPECT_EQ(o.result.failure.constraint, "texture-units");
  EXPECT_EQ(o.result.failure.message, "texture units: 3 > 2");
}

// ---- stage 2: hardware operations, mappings, intervals, constants ------------------------------

TEST(Stage2, RgbAlphaSplitTripleBlueAndBlueDot) {
  // float * colour is TRIPLE(x) * y; comp(c, 2) is BLUE(c); comp(c, 0) is BLUE(DOT(c, {1,0,0}));
  // the dot product is BLUE(DOT): the combiners' DOT fills three components.
  One o = compile("color c = color texture(\"a\", s, t); float k = float texture(\"b\"[3], s, t);"
                  "Ci = k * c; Oi = comp(c, 2) * comp(c, 0) + vector c . normalize(N);");
  ASSERT_TRUE(o.result.ok) << o.result.failure.message;
  const HDag& h = o.result.program.hdag;
  EXPECT_GE(count_nodes(h, HOp::Triple), 1);
  EXPECT_GE(count_nodes(h, HOp::Blue), 2);
  EXPECT_EQ(count_nodes(h, HOp::Dot), 2);  // comp(c, 0) and the dot product
  EXPECT_EQ(h[h.rgb_root].part, Part::Rgb);
  EXPECT_EQ(h[h.alpha_root].part, Part::Alpha);
}

TEST(Stage2, MappingsAreRecognisedMostComplexFirst) {
  // 2 (x - 1/2) of a lookup: one BOTHMAP (read as expand() since x >= 0); 1 - x of a lookup in
  // [0, 1]: unsigned_invert; 1/2 - x: half_bias_negate; x - 1/2: a BOTHMAP; 4x: an OUTMAP.
  One o = compile("color a = color texture(\"a\", s, t), b = color texture(\"b\", s, t);"
                  "Ci = 2 * (a - .5) * (1 - b) + (.5 - a) * 4 * (b - .5); Oi = 1;");
  ASSERT_TRUE(o.result.ok) << o.result.failure.message;
  const HDag& h = o.result.program.hdag;
  EXPECT_EQ(count_nodes(h, HOp::BothMap, static_cast<int>(OutMap::BiasScale2)), 1);
  EXPECT_EQ(count_nodes(h, HOp::InMap, static_cast<int>(InMap::UnsignedInvert)), 1);
  EXPECT_EQ(count_nodes(h, HOp::InMap, static_cast<int>(InMap::HalfBiasNegate)), 1);
  EXPECT_EQ(count_nodes(h, HOp::BothMap, static_cast<int>(OutMap::BiasHalf)), 1);
  EXPECT_EQ(count_nodes(h, HOp::OutMap, static_cast<int>(OutMap::Scale4)), 1);
  // Every mapping is an event with its pattern.
  EXPECT_THAT(trace_text(o.result, test::machine("geforce3")), HasSubstr("2(x - 1/2)"));
}

TEST(Stage2, IntervalsDecideWhetherAClampingInputMappingMayBeUsed) {
  // 1 - x is unsigned_invert (1 - clamp(x, 0, 1)) only where x is proved to lie in [0, 1]:
  // a texel is; 2 * texel - 1 is not.
  One yes = compile("float x = float texture(\"a\", s, t); Ci = 1 - x; Oi = 1;");
  One no = compile("float x = 2 * float texture(\"a\", s, t) - 1; Ci = 1 - x; Oi = 1;");
  ASSERT_TRUE(yes.result.ok && no.result.ok);
  EXPECT_EQ(count_nodes(yes.result.program.hdag, HOp::InMap, static_cast<int>(InMap::UnsignedInvert)), 1);
  EXPECT_EQ(count_nodes(no.result.program.hdag, HOp::InMap, static_cast<int>(InMap::UnsignedInvert)), 0);
  // The analysis itself: clamp and the colours bound their results.
  test::CombinerShader s = test::combiner_shader("surface t() { float a = clamp(float texture(\"x\", s, t) * 5 - 2, 0, 1); Ci = Cs * a; Oi = 1; }");
  ASSERT_TRUE(s.dag);
  const dag::Node& root = s.dag->node(s.dag->root);
  const Interval ci = s.ranges[root.children[0]];
  EXPECT_GE(ci.lo, 0.0f);
  EXPECT_LE(ci.hi, 1.0f);
}

TEST(Stage2, ConstantsOutsideTheRegistersAreFactoredOrRefused) {
  // Beyond the paper: 3.5 x = 4 (0.875 x), an output scale over a product by a constant in range.
  One f = compile("Ci = 3.5 * color texture(\"a\", s, t); Oi = 1;");
  ASSERT_TRUE(f.result.ok) << f.result.failure.message;
  const HDag& h = f.result.program.hdag;
  ASSERT_EQ(h[h.rgb_root].op, HOp::OutMap);
  EXPECT_EQ(h[h.rgb_root].map, static_cast<std::uint8_t>(OutMap::Scale4));
  const HNode& inner = h[h[h.rgb_root].kids[0]];
  ASSERT_EQ(inner.op, HOp::Mul);
  bool found = false;
  for (HId k : inner.kids) found = found || (h[k].op == HOp::Const && h[k].value[0] == 0.875f);
  EXPECT_TRUE(found);
  EXPECT_THAT(trace_text(f.result, test::machine("geforce3")), HasSubstr("factored"));
  // 50 cannot be made: the failure names the constant and locates it.
  One r = compile("Ci = 50 * color texture(\"a\", s, t); Oi = 1;");
  ASSERT_FALSE(r.result.ok);
  EXPECT_EQ(r.result.failure.constraint, "constant-range");
  EXPECT_THAT(r.result.failure.message, HasSubstr("50"));
  ASSERT_TRUE(r.result.failure.has_node);
  EXPECT_EQ(r.lowered.node(r.result.failure.node).spans.front().line, 2u);
}

TEST(Stage2, SelectIsAMuxOnAControlComparedWithOneHalf) {
  // x >= 0.3 ? a : b: control x - 0.3 + 1/2 = x + 0.2 in spare0.a, MUX picking a when >= 1/2.
  One o = compile("float x = float texture(\"x\", s, t); Ci = x >= .3 ? color texture(\"a\", s, t) : Cs; Oi = 1;");
  ASSERT_TRUE(o.result.ok) << o.result.failure.message;
  const HDag& h = o.result.program.hdag;
  ASSERT_EQ(h[h.rgb_root].op, HOp::Mux);
  const HNode& control = h[h[h.rgb_root].kids[0]];
  ASSERT_EQ(control.op, HOp::Add);
  bool offset = false;
  for (HId k : control.kids) offset = offset || (h[k].op == HOp::Const && std::fabs(h[k].value[0] - 0.2f) < 1e-6f);
  EXPECT_TRUE(offset);
  // The stage that MUXes reads its control from spare0.a, written in an earlier stage.
  const Program& p = o.result.program;
  const int s0 = test::machine("geforce3").find("S0");
  bool muxed = false;
  for (std::size_t s = 0; s < p.stages.size(); ++s)
    if (p.stages[s].rgb.mux) {
      muxed = true;
      ASSERT_GT(s, 0u);
      EXPECT_EQ(p.stages[s - 1].alpha.sum_out, s0);
    }
  EXPECT_TRUE(muxed);
}

TEST(Stage2, UnsupportedOperationsNameThemselves) {
  // GeForce3 looks sqrt() of a texel up in a table (a dependent read); GeForce1 cannot, and says so.
  One sq = compile("Ci = sqrt(float texture(\"a\", s, t)); Oi = 1;");
  ASSERT_TRUE(sq.result.ok) << sq.result.failure.message;
  EXPECT_EQ(sq.result.program.units.back().op, UnitOp::DependentAR);
  One sq1 = compile("Ci = sqrt(float texture(\"a\", s, t)); Oi = 1;", "geforce1");
  ASSERT_FALSE(sq1.result.ok);
  EXPECT_EQ(sq1.result.failure.constraint, "unsupported");
  EXPECT_THAT(sq1.result.failure.message, HasSubstr("sqrt"));
  EXPECT_THAT(sq1.result.failure.message, HasSubstr("dependent texture read"));
  // A quotient of two values is a function of two: no one-argument table computes it.
  One dv = compile("Ci = Cs / float texture(\"a\", s, t); Oi = 1;");
  ASSERT_FALSE(dv.result.ok);
  EXPECT_THAT(dv.result.failure.message, HasSubstr("division"));
  EXPECT_THAT(dv.result.failure.message, HasSubstr("2 values"));
}

// ---- stage 3: partial combiners ---------------------------------------------------------------

int kinds(const CompileResult& r, PcKind k) {
  return static_cast<int>(std::count_if(r.program.combiners.begin(), r.program.combiners.end(), [&](const PartialCombiner& p) { return p.kind == k; }));
}

TEST(Stage3, ASumOfProductsIsOneFullCombinerAndAProductAHalf) {
  // a * b + c * d: an ADD above two MULs, one FULL RGB; a * b alone: one HALF RGB (the paper's
  // final combiner, which only chooses registers).
  One full = compile_paper("color a = color texture(\"a\", s, t), b = color texture(\"b\", s, t);"
                           "Ci = a * b + Cs * Os; Oi = 1;");
  ASSERT_TRUE(full.result.ok) << full.result.failure.message;
  EXPECT_EQ(kinds(full.result, PcKind::FullRgb), 1);
  EXPECT_EQ(kinds(full.result, PcKind::HalfRgb), 0);
  EXPECT_EQ(kinds(full.result, PcKind::FinalRgb), 1);
  EXPECT_EQ(kinds(full.result, PcKind::FinalAlpha), 1);
  EXPECT_EQ(full.result.program.stages.size(), 1u);
  One half = compile_paper("Ci = color texture(\"a\", s, t) * Cs; Oi = 1;");
  ASSERT_TRUE(half.result.ok);
  EXPECT_EQ(kinds(half.result, PcKind::HalfRgb), 1);
  EXPECT_EQ(kinds(half.result, PcKind::FullRgb), 0);
}

TEST(Stage3, AnAddCannotAbsorbADotProduct) {
  // dot + x in RGB: the adder is shared with the dot products, so the DOT is a HALF of its own
  // and the FULL passes its result through.
  One o = compile("vector n = normalize(N); Ci = (n . vector Cs) + Os; Oi = 1;");
  ASSERT_TRUE(o.result.ok) << o.result.failure.message;
  EXPECT_THAT(trace_text(o.result, test::machine("geforce3")), HasSubstr("cannot compute one"));
  bool dot_alone = false;
  for (const PartialCombiner& pc : o.result.program.combiners) {
    if (pc.kind == PcKind::FullRgb) {
      EXPECT_FALSE(pc.ab_dot || pc.cd_dot);
    }
    if (pc.kind == PcKind::HalfRgb && pc.ab_dot) dot_alone = true;
  }
  EXPECT_TRUE(dot_alone);
}

TEST(Stage3, ASharedProductIsASideOutputAndASharedMappingIsDuplicated) {
  // p = a * b is read twice: absorbed into a FULL as a side output.
  One o = compile("color a = color texture(\"a\", s, t), b = color texture(\"b\", s, t);"
                  "color p = a * b; Ci = (p + Cs * Os) * Os + p * Cs; Oi = 1;");
  ASSERT_TRUE(o.result.ok) << o.result.failure.message;
  EXPECT_THAT(trace_text(o.result, test::machine("geforce3")), HasSubstr("side output"));
  // m = 1 - x is read by two products of one FULL: each absorbs its own copy of the mapping
  // (forward substitution).
  One f = compile("float x = float texture(\"x\"[3], s, t); color m = Cs * Os;"
                  "Ci = m * (1 - x) + color texture(\"a\", s, t) * (1 - x); Oi = 1;");
  ASSERT_TRUE(f.result.ok) << f.result.failure.message;
  EXPECT_THAT(trace_text(f.result, test::machine("geforce3")), HasSubstr("forward substitution"));
  for (const PartialCombiner& pc : f.result.program.combiners)
    if (pc.kind == PcKind::FullRgb) {
      EXPECT_EQ(pc.b.map, InMap::UnsignedInvert);
      EXPECT_EQ(pc.d.map, InMap::UnsignedInvert);
    }
}

TEST(Stage3, TripleOverAnInputMappingIsReadAsTheMappingOfTheTriple) {
  // y * TRIPLE(1 - x): one variable reads x's alpha with unsigned_invert (transformation (a)).
  One o = compile_paper("float x = float texture(\"x\"[3], s, t); Ci = Cs * (1 - x); Oi = 1;");
  ASSERT_TRUE(o.result.ok) << o.result.failure.message;
  const Portion& po = o.result.program.stages.at(0).rgb;
  const Variable& v = po.a.map == InMap::UnsignedInvert ? po.a : po.b;
  EXPECT_EQ(v.map, InMap::UnsignedInvert);
  EXPECT_EQ(v.usage, Usage::Alpha);
}

// ---- stage 4: pass inputs --------------------------------------------------------------------

TEST(Stage4, GeForce1InterpolantsGoToTheColourRegisters) {
  // Two vectors: V0.rgb and V1.rgb; a scalar: V0's alpha; a third vector: nowhere.
  // (Products of two interpolants: nothing here is affine, so nothing moves to the vertices.)
  One two = compile("Ci = Cs * Os * s; Oi = 1;", "geforce1");
  ASSERT_TRUE(two.result.ok) << two.result.failure.message;
  const Machine& m = test::machine("geforce1");
  std::vector<std::string> places;
  for (const PassInput& in : two.result.program.inputs)
    if (in.cls == InputClass::Interpolant) places.push_back(m.registers[static_cast<std::size_t>(in.reg)].name + (in.triple ? ".rgb" : ".a"));
  std::sort(places.begin(), places.end());
  EXPECT_EQ(places, (std::vector<std::string>{"V0.a", "V0.rgb", "V1.rgb"})) << fmt::format("{}", fmt::join(places, " "));
  One three = compile("Ci = Cs * Os * color dPdu; Oi = 1;", "geforce1");
  ASSERT_FALSE(three.result.ok);
  EXPECT_EQ(three.result.failure.constraint, "interpolants");
  // GeForce3 passes the third through a free texture unit.
  One g3 = compile("Ci = Cs * Os * color dPdu; Oi = 1;", "geforce3");
  ASSERT_TRUE(g3.result.ok) << g3.result.failure.message;
  EXPECT_EQ(g3.result.program.units.back().op, UnitOp::PassThrough);
}

TEST(Stage4, SignedInterpolantsAndConstantsAreStoredBiased) {
  // N may be negative: V0 holds (N + 1) / 2, read through expand(). A negative constant is stored
  // negated; a mixed one biased (constant registers hold [0, 1]).
  // (Products with a lookup, so they stay per fragment.)
  One o = compile("color a = color texture(\"a\", s, t);"
                  "Ci = a * color N * color(-.5, -.25, -.75) + a * color(.2, -.4, .6); Oi = 1;", "geforce1");
  ASSERT_TRUE(o.result.ok) << o.result.failure.message;
  bool n_biased = false, negated = false, biased = false;
  for (const PassInput& in : o.result.program.inputs) {
    if (in.cls == InputClass::Interpolant && in.biased) n_biased = true;
    if (in.cls == InputClass::Constant && in.negated) negated = true;
    if (in.cls == InputClass::Constant && in.biased) biased = true;
  }
  EXPECT_TRUE(n_biased && negated && biased);
  const std::string rc = rc_program(o.result.program, test::machine("geforce1"));
  EXPECT_THAT(rc, HasSubstr("expand(col0.rgb)"));
  EXPECT_THAT(rc, HasSubstr("-const"));
  EXPECT_THAT(rc, HasSubstr("expand(const"));
}

// ---- stage 5 and the paper's examples ----------------------------------------------------------

TEST(Stage5, TheFigure4PinFitsGeForce3InEightStages) {
  // The paper: "This shader compiles to eight register combiners, when it is used with a single
  // light shader that returns a per-vertex light intensity."
  One o = compile_file("combiners/fig4_pin.sl", "geforce3", true);
  ASSERT_TRUE(o.result.ok) << o.result.failure.message;
  EXPECT_EQ(o.result.program.stages.size(), 8u);
  // Beyond the paper: the final combiner's arithmetic and reassociated products take two fewer
  // (the hand-written program, samples/combiners/handwritten/fig4_pin.rc, takes five).
  One now = compile_file("combiners/fig4_pin.sl", "geforce3");
  ASSERT_TRUE(now.result.ok) << now.result.failure.message;
  EXPECT_EQ(now.result.program.stages.size(), 6u);
  EXPECT_TRUE(now.result.program.final.arithmetic);
  EXPECT_TRUE(now.result.program.final.e_times_f_used);
  EXPECT_EQ(o.result.program.units.size(), 4u);
  EXPECT_EQ(o.result.program.units[3].op, UnitOp::CubeNormalize);
  // GeForce1 has two stages and two units: one pass cannot hold it.
  One g1 = compile_file("combiners/fig4_pin.sl", "geforce1");
  ASSERT_FALSE(g1.result.ok);
  EXPECT_EQ(g1.result.failure.constraint, "texture-units");
}

TEST(Stage5, TheFigure5ShaderCompiles) {
  One o = compile_file("combiners/fig5.sl", "geforce3");
  ASSERT_TRUE(o.result.ok) << o.result.failure.message;
  EXPECT_EQ(o.result.program.stages.size(), 2u);
  // Each used portion is one FULL (its sum or MUX written) or HALFs (products written, no MUX).
  int used = 0;
  for (const Stage& s : o.result.program.stages)
    for (const Portion* po : {&s.rgb, &s.alpha}) {
      if (!po->used()) continue;
      ++used;
      if (po->mux) {
        EXPECT_GE(po->sum_out, 0) << "a MUX writes its output";
      }
      if (po->sum_out < 0) {
        EXPECT_TRUE(po->ab_out >= 0 || po->cd_out >= 0);
      }
    }
  EXPECT_GE(used, 2);
}

TEST(Stage5, TooManyStagesNamesTheConstraintAndTheNode) {
  // x^64 by squaring is six dependent products: more than GeForce1's two stages.
  One o = compile("float x = float texture(\"a\", s, t); Ci = pow(x, 64); Oi = 1;", "geforce1");
  ASSERT_FALSE(o.result.ok);
  EXPECT_EQ(o.result.failure.constraint, "stages");
  EXPECT_THAT(o.result.failure.message, HasSubstr("needs at least 5 general combiner stages and the target has 2"));
  EXPECT_TRUE(o.result.failure.has_node);
}

TEST(Stage5, PerStageConstantsLiveInTheirStage) {
  // GeForce3: constants are per stage (C0/C1 of the stage that reads them), GeForce1: global.
  const char* body = "color a = color texture(\"a\", s, t);"
                     "Ci = a * color(.3, .2, .1) + a * Cs * color(.6, .5, .4); Oi = .7;";
  One o = compile_paper(body, "geforce3");
  ASSERT_TRUE(o.result.ok) << o.result.failure.message;
  int per_stage = 0;
  for (const Stage& s : o.result.program.stages) per_stage += (s.c0 ? 1 : 0) + (s.c1 ? 1 : 0);
  EXPECT_EQ(per_stage, 2);
  One g1 = compile_paper(body, "geforce1");
  ASSERT_TRUE(g1.result.ok) << g1.result.failure.message;
  EXPECT_FLOAT_EQ(g1.result.program.c0[0], 0.3f);
  EXPECT_FLOAT_EQ(g1.result.program.c1[0], 0.6f);
  EXPECT_FLOAT_EQ(g1.result.program.c0[3], 0.7f);  // the final combiner's alpha constant, joined
}

TEST(Listing, NvparseProgramsAndDeterministicJson) {
  One o = compile("Ci = color texture(\"a\", s, t) * Cs; Oi = 1;", "geforce1");
  ASSERT_TRUE(o.result.ok);
  const Machine& m = test::machine("geforce1");
  const std::string text = listing(o.result.program, m, {&o.lowered, 0, 1});
  EXPECT_THAT(text, HasSubstr("!!RC1.0"));
  EXPECT_THAT(text, HasSubstr("!!RC1.0\n// one pass on geforce1: 0 general combiner stages"));
  EXPECT_THAT(text, HasSubstr("out.rgb = tex0.rgb * col0.rgb;"));
  EXPECT_THAT(text, HasSubstr("out.a = unsigned_invert(zero);"));
  EXPECT_EQ(to_json(o.result.program, m).dump(), to_json(compile("Ci = color texture(\"a\", s, t) * Cs; Oi = 1;", "geforce1").result.program, m).dump());
}

// ---- beyond the paper: the final combiner's arithmetic, reassociation ------------------------

// The pass's colour against the reference interpreter on random fragments where no step leaves
// the registers' range: the worst error, and how many fragments were compared.
std::pair<float, int> final_error(const One& o, const std::string& machine = "geforce3") {
  float worst = 0;
  int compared = 0;
  for (std::uint64_t seed = 1; seed <= 400; ++seed) {
    const ir::FragmentInputs in = ir::random_fragment(seed);
    const std::vector<ir::Value> all = dag::evaluate_all(o.lowered, in, o.shader.ctx);
    if (!test::clamping_changes_nothing(o.lowered, in, o.shader.ctx, all, nullptr, true)) continue;
    ++compared;
    test::ReferenceSource src(o.lowered, in, o.shader.ctx);
    const Rgba got = simulate(o.result.program, test::machine(machine), src);
    for (std::size_t k = 0; k < 4; ++k) worst = std::max(worst, std::fabs(got[k] - std::clamp(all[o.lowered.root].f[k], 0.0f, 1.0f)));
  }
  return {worst, compared};
}

// The colour equals the reference's (to 1e-4) on more than `at_least` compared fragments.
void expect_reference_colour(const One& o, int at_least, const std::string& machine = "geforce3") {
  const auto [worst, compared] = final_error(o, machine);
  EXPECT_GT(compared, at_least);
  EXPECT_LT(worst, 1e-4f);
}

TEST(Final, ALerpOfTwoTexturesByAThirdsAlphaIsTheFinalCombinerAlone) {
  // mix(a, b, k) = a (1 - k) + b k: lerp(k, b, a), no general combiner computing anything.
  const char* body = "color a = color texture(\"a\", s, t), b = color texture(\"b\", s, t); float k = float texture(\"c\"[3], s, t);"
                     "Ci = mix(a, b, k); Oi = 1;";
  One o = compile(body);
  ASSERT_TRUE(o.result.ok) << o.result.failure.message;
  EXPECT_EQ(o.result.program.stages.size(), 0u);
  EXPECT_TRUE(o.result.program.final.arithmetic);
  const std::string rc = rc_program(o.result.program, test::machine("geforce3"));
  EXPECT_THAT(rc, HasSubstr("out.rgb = lerp(tex"));
  EXPECT_TRUE(check_nvparse(rc).empty()) << rc;
  expect_reference_colour(o, 100);
  // The paper's compiler takes a stage for it.
  EXPECT_EQ(compile_paper(body).result.program.stages.size(), 1u);
}

TEST(Final, TwoProductsAreAtimesBPlusEtimesF) {
  One o = compile("color a = color texture(\"a\", s, t), b = color texture(\"b\", s, t); Ci = a * b + Cs * Os; Oi = 1;", "geforce1");
  ASSERT_TRUE(o.result.ok) << o.result.failure.message;
  EXPECT_EQ(o.result.program.stages.size(), 0u);
  EXPECT_TRUE(o.result.program.final.e_times_f_used);
  const std::string rc = rc_program(o.result.program, test::machine("geforce1"));
  EXPECT_THAT(rc, HasSubstr("final_product = "));
  EXPECT_THAT(rc, HasSubstr(" + final_product;"));
  NvparseOptions g1;
  g1.general_combiners = 2;
  g1.per_stage_constants = false;
  g1.texture_units = 2;
  EXPECT_TRUE(check_nvparse(rc, g1).empty()) << rc;
  expect_reference_colour(o, 100, "geforce1");
}

TEST(Final, AFourthPowerIsEtimesFSquared) {
  // x^4 = (x x)(x x): E x F computes x x, and A = B = E x F.
  One o = compile("float x = float texture(\"a\"[3], s, t); Ci = pow(x, 4) * color(1, 1, 1); Oi = 1;");
  ASSERT_TRUE(o.result.ok) << o.result.failure.message;
  EXPECT_EQ(o.result.program.stages.size(), 0u);
  EXPECT_EQ(o.result.program.final.a.reg, kFinalProduct);
  EXPECT_EQ(o.result.program.final.b.reg, kFinalProduct);
  EXPECT_EQ(o.result.program.final.e.usage, Usage::Alpha);
  expect_reference_colour(o, 100);
}

TEST(Final, AProductThatIsAlsoTheAlphaIsNotHiddenInEtimesF) {
  // x = a b is the alpha (out.a = G reads it from a register) and a factor of the colour: the final
  // combiner may not compute it inside E x F (a review found the compile falling back to the
  // paper's final combiner and a stage more).
  One o = compile("float x = float texture(\"a\"[3], s, t) * float texture(\"b\"[3], s, t); Ci = x * color texture(\"c\", s, t); Oi = x;");
  ASSERT_TRUE(o.result.ok) << o.result.failure.message;
  EXPECT_TRUE(o.result.program.final.arithmetic);
  EXPECT_EQ(o.result.program.stages.size(), 1u);
  expect_reference_colour(o, 100);
}

TEST(Final, ASignedOperandStaysInTheGeneralCombiners) {
  // The final combiner's variables are unsigned: (2a - 1) b must be computed before it.
  One o = compile("color a = color texture(\"a\", s, t), b = color texture(\"b\", s, t); Ci = (2 * a - 1) * b; Oi = 1;");
  ASSERT_TRUE(o.result.ok) << o.result.failure.message;
  EXPECT_FALSE(o.result.program.final.arithmetic);
  EXPECT_EQ(o.result.program.stages.size(), 1u);
  expect_reference_colour(o, 20);
}

// Fewer stages than the paper's compiler takes, the trace saying why, and the same colour.
void shorter_than_the_papers_and_exact(const char* body, const char* why) {
  One now = compile(body), paper = compile_paper(body);
  ASSERT_TRUE(now.result.ok) << now.result.failure.message;
  ASSERT_TRUE(paper.result.ok) << paper.result.failure.message;
  EXPECT_LT(now.result.program.stages.size(), paper.result.program.stages.size());
  EXPECT_THAT(trace_text(now.result, test::machine("geforce3")), HasSubstr(why));
  expect_reference_colour(now, 20);
}

TEST(Reassociate, AProductOfFiveFactorsIsAsShortAsItsLatestFactor) {
  // Kd .5 nl shadow nav, with Kd two combiners deep (a lerp, then a product): in the source's
  // order a chain of four products after Kd; reassociated, the scalars meet in ALPHA while Kd is
  // computed.
  const char* body = "color d = color texture(\"d\", s, t), b = color texture(\"b\", s, t);"
                     "float c = float texture(\"d\"[3], s, t), m = float texture(\"b\"[3], s, t);"
                     "color Kd = mix(d, b, c) * m;"
                     "float nl = float texture(\"b\"[3], s * 2, t * 2);"
                     "float shadow = comp(Cs, 0), nav = comp(Os, 1);"
                     "Ci = Kd * .5 * nl * shadow * nav; Oi = 1;";
  shorter_than_the_papers_and_exact(body, "reassociated");
}

TEST(Reassociate, TheSquareOfASelectSelectsTheSquare) {
  // (c ? x : 0)^2 is c ? x^2 : 0: the MUX's combiner computes the product.
  const char* body = "float x = float texture(\"a\"[3], s, t), c = float texture(\"b\"[3], s, t);"
                     "float y = c >= .5 ? x : 0; Ci = pow(y, 8) * color(1, 1, 1); Oi = 1;";
  shorter_than_the_papers_and_exact(body, "square of a select");
}

TEST(Listing, EachProgramIsAFileNvparseLoadsAndTheFogColourIsSaidToBeSet) {
  // Three constant colours on GeForce1: const0, const1 and the fog colour, which is GL state.
  One o = compile("Ci = color texture(\"a\") * color(0.2, 0.3, 0.4) + color texture(\"b\") * color(0.5, 0.1, 0.9) + color(0.7, 0.7, 0.1); Oi = 1;",
                  "geforce1");
  ASSERT_TRUE(o.result.ok) << o.result.failure.message;
  const Machine& m = test::machine("geforce1");
  const std::vector<ListingFile> files = listing_files(o.result.program, m, {&o.lowered, 0, 1});
  ASSERT_EQ(files.size(), 1u);  // GeForce1 has no texture shaders
  EXPECT_EQ(files[0].extension, "rc");
  EXPECT_EQ(files[0].text.rfind("!!RC1.0\n", 0), 0u);
  EXPECT_THAT(files[0].text, HasSubstr("glFogfv(GL_FOG_COLOR, {0.5000, 0.1000, 0.9000, 0.0000})"));
  NvparseOptions g1;
  g1.general_combiners = m.general_stages;
  g1.per_stage_constants = false;
  g1.texture_units = m.texture_units;
  EXPECT_EQ(to_text(check_nvparse(files[0].text, g1)), "") << files[0].text;
  // GeForce3: the texture shader program is a file of its own, first.
  One g3 = compile("Ci = color texture(\"a\", s, t) * Cs; Oi = 1;", "geforce3");
  ASSERT_TRUE(g3.result.ok);
  const std::vector<ListingFile> two = listing_files(g3.result.program, test::machine("geforce3"), {&g3.lowered, 0, 1});
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0].extension, "ts");
  EXPECT_EQ(two[0].text.rfind("!!TS1.0\n", 0), 0u);
  EXPECT_EQ(to_text(check_nvparse(two[0].text)), "") << two[0].text;
  EXPECT_EQ(to_text(check_nvparse(two[1].text)), "") << two[1].text;
}

// ---- found by the conformance tester (tests/data/conformance) ---------------------------------

// `body` compiled for GeForce3 and simulated on 64 random fragments where the registers' clamp
// changes nothing: its first `channels` channels within 1e-4 of the reference. The fragments compared.
int simulated_like_the_reference(const char* body, int channels) {
  One o = compile(body, "geforce3");
  EXPECT_TRUE(o.result.ok) << body << ": " << o.result.failure.message;
  if (!o.result.ok) return 0;
  const Machine& m = test::machine("geforce3");
  int compared = 0;
  for (std::uint64_t seed = 1; seed <= 64; ++seed) {
    const ir::FragmentInputs in = ir::random_fragment(seed);
    const std::vector<ir::Value> all = dag::evaluate_all(o.lowered, in, o.shader.ctx);
    const std::vector<ir::Value> clamped = dag::evaluate_all_clamped(o.lowered, in, o.shader.ctx, -1.0f, 1.0f);
    const ir::Value& want = all[o.lowered.root];
    if (std::fabs(std::clamp(want.f[0], 0.0f, 1.0f) - std::clamp(clamped[o.lowered.root].f[0], 0.0f, 1.0f)) > 1e-6f) continue;
    ++compared;
    test::ReferenceSource src(o.lowered, in, o.shader.ctx);
    const Rgba got = simulate(o.result.program, m, src);
    for (int k = 0; k < channels; ++k)
      EXPECT_NEAR(got[static_cast<std::size_t>(k)], std::clamp(want.f[static_cast<std::size_t>(k)], 0.0f, 1.0f), 1e-4f)
          << body << " at fragment " << seed << "\n" << listing(o.result.program, m, {&o.lowered, 0, 1});
  }
  return compared;
}

TEST(Regression, AScalarOfColourTypeIsComputedAndReadAsOne) {
  // The flattener drops a float's splat to a colour, so `-color(d . d)` is a negation of colour
  // type over a scalar: it was computed in alpha while the final combiner read the un-negated
  // dot product from rgb (found by the conformance tester: 0.66 where the reference clamps to 0).
  // The same mechanism for `?:` between two scalars of colour type.
  for (const char* body : {"Ci = -color(dPdv . dPdv); Oi = 1;", "color c = (s > 0.5) ? 0.2 : 0.8; Ci = c; Oi = 1;",
                           "Ci = -color(N . N) * 0.5; Oi = 1;"}) {
    EXPECT_GT(simulated_like_the_reference(body, 1), 8) << body;
  }
}

TEST(Regression, MaxAndMinOfAFloatAndAConstantCompile) {
  // color(max(d, 0.25)) reaches the combiners as max of colour type over a float and a splat
  // constant: one comparison, a MUX of whole vectors (it was refused as "max() of vectors").
  for (const char* body : {"float d = float texture(\"a\") * 2 - 1; Ci = color(max(d, 0.25)); Oi = 1;",
                           "float d = float texture(\"a\") * 2 - 1; Ci = color(min(0.5, d)) * Cs; Oi = 1;"}) {
    EXPECT_GT(simulated_like_the_reference(body, 3), 8) << body;
  }
  // Of vectors, each component needs its own comparison: said so.
  One v = compile("color a = color texture(\"a\"); Ci = max(a, color(0.2, 0.4, 0.6)); Oi = 1;", "geforce3");
  EXPECT_FALSE(v.result.ok);
  EXPECT_THAT(v.result.failure.message, HasSubstr("max() of vectors needs a MUX per component"));
}

TEST(Regression, AClampWarningOnlyWhereTheRegistersClampChangesAValue) {
  // A dot product of two looked-up vectors can reach [0, 3]. Clamped to [0, 1] at once (the
  // Figure 4 pin's N . H), the registers' [-1, 1] changes nothing; multiplied on, it does.
  auto clamped_dot = [](const One& o) {
    for (dag::NodeId id : o.result.clamped)
      if (o.lowered.node(id).op == ir::Op::Dot) return true;
    return false;
  };
  One harmless = compile("float d = clamp(vector texture(\"n\") . vector texture(\"h\"), 0, 1); Ci = d * Cs; Oi = 1;");
  ASSERT_TRUE(harmless.result.ok) << harmless.result.failure.message;
  EXPECT_FALSE(clamped_dot(harmless));
  One changes = compile("float d = vector texture(\"n\") . vector texture(\"h\"); Ci = d * 0.25 * Cs; Oi = 1;");
  ASSERT_TRUE(changes.result.ok) << changes.result.failure.message;
  EXPECT_TRUE(clamped_dot(changes));
  // The frame buffer clamps the final colour to [0, 1] anyway: a sum above 1 there is not warned of.
  One output = compile("Ci = color texture(\"a\") + color texture(\"b\"); Oi = 1;");
  ASSERT_TRUE(output.result.ok) << output.result.failure.message;
  EXPECT_TRUE(output.result.clamped.empty());
}

TEST(Regression, TheGreedySchedulerFitsAndAsTheExactOneDoes) {
  // `a > x && b > y`: the MUX that makes the && control reads the first comparison's control and
  // writes its own in the same stage; the greedy rule for spare0.a refused that, one stage
  // stricter than the exact scheduler, so && and || never fitted.
  for (const char* body : {"Ci = (s > 0.3 && t > 0.6) ? Cs : Os; Oi = 1;", "Ci = (s > 0.3 || t > 0.6) ? Cs : Os; Oi = 1;"}) {
    One greedy = compile(body, "geforce3");
    ASSERT_TRUE(greedy.result.ok) << body << ": " << greedy.result.failure.message;
    CompileResult exact = compile_single(greedy.lowered, greedy.ranges, test::machine("geforce3"), {true, true});
    ASSERT_TRUE(exact.ok) << exact.failure.message;
    EXPECT_EQ(greedy.result.program.stages.size(), exact.program.stages.size()) << body;
  }
}

TEST(Regression, ListingsHaveNoMuxOrSumOverADotProduct) {
  // nvparse's !!RC1.0 grammar writes mux() and sum() only over two products (Mul Mul Mux): a MUX
  // that absorbed a DOT printed "Dot Mul Mux", which nvparse cannot load.
  One o = compile("float d = normalize(N) . normalize(I); Ci = (s > 0.5) ? color(d) : Cs; Oi = 1;", "geforce3");
  ASSERT_TRUE(o.result.ok) << o.result.failure.message;
  const std::string text = listing(o.result.program, test::machine("geforce3"), {&o.lowered, 0, 1});
  // Each portion: its lines up to its closing brace; one with mux() or sum() has no " . ".
  std::size_t at = 0;
  int portions = 0;
  while ((at = text.find(" {\n", at)) != std::string::npos) {
    const std::size_t end = text.find("}", at);
    const std::string portion = text.substr(at, end - at);
    at = end;
    if (portion.find("mux()") == std::string::npos && portion.find("sum()") == std::string::npos) continue;
    ++portions;
    EXPECT_EQ(portion.find(" . "), std::string::npos) << portion;
  }
  EXPECT_GT(portions, 0) << text;
}

}  // namespace
}  // namespace passlab::combiners
