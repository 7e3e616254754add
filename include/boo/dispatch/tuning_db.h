// The tuning database (DESIGN.md §5): JSON Lines, one row per problem key, written by
// `boo tune` and read by dispatch before the heuristic. BOO_TUNING_SPEC_PATH names the files
// (':'-separated); set and empty disables tuning rows; unset reads the repository's DBs.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "boo/core/status.h"

namespace boo::dispatch {

struct TuningRow {
  std::string key;
  std::string algorithm;
  std::string config;
  double time_us = 0.0;
  double vendor_us = 0.0;
  std::string device;
  std::string versions;  // "driver=..;cuda=..;boo=.."
};

class TuningDb {
 public:
  // Loads the files; a later file's row for a key replaces an earlier one.
  static core::Expected<TuningDb> load(const std::vector<std::string>& paths);
  // The files BOO_TUNING_SPEC_PATH names (or the shipped default when unset).
  static core::Expected<TuningDb> from_environment();

  const TuningRow* find(const std::string& key) const;
  size_t size() const { return rows_.size(); }
  const std::vector<std::string>& sources() const { return sources_; }

  // One JSON line for a row (keys sorted, so files diff and merge cleanly).
  static std::string to_json_line(const TuningRow& row);
  static core::Expected<TuningRow> parse_json_line(const std::string& line);

 private:
  std::unordered_map<std::string, TuningRow> rows_;
  std::vector<std::string> sources_;
};

}  // namespace boo::dispatch
