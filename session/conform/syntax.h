// SPDX-License-Identifier: GPL-3.0-or-later
// A program's text as places to rewrite: the statements and expressions of its main file, each
// with the bytes it spans, for the semantics-preserving transformations and the reducer, which
// change a program by editing its text and parsing it again.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/lang/ast.h"
#include "core/lang/source.h"

namespace passlab::conform {

struct Parsed {
  std::shared_ptr<lang::SourceManager> sources = std::make_shared<lang::SourceManager>();
  lang::FileId file = 0;
  std::unique_ptr<lang::TranslationUnit> unit;
  bool ok = false;     // the front end accepted it (recursion allowed: the RPU's dialect)
  std::string errors;  // its diagnostics when not
};

// Parses and checks `text` as the file `path` (includes are found beside it and in include_paths).
Parsed parse(const std::string& path, const std::string& text, const std::vector<std::string>& include_paths);

struct ExprSite {
  std::uint32_t begin = 0, end = 0;  // bytes of the main file
  const lang::Expr* expr = nullptr;
  bool pure = true;          // no assignment, no user call, nothing written through an argument
  bool lvalue = false;       // assigned to, or an output argument
  bool in_shader = false;    // inside the shader's body or parameters (not a file-scope function)
  bool in_loop_header = false;  // a loop's condition or step (evaluated again each iteration)
  const lang::Stmt* statement = nullptr;  // the innermost enclosing statement (null: a parameter's default)
};

struct StmtSite {
  std::uint32_t begin = 0, end = 0;
  const lang::Stmt* stmt = nullptr;
  const lang::BlockStmt* block = nullptr;  // the block holding it directly (null: a branch or loop body)
  std::size_t index = 0;                   // its place in that block
  bool in_shader = false;
  std::set<std::string> reads, writes;     // variables it reads and assigns (declares count as writes)
  bool opaque = false;  // calls a user function, jumps (break, continue, return) or writes through a call
};

struct FunctionSite {
  std::uint32_t begin = 0, end = 0;  // from the line the definition starts on to its closing brace
  const lang::FunctionDecl* function = nullptr;
};

struct Sites {
  std::vector<ExprSite> expressions;  // outermost first, in source order
  std::vector<StmtSite> statements;   // outermost first, in source order
  std::vector<FunctionSite> functions;  // file-scope user functions
  std::uint32_t shader_begin = 0;       // where the shader's definition starts (its kind keyword)
};

// The places of the main file (those whose span lies in it and whose text is theirs).
Sites sites(const Parsed& p);

// The end of a statement's text (compound statements end where their last body does).
std::uint32_t end_of(const lang::Stmt& s);

// Replaces bytes [begin, end) of `text` by `with`.
std::string splice(const std::string& text, std::uint32_t begin, std::uint32_t end, const std::string& with);

}  // namespace passlab::conform
