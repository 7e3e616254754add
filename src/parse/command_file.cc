#include "boo/parse/command_file.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "boo/core/strings.h"
#include "boo/parse/cublaslt_log.h"

namespace boo::parse {
namespace {

using core::Expected;
using core::invalid_argument;

bool is_comment_or_blank(std::string_view line) {
  const std::string_view t = core::trim(line);
  return t.empty() || t.front() == '#';
}

Expected<CommandFile> read_tsv(const std::string& name, const std::vector<std::string>& lines) {
  CommandFile out;
  int command_col = 0;
  int weight_col = -1;
  bool header_seen = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (is_comment_or_blank(lines[i])) continue;
    const std::string where = name + ":" + std::to_string(i + 1);
    std::vector<std::string_view> cols = core::split(lines[i], '\t');
    if (!header_seen) {
      header_seen = true;
      int found = -1;
      for (size_t c = 0; c < cols.size(); ++c) {
        const std::string h = core::to_lower(core::trim(cols[c]));
        if (h == "command") found = static_cast<int>(c);
        if (h == "count" || h == "call_count" || h == "weight") weight_col = static_cast<int>(c);
      }
      if (found >= 0) {
        command_col = found;
        continue;  // a header row
      }
      if (weight_col >= 0) {
        return invalid_argument(where + ": a header row (it names the column '" +
                                std::string(core::trim(cols[weight_col])) +
                                "') without a 'command' column");
      }
      weight_col = cols.size() > 1 ? 1 : -1;
    }
    if (command_col >= static_cast<int>(cols.size())) {
      return invalid_argument(where + ": missing the command column");
    }
    CommandEntry e{where, std::string(core::trim(cols[command_col])), 1};
    if (weight_col >= 0 && weight_col < static_cast<int>(cols.size()) &&
        !core::trim(cols[weight_col]).empty()) {
      auto w = core::parse_int("weight column", cols[weight_col]);
      if (!w) return w.status().with_context(where + ": ");
      if (*w < 1) return invalid_argument(where + ": weight column: must be >= 1");
      e.weight = *w;
    }
    if (e.text.empty()) return invalid_argument(where + ": empty command");
    out.entries.push_back(std::move(e));
  }
  return out;
}

}  // namespace

Expected<CommandFile> read_command_text(const std::string& name, const std::string& text) {
  std::vector<std::string> lines;
  // A UTF-8 byte order mark (editors on Windows write one) is not part of the first command.
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  std::istringstream in(text.starts_with(kBom) ? text.substr(kBom.size()) : text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
  }
  if (name.ends_with(".tsv")) return read_tsv(name, lines);
  CommandFile out;
  int64_t skipped = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (is_comment_or_blank(lines[i])) continue;
    if (is_cublaslt_line(lines[i]) && !is_cublaslt_matmul_line(lines[i])) {
      ++skipped;
      continue;
    }
    out.entries.push_back(
        {name + ":" + std::to_string(i + 1), std::string(core::trim(lines[i])), 1});
  }
  if (skipped > 0) {
    out.notes.push_back(name + ": skipped " + std::to_string(skipped) +
                        " cuBLASLt log lines that are not cublasLtMatmul traces");
  }
  return out;
}

Expected<CommandFile> read_command_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return invalid_argument("commands file '" + path + "' is a folder");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return core::not_found("cannot open commands file '" + path + "'");
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) return core::not_found("cannot read commands file '" + path + "'");
  return read_command_text(path, buf.str());
}

}  // namespace boo::parse
