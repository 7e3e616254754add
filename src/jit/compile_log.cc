#include "boo/jit/compile_log.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "boo/core/strings.h"

namespace boo::jit {
namespace {

// The number just before `unit` in `line` ("824 bytes spill stores" -> 824), or -1.
int64_t number_before(std::string_view line, std::string_view unit) {
  const size_t at = line.find(unit);
  if (at == std::string_view::npos) return -1;
  size_t begin = at;
  while (begin > 0 && line[begin - 1] == ' ') --begin;
  size_t end = begin;
  while (begin > 0 && line[begin - 1] >= '0' && line[begin - 1] <= '9') --begin;
  if (begin == end) return -1;
  return std::strtoll(std::string(line.substr(begin, end - begin)).c_str(), nullptr, 10);
}

}  // namespace

std::string first_error_line(std::string_view log) {
  for (std::string_view line : core::split(log, '\n')) {
    if (line.find("error") != std::string_view::npos) return std::string(core::trim(line));
  }
  return "see the log";
}

SpillReport spills_in_log(std::string_view log) {
  SpillReport out;
  for (std::string_view line : core::split(log, '\n')) {
    if (line.find("Registers are spilled to local memory") == std::string_view::npos) continue;
    ++out.functions;
    const int64_t stores = number_before(line, " bytes spill stores");
    const int64_t loads = number_before(line, " bytes spill loads");
    if (stores > 0) out.store_bytes += stores;
    if (loads > 0) out.load_bytes += loads;
  }
  return out;
}

std::string read_compile_log(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string text(1 << 20, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  return text;
}

SpillReport spills_in_log_file(const std::string& path) {
  return spills_in_log(read_compile_log(path));
}

int mma_waits_in_log(std::string_view log) {
  int places = 0;
  for (std::string_view line : core::split(log, '\n')) {
    if (line.find("warpgroup.wait is injected") != std::string_view::npos ||
        line.find("wgmma.mma_async instructions are serialized") != std::string_view::npos) {
      ++places;
    }
  }
  return places;
}

int mma_waits_in_log_file(const std::string& path) {
  return mma_waits_in_log(read_compile_log(path));
}

std::string describe(const SpillReport& spills) {
  return std::to_string(spills.store_bytes) + " bytes of spill stores, " +
         std::to_string(spills.load_bytes) + " of spill loads, in " +
         std::to_string(spills.functions) + (spills.functions == 1 ? " function" : " functions");
}

std::string spill_warning(std::string_view kernel, const SpillReport& spills,
                          std::string_view more) {
  return std::string(kernel) + " spills registers to local memory (ptxas: " + describe(spills) +
         std::string(more) + ")";
}

std::string mma_wait_warning(std::string_view kernel, int places, std::string_view more) {
  return std::string(kernel) + " waits for its warpgroup MMAs where ptxas made it (" +
         std::to_string(places) + (places == 1 ? " place" : " places") + " in the compile log" +
         std::string(more) + ")";
}

}  // namespace boo::jit
