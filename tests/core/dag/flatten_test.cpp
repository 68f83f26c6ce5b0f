// SPDX-License-Identifier: GPL-3.0-or-later
// Flattening: what a fragment target accepts, what it rejects (with where), and the DAG's shape.
#include <gtest/gtest.h>

#include <cmath>

#include "core/dag/export.h"
#include "core/dag/flatten.h"
#include "core/driver/program.h"
#include "core/ir/interpreter.h"

namespace passlab {
namespace {

struct Flat {
  std::unique_ptr<driver::Program> prog;
  std::optional<dag::FragmentDag> dag;
  lang::DiagnosticList diags;
};

Flat flatten(const std::string& source, dag::FlattenOptions options = {}) {
  Flat f;
  f.prog = driver::compile_source("test.sl", source, {});
  EXPECT_TRUE(f.prog->ok()) << lang::format_text(f.prog->diagnostics.items(), *f.prog->sources);
  if (f.prog->ok()) f.dag = dag::flatten(*f.prog->module, f.prog->binding, f.diags, options);
  return f;
}

const lang::Diagnostic* first_error(const Flat& f) {
  for (const auto& d : f.diags.items())
    if (d.severity == lang::Severity::Error) return &d;
  return nullptr;
}

int count_kind(const dag::FragmentDag& d, dag::NodeKind k) {
  int n = 0;
  for (const auto& node : d.nodes) n += node.kind == k;
  return n;
}

// The interpreter's colour and the DAG's on random fragment `seed`, both given its random
// neighbours (for the derivatives); and the DAG's without them.
struct OnAFragment {
  ir::RunResult reference;
  ir::Value dag, dag_alone;
};
OnAFragment run_both(const Flat& f, std::uint64_t seed) {
  ir::FragmentInputs in = ir::random_fragment(seed);
  const ir::Neighbours next = ir::random_neighbours(in, seed);
  ir::EvalContext ctx;
  ctx.spaces = f.prog->binding.spaces;
  ir::RunOptions ro;
  ro.right = &next.right;
  ro.below = &next.below;
  return {ir::interpret(*f.prog->module, in, f.prog->binding.surface_params, ctx, ro), dag::evaluate(*f.dag, in, ctx, &next),
          dag::evaluate(*f.dag, in, ctx)};
}

TEST(Flatten, ConstantTripCountLoopUnrolls) {
  Flat f = flatten(R"(surface t(uniform float n = 4) {
    float i, sum = 0;
    for (i = 0; i < n; i += 1) sum += noise(P * (i + 1));
    Ci = sum;
  })");
  ASSERT_TRUE(f.dag);
  EXPECT_EQ(count_kind(*f.dag, dag::NodeKind::Texture), 4);  // one noise fetch per iteration
}

TEST(Flatten, AnUnboundedVaryingLoopIsRejectedAtTheLoop) {
  Flat f = flatten("surface t() {\n  float x = 0;\n  while (x < s)\n    x += .1;\n  Ci = x;\n}\n");
  EXPECT_FALSE(f.dag);
  const lang::Diagnostic* d = first_error(f);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->code, "varying-loop");
  EXPECT_EQ(d->span.line, 3u);
  EXPECT_NE(d->message.find("a counter compared with a constant"), std::string::npos) << d->message;
}

TEST(Flatten, AVaryingLoopWithAUniformBoundUnrollsUnderPredicatesAndAgreesWithTheInterpreter) {
  // The conditions depend on the fragment (v > 0.1, w < 1, and a break), and the counters bound
  // them: each loop unrolls, each iteration's exit a path of its own, merged by selects after it.
  Flat f = flatten(R"(surface t(float n = 6) {
    float v = s * 4, steps = 0, i;
    for (i = 0; i < n && v > 0.1; i += 1) {
      v *= 0.5;
      steps += 1;
    }
    float w = t, k = 0;
    while (w < 1 && k < 5) {
      w += 0.25;
      k += 1;
      if (w * s > 0.6) break;
    }
    Ci = color(v, steps / n, w);
  })");
  ASSERT_TRUE(f.dag) << (first_error(f) ? first_error(f)->message : "");
  for (std::uint64_t seed = 1; seed <= 32; ++seed) {
    ir::FragmentInputs in = ir::random_fragment(seed);
    ir::EvalContext ctx;
    const ir::RunResult r = ir::interpret(*f.prog->module, in, f.prog->binding.surface_params, ctx);
    ASSERT_TRUE(r.ok) << r.error;
    const ir::Value d = dag::evaluate(*f.dag, in, ctx);
    for (int c = 0; c < 3; ++c)
      EXPECT_NEAR(d.f[static_cast<std::size_t>(c)], r.results[0].f[static_cast<std::size_t>(c)], 1e-5f)
          << "seed " << seed << " channel " << c;
  }
}

// On a target with dynamic loops (NV_fragment_program2's REP and BRK).
dag::FlattenOptions dynamic_loops(int max_iterations = 255) {
  dag::FlattenOptions o;
  o.dynamic_loops = max_iterations;
  return o;
}

int count_op(const dag::FragmentDag& d, ir::Op op) {
  int n = 0;
  for (const auto& node : d.nodes) n += node.kind == dag::NodeKind::Operation && node.op == op;
  return n;
}

TEST(Flatten, OnATargetWithDynamicLoopsAnUnboundedVaryingLoopIsKeptAsALoop) {
  // The loop the other targets refuse (above): one Loop node per value read after it, over one
  // body, which carries x and n; both agree with the interpreter.
  Flat f = flatten("surface t() {\n  float x = s * 8 + 1, n = 0;\n  while (x > 1) {\n    x = x / 2;\n    n += 1;\n  }\n  Ci = color(x, n / 4, t);\n}\n",
                   dynamic_loops());
  ASSERT_TRUE(f.dag) << (first_error(f) ? first_error(f)->message : "");
  EXPECT_EQ(count_op(*f.dag, ir::Op::Loop), 2);
  const dag::Node* loop = nullptr;
  for (const auto& n : f.dag->nodes)
    if (n.op == ir::Op::Loop) loop = &n;
  ASSERT_NE(loop, nullptr);
  ASSERT_TRUE(loop->loop);
  EXPECT_EQ(loop->loop->carried, 2);
  EXPECT_EQ(loop->loop->results, 2);
  EXPECT_EQ(loop->loop->max_iterations, 255);
  EXPECT_EQ(loop->loop->label, "loop at line 3");
  EXPECT_EQ(loop->spans.front().line, 3u);
  for (std::uint64_t seed = 1; seed <= 32; ++seed) {
    const OnAFragment r = run_both(f, seed);
    ASSERT_TRUE(r.reference.ok) << r.reference.error;
    for (int c = 0; c < 3; ++c)
      EXPECT_EQ(r.dag.f[static_cast<std::size_t>(c)], r.reference.results[0].f[static_cast<std::size_t>(c)]) << "seed " << seed << " channel " << c;
  }
}

TEST(Flatten, ADynamicLoopWithBreaksAndContinuesLeavesWhereTheInterpreterDoes) {
  // A break inside an if inside the loop (its block only branches on to the exit), a continue, a
  // counter bound and a varying test, and values read after the loop from both exits.
  Flat f = flatten(R"(surface t() {
    float zr = 0, zi = 0, i, last = -1;
    float cr = s * 3 - 2, ci = t * 2 - 1;
    for (i = 0; i < 40; i += 1) {
      float r = zr * zr - zi * zi + cr;
      zi = 2 * zr * zi + ci;
      zr = r;
      if (zr > 0.5) continue;
      if (zr * zr + zi * zi > 4) {
        last = zr;
        break;
      }
    }
    Ci = color(i / 40, last, zi * 0.1);
  })",
                   dynamic_loops());
  ASSERT_TRUE(f.dag) << (first_error(f) ? first_error(f)->message : "");
  EXPECT_GT(count_op(*f.dag, ir::Op::Loop), 0);
  for (std::uint64_t seed = 1; seed <= 64; ++seed) {
    const OnAFragment r = run_both(f, seed);
    ASSERT_TRUE(r.reference.ok) << r.reference.error;
    for (int c = 0; c < 3; ++c) {
      const float want = r.reference.results[0].f[static_cast<std::size_t>(c)], got = r.dag.f[static_cast<std::size_t>(c)];
      if (std::isnan(want)) continue;
      EXPECT_EQ(got, want) << "seed " << seed << " channel " << c;
    }
  }
  // Unrolled (no dynamic loops) the same shader is 40 predicated copies of the body.
  Flat unrolled = flatten(R"(surface t() {
    float zr = 0, zi = 0, i;
    for (i = 0; i < 40; i += 1) { float r = zr * zr - zi * zi + s; zi = 2 * zr * zi + t; zr = r; if (zr * zr + zi * zi > 4) break; }
    Ci = color(i / 40, zr, zi);
  })");
  ASSERT_TRUE(unrolled.dag);
  EXPECT_EQ(count_op(*unrolled.dag, ir::Op::Loop), 0);
  EXPECT_GT(unrolled.dag->size(), 200u);
}

TEST(Flatten, ADynamicLoopStopsAtTheTargetsLoopCount) {
  // The hardware's count ends a loop that would run longer: x halves 10 times at most here.
  Flat f = flatten("surface t() {\n  float x = 1e6 + s, n = 0;\n  while (x > 1) {\n    x = x / 2;\n    n += 1;\n  }\n  Ci = n;\n}\n",
                   dynamic_loops(10));
  ASSERT_TRUE(f.dag);
  const ir::FragmentInputs in = ir::random_fragment(3);
  EXPECT_EQ(dag::evaluate(*f.dag, in, {}).f[0], 9.0f);  // ten passes through the test: nine halvings and the tenth test
}

TEST(Flatten, ConstantTripCountLoopsStillUnrollOnATargetWithDynamicLoops) {
  Flat f = flatten(R"(surface t(uniform float n = 4) {
    float i, sum = 0;
    for (i = 0; i < n; i += 1) sum += noise(P * (i + 1));
    Ci = sum;
  })",
                   dynamic_loops());
  ASSERT_TRUE(f.dag);
  EXPECT_EQ(count_op(*f.dag, ir::Op::Loop), 0);
  EXPECT_EQ(count_kind(*f.dag, dag::NodeKind::Texture), 4);
}

TEST(Flatten, ALoopThatCannotStayALoopUnrollsAsElsewhere) {
  // A derivative of a value the loop computes (a quad's pixels may leave the loop at different
  // iterations) and a string the loop carries keep it from being a loop: bounded, it unrolls
  // under predicates as on targets without dynamic loops; unbounded, it is refused at the loop.
  for (const char* source : {
           "surface t() {\n  float x = s * 8 + 1, d = 0, i;\n  for (i = 0; i < 20 && x > 1; i += 1) {\n    x = x / 2;\n    d += Du(x);\n  }\n  Ci = d;\n}\n",
           "surface t() {\n  string m = \"grain\";\n  float x = s, i;\n  for (i = 0; i < 20 && x > 0.1; i += 1) {\n    if (x > 0.5) m = \"marks\";\n    x *= 0.7;\n  }\n  Ci = texture(m, s, t);\n}\n"}) {
    Flat f = flatten(source, dynamic_loops());
    ASSERT_TRUE(f.dag) << source << (first_error(f) ? first_error(f)->message : "");
    EXPECT_EQ(count_op(*f.dag, ir::Op::Loop), 0) << source;
    for (std::uint64_t seed = 1; seed <= 16; ++seed) {
      const OnAFragment r = run_both(f, seed);
      ASSERT_TRUE(r.reference.ok) << r.reference.error;
      const float want = r.reference.results[0].f[0];
      if (std::isnan(want)) continue;
      EXPECT_NEAR(r.dag.f[0], want, 1e-4f * std::max(1.0f, std::fabs(want))) << source << " seed " << seed;
    }
  }
  Flat unbounded = flatten("surface t() {\n  float x = s * 8 + 1, d = 0;\n  while (x > 1) {\n    x = x / 2;\n    d += Du(x);\n  }\n  Ci = d;\n}\n",
                           dynamic_loops());
  EXPECT_FALSE(unbounded.dag);
  ASSERT_NE(first_error(unbounded), nullptr);
  EXPECT_EQ(first_error(unbounded)->code, "varying-loop");
  EXPECT_EQ(first_error(unbounded)->span.line, 3u);
}

TEST(Flatten, NestedDynamicLoopsInsideAShortLoopAgreeWithTheInterpreter) {
  // A short loop (unrolled) around two dynamic loops, one inside the other: trying the short
  // loop unrolled rolls the inner loops in each iteration; a failed try must leave nothing behind.
  Flat f = flatten(R"(surface t() {
    float x = 0, y = 0, k, n = 0;
    for (k = 0; k < 2; k += 1) {
      while (x < s * 20) {
        x += 1;
        while (y < t * 20 + x) {
          y += 2;
          n += 1;
        }
      }
    }
    Ci = color(x, y, n) * 0.01;
  })",
                   dynamic_loops());
  ASSERT_TRUE(f.dag) << (first_error(f) ? first_error(f)->message : "");
  EXPECT_GT(count_op(*f.dag, ir::Op::Loop), 0);
  for (std::uint64_t seed = 1; seed <= 32; ++seed) {
    const OnAFragment r = run_both(f, seed);
    ASSERT_TRUE(r.reference.ok) << r.reference.error;
    for (int c = 0; c < 3; ++c)
      EXPECT_EQ(r.dag.f[static_cast<std::size_t>(c)], r.reference.results[0].f[static_cast<std::size_t>(c)]) << "seed " << seed << " channel " << c;
  }
}

TEST(Flatten, EndlessUniformLoopIsReportedNotHung) {
  dag::FlattenOptions o;
  o.max_block_visits = 1000;
  Flat f = flatten("surface t() {\n  float x = 0;\n  while (1) { x += 1; }\n  Ci = x;\n}\n", o);
  EXPECT_FALSE(f.dag);
  ASSERT_NE(first_error(f), nullptr);
  EXPECT_EQ(first_error(f)->code, "loop-too-long");
}

TEST(Flatten, DerivativesAreRejectedWhenAskedTo) {
  dag::FlattenOptions o;
  o.derivatives = false;
  Flat f = flatten("surface t() {\n  Ci = Du(s);\n}\n", o);
  EXPECT_FALSE(f.dag);
  ASSERT_NE(first_error(f), nullptr);
  EXPECT_EQ(first_error(f)->code, "needs-derivatives");
  EXPECT_EQ(first_error(f)->span.line, 2u);
}

TEST(Flatten, DerivativesBecomeScreenDifferencesThatAgreeWithTheInterpreter) {
  // Du, Dv, Deriv, area, calculatenormal, du and dv are the
  // chain rule over differences to the neighbouring pixels; the DAG, evaluated with the same
  // neighbours as the interpreter, gives the same values (the interpreter's are worked out by
  // ir/derivatives.cpp from differences of the values its own runs computed).
  const std::string src =
      "surface t() {\n"
      "  float x = 3 * u - 2 * v + s * t;\n"
      "  vector n = calculatenormal(P);\n"
      "  Ci = color(Du(x) + Deriv(x, u), area(P) * 1e4 + du + dv, Dv(P . P)) + color(n) * 0.1;\n"
      "}\n";
  Flat f = flatten(src);
  ASSERT_TRUE(f.dag) << (first_error(f) ? first_error(f)->message : "");
  int differences = 0, recomputed = 0, of_interpolants = 0, neighbours = 0;
  for (const dag::Node& n : f.dag->nodes)
    if (n.kind == dag::NodeKind::Operation && (n.op == ir::Op::ScreenDiff || n.op == ir::Op::Neighbour)) {
      (n.op == ir::Op::ScreenDiff ? n.children.size() == 2 ? recomputed : differences : neighbours) += 1;
      of_interpolants += n.children.size() == 1 && f.dag->node(n.children[0]).kind == dag::NodeKind::Interpolant;
    }
  EXPECT_GT(differences, 0);
  // s * t is not interpolated: its difference is screendiff(s * t, s * t again from s and t one
  // pixel over). What a rasterizer differences or moves is always an interpolant.
  EXPECT_GT(recomputed, 0);
  EXPECT_GT(neighbours, 0);
  EXPECT_EQ(of_interpolants, differences + neighbours);
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    const OnAFragment x = run_both(f, seed);
    ASSERT_TRUE(x.reference.ok) << x.reference.error;
    const ir::Value& r = x.reference.results[0];
    for (std::size_t c = 0; c < 3; ++c) EXPECT_NEAR(x.dag.f[c], r.f[c], 1e-3f * (1 + std::fabs(r.f[c]))) << "seed " << seed << " channel " << c;
    // Without the neighbours the differences, and so the result, are undefined.
    EXPECT_TRUE(std::isnan(x.dag_alone.f[0]));
  }
}

// The difference of a value computed per fragment is the value computed again from the
// interpolants one pixel over: a height map's Du and Dv are two more lookups, at the
// neighbouring pixels' coordinates, and the DAG agrees with the interpreter's differences.
// Noise at a known point is uniform work, done on the host like any other: the value, not a
// lookup (which a fragment target would follow with approximations the reference's constant has
// not: atan(-2.54, noise(-1e6)) on an fp target was off by 7e-5, a generated program found it).
// A map's lookup stays one, even at known coordinates: the image may be another at render time.
TEST(Flatten, NoiseAtAKnownPointIsFoldedButAMapLookupIsNot) {
  Flat f = flatten(R"(surface t() {
    Ci = color(atan(-2.54, float noise(-1000000)), float noise(0.3, 0.7), float texture("grain", 0.5, 0.5));
  })");
  ASSERT_TRUE(f.dag) << (first_error(f) ? first_error(f)->message : "");
  EXPECT_EQ(count_kind(*f.dag, dag::NodeKind::Texture), 1);
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const OnAFragment x = run_both(f, seed);
    ASSERT_TRUE(x.reference.ok) << x.reference.error;
    for (std::size_t c = 0; c < 3; ++c) EXPECT_EQ(x.dag.f[c], x.reference.results[0].f[c]) << "channel " << c;
  }
}

TEST(Flatten, ADerivativeOfAValueComputedPerFragmentIsThatValueAgainOnePixelOver) {
  Flat f = flatten(R"(surface t() {
    float h = float texture("grain", s * 2, t) * sin(s * t * 9);
    Ci = color(Du(h), Dv(h), Du(Dv(h)));
  })");
  ASSERT_TRUE(f.dag) << (first_error(f) ? first_error(f)->message : "");
  EXPECT_EQ(count_kind(*f.dag, dag::NodeKind::Texture), 3);  // here, right and below
  for (const dag::Node& n : f.dag->nodes) {
    if (n.kind != dag::NodeKind::Texture) continue;
    // Each lookup reads interpolants (s * 2 is one, hoisted to the vertices) or their values one
    // pixel over, all in the same place.
    const dag::Node& first = f.dag->node(n.children[0]);
    for (dag::NodeId c : n.children) {
      const dag::Node& k = f.dag->node(c);
      EXPECT_TRUE(k.kind == dag::NodeKind::Interpolant || (k.op == ir::Op::Neighbour && k.aux == first.aux)) << dag::to_string(k.kind);
      if (k.op == ir::Op::Neighbour) {
        EXPECT_EQ(f.dag->node(k.children[0]).kind, dag::NodeKind::Interpolant);
      }
    }
  }
  for (std::uint64_t seed = 1; seed <= 16; ++seed) {
    const OnAFragment x = run_both(f, seed);
    ASSERT_TRUE(x.reference.ok) << x.reference.error;
    const ir::Value& r = x.reference.results[0];
    for (std::size_t c = 0; c < 2; ++c) EXPECT_NEAR(x.dag.f[c], r.f[c], 1e-3f * (1 + std::fabs(r.f[c]))) << "seed " << seed << " channel " << c;
    EXPECT_EQ(x.dag.f[2], 0.0f);  // a derivative of a derivative: the neighbours share the fragment's
    EXPECT_EQ(r.f[2], 0.0f);
  }
}

// A matrix that differs per fragment is kept as its rows (no node is a matrix): a transform
// scales and sums them, a product sums rows scaled by elements; what would need it whole, or
// its inverse when it is projective, is refused at the place.
TEST(Flatten, AMatrixThatDiffersPerFragmentIsKeptAsItsRows) {
  Flat f = flatten(R"(surface t() {
    matrix m = rotate(matrix 1, s * 3, vector(0, 0, 1));
    if (t > 0.5) m = m * translate(matrix 1, vector(0.5, 0, 0));
    Ci = color(transform(m, P)) + color(ntransform(m, N)) + determinant(m) + comp(m, 0, 1);
  })");
  ASSERT_TRUE(f.dag) << (first_error(f) ? first_error(f)->message : "");
  for (const dag::Node& n : f.dag->nodes) EXPECT_NE(n.type, ir::BaseType::Matrix) << dag::label(n);
  for (std::uint64_t seed = 1; seed <= 16; ++seed) {
    const OnAFragment x = run_both(f, seed);
    ASSERT_TRUE(x.reference.ok) << x.reference.error;
    const ir::Value& r = x.reference.results[0];
    for (std::size_t c = 0; c < 3; ++c) EXPECT_NEAR(x.dag.f[c], r.f[c], 1e-4f * (1 + std::fabs(r.f[c]))) << "seed " << seed << " channel " << c;
  }
  Flat projective = flatten(R"(surface t() {
    matrix m = matrix(1, 0, 0, s, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1);
    Ci = color(ntransform(m, N));
  })");
  const lang::Diagnostic* d = first_error(projective);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->code, "matrix-value");
  EXPECT_EQ(d->span.line, 3u);
}

// An output parameter (an AOV) asked for is the fragment's colour, opaque; a name the shader does
// not have is an error that lists the outputs it has.
TEST(Flatten, AnOutputParameterIsTheColourWhenAsked) {
  const std::string src = R"(surface t(output varying float mask = 0; output varying color tint[2] = {0, 1}) {
    mask = step(0.5, s * t);
    tint[1] = color(s, 0, t);
    Ci = Cs;
  })";
  dag::FlattenOptions aov;
  aov.aov = "mask";
  Flat f = flatten(src, aov);
  ASSERT_TRUE(f.dag) << (first_error(f) ? first_error(f)->message : "");
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    const OnAFragment x = run_both(f, seed);
    ASSERT_TRUE(x.reference.ok);
    const float mask = x.reference.results[2].f[0];  // Ci, Oi, then the outputs
    for (std::size_t c = 0; c < 3; ++c) EXPECT_EQ(x.dag.f[c], mask);
    EXPECT_EQ(x.dag.f[3], 1.0f);
  }
  aov.aov = "tint[1]";
  EXPECT_TRUE(flatten(src, aov).dag);
  aov.aov = "tint";
  Flat bad = flatten(src, aov);
  ASSERT_NE(first_error(bad), nullptr);
  EXPECT_EQ(first_error(bad)->code, "unknown-aov");
  EXPECT_NE(first_error(bad)->message.find("its outputs: mask, tint[0], tint[1]"), std::string::npos) << first_error(bad)->message;
}

TEST(Flatten, ATextureLookupInsideAVaryingBranchFlattens) {
  // The values a branch defines are not merged at its end (only what flows on): merging every
  // value made a select of the texture's name, "a string value cannot be computed per fragment".
  // Found by the conformance tester (tests/data/conformance/texture_in_varying_branch.sl).
  Flat f = flatten(R"(surface t() {
    float v = s;
    if (t > 0.5) v = mix(float texture("marks", s, t), v, float texture("grain", s, t));
    Ci = v;
  })");
  ASSERT_TRUE(f.dag) << (first_error(f) ? first_error(f)->message : "");
  EXPECT_EQ(count_kind(*f.dag, dag::NodeKind::Texture), 2);
}

// A string chosen per fragment among a known set is never a node: a lookup by it is one lookup
// per string and a select; a comparison or format() of it runs per string too.
TEST(Flatten, AStringChosenPerFragmentBecomesASelectOverItsStrings) {
  Flat f = flatten(R"(surface t(string a = "grain") {
    string map = s > 0.5 ? a : "marks";
    if (t > 0.7) map = "grain";
    float g = float texture(map, s, t);
    string label = format("%s!", map);
    Ci = color(g, map == "grain", label == "marks!");
  })");
  ASSERT_TRUE(f.dag) << (first_error(f) ? first_error(f)->message : "");
  EXPECT_EQ(count_kind(*f.dag, dag::NodeKind::Texture), 2);  // grain and marks, each once
  // Without the lookup (which needs images), the comparisons against the interpreter.
  Flat g = flatten(R"(surface t(string a = "grain") {
    string map = s > 0.5 ? a : "marks";
    if (t > 0.7) map = "stripes";
    string label = format("%s!", map);
    Ci = color(map == "grain", label == "marks!", map != "stripes");
  })");
  ASSERT_TRUE(g.dag) << (first_error(g) ? first_error(g)->message : "");
  for (std::uint64_t seed = 1; seed <= 32; ++seed) {
    const ir::FragmentInputs in = ir::random_fragment(seed);
    ir::EvalContext ctx;
    const ir::RunResult r = ir::interpret(*g.prog->module, in, g.prog->binding.surface_params, ctx);
    ASSERT_TRUE(r.ok) << r.error;
    const ir::Value d = dag::evaluate(*g.dag, in, ctx);
    for (std::size_t c = 0; c < 3; ++c) EXPECT_EQ(d.f[c], r.results[0].f[c]) << "seed " << seed << " channel " << c;
  }
}

TEST(Flatten, VaryingBranchBecomesSelect) {
  Flat f = flatten("surface t() { color c = 0; if (s > .5) c = Cs; else c = Os; Ci = c; }");
  ASSERT_TRUE(f.dag);
  int selects = 0;
  for (const auto& n : f.dag->nodes) selects += n.op == ir::Op::Select;
  EXPECT_EQ(selects, 1);
}

TEST(Flatten, UniformWorkIsDoneOnTheHost) {
  // Everything but the final multiply is uniform: one operation besides the output.
  dag::FlattenOptions o;
  o.hoist_vertex_work = false;  // Cs * constant would otherwise become per-vertex work
  Flat f = flatten("surface t(float a = 2, b = 3) { Ci = Cs * (sqrt(a * a + b * b) + pow(a, b)); }", o);
  ASSERT_TRUE(f.dag);
  EXPECT_EQ(count_kind(*f.dag, dag::NodeKind::Operation), 2);
}

TEST(Flatten, NoiseIsADependentTextureRead) {
  Flat f = flatten("surface t() { Ci = noise(noise(P) * 4); }");
  ASSERT_TRUE(f.dag);
  dag::DagStats s = dag::compute_stats(*f.dag);
  EXPECT_EQ(s.texture_ops, 2);
  EXPECT_EQ(s.texture_units, 1);
  EXPECT_EQ(s.dependent_texture_ops, 1);
  EXPECT_EQ(s.dependency_levels, 1);
}

TEST(Flatten, AffineWorkMovesToTheVertexProgram) {
  // (s*2+1, t*3) are affine: one interpolant each, computed per vertex; the fetch is not dependent.
  Flat f = flatten(R"(surface t() { Ci = color texture("map", s * 2 + 1, t * 3); })");
  ASSERT_TRUE(f.dag);
  dag::DagStats s = dag::compute_stats(*f.dag);
  EXPECT_EQ(s.non_texture_ops, 1);  // only the output
  EXPECT_EQ(s.interpolants, 2);
  EXPECT_EQ(s.dependent_texture_ops, 0);
  EXPECT_FALSE(f.dag->vertex_nodes.empty());
  dag::FlattenOptions off;
  off.hoist_vertex_work = false;
  Flat g = flatten(R"(surface t() { Ci = color texture("map", s * 2 + 1, t * 3); })", off);
  ASSERT_TRUE(g.dag);
  EXPECT_EQ(dag::compute_stats(*g.dag).dependent_texture_ops, 1);
  // Both forms compute the same colour.
  ir::EvalContext ctx;
  for (std::uint64_t seed = 1; seed < 50; ++seed) {
    ir::FragmentInputs in = ir::random_fragment(seed);
    ir::Value a = dag::evaluate(*f.dag, in, ctx), b = dag::evaluate(*g.dag, in, ctx);
    for (int c = 0; c < 4; ++c) EXPECT_EQ(a.f[c], b.f[c]);
  }
}

TEST(Flatten, SharedSubexpressionsAreMultiplyReferenced) {
  Flat f = flatten("surface t() { float d = normalize(N) . normalize(I); Ci = color(d, d * d, 1 - d); }");
  ASSERT_TRUE(f.dag);
  dag::DagStats s = dag::compute_stats(*f.dag);
  EXPECT_GE(s.mr_nodes, 1);
  std::string dot = dag::to_dot(*f.dag);
  EXPECT_NE(dot.find("fillcolor=gray80"), std::string::npos);
}

TEST(Flatten, LightShaderIsNotAFragmentDag) {
  Flat f = flatten("light l() { illuminate(Ps) { Cl = 1; } }");
  EXPECT_FALSE(f.dag);
  ASSERT_NE(first_error(f), nullptr);
  EXPECT_EQ(first_error(f)->code, "not-a-surface");
}

TEST(Flatten, NodesArePostorderedAndSpansPointAtSource) {
  Flat f = flatten("surface t() {\n  color a = Cs * s;\n  Ci = a + Os;\n}\n");
  ASSERT_TRUE(f.dag);
  for (const auto& n : f.dag->nodes)
    for (dag::NodeId c : n.children) EXPECT_LT(c, n.id);
  EXPECT_EQ(f.dag->root, f.dag->nodes.size() - 1);
  bool saw_line2 = false, saw_line3 = false;
  for (const auto& n : f.dag->nodes)
    for (const auto& s : n.spans) {
      saw_line2 = saw_line2 || (s.line == 2 && n.op == ir::Op::Mul);
      saw_line3 = saw_line3 || (s.line == 3 && n.op == ir::Op::Add);
    }
  EXPECT_TRUE(saw_line2);
  EXPECT_TRUE(saw_line3);
}

TEST(DagStats, RegistersFollowSethiUllman) {
  // ((a*b) + (c*d)) needs two temporaries at once; a chain needs one.
  Flat tree = flatten("surface t() { Ci = (Cs * s) * t + (Os * u) * v; }");
  Flat chain = flatten("surface t() { Ci = ((Cs * s) * t) * u; }");
  ASSERT_TRUE(tree.dag && chain.dag);
  EXPECT_GT(dag::compute_stats(*tree.dag).registers, dag::compute_stats(*chain.dag).registers);
}

}  // namespace
}  // namespace passlab
