#include "boo/codegen/embedded.h"

#include <set>

#include "boo/core/strings.h"

namespace boo::codegen {

core::Expected<std::string_view> embedded_file(std::string_view name) {
  for (const EmbeddedFile& f : embedded_files()) {
    if (f.name == name) return f.text;
  }
  return core::not_found("no embedded source " + core::quote(name));
}

namespace {

core::Status inline_into(std::string_view text, std::set<std::string>& done, std::string& out,
                         int depth) {
  if (depth > 16) return core::internal_error("embedded includes nest too deeply");
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    const std::string_view t = core::trim(line);
    bool replaced = false;
    if (t.rfind("#include \"", 0) == 0 && t.size() > 11 && t.back() == '"') {
      const std::string name(t.substr(10, t.size() - 11));
      if (auto f = embedded_file(name); f.has_value()) {
        replaced = true;
        if (done.insert(name).second) {
          out += "// ---- begin " + name + "\n";
          BOO_RETURN_IF_ERROR(inline_into(*f, done, out, depth + 1));
          out += "// ---- end " + name + "\n";
        }
      }
    }
    if (!replaced && t != "#pragma once") {
      out.append(line);
      out += '\n';
    }
    pos = end + 1;
  }
  return core::Status::ok();
}

}  // namespace

core::Expected<std::string> inline_embedded_includes(std::string_view text) {
  std::set<std::string> done;
  std::string out;
  BOO_RETURN_IF_ERROR(inline_into(text, done, out, 0));
  return out;
}

}  // namespace boo::codegen
