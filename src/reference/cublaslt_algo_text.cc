#include "boo/reference/cublaslt_algo_text.h"

namespace boo::reference {
namespace {

struct EnumName {
  const char* kind;
  uint32_t value;
  const char* name;
};

constexpr EnumName kNames[] = {
#include "boo/reference/cublaslt_names.inc"
    // An entry no kind matches (cublaslt_enum_name is never asked for kind ""), so that the
    // array is not empty where the header was not found.
    {"", 0, ""},
};

const char* reduction_name(uint32_t r) {
  switch (r) {
    case 1:  // CUBLASLT_REDUCTION_SCHEME_INPLACE
      return "in place";
    case 2:  // CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE
      return "in a compute-type workspace";
    case 4:  // CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE
      return "in an output-type workspace";
    default:
      return nullptr;
  }
}

}  // namespace

std::string cublaslt_enum_name(const std::string& kind, uint32_t value) {
  for (const EnumName& e : kNames) {
    if (e.value == value && kind == e.kind) return e.name;
  }
  return "#" + std::to_string(value);
}

std::string cublaslt_algo_text(const CublasLtAlgoConfig& c) {
  std::string s = "algo " + std::to_string(c.id) + ", tile " +
                  cublaslt_enum_name("MATMUL_TILE", c.tile) + ", stages " +
                  cublaslt_enum_name("MATMUL_STAGES", c.stages) + ", cluster " +
                  cublaslt_enum_name("CLUSTER_SHAPE", c.cluster);
  if (c.split_k > 1) {
    const char* r = reduction_name(c.reduction);
    s += ", split-K " + std::to_string(c.split_k) + " (reduced " +
         (r ? std::string(r) : "by scheme " + std::to_string(c.reduction)) + ")";
  }
  if (c.swizzle != 0) s += ", swizzle " + std::to_string(c.swizzle);
  return s;
}

}  // namespace boo::reference
