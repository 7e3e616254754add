// The YAML flow-mapping subset of hipBLASLt log lines.
#include <string>

#include "boo/core/strings.h"
#include "boo/parse/hipblaslt_log.h"

namespace boo::parse {

using core::Expected;
using core::invalid_argument;

bool is_hipblaslt_line(std::string_view line) {
  std::string_view t = core::trim(line);
  if (t.rfind("- ", 0) == 0) t = core::trim(t.substr(2));
  return !t.empty() && t.front() == '{';
}

Expected<FlowMapping> parse_flow_mapping(std::string_view line) {
  std::string_view t = core::trim(line);
  if (t.rfind("- ", 0) == 0 || t == "-") t = core::trim(t.substr(1));
  if (t.empty() || t.front() != '{') {
    return invalid_argument("malformed YAML: expected a flow mapping starting with '{'");
  }
  FlowMapping out;
  std::string key;
  std::string value;
  bool in_value = false;
  char quote = '\0';
  bool closed = false;
  auto finish_pair = [&]() -> core::Status {
    const std::string k(core::trim(key));
    const std::string v(core::trim(value));
    if (k.empty() && v.empty() && !in_value) return core::Status::ok();  // "{}" or trailing ','
    if (!in_value) {
      return invalid_argument("malformed YAML: expected 'key: value', got " + core::quote(k));
    }
    if (k.empty()) return invalid_argument("malformed YAML: empty key before " + core::quote(v));
    std::string unquoted = v;
    if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) {
      unquoted = v.substr(1, v.size() - 2);
    }
    if (auto [it, inserted] = out.values.emplace(k, unquoted); !inserted) {
      return invalid_argument("malformed YAML: field '" + k + "' appears twice (" +
                              core::quote(it->second) + " and " + core::quote(unquoted) + ")");
    }
    out.order.push_back(k);
    key.clear();
    value.clear();
    in_value = false;
    return core::Status::ok();
  };
  size_t i = 1;
  for (; i < t.size(); ++i) {
    const char ch = t[i];
    if (quote != '\0') {
      (in_value ? value : key) += ch;
      if (ch == quote) quote = '\0';
      continue;
    }
    if (ch == '"' || ch == '\'') {
      quote = ch;
      (in_value ? value : key) += ch;
    } else if (ch == '{' || ch == '[' || ch == ']') {
      const std::string field(core::trim(key));
      return invalid_argument(std::string("malformed YAML: ") +
                              (in_value ? "field '" + field + "': " : std::string()) + "nested '" +
                              ch + "' values are not supported");
    } else if (ch == ':' && !in_value) {
      in_value = true;
    } else if (ch == ',') {
      BOO_RETURN_IF_ERROR(finish_pair());
    } else if (ch == '}') {
      BOO_RETURN_IF_ERROR(finish_pair());
      closed = true;
      break;
    } else {
      (in_value ? value : key) += ch;
    }
  }
  if (quote != '\0') return invalid_argument("truncated YAML: unterminated quoted value");
  if (!closed) return invalid_argument("truncated YAML: missing closing '}'");
  if (!core::trim(t.substr(i + 1)).empty()) {
    return invalid_argument("malformed YAML: unexpected text after '}': " +
                            core::quote(core::trim(t.substr(i + 1))));
  }
  return out;
}

}  // namespace boo::parse
