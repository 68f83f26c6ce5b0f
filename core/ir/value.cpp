// SPDX-License-Identifier: GPL-3.0-or-later
// Runtime values of the IR and the semantics of every operation, shared by all evaluators.
#include "core/ir/value.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

namespace passlab::ir {

using lang::Builtin;

Value Value::scalar(float x) {
  Value v;
  v.type = BaseType::Float;
  v.f[0] = x;
  return v;
}
Value Value::triple(BaseType t, float x, float y, float z) {
  Value v;
  v.type = t;
  v.f[0] = x;
  v.f[1] = y;
  v.f[2] = z;
  return v;
}
Value Value::boolean(bool b) {
  Value v;
  v.type = BaseType::Bool;
  v.f[0] = b ? 1.0f : 0.0f;
  return v;
}
Value Value::matrix(const Matrix& m) {
  Value v;
  v.type = BaseType::Matrix;
  v.f = m;
  return v;
}
Value Value::string(std::string s) {
  Value v;
  v.type = BaseType::String;
  v.s = std::move(s);
  return v;
}
Value Value::zero(BaseType t) {
  Value v;
  v.type = t;
  return v;
}

Matrix identity_matrix() {
  Matrix m{};
  m[0] = m[5] = m[10] = m[15] = 1.0f;
  return m;
}

Matrix multiply(const Matrix& a, const Matrix& b) {
  Matrix r{};
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      float s = 0;
      for (int k = 0; k < 4; ++k) s += a[i * 4 + k] * b[k * 4 + j];
      r[i * 4 + j] = s;
    }
  return r;
}

bool invert(const Matrix& m, Matrix* out) {
  // Gauss-Jordan elimination with partial pivoting, in double for stability.
  double a[4][8];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 8; ++j) a[i][j] = j < 4 ? m[i * 4 + j] : (j - 4 == i ? 1.0 : 0.0);
  for (int c = 0; c < 4; ++c) {
    int p = c;
    for (int r = c + 1; r < 4; ++r)
      if (std::fabs(a[r][c]) > std::fabs(a[p][c])) p = r;
    if (std::fabs(a[p][c]) < 1e-12) return false;
    if (p != c)
      for (int j = 0; j < 8; ++j) std::swap(a[p][j], a[c][j]);
    double d = a[c][c];
    for (int j = 0; j < 8; ++j) a[c][j] /= d;
    for (int r = 0; r < 4; ++r) {
      if (r == c) continue;
      double k = a[r][c];
      if (k != 0)
        for (int j = 0; j < 8; ++j) a[r][j] -= k * a[c][j];
    }
  }
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) (*out)[i * 4 + j] = static_cast<float>(a[i][j + 4]);
  return true;
}


const Matrix* EvalContext::space(const std::string& name) const {
  auto it = spaces.find(name);
  return it == spaces.end() ? nullptr : &it->second;
}

namespace {

int count(BaseType t) { return std::max(1, lang::component_count(t)); }

// Component i of an operand; a float operand of a triple operation is broadcast, as a scalar
// swizzle (.xxx) does on fragment hardware (the IR converts explicitly; the DAG relies on this).
inline float lane(const Value& v, int i) {
  return (v.type == BaseType::Float || v.type == BaseType::Bool) ? v.f[0] : v.f[i];
}

Value componentwise(BaseType type, const std::vector<const Value*>& a, float (*fn)(float, float, float)) {
  Value r = Value::zero(type);
  int n = count(type);
  for (int i = 0; i < n; ++i)
    r.f[i] = fn(lane(*a[0], i), a.size() > 1 ? lane(*a[1], i) : 0.0f, a.size() > 2 ? lane(*a[2], i) : 0.0f);
  return r;
}

float dot3(const Value& a, const Value& b) { return a.f[0] * b.f[0] + a.f[1] * b.f[1] + a.f[2] * b.f[2]; }

Value normalize3(BaseType t, const Value& a) {
  float len = std::sqrt(dot3(a, a));
  float k = 1.0f / len;
  return Value::triple(t, a.f[0] * k, a.f[1] * k, a.f[2] * k);
}

// A point-like value through a matrix, as a point (w = 1, divided) or a vector (w = 0).
Value through(BaseType t, const Value& p, const Matrix& m, bool as_point) {
  float w = as_point ? 1.0f : 0.0f;
  float out[4];
  for (int j = 0; j < 4; ++j) out[j] = p.f[0] * m[0 * 4 + j] + p.f[1] * m[1 * 4 + j] + p.f[2] * m[2 * 4 + j] + w * m[3 * 4 + j];
  if (as_point && out[3] != 1.0f && out[3] != 0.0f)
    for (int j = 0; j < 3; ++j) out[j] /= out[3];
  return Value::triple(t, out[0], out[1], out[2]);
}

Matrix space_to_current(const EvalContext& ctx, const std::string& name) {
  if (name == "current" || name == "camera") return identity_matrix();
  const Matrix* m = ctx.space(name);
  return m ? *m : identity_matrix();
}

Matrix current_to_space(const EvalContext& ctx, const std::string& name) {
  Matrix inv = identity_matrix();
  invert(space_to_current(ctx, name), &inv);
  return inv;
}

Matrix transpose(const Matrix& m) {
  Matrix r{};
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) r[i * 4 + j] = m[j * 4 + i];
  return r;
}

Value transform(Builtin id, BaseType type, const std::vector<const Value*>& a, const EvalContext& ctx) {
  // Forms: (to, p), (from, to, p), (matrix, p).
  Matrix m;
  const Value& p = *a.back();
  if (a.size() == 3) m = multiply(space_to_current(ctx, a[0]->s), current_to_space(ctx, a[1]->s));
  else if (a[0]->type == BaseType::Matrix) m = a[0]->f;
  else m = current_to_space(ctx, a[0]->s);
  if (id == Builtin::Ntransform) {
    Matrix inv = identity_matrix();
    invert(m, &inv);
    return through(type, p, transpose(inv), false);
  }
  return through(type, p, m, id == Builtin::Transform);
}

}  // namespace

Value transform_by(const Value& v, const Matrix& m) {
  if (v.type == BaseType::Point || v.type == BaseType::Vector) return through(v.type, v, m, v.type == BaseType::Point);
  if (v.type != BaseType::Normal) return v;
  Matrix inv = identity_matrix();
  invert(m, &inv);
  return through(v.type, v, transpose(inv), false);
}

namespace {

float catmull_rom(float p0, float p1, float p2, float p3, float t) {
  return 0.5f * ((2 * p1) + (-p0 + p2) * t + (2 * p0 - 5 * p1 + 4 * p2 - p3) * t * t + (-p0 + 3 * p1 - 3 * p2 + p3) * t * t * t);
}

Value spline(BaseType type, const std::vector<const Value*>& a) {
  // RI 3.2 Catmull-Rom: knots a[1..n], n >= 4, n - 3 segments over x in [0, 1].
  int knots = static_cast<int>(a.size()) - 1;
  int segments = knots - 3;
  float x = std::clamp(a[0]->f[0], 0.0f, 1.0f);
  if (!std::isfinite(a[0]->f[0])) x = 0;
  float pos = x * static_cast<float>(segments);
  int seg = std::min(static_cast<int>(pos), segments - 1);
  float t = pos - static_cast<float>(seg);
  Value r = Value::zero(type);
  for (int c = 0; c < count(type); ++c)
    r.f[c] = catmull_rom(a[1 + seg]->f[c], a[2 + seg]->f[c], a[3 + seg]->f[c], a[4 + seg]->f[c], t);
  return r;
}

// RSL's format: %f %g %e %d %i (numbers), %s (strings), %c %p %n %v (triples, as "x y z"),
// %m (matrices), %%; anything else is copied.
std::string format_rsl(const std::vector<const Value*>& a) {
  const std::string& f = a[0]->s;
  std::string out;
  std::size_t next = 1;
  char buf[64];
  for (std::size_t i = 0; i < f.size(); ++i) {
    if (f[i] != '%' || i + 1 >= f.size()) {
      out += f[i];
      continue;
    }
    std::size_t j = i + 1;  // flags, width and precision pass through to snprintf
    while (j < f.size() && std::strchr("-+ #0123456789.", f[j])) ++j;
    if (j >= f.size()) break;
    const char conv = f[j];
    const std::string spec = f.substr(i, j - i);
    i = j;
    if (conv == '%') {
      out += '%';
      continue;
    }
    if (next >= a.size()) continue;
    const Value& v = *a[next++];
    auto number = [&](float x, char c) {
      if (c == 'd' || c == 'i') std::snprintf(buf, sizeof buf, (spec + "d").c_str(), static_cast<int>(x));
      else std::snprintf(buf, sizeof buf, (spec + c).c_str(), static_cast<double>(x));
      return std::string(buf);
    };
    if (conv == 's') out += v.type == BaseType::String ? v.s : number(v.f[0], 'g');
    else if (conv == 'c' || conv == 'p' || conv == 'n' || conv == 'v' || conv == 'm') {
      int n = v.type == BaseType::Matrix ? 16 : lang::is_triple(v.type) ? 3 : 1;
      for (int k = 0; k < n; ++k) out += (k ? " " : "") + number(v.f[k], 'g');
    } else if (std::strchr("fgeEGdi", conv)) out += number(v.f[0], conv);
  }
  return out;
}

// match(pattern, subject): whether the pattern occurs in the subject. Patterns are the simple
// regular expressions shaders use: literal characters, '.', '*' after either, '^' and '$'
// anchors, '\\' to quote. Matched by dynamic programming, O(pattern × subject): no input can make
// it slow (a backtracking regex engine can be made exponential).
bool match_rsl(const std::string& pattern, const std::string& subject) {
  struct Atom {
    char c;
    bool any, star;
  };
  std::vector<Atom> atoms;
  std::size_t i = 0;
  const bool head = !pattern.empty() && pattern[0] == '^';
  if (head) i = 1;
  bool tail = false;
  for (; i < pattern.size(); ++i) {
    char c = pattern[i];
    if (c == '$' && i + 1 == pattern.size()) {
      tail = true;
      break;
    }
    bool any = c == '.';
    if (c == '\\' && i + 1 < pattern.size()) {
      c = pattern[++i];
      any = false;
    }
    if (c == '*' && !atoms.empty() && !atoms.back().star) {
      atoms.back().star = true;
      continue;
    }
    atoms.push_back({c, any, false});
  }
  // reach[k]: the first k atoms can match a piece of the subject that ends here.
  const std::size_t n = atoms.size();
  std::vector<char> reach(n + 1, 0), next(n + 1, 0);
  auto close = [&](std::vector<char>& r) {
    for (std::size_t k = 0; k < n; ++k)
      if (r[k] && atoms[k].star) r[k + 1] = 1;
  };
  reach[0] = 1;
  close(reach);
  if (reach[n] && !tail) return true;
  for (std::size_t p = 0; p < subject.size(); ++p) {
    std::fill(next.begin(), next.end(), 0);
    if (!head) next[0] = 1;  // unanchored: a match may start at any character
    for (std::size_t k = 0; k < n; ++k) {
      if (!reach[k]) continue;
      const Atom& a = atoms[k];
      if (a.any || a.c == subject[p]) next[a.star ? k : k + 1] = 1;
    }
    close(next);
    reach.swap(next);
    if (reach[n] && (!tail || p + 1 == subject.size())) return true;
  }
  return false;
}

float fmod_rsl(float a, float b) {
  // RSL mod is always non-negative for positive b (like GLSL's mod): a - b * floor(a / b).
  return a - b * std::floor(a / b);
}

Value builtin(Builtin id, BaseType type, const std::vector<const Value*>& a, const EvalContext& ctx) {
  auto f1 = [&](float (*fn)(float)) { return Value::scalar(fn(a[0]->f[0])); };
  switch (id) {
    case Builtin::Abs: return componentwise(type, a, [](float x, float, float) { return std::fabs(x); });
    case Builtin::Sign:
      return componentwise(type, a, [](float x, float, float) { return x > 0 ? 1.0f : x < 0 ? -1.0f : 0.0f; });
    case Builtin::Floor: return componentwise(type, a, [](float x, float, float) { return std::floor(x); });
    case Builtin::Ceil: return componentwise(type, a, [](float x, float, float) { return std::ceil(x); });
    case Builtin::Round: return componentwise(type, a, [](float x, float, float) { return std::round(x); });
    case Builtin::Mod: return componentwise(type, a, [](float x, float y, float) { return fmod_rsl(x, y); });
    case Builtin::Min:
    case Builtin::Max: {
      Value r = Value::zero(type);
      for (int i = 0; i < count(type); ++i) r.f[i] = lane(*a[0], i);
      for (std::size_t k = 1; k < a.size(); ++k)
        for (int i = 0; i < count(type); ++i)
          r.f[i] = id == Builtin::Min ? std::min(r.f[i], lane(*a[k], i)) : std::max(r.f[i], lane(*a[k], i));
      return r;
    }
    case Builtin::Clamp:
      return componentwise(type, a, [](float x, float lo, float hi) { return std::min(std::max(x, lo), hi); });
    case Builtin::Mix: {
      // a (1 - t) + b t, and exactly a where b is a, as in exact arithmetic (the RPU's a + (b - a) t
      // gives it; the sum of two roundings would not, and distance(a, mix(a, a, t)) would be a
      // rounding instead of 0).
      Value r = Value::zero(type);
      for (int i = 0; i < count(type); ++i) {
        const float t = lane(*a[2], i), x = lane(*a[0], i), y = lane(*a[1], i);
        r.f[i] = x == y ? x : x * (1 - t) + y * t;
      }
      return r;
    }
    case Builtin::Step: return Value::scalar(a[1]->f[0] < a[0]->f[0] ? 0.0f : 1.0f);
    case Builtin::Smoothstep: {
      float lo = a[0]->f[0], hi = a[1]->f[0], x = a[2]->f[0];
      if (x < lo) return Value::scalar(0);
      if (x >= hi) return Value::scalar(1);
      float t = (x - lo) / (hi - lo);
      return Value::scalar(t * t * (3 - 2 * t));
    }
    case Builtin::Sqrt: return f1([](float x) { return std::sqrt(x); });
    case Builtin::InverseSqrt: return f1([](float x) { return 1.0f / std::sqrt(x); });
    case Builtin::Pow: return Value::scalar(std::pow(a[0]->f[0], a[1]->f[0]));
    case Builtin::Exp: return f1([](float x) { return std::exp(x); });
    case Builtin::Log: return f1([](float x) { return std::log(x); });
    case Builtin::LogBase: return Value::scalar(std::log(a[0]->f[0]) / std::log(a[1]->f[0]));
    case Builtin::Sin: return f1([](float x) { return std::sin(x); });
    case Builtin::Cos: return f1([](float x) { return std::cos(x); });
    case Builtin::Tan: return f1([](float x) { return std::tan(x); });
    case Builtin::Asin: return f1([](float x) { return std::asin(x); });
    case Builtin::Acos: return f1([](float x) { return std::acos(x); });
    case Builtin::Atan: return f1([](float x) { return std::atan(x); });
    case Builtin::Atan2: return Value::scalar(std::atan2(a[0]->f[0], a[1]->f[0]));
    case Builtin::Radians: return f1([](float x) { return x * 0.017453292519943295f; });
    case Builtin::Degrees: return f1([](float x) { return x * 57.29577951308232f; });
    case Builtin::Length: return Value::scalar(std::sqrt(dot3(*a[0], *a[0])));
    case Builtin::Normalize: return normalize3(type, *a[0]);
    case Builtin::Distance: {
      float d[3] = {a[0]->f[0] - a[1]->f[0], a[0]->f[1] - a[1]->f[1], a[0]->f[2] - a[1]->f[2]};
      return Value::scalar(std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]));
    }
    case Builtin::Faceforward: {
      // faceforward(N, I [, Nref]): N flipped to face against I.
      const Value& n = *a[0];
      const Value& ref = a.size() > 2 ? *a[2] : n;
      float k = dot3(*a[1], ref) < 0 ? 1.0f : -1.0f;
      return Value::triple(type, n.f[0] * k, n.f[1] * k, n.f[2] * k);
    }
    case Builtin::Reflect: {
      const Value& i = *a[0];
      const Value& n = *a[1];
      float k = 2 * dot3(i, n);
      return Value::triple(type, i.f[0] - k * n.f[0], i.f[1] - k * n.f[1], i.f[2] - k * n.f[2]);
    }
    case Builtin::Refract: {
      const Value& i = *a[0];
      const Value& n = *a[1];
      float eta = a[2]->f[0];
      float d = dot3(i, n);
      float k = 1 - eta * eta * (1 - d * d);
      if (k < 0) return Value::zero(type);
      float c = eta * d + std::sqrt(k);
      return Value::triple(type, eta * i.f[0] - c * n.f[0], eta * i.f[1] - c * n.f[1], eta * i.f[2] - c * n.f[2]);
    }
    case Builtin::Transform:
    case Builtin::Vtransform:
    case Builtin::Ntransform: return transform(id, type, a, ctx);
    case Builtin::PerVertex: {  // the value itself; where it is computed is the DAG's business
      Value r = *a[0];
      r.type = type;
      return r;
    }
    case Builtin::Xcomp: return Value::scalar(a[0]->f[0]);
    case Builtin::Ycomp: return Value::scalar(a[0]->f[1]);
    case Builtin::Zcomp: return Value::scalar(a[0]->f[2]);
    case Builtin::Comp: {
      if (a[0]->type == BaseType::Matrix) {
        int r = static_cast<int>(a[1]->f[0]), c = static_cast<int>(a[2]->f[0]);
        if (r < 0 || r > 3 || c < 0 || c > 3) return Value::scalar(0);
        return Value::scalar(a[0]->f[r * 4 + c]);
      }
      float fi = a[1]->f[0];
      if (!(fi >= 0 && fi < 3)) return Value::scalar(0);  // out of range (or NaN): zero, never a crash
      return Value::scalar(a[0]->f[static_cast<int>(fi)]);
    }
    case Builtin::Setcomp:
    case Builtin::Setxcomp:
    case Builtin::Setycomp:
    case Builtin::Setzcomp: {
      Value r = *a[0];
      r.type = type;
      int index = id == Builtin::Setxcomp ? 0 : id == Builtin::Setycomp ? 1 : id == Builtin::Setzcomp ? 2 : -1;
      float x = a.back()->f[0];
      if (index < 0) {
        float fi = a[1]->f[0];
        if (!(fi >= 0 && fi < 3)) return r;
        index = static_cast<int>(fi);
      }
      r.f[index] = x;
      return r;
    }
    case Builtin::Spline: return spline(type, a);
    case Builtin::Format: return Value::string(format_rsl(a));
    case Builtin::Concat: {
      std::string out;
      for (const Value* v : a) out += v->s;
      return Value::string(out);
    }
    case Builtin::Match: return Value::scalar(match_rsl(a[0]->s, a[1]->s) ? 1.0f : 0.0f);
    case Builtin::Determinant: {
      // Laplace expansion along the first row, with 2x2 minors of the lower rows, in double.
      const auto& m = a[0]->f;
      auto at = [&](int r, int c) { return static_cast<double>(m[static_cast<std::size_t>(r * 4 + c)]); };
      auto det3 = [&](int c0, int c1, int c2) {
        return at(1, c0) * (at(2, c1) * at(3, c2) - at(2, c2) * at(3, c1)) - at(1, c1) * (at(2, c0) * at(3, c2) - at(2, c2) * at(3, c0)) +
               at(1, c2) * (at(2, c0) * at(3, c1) - at(2, c1) * at(3, c0));
      };
      return Value::scalar(static_cast<float>(at(0, 0) * det3(1, 2, 3) - at(0, 1) * det3(0, 2, 3) + at(0, 2) * det3(0, 1, 3) -
                                              at(0, 3) * det3(0, 1, 2)));
    }
    default: break;
  }
  return Value::zero(type);  // light and derivative functions never reach evaluation (lowered away)
}

}  // namespace

Value evaluate(Op op, BaseType type, std::uint32_t aux, const std::string& text, const std::vector<float>& data,
               const std::vector<const Value*>& a, const EvalContext& ctx) {
  switch (op) {
    case Op::Const: {
      if (type == BaseType::String) return Value::string(text);
      Value v = Value::zero(type);
      for (std::size_t i = 0; i < data.size() && i < 16; ++i) v.f[i] = data[i];
      return v;
    }
    case Op::Undef: return Value::zero(type);
    case Op::Neg: return componentwise(type, a, [](float x, float, float) { return -x; });
    case Op::Add: return componentwise(type, a, [](float x, float y, float) { return x + y; });
    case Op::Sub: return componentwise(type, a, [](float x, float y, float) { return x - y; });
    case Op::Mul: return componentwise(type, a, [](float x, float y, float) { return x * y; });
    case Op::Div: return componentwise(type, a, [](float x, float y, float) { return x / y; });
    case Op::Dot: return Value::scalar(dot3(*a[0], *a[1]));
    case Op::Cross: {
      const Value& x = *a[0];
      const Value& y = *a[1];
      return Value::triple(type, x.f[1] * y.f[2] - x.f[2] * y.f[1], x.f[2] * y.f[0] - x.f[0] * y.f[2],
                           x.f[0] * y.f[1] - x.f[1] * y.f[0]);
    }
    case Op::MatMul: return Value::matrix(multiply(a[0]->f, a[1]->f));
    case Op::MatDiv: {
      Matrix inv = identity_matrix();
      invert(a[1]->f, &inv);
      return Value::matrix(multiply(a[0]->f, inv));
    }
    case Op::Lt: return Value::boolean(a[0]->f[0] < a[1]->f[0]);
    case Op::Gt: return Value::boolean(a[0]->f[0] > a[1]->f[0]);
    case Op::Le: return Value::boolean(a[0]->f[0] <= a[1]->f[0]);
    case Op::Ge: return Value::boolean(a[0]->f[0] >= a[1]->f[0]);
    case Op::Eq:
    case Op::Ne: {
      bool eq = true;
      if (a[0]->type == BaseType::String) eq = a[0]->s == a[1]->s;
      else
        for (int i = 0; i < count(a[0]->type); ++i) eq = eq && a[0]->f[i] == a[1]->f[i];
      return Value::boolean(op == Op::Eq ? eq : !eq);
    }
    case Op::And: return Value::boolean(a[0]->truth() && a[1]->truth());
    case Op::Or: return Value::boolean(a[0]->truth() || a[1]->truth());
    case Op::Not: return Value::boolean(!a[0]->truth());
    case Op::Select: {
      const Value& pick = a[0]->truth() ? *a[1] : *a[2];
      Value r = Value::zero(type);
      if (type == BaseType::String) return pick;
      for (int i = 0; i < count(type); ++i) r.f[i] = lane(pick, i);
      return r;
    }
    case Op::Convert: {
      const Value& x = *a[0];
      if (type == BaseType::Bool) return Value::boolean(x.f[0] != 0.0f);
      if (x.type == BaseType::Float || x.type == BaseType::Bool) {
        if (type == BaseType::Matrix) {
          Matrix m{};
          m[0] = m[5] = m[10] = m[15] = x.f[0];
          return Value::matrix(m);
        }
        Value r = Value::zero(type);
        for (int i = 0; i < count(type); ++i) r.f[i] = x.f[0];
        return r;
      }
      Value r = x;
      r.type = type;
      return r;
    }
    case Op::MakeTriple: return Value::triple(type, a[0]->f[0], a[1]->f[0], a[2]->f[0]);
    case Op::MakeMatrix: {
      Value r = Value::zero(BaseType::Matrix);
      for (std::size_t i = 0; i < 16 && i < a.size(); ++i) r.f[i] = a[i]->f[0];
      return r;
    }
    case Op::Output: {
      Value r = *a[0];
      r.type = BaseType::Color;
      r.f[3] = a[1]->f[0];
      return r;
    }
    case Op::Outputs: return *a[0];                  // the colour, the first output
    case Op::ScreenDiff: return Value::zero(type);  // of a constant (others need the neighbours: dag::evaluate)
    case Op::Neighbour: return *a[0];                // of a constant (likewise)
    case Op::Loop:                                   // never folded: dag::evaluate runs its body
    case Op::LoopValue: return Value::zero(type);
    case Op::Builtin: return builtin(static_cast<Builtin>(aux), type, a, ctx);
    case Op::Texture: {
      float coords[3] = {0, 0, 0};
      int dims = 0;
      for (std::size_t k = 1; k < a.size(); ++k) {
        const Value* v = a[k];
        int n = lang::is_triple(v->type) ? 3 : 1;
        for (int i = 0; i < n && dims < 3; ++i) coords[dims++] = v->f[i];
      }
      const std::string& name = a[0]->s;
      std::array<float, 4> rgba;
      if (name == "$noise") rgba = sample_noise(dims, coords);
      else if (ctx.textures) rgba = ctx.textures->sample(name, dims, coords);
      else rgba = ProceduralTextures().sample(name, dims, coords);
      // aux: the first channel read (texture("name"[k], ...)).
      const std::size_t k = std::min<std::size_t>(aux, 3);
      if (type == BaseType::Float) return Value::scalar(rgba[k]);
      return Value::triple(type, rgba[k], rgba[std::min<std::size_t>(k + 1, 3)], rgba[std::min<std::size_t>(k + 2, 3)]);
    }
    default: break;
  }
  return Value::zero(type);
}

}  // namespace passlab::ir
