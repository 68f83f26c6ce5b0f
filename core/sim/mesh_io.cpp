// SPDX-License-Identifier: GPL-3.0-or-later
// OBJ and PLY mesh files read into a Mesh, each problem placed at its line and column (OBJ,
// PLY headers, ascii PLY data) or byte offset (binary PLY data).
//
// Both readers take the whole file into memory first, so the only limit on what they read is the
// end of that buffer, and collect problems instead of stopping at the first one where the rest
// of the file still makes sense (an OBJ line, a PLY face index).
#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>

#include "core/sim/mesh.h"

namespace passlab::sim {
namespace {

constexpr std::size_t kMaxProblems = 20;
// More elements than this is a broken count, not a mesh someone means to shade.
constexpr long long kMaxCount = 50'000'000;

// The problems with one file, up to kMaxProblems; after that one last problem says the reader
// gave up, and full() tells the reader to stop.
class ProblemLog {
 public:
  explicit ProblemLog(std::string file) : file_(std::move(file)) {}

  void add(int line, int column, std::string message) {
    if (full_) return;
    if (problems_.size() == kMaxProblems) {
      problems_.push_back({0, 0, "too many problems; stopped reading"});
      full_ = true;
      return;
    }
    problems_.push_back({line, column, std::move(message)});
  }
  bool full() const { return full_; }
  bool empty() const { return problems_.empty(); }
  // The problems as diagnostics (code "mesh") at their lines in the file (its text is not kept).
  void move_to(lang::Diagnostics* out) {
    if (out && !problems_.empty()) {
      const lang::FileId file = out->sources().add(file_, "");
      for (auto& p : problems_)
        out->error("mesh", lang::line_span(file, static_cast<std::uint32_t>(p.line), static_cast<std::uint32_t>(p.column)), std::move(p.message));
    }
    problems_.clear();
  }

 private:
  struct Entry {
    int line, column;  // 1-based; 0 when the file as a whole is at fault
    std::string message;
  };
  std::string file_;
  std::vector<Entry> problems_;
  bool full_ = false;
};

// The mesh when the file had no problem (and at least one face), else nullopt and the problems.
std::optional<Mesh> finish(Mesh&& mesh, ProblemLog& log, lang::Diagnostics* problems) {
  if (log.empty() && mesh.triangles.empty()) log.add(0, 0, "the file has no faces");
  if (log.empty()) return std::move(mesh);
  log.move_to(problems);
  return std::nullopt;
}

struct CloseFile {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

std::optional<std::string> read_file(const std::string& path, ProblemLog& log) {
  std::unique_ptr<std::FILE, CloseFile> file(std::fopen(path.c_str(), "rb"));
  if (!file) {
    log.add(0, 0, fmt::format("cannot open the file: {}", std::strerror(errno)));
    return std::nullopt;
  }
  std::string data;
  char buffer[1 << 16];
  while (const std::size_t n = std::fread(buffer, 1, sizeof buffer, file.get())) data.append(buffer, n);
  if (std::ferror(file.get())) {
    log.add(0, 0, fmt::format("cannot read the file: {}", std::strerror(errno)));
    return std::nullopt;
  }
  return data;
}

// Splits a convex polygon into triangles around its first corner, keeping its winding.
void fan(const std::vector<std::uint32_t>& polygon, Mesh& mesh) {
  for (std::size_t i = 1; i + 1 < polygon.size(); ++i)
    mesh.triangles.push_back({polygon[0], polygon[i], polygon[i + 1]});
}

// A whole token as a number (integer or floating point as T); nullopt if any of it is not.
template <class T>
std::optional<T> parse_number(std::string_view text) {
  // from_chars takes no leading '+', which some exporters write.
  if (text.size() > 1 && text[0] == '+' && text[1] != '+' && text[1] != '-') text.remove_prefix(1);
  T value{};
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc() || stop != end) return std::nullopt;
  return value;
}

// ---- Lines and words, with 1-based line numbers and columns ----

class Lines {
 public:
  // Starts at byte `offset` of `text`; the first line returned is numbered `before + 1`.
  explicit Lines(std::string_view text, std::size_t offset = 0, int before = 0)
      : text_(text), offset_(offset), number_(before) {}

  // The next line without its '\n'; false at the end of the text.
  bool next(std::string_view* line) {
    if (offset_ >= text_.size()) return false;
    std::size_t end = text_.find('\n', offset_);
    if (end == std::string_view::npos) end = text_.size();
    *line = text_.substr(offset_, end - offset_);
    offset_ = std::min(end + 1, text_.size());
    ++number_;
    return true;
  }
  int number() const { return number_; }        // of the line last returned
  std::size_t offset() const { return offset_; }  // of the byte after it

 private:
  std::string_view text_;
  std::size_t offset_;
  int number_;
};

struct Token {
  std::string_view text;
  int column = 0;
};

// The whitespace-separated words of one line ('\r' counts as space, for CRLF files).
class Words {
 public:
  explicit Words(std::string_view line = {}) : line_(line) {}

  std::optional<Token> next() {
    auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; };
    while (pos_ < line_.size() && space(line_[pos_])) ++pos_;
    if (pos_ == line_.size()) return std::nullopt;
    const std::size_t start = pos_;
    while (pos_ < line_.size() && !space(line_[pos_])) ++pos_;
    return Token{line_.substr(start, pos_ - start), static_cast<int>(start) + 1};
  }

 private:
  std::string_view line_;
  std::size_t pos_ = 0;
};

// ---- OBJ ----

// A face corner as OBJ gives it: 0-based position, texture coordinate and normal indices (-1
// when absent). Corners that agree in all three are one mesh vertex.
using Corner = std::array<int, 3>;

struct CornerHash {
  std::size_t operator()(const Corner& c) const {
    std::size_t h = 0;
    for (int i : c) h ^= std::hash<int>{}(i) + 0x9e3779b97f4a7c15u + (h << 6) + (h >> 2);
    return h;
  }
};

// Reads an OBJ file line by line: attribute lines extend the streams, face lines refer back to
// them (indices are resolved when the face is read, so they may only name what came before).
class ObjReader {
 public:
  explicit ObjReader(ProblemLog& log) : log_(log) {}

  void read_line(std::string_view text, int line) {
    text = text.substr(0, text.find('#'));
    Words words(text);
    const std::optional<Token> keyword = words.next();
    if (!keyword) return;
    // A bad attribute still takes its place (as zeros), so later indices keep their meaning
    // and do not add problems of their own.
    if (keyword->text == "v") {
      std::array<float, 3> p{};
      read_numbers(words, *keyword, line, 3, p);  // a w or vertex colours may follow; ignored
      positions_.push_back({p[0], p[1], p[2]});
    } else if (keyword->text == "vt") {
      std::array<float, 2> st{};
      read_numbers(words, *keyword, line, 1, st);  // t defaults to 0; a w is ignored
      texcoords_.push_back(st);
    } else if (keyword->text == "vn") {
      std::array<float, 3> n{};
      read_numbers(words, *keyword, line, 3, n);
      normals_.push_back({n[0], n[1], n[2]});
    } else if (keyword->text == "f") {
      read_face(words, *keyword, line);
    }
    // Everything else (o, g, s, usemtl, mtllib, l, p, curves) does not change the triangles.
  }

  Mesh take() { return std::move(mesh_); }

 private:
  // Fills `out` from the numbers after the keyword; the first `required` of them must be there.
  template <std::size_t N>
  void read_numbers(Words& words, const Token& keyword, int line, std::size_t required, std::array<float, N>& out) {
    for (std::size_t i = 0; i < N; ++i) {
      const std::optional<Token> token = words.next();
      if (!token) {
        if (i < required)
          log_.add(line, keyword.column,
                   fmt::format("'{}' needs {} {}; this one has {}", keyword.text, required,
                               required == 1 ? "number" : "numbers", i));
        return;
      }
      const std::optional<float> value = parse_number<float>(token->text);
      if (!value || !std::isfinite(*value)) {
        log_.add(line, token->column, fmt::format("malformed number '{}'", token->text));
        continue;
      }
      out[i] = *value;
    }
  }

  void read_face(Words& words, const Token& keyword, int line) {
    polygon_.clear();
    int corners = 0;
    bool ok = true;
    while (const std::optional<Token> token = words.next()) {
      ++corners;
      if (const std::optional<Corner> corner = read_corner(*token, line))
        polygon_.push_back(vertex(*corner));
      else
        ok = false;
    }
    if (corners < 3)
      log_.add(line, keyword.column, fmt::format("a face needs at least 3 vertices; this one has {}", corners));
    else if (ok)
      fan(polygon_, mesh_);
  }

  // One of "i", "i/j", "i//k" or "i/j/k".
  std::optional<Corner> read_corner(const Token& token, int line) {
    std::array<std::string_view, 3> parts;
    std::array<int, 3> columns{};
    std::size_t count = 0;
    const bool too_many = std::count(token.text.begin(), token.text.end(), '/') > 2;
    for (std::size_t start = 0; !too_many;) {
      const std::size_t slash = token.text.find('/', start);
      parts[count] = token.text.substr(start, slash == std::string_view::npos ? slash : slash - start);
      columns[count++] = token.column + static_cast<int>(start);
      if (slash == std::string_view::npos) break;
      start = slash + 1;
    }
    const bool well_formed = !too_many && !parts[0].empty() && (count != 2 || !parts[1].empty()) &&
                             (count != 3 || !parts[2].empty());
    if (!well_formed) {
      log_.add(line, token.column,
               fmt::format("malformed face vertex '{}' (expected i, i/j, i//k or i/j/k)", token.text));
      return std::nullopt;
    }
    static constexpr std::array<const char*, 3> kNames = {"vertex", "texture coordinate", "normal"};
    const std::array<std::size_t, 3> defined = {positions_.size(), texcoords_.size(), normals_.size()};
    Corner corner{-1, -1, -1};
    bool ok = true;
    for (std::size_t i = 0; i < count; ++i) {
      if (parts[i].empty()) continue;  // the j of i//k
      const std::optional<int> index = resolve(parts[i], defined[i], kNames[i], line, columns[i]);
      if (index)
        corner[i] = *index;
      else
        ok = false;
    }
    if (!ok) return std::nullopt;
    return corner;
  }

  // An OBJ index (1-based, or negative counting back from the last one defined) made 0-based.
  std::optional<int> resolve(std::string_view text, std::size_t defined, const char* what, int line, int column) {
    const std::optional<long long> index = parse_number<long long>(text);
    if (!index) {
      log_.add(line, column, fmt::format("malformed {} index '{}'", what, text));
      return std::nullopt;
    }
    const long long n = static_cast<long long>(defined);
    if (*index > 0 && *index <= n) return static_cast<int>(*index - 1);
    if (*index < 0 && *index >= -n) return static_cast<int>(n + *index);
    log_.add(line, column,
             *index == 0 ? fmt::format("{} index 0 is not valid (OBJ indices start at 1)", what)
                         : fmt::format("{} index {} is out of range ({} defined so far)", what, *index, n));
    return std::nullopt;
  }

  // The mesh vertex of a corner, made on its first appearance.
  std::uint32_t vertex(const Corner& corner) {
    const auto [it, added] = vertex_of_.try_emplace(corner, static_cast<std::uint32_t>(mesh_.vertices.size()));
    if (added) {
      Vertex v;
      v.p = positions_[corner[0]];
      if (corner[1] >= 0) {
        v.s = v.u = texcoords_[corner[1]][0];
        v.t = v.v = texcoords_[corner[1]][1];
      }
      if (corner[2] >= 0) v.n = normalize(normals_[corner[2]]);
      mesh_.vertices.push_back(v);
    }
    return it->second;
  }

  ProblemLog& log_;
  std::vector<Vec3> positions_, normals_;
  std::vector<std::array<float, 2>> texcoords_;
  std::unordered_map<Corner, std::uint32_t, CornerHash> vertex_of_;
  std::vector<std::uint32_t> polygon_;  // the face being read (kept to reuse its storage)
  Mesh mesh_;
};

// ---- PLY: the header ----

enum class Scalar : std::uint8_t { Int8, UInt8, Int16, UInt16, Int32, UInt32, Float32, Float64 };

bool is_integer(Scalar s) { return s < Scalar::Float32; }

std::size_t size_of(Scalar s) {
  switch (s) {
    case Scalar::Int8:
    case Scalar::UInt8: return 1;
    case Scalar::Int16:
    case Scalar::UInt16: return 2;
    case Scalar::Int32:
    case Scalar::UInt32:
    case Scalar::Float32: return 4;
    case Scalar::Float64: return 8;
  }
  return 8;
}

std::optional<Scalar> scalar_named(std::string_view name) {
  static constexpr std::pair<std::string_view, Scalar> kNames[] = {
      {"char", Scalar::Int8},     {"int8", Scalar::Int8},       {"uchar", Scalar::UInt8},
      {"uint8", Scalar::UInt8},   {"short", Scalar::Int16},     {"int16", Scalar::Int16},
      {"ushort", Scalar::UInt16}, {"uint16", Scalar::UInt16},   {"int", Scalar::Int32},
      {"int32", Scalar::Int32},   {"uint", Scalar::UInt32},     {"uint32", Scalar::UInt32},
      {"float", Scalar::Float32}, {"float32", Scalar::Float32}, {"double", Scalar::Float64},
      {"float64", Scalar::Float64}};
  for (const auto& [n, s] : kNames)
    if (n == name) return s;
  return std::nullopt;
}

struct PlyProperty {
  std::string name;
  Scalar type = Scalar::Float32;  // of the value, or of a list's items
  bool is_list = false;
  Scalar count_type = Scalar::UInt8;  // of a list's length
  int line = 0;
};

struct PlyElement {
  std::string name;
  std::uint64_t count = 0;
  std::vector<PlyProperty> properties;
  int line = 0;
};

enum class PlyFormat { Ascii, BinaryLittleEndian };

struct PlyHeader {
  PlyFormat format = PlyFormat::Ascii;
  std::vector<PlyElement> elements;
  std::size_t data_offset = 0;  // the byte after the end_header line
  int data_line = 0;            // the number of the line that starts there
};

// Reads the header up to end_header; the first problem ends it (nothing after it can be trusted).
class PlyHeaderReader {
 public:
  explicit PlyHeaderReader(ProblemLog& log) : log_(log) {}

  std::optional<PlyHeader> read(std::string_view data) {
    Lines lines(data);
    std::string_view text;
    Words first;
    if (lines.next(&text)) first = Words(text);
    const std::optional<Token> magic = first.next();
    if (!magic || magic->text != "ply" || first.next()) {
      log_.add(0, 0, "not a PLY file (the first line must be 'ply')");
      return std::nullopt;
    }
    bool has_format = false;
    while (lines.next(&text)) {
      line_ = lines.number();
      Words words(text);
      const std::optional<Token> keyword = words.next();
      if (!keyword || keyword->text == "comment" || keyword->text == "obj_info") continue;
      bool ok = true;
      if (keyword->text == "format") {
        ok = has_format = format(words, *keyword);
      } else if (keyword->text == "element") {
        ok = element(words, *keyword);
      } else if (keyword->text == "property") {
        ok = property(words, *keyword);
      } else if (keyword->text == "end_header") {
        if (!has_format) {
          fail(keyword->column, "the header has no 'format' line");
          return std::nullopt;
        }
        header_.data_offset = lines.offset();
        header_.data_line = line_ + 1;
        return std::move(header_);
      } else {
        ok = fail(keyword->column, fmt::format("unknown header line '{}'", keyword->text));
      }
      if (!ok) return std::nullopt;
    }
    log_.add(lines.number(), 0, "the header has no 'end_header' line");
    return std::nullopt;
  }

 private:
  bool format(Words& words, const Token& keyword) {
    const std::optional<Token> kind = words.next(), version = words.next();
    if (!kind || !version)
      return fail(keyword.column, "expected 'format ascii 1.0' or 'format binary_little_endian 1.0'");
    if (kind->text == "ascii") {
      header_.format = PlyFormat::Ascii;
    } else if (kind->text == "binary_little_endian") {
      header_.format = PlyFormat::BinaryLittleEndian;
    } else if (kind->text == "binary_big_endian") {
      return fail(kind->column,
                  "binary_big_endian PLY files are not supported; convert the file to binary_little_endian or ascii");
    } else {
      return fail(kind->column, fmt::format("unknown PLY format '{}'", kind->text));
    }
    if (version->text != "1.0")
      return fail(version->column, fmt::format("unsupported PLY version '{}' (expected 1.0)", version->text));
    return true;
  }

  bool element(Words& words, const Token& keyword) {
    const std::optional<Token> name = words.next(), count = words.next();
    if (!name || !count) return fail(keyword.column, "expected 'element <name> <count>'");
    const std::optional<long long> n = parse_number<long long>(count->text);
    if (!n || *n < 0) return fail(count->column, fmt::format("malformed element count '{}'", count->text));
    if (*n > kMaxCount)
      return fail(count->column, fmt::format("element count {} is absurd (the limit is {})", *n, kMaxCount));
    header_.elements.push_back({std::string(name->text), static_cast<std::uint64_t>(*n), {}, line_});
    return true;
  }

  bool property(Words& words, const Token& keyword) {
    if (header_.elements.empty()) return fail(keyword.column, "a property before any element");
    PlyProperty p;
    p.line = line_;
    std::optional<Token> type = words.next();
    if (type && type->text == "list") {
      p.is_list = true;
      const std::optional<Token> count_type = words.next();
      if (!count_type) return fail(keyword.column, "expected 'property list <length type> <item type> <name>'");
      const std::optional<Scalar> s = scalar_named(count_type->text);
      if (!s) return fail(count_type->column, fmt::format("unknown property type '{}'", count_type->text));
      if (!is_integer(*s)) return fail(count_type->column, "a list's length type must be an integer type");
      p.count_type = *s;
      type = words.next();
    }
    const std::optional<Token> name = words.next();
    if (!type || !name)
      return fail(keyword.column,
                  "expected 'property <type> <name>' or 'property list <length type> <item type> <name>'");
    const std::optional<Scalar> s = scalar_named(type->text);
    if (!s) return fail(type->column, fmt::format("unknown property type '{}'", type->text));
    p.type = *s;
    p.name = name->text;
    header_.elements.back().properties.push_back(std::move(p));
    return true;
  }

  bool fail(int column, std::string message) {
    log_.add(line_, column, std::move(message));
    return false;
  }

  ProblemLog& log_;
  PlyHeader header_;
  int line_ = 1;
};

// ---- PLY: what the mesh takes from the elements ----

// What a vertex property is to the mesh; kRoles is the number of roles.
enum Role : std::uint8_t { kIgnored, kX, kY, kZ, kNX, kNY, kNZ, kS, kT, kRoles };

struct PlyLayout {
  const PlyElement* vertices = nullptr;
  const PlyElement* faces = nullptr;  // may be absent (then the file has no faces)
  std::vector<Role> vertex_roles;     // one per vertex property
  std::size_t face_indices = 0;       // the face property that lists the vertex indices
};

// Finds the vertex and face elements and the properties the mesh needs in them.
std::optional<PlyLayout> plan_ply(const PlyHeader& header, ProblemLog& log) {
  PlyLayout layout;
  for (const PlyElement& e : header.elements) {
    if (e.name != "vertex" && e.name != "face") continue;
    const PlyElement*& slot = e.name == "vertex" ? layout.vertices : layout.faces;
    if (slot) {
      log.add(e.line, 0, fmt::format("a second '{}' element", e.name));
      return std::nullopt;
    }
    slot = &e;
  }
  if (!layout.vertices) {
    log.add(0, 0, "the header has no 'vertex' element");
    return std::nullopt;
  }

  const PlyElement& v = *layout.vertices;
  auto scalar = [&](std::string_view name) -> std::optional<std::size_t> {
    for (std::size_t i = 0; i < v.properties.size(); ++i)
      if (v.properties[i].name == name && !v.properties[i].is_list) return i;
    return std::nullopt;
  };
  // Properties that only make sense together: the first group found complete is used.
  auto assign = [&](std::initializer_list<std::string_view> names, std::initializer_list<Role> roles) {
    std::vector<std::size_t> found;
    for (std::string_view name : names)
      if (const std::optional<std::size_t> i = scalar(name)) found.push_back(*i);
    if (found.size() != names.size()) return false;
    auto role = roles.begin();
    for (std::size_t i : found) layout.vertex_roles[i] = *role++;
    return true;
  };
  layout.vertex_roles.assign(v.properties.size(), kIgnored);
  if (!assign({"x", "y", "z"}, {kX, kY, kZ})) {
    log.add(v.line, 0, "the 'vertex' element needs the properties x, y and z");
    return std::nullopt;
  }
  assign({"nx", "ny", "nz"}, {kNX, kNY, kNZ});
  assign({"s", "t"}, {kS, kT}) || assign({"u", "v"}, {kS, kT}) || assign({"texture_u", "texture_v"}, {kS, kT});

  if (const PlyElement* f = layout.faces) {
    auto indices = std::find_if(f->properties.begin(), f->properties.end(), [](const PlyProperty& p) {
      return p.is_list && (p.name == "vertex_indices" || p.name == "vertex_index");
    });
    if (indices == f->properties.end()) {
      log.add(f->line, 0, "the 'face' element needs a list property 'vertex_indices'");
      return std::nullopt;
    }
    if (!is_integer(indices->type)) {
      log.add(indices->line, 0, "vertex indices must be integers");
      return std::nullopt;
    }
    layout.face_indices = static_cast<std::size_t>(indices - f->properties.begin());
  }
  return layout;
}

// ---- PLY: the data ----
//
// The element walk is shared; a Source (AsciiPly, BinaryPly) reads the values. Its interface:
//   begin(element, index)  starts an element instance
//   value(type, what, out) reads the next value; false (reported) if missing or malformed
//   end()                  finishes the instance; false (reported) if values are left over
//   skip(element)          passes over all instances of an element the mesh does not use
//   report(message)        records a problem at the current place
// A false return means the data cannot be followed any further.

template <class Source>
bool skip_property(Source& source, const PlyProperty& p) {
  double value = 0;
  if (!p.is_list) return source.value(p.type, p.name, &value);
  if (!source.value(p.count_type, p.name, &value)) return false;
  if (value < 0) {
    source.report(fmt::format("negative list length {} for '{}'", value, p.name));
    return false;
  }
  double item = 0;
  for (double i = 0; i < value; ++i)
    if (!source.value(p.type, p.name, &item)) return false;
  return true;
}

// The text of ascii PLY data: one line per element instance.
class AsciiPly {
 public:
  AsciiPly(std::string_view data, std::size_t offset, int first_line, ProblemLog& log)
      : lines_(data, offset, first_line - 1), log_(log) {}

  bool begin(const PlyElement& e, std::uint64_t index) {
    std::string_view line;
    column_ = 0;
    do {
      if (!lines_.next(&line)) {
        report(fmt::format("the data ends before '{}' element {} of {}", e.name, index + 1, e.count));
        return false;
      }
    } while (line.find_first_not_of(" \t\r\f\v") == std::string_view::npos);  // blank lines are not instances
    words_ = Words(line);
    return true;
  }

  bool value(Scalar type, std::string_view what, double* out) {
    const std::optional<Token> token = words_.next();
    if (!token) {
      column_ = 0;
      report(fmt::format("missing value for '{}'", what));
      return false;
    }
    column_ = token->column;
    std::optional<double> value;
    if (is_integer(type)) {
      if (const std::optional<long long> i = parse_number<long long>(token->text)) value = static_cast<double>(*i);
    } else if (type == Scalar::Float32) {
      // Parsed as float, not rounded via double, to give exactly what a binary file would hold.
      if (const std::optional<float> f = parse_number<float>(token->text)) value = *f;
    } else {
      value = parse_number<double>(token->text);
    }
    if (!value) {
      report(fmt::format("malformed value '{}' for '{}'", token->text, what));
      return false;
    }
    *out = *value;
    return true;
  }

  bool end() {
    const std::optional<Token> extra = words_.next();
    if (!extra) return true;
    column_ = extra->column;
    report(fmt::format("unexpected '{}' after the last property", extra->text));
    return false;
  }

  bool skip(const PlyElement& e) {
    for (std::uint64_t i = 0; i < e.count; ++i)
      if (!begin(e, i)) return false;
    return true;
  }

  void report(std::string message) { log_.add(lines_.number(), column_, std::move(message)); }

 private:
  Lines lines_;
  Words words_;
  int column_ = 0;
  ProblemLog& log_;
};

// Little-endian binary PLY data, read from bytes whatever the host's byte order.
class BinaryPly {
 public:
  BinaryPly(std::string_view data, std::size_t offset, ProblemLog& log)
      : data_(data), pos_(offset), at_(offset), log_(log) {}

  bool begin(const PlyElement& e, std::uint64_t index) {
    element_ = &e;
    index_ = index;
    at_ = pos_;
    return true;
  }

  bool value(Scalar type, std::string_view what, double* out) {
    at_ = pos_;
    const std::size_t size = size_of(type);
    if (size > data_.size() - pos_) {
      report(fmt::format("the data ends inside '{}' element {} of {}, reading '{}'", element_->name, index_ + 1,
                         element_->count, what));
      return false;
    }
    *out = decode(reinterpret_cast<const unsigned char*>(data_.data()) + pos_, type);
    pos_ += size;
    return true;
  }

  bool end() { return true; }

  bool skip(const PlyElement& e) {
    std::size_t stride = 0;
    for (const PlyProperty& p : e.properties) stride += p.is_list ? 0 : size_of(p.type);
    const bool has_lists = std::any_of(e.properties.begin(), e.properties.end(), [](auto& p) { return p.is_list; });
    if (!has_lists) {  // fixed-size instances: step over them all at once
      begin(e, 0);
      if (stride != 0 && e.count > (data_.size() - pos_) / stride) {
        report(fmt::format("the data ends inside the {} '{}' elements of {} bytes each", e.count, e.name, stride));
        return false;
      }
      pos_ += e.count * stride;
      return true;
    }
    for (std::uint64_t i = 0; i < e.count; ++i) {
      begin(e, i);
      for (const PlyProperty& p : e.properties)
        if (!skip_property(*this, p)) return false;
    }
    return true;
  }

  void report(std::string message) { log_.add(0, 0, fmt::format("{} (at byte {})", message, at_)); }

 private:
  static double decode(const unsigned char* b, Scalar type) {
    auto bits = [b](int bytes) {
      std::uint64_t v = 0;
      for (int i = bytes - 1; i >= 0; --i) v = v << 8 | b[i];
      return v;
    };
    switch (type) {
      case Scalar::Int8: return static_cast<std::int8_t>(b[0]);
      case Scalar::UInt8: return b[0];
      case Scalar::Int16: return static_cast<std::int16_t>(bits(2));
      case Scalar::UInt16: return static_cast<std::uint16_t>(bits(2));
      case Scalar::Int32: return static_cast<std::int32_t>(bits(4));
      case Scalar::UInt32: return static_cast<std::uint32_t>(bits(4));
      case Scalar::Float32: return std::bit_cast<float>(static_cast<std::uint32_t>(bits(4)));
      case Scalar::Float64: return std::bit_cast<double>(bits(8));
    }
    return 0;
  }

  std::string_view data_;
  std::size_t pos_;  // the next byte to read; never past the end of data_
  std::size_t at_;   // where the value or instance being read starts, for problems
  const PlyElement* element_ = nullptr;
  std::uint64_t index_ = 0;
  ProblemLog& log_;
};

template <class Source>
bool read_vertices(Source& source, const PlyElement& e, const PlyLayout& layout, Mesh& mesh, ProblemLog& log) {
  for (std::uint64_t i = 0; i < e.count && !log.full(); ++i) {
    if (!source.begin(e, i)) return false;
    std::array<double, kRoles> values{};
    for (std::size_t k = 0; k < e.properties.size(); ++k) {
      const PlyProperty& p = e.properties[k];
      const Role role = layout.vertex_roles[k];
      if (role == kIgnored) {
        if (!skip_property(source, p)) return false;
        continue;
      }
      if (!source.value(p.type, p.name, &values[role])) return false;
      if (!std::isfinite(values[role])) source.report(fmt::format("'{}' is not a finite number", p.name));
    }
    if (!source.end()) return false;
    auto f = [&](Role r) { return static_cast<float>(values[r]); };
    Vertex v;
    v.p = {f(kX), f(kY), f(kZ)};
    v.n = normalize({f(kNX), f(kNY), f(kNZ)});  // stays zero when the file has no normals
    v.s = v.u = f(kS);
    v.t = v.v = f(kT);
    mesh.vertices.push_back(v);
  }
  return true;
}

template <class Source>
bool read_faces(Source& source, const PlyElement& e, const PlyLayout& layout, std::uint64_t vertex_count, Mesh& mesh,
                ProblemLog& log) {
  std::vector<std::uint32_t> polygon;
  for (std::uint64_t i = 0; i < e.count && !log.full(); ++i) {
    if (!source.begin(e, i)) return false;
    for (std::size_t k = 0; k < e.properties.size(); ++k) {
      const PlyProperty& p = e.properties[k];
      if (k != layout.face_indices) {
        if (!skip_property(source, p)) return false;
        continue;
      }
      double length = 0;
      if (!source.value(p.count_type, p.name, &length)) return false;
      if (length < 0) {
        source.report(fmt::format("negative list length {} for '{}'", length, p.name));
        return false;
      }
      polygon.clear();
      bool in_range = true;
      for (double j = 0; j < length; ++j) {
        double index = 0;
        if (!source.value(p.type, p.name, &index)) return false;
        if (index < 0 || index >= static_cast<double>(vertex_count)) {
          source.report(fmt::format("vertex index {} is out of range ({} vertices)", static_cast<long long>(index),
                                    vertex_count));
          in_range = false;
        } else {
          polygon.push_back(static_cast<std::uint32_t>(index));
        }
      }
      if (length < 3)
        source.report(fmt::format("a face needs at least 3 vertices; this one has {}", length));
      else if (in_range)
        fan(polygon, mesh);
    }
    if (!source.end()) return false;
  }
  return true;
}

// Walks the elements in file order; vertex indices are checked against the header's count, so
// the faces may come before the vertices.
template <class Source>
void read_ply_data(Source& source, const PlyHeader& header, const PlyLayout& layout, Mesh& mesh, ProblemLog& log) {
  for (const PlyElement& e : header.elements) {
    bool ok;
    if (&e == layout.vertices)
      ok = read_vertices(source, e, layout, mesh, log);
    else if (&e == layout.faces)
      ok = read_faces(source, e, layout, layout.vertices->count, mesh, log);
    else
      ok = source.skip(e);
    if (!ok || log.full()) return;
  }
}

}  // namespace

std::optional<Mesh> load_obj(const std::string& path, lang::Diagnostics* problems) {
  ProblemLog log(path);
  Mesh mesh;
  if (const std::optional<std::string> data = read_file(path, log)) {
    ObjReader reader(log);
    Lines lines(*data);
    std::string_view line;
    while (!log.full() && lines.next(&line)) reader.read_line(line, lines.number());
    mesh = reader.take();
  }
  return finish(std::move(mesh), log, problems);
}

std::optional<Mesh> load_ply(const std::string& path, lang::Diagnostics* problems) {
  ProblemLog log(path);
  Mesh mesh;
  const std::optional<std::string> data = read_file(path, log);
  const std::optional<PlyHeader> header = data ? PlyHeaderReader(log).read(*data) : std::nullopt;
  if (const std::optional<PlyLayout> layout = header ? plan_ply(*header, log) : std::nullopt) {
    if (header->format == PlyFormat::Ascii) {
      AsciiPly source(*data, header->data_offset, header->data_line, log);
      read_ply_data(source, *header, *layout, mesh, log);
    } else {
      BinaryPly source(*data, header->data_offset, log);
      read_ply_data(source, *header, *layout, mesh, log);
    }
  }
  return finish(std::move(mesh), log, problems);
}

std::optional<Mesh> load_mesh(const std::string& path, lang::Diagnostics* problems) {
  std::string extension = std::filesystem::path(path).extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (extension == ".obj") return load_obj(path, problems);
  if (extension == ".ply") return load_ply(path, problems);
  if (imported_extension(path)) return import_mesh(path, problems);
  if (problems) {
    const std::string known = "expected .obj, .ply, .gltf, .glb, .fbx, .dae, .stl or another format Assimp reads";
    problems->error("mesh", lang::file_span(problems->sources().add(path, "")),
                    extension.empty() ? fmt::format("unknown mesh format (the name has no extension; {})", known)
                                      : fmt::format("unknown mesh format '{}' ({})", extension, known));
  }
  return std::nullopt;
}

}  // namespace passlab::sim
