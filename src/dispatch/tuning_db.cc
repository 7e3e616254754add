#include "boo/dispatch/tuning_db.h"

#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "boo/core/build_info.h"
#include "boo/core/env.h"
#include "boo/core/strings.h"

namespace boo::dispatch {

std::string TuningDb::to_json_line(const TuningRow& r) {
  nlohmann::ordered_json j;  // insertion order below is alphabetical
  j["algorithm"] = r.algorithm;
  j["config"] = r.config;
  j["device"] = r.device;
  j["key"] = r.key;
  j["time_us"] = r.time_us;
  j["vendor_us"] = r.vendor_us;
  j["versions"] = r.versions;
  return j.dump();
}

core::Expected<TuningRow> TuningDb::parse_json_line(const std::string& line) {
  nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return core::invalid_argument("not a JSON object");
  TuningRow r;
  for (const char* field : {"key", "algorithm", "config"}) {
    if (!j.contains(field) || !j[field].is_string()) {
      return core::invalid_argument(std::string("missing string field '") + field + "'");
    }
  }
  r.key = j["key"].get<std::string>();
  r.algorithm = j["algorithm"].get<std::string>();
  r.config = j["config"].get<std::string>();
  if (j.contains("time_us") && j["time_us"].is_number()) r.time_us = j["time_us"].get<double>();
  if (j.contains("vendor_us") && j["vendor_us"].is_number()) {
    r.vendor_us = j["vendor_us"].get<double>();
  }
  if (j.contains("device") && j["device"].is_string()) r.device = j["device"].get<std::string>();
  if (j.contains("versions") && j["versions"].is_string()) {
    r.versions = j["versions"].get<std::string>();
  }
  return r;
}

core::Expected<TuningDb> TuningDb::load(const std::vector<std::string>& paths) {
  TuningDb db;
  for (const std::string& path : paths) {
    std::ifstream in(path);
    if (!in) return core::not_found("BOO_TUNING_SPEC_PATH: cannot open '" + path + "'");
    db.sources_.push_back(path);
    int line_no = 0;
    for (std::string line; std::getline(in, line);) {
      ++line_no;
      if (core::trim(line).empty()) continue;
      auto row = parse_json_line(line);
      if (!row) return row.status().with_context(path + ":" + std::to_string(line_no) + ": ");
      db.rows_[row->key] = std::move(*row);
    }
  }
  return db;
}

core::Expected<TuningDb> TuningDb::from_environment() {
  auto env = core::get_env("BOO_TUNING_SPEC_PATH");
  std::vector<std::string> paths;
  if (env) {
    for (std::string_view p : core::split(*env, ':')) {
      if (!p.empty()) paths.emplace_back(p);
    }
  } else {
    const std::string shipped = std::string(core::kSourceDir) + "/tuning/h100.jsonl";
    if (access(shipped.c_str(), R_OK) == 0) paths.push_back(shipped);
  }
  return load(paths);
}

const TuningRow* TuningDb::find(const std::string& key) const {
  auto it = rows_.find(key);
  return it == rows_.end() ? nullptr : &it->second;
}

}  // namespace boo::dispatch
