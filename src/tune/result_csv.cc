#include "boo/tune/result_csv.h"

#include <cerrno>
#include <cstring>
#include <ctime>

namespace boo::tune {
namespace {

std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

}  // namespace

const std::string& result_csv_header() {
  static const std::string kHeader =
      "command,key,backend,algorithm,config,median_us,min_us,max_us,floor_us,flops,bytes,"
      "rel_error,passed,device,date";
  return kHeader;
}

std::string csv_escape(const std::string& field) {
  if (field.find_first_of(",\"\n\r") == std::string::npos) return field;
  std::string out = "\"";
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string to_csv_line(const ResultRow& r) {
  std::string s;
  for (const std::string* f : {&r.command, &r.key, &r.backend, &r.algorithm, &r.config}) {
    s += csv_escape(*f) + ",";
  }
  s += number(r.median_us) + "," + number(r.min_us) + "," + number(r.max_us) + "," +
       number(r.floor_us) + "," + number(r.flops) + "," + number(r.bytes) + ",";
  s += (r.rel_error ? number(*r.rel_error) : "") + ",";
  s += std::string(r.passed ? (*r.passed ? "true" : "false") : "") + ",";
  s += csv_escape(r.device) + "," + csv_escape(r.date);
  return s;
}

std::string today_iso() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char buf[16];
  std::strftime(buf, sizeof(buf), "%Y-%m-%d", &tm);
  return buf;
}

core::Expected<ResultCsvWriter> ResultCsvWriter::open(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) {
    return core::invalid_argument("--csv: cannot write '" + path + "': " + std::strerror(errno));
  }
  std::fprintf(f, "%s\n", result_csv_header().c_str());
  std::fflush(f);
  return ResultCsvWriter(f);
}

ResultCsvWriter::ResultCsvWriter(ResultCsvWriter&& other) noexcept : file_(other.file_) {
  other.file_ = nullptr;
}

ResultCsvWriter::~ResultCsvWriter() {
  if (file_ != nullptr) std::fclose(file_);
}

core::Status ResultCsvWriter::write(const ResultRow& row) {
  if (std::fprintf(file_, "%s\n", to_csv_line(row).c_str()) < 0 || std::fflush(file_) != 0) {
    return core::unavailable(std::string("--csv: write failed: ") + std::strerror(errno));
  }
  return core::Status::ok();
}

}  // namespace boo::tune
