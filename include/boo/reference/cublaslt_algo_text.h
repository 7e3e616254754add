// A cuBLASLt algorithm's configuration in words, for the vendor baseline's description: its id,
// tile, stages, cluster shape, split-K and CTA swizzling, as cublasLt.h names them
// ("algo 66, tile 128x128, stages 64x4, cluster 2x1x1"). The names come from the toolkit's
// header at configure time (cmake/cublaslt_names.cmake).
#pragma once

#include <cstdint>
#include <string>

namespace boo::reference {

struct CublasLtAlgoConfig {
  int32_t id = 0;
  uint32_t tile = 0;     // cublasLtMatmulTile_t
  uint32_t stages = 0;   // cublasLtMatmulStages_t
  uint32_t cluster = 0;  // cublasLtClusterShape_t
  int32_t split_k = 1;
  uint32_t reduction = 0;  // cublasLtReductionScheme_t, where split_k > 1
  uint32_t swizzle = 0;
};

// The name of `value` in the header's enum `kind` ("MATMUL_TILE", "MATMUL_STAGES",
// "CLUSTER_SHAPE"): "128x128", "64xAUTO", "2x1x1", "UNDEFINED", ...; "#<value>" where the
// header has no such value.
std::string cublaslt_enum_name(const std::string& kind, uint32_t value);

// "algo 66, tile 128x128, stages 64x4, cluster 2x1x1" (+ ", split-K 4 (reduced in place)",
// ", swizzle 1" where they are not the defaults).
std::string cublaslt_algo_text(const CublasLtAlgoConfig& c);

}  // namespace boo::reference
