// The one CSV format of every benchmark and `boo driver --csv` (DESIGN.md §7): one row per
// (problem, backend), RFC 4180 quoting (commands of hipBLASLt logs contain commas).
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "boo/core/status.h"

namespace boo::tune {

struct ResultRow {
  std::string command;
  std::string key;
  std::string backend;    // boo, cublaslt, cudnn, torch, reference
  std::string algorithm;  // e.g. gemm.sm90, reference.cpu
  std::string config;
  double median_us = 0.0;
  double min_us = 0.0;
  double max_us = 0.0;
  double floor_us = 0.0;
  double flops = 0.0;
  double bytes = 0.0;
  std::optional<double> rel_error;  // empty when not verified
  std::optional<bool> passed;       // empty when not verified
  std::string device;
  std::string date;  // ISO 8601 date, e.g. 2026-11-22
};

// "command,key,backend,algorithm,config,median_us,min_us,max_us,floor_us,flops,bytes,rel_error,
// passed,device,date".
const std::string& result_csv_header();
std::string to_csv_line(const ResultRow& row);
std::string csv_escape(const std::string& field);
// Today's date (local time) as YYYY-MM-DD.
std::string today_iso();

// Writes the header on open and one line per row; flushes each row so a long run leaves a
// usable file if it is interrupted.
class ResultCsvWriter {
 public:
  static core::Expected<ResultCsvWriter> open(const std::string& path);
  ResultCsvWriter(ResultCsvWriter&& other) noexcept;
  ResultCsvWriter& operator=(ResultCsvWriter&&) = delete;
  ~ResultCsvWriter();
  core::Status write(const ResultRow& row);

 private:
  explicit ResultCsvWriter(std::FILE* f) : file_(f) {}
  std::FILE* file_ = nullptr;
};

}  // namespace boo::tune
