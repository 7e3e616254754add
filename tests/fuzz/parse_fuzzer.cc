// Fuzzes every parser with arbitrary bytes. Beyond "no crash, hang or sanitizer report", it
// checks the parsers' contract: whatever parses validates, and its canonical command parses back
// to an equal problem with the same key.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "boo/ops/problem.h"
#include "boo/parse/command_file.h"
#include "boo/parse/hipblaslt_log.h"
#include "boo/parse/registry.h"

namespace {

void check_round_trip(const boo::parse::Registry& registry, const boo::ops::Problem& p) {
  if (!boo::ops::validate(p).is_ok()) {
    std::fprintf(stderr, "parsed problem does not validate: %s\n", boo::ops::key(p).c_str());
    std::abort();
  }
  (void)boo::ops::flops(p);
  (void)boo::ops::min_bytes(p);
  const std::string cmd = boo::ops::to_command(p);
  auto again = registry.parse(cmd);
  if (!again.has_value() || again->problems.size() != 1 || !(again->problems[0] == p)) {
    std::fprintf(
        stderr, "round trip failed for %s\n  canonical: %s\n  %s\n", boo::ops::key(p).c_str(),
        cmd.c_str(),
        again.has_value() ? "reparsed to a different problem" : again.status().to_string().c_str());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const boo::parse::Registry registry = boo::parse::make_default_registry();
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (auto parsed = registry.parse(text); parsed.has_value()) {
    for (const auto& p : parsed->problems) check_round_trip(registry, p);
  } else if (parsed.status().message().find('\n') != std::string::npos) {
    std::fprintf(stderr, "multi-line error message: %s\n", parsed.status().message().c_str());
    std::abort();
  }
  (void)boo::parse::parse_flow_mapping(text);
  for (const char* name : {"f.txt", "f.tsv"}) {
    auto file = boo::parse::read_command_text(name, text);
    if (file.has_value() && file->entries.size() < 8) {
      for (const auto& e : file->entries) (void)registry.parse(e.text);
    }
  }
  return 0;
}
