// SPDX-License-Identifier: GPL-3.0-or-later
// The IR's text form: deterministic, one instruction per line, with source lines.
#include "core/ir/printer.h"

#include <fmt/format.h>

namespace passlab::ir {

namespace {

std::string number(float x) { return fmt::format("{:g}", x); }

std::string constant_text(const Instr& in) {
  if (in.type == BaseType::String) {
    std::string s = "\"";
    for (char c : in.text) s += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
    return s + "\"";
  }
  if (in.data.size() == 1) return number(in.data[0]);
  std::string s = "(";
  for (std::size_t i = 0; i < in.data.size(); ++i) s += (i ? ", " : "") + number(in.data[i]);
  return s + ")";
}

}  // namespace

std::string print(const Function& fn, std::vector<lang::Span>* spans) {
  std::string out = "func @" + fn.name + "(";
  for (std::size_t i = 0; i < fn.arg_types.size(); ++i)
    out += fmt::format("{}{} {}", i ? ", " : "", lang::to_string(fn.arg_types[i]), fn.arg_names[i]);
  out += ") -> (";
  for (std::size_t i = 0; i < fn.result_types.size(); ++i)
    out += fmt::format("{}{} {}", i ? ", " : "", lang::to_string(fn.result_types[i]), fn.result_names[i]);
  out += ")\n";
  if (spans) spans->push_back({});
  for (BlockId b = 0; b < fn.blocks.size(); ++b) {
    const Block& blk = fn.blocks[b];
    if (blk.removed) continue;
    out += fmt::format("bb{}:", b);
    if (!blk.preds.empty()) {
      out += "  ; preds";
      for (BlockId p : blk.preds) out += fmt::format(" bb{}", p);
    }
    out += '\n';
    if (spans) spans->push_back({});
    for (ValueId v : blk.instrs) {
      const Instr& in = fn.at(v);
      std::string line = "  ";
      bool has_value = !is_terminator(in.op);
      if (has_value) line += fmt::format("%{} = ", v);
      line += to_string(in.op);
      switch (in.op) {
        case Op::Const: line += " " + constant_text(in); break;
        case Op::ShaderParam: line += " " + in.text; break;
        case Op::Arg: line += fmt::format(" {}", fn.arg_names.at(in.aux)); break;
        case Op::Global: line += std::string(" ") + lang::to_string(static_cast<lang::Global>(in.aux)); break;
        case Op::Builtin: line += std::string(" ") + lang::to_string(static_cast<lang::Builtin>(in.aux)); break;
        case Op::Call: line += fmt::format(" @{}", in.aux); break;
        case Op::Extract: line += fmt::format(" #{}", in.aux); break;
        default: break;
      }
      for (std::size_t i = 0; i < in.args.size(); ++i) {
        line += i ? ", " : " ";
        if (in.op == Op::Phi && i < blk.preds.size()) line += fmt::format("[bb{}: %{}]", blk.preds[i], in.args[i]);
        else line += fmt::format("%{}", in.args[i]);
      }
      for (std::size_t i = 0; i < in.targets.size(); ++i) line += fmt::format("{}bb{}", (i || !in.args.empty()) ? ", " : " ", in.targets[i]);
      if (has_value) {
        line += fmt::format(" : {}", in.type == kTuple ? "tuple" : lang::to_string(in.type));
        if (in.freq != Freq::Varying || in.op == Op::Global) line += fmt::format(" {}", to_string(in.freq));
      }
      if (in.span.valid()) line += fmt::format("  ; line {}", in.span.line);
      out += line + '\n';
      if (spans) spans->push_back(in.span);
    }
  }
  return out;
}

std::string print(const Module& m, std::vector<lang::Span>* spans) {
  std::string out = fmt::format("; {} shader '{}'\n", lang::to_string(m.kind), m.shader_name);
  if (spans) spans->push_back({});
  for (std::size_t i = 0; i < m.functions.size(); ++i) {
    if (i == m.entry) {
      out += "; entry\n";
      if (spans) spans->push_back({});
    }
    out += fmt::format("; function @{}\n", i);
    if (spans) spans->push_back({});
    out += print(m.functions[i], spans) + '\n';
    if (spans) spans->push_back({});
  }
  return out;
}

}  // namespace passlab::ir
