#include "boo/parse/registry.h"

#include <cstdio>

#include "boo/core/strings.h"
#include "boo/parse/cublaslt_log.h"
#include "boo/parse/hipblaslt_log.h"
#include "boo/parse/miopen_conv.h"
#include "boo/parse/miopen_gemm.h"
#include "boo/parse/miopen_layernorm.h"

namespace boo::parse {

using core::Expected;
using core::invalid_argument;

core::Status Registry::add_op(std::string op, OpParser parser) {
  if (op.empty()) return invalid_argument("an op name must not be empty");
  if (!ops_.emplace(op, std::move(parser)).second) {
    return invalid_argument("op '" + op + "' is registered twice");
  }
  return core::Status::ok();
}

std::vector<std::string> Registry::op_names() const {
  std::vector<std::string> names;
  for (const auto& [name, parser] : ops_) names.push_back(name);
  return names;
}

Expected<ParsedCommand> Registry::parse(std::string_view line) const {
  const std::string_view t = core::trim(line);
  if (t.empty()) return invalid_argument("empty command");
  for (size_t i = 0; i < t.size(); ++i) {
    const auto ch = static_cast<unsigned char>(t[i]);
    if (ch < 0x20 && ch != '\t') {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "0x%02x", ch);
      return invalid_argument("a command is one line of text; found the control character " +
                              std::string(hex) + " at column " + std::to_string(i + 1));
    }
  }
  if (is_hipblaslt_line(t)) return parse_hipblaslt_line(t);
  if (is_cublaslt_line(t)) return parse_cublaslt_line(t);
  const std::vector<std::string> words = core::split_words(t);
  return parse_words(words);
}

Expected<ParsedCommand> Registry::parse_words(std::span<const std::string> words) const {
  if (words.empty()) return invalid_argument("empty command");
  if (words.size() == 1 && (is_hipblaslt_line(words[0]) || is_cublaslt_line(words[0]))) {
    return parse(words[0]);
  }
  size_t first = 0;
  const std::string& w0 = words[0];
  if (w0 == "MIOpenDriver" || (w0.size() > 13 && w0.ends_with("/MIOpenDriver"))) first = 1;
  if (first >= words.size()) return invalid_argument("MIOpenDriver: missing op name");
  const std::string& op = words[first];
  auto it = ops_.find(op);
  if (it == ops_.end()) {
    return invalid_argument("unknown op " + core::quote(op) +
                            " (known: " + core::join(op_names(), ", ") +
                            "; or a hipBLASLt '- {function: matmul, ...}' line or a cuBLASLt "
                            "trace line)");
  }
  return it->second(op, words.subspan(first + 1));
}

Registry make_default_registry() {
  Registry r;
  auto add_all = [&](std::span<const std::string_view> names, auto fn) {
    for (std::string_view name : names) {
      core::Status s = r.add_op(std::string(name), fn);
      (void)s;  // names are distinct by construction (tested)
    }
  };
  add_all(miopen_conv_ops(), parse_miopen_conv);
  add_all(miopen_layernorm_ops(), parse_miopen_layernorm);
  add_all(miopen_gemm_ops(), parse_miopen_gemm);
  return r;
}

}  // namespace boo::parse
