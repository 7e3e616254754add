// The C entry points of abi.h for a GEMM runner type (a struct with static supports, workspace
// and run over BooGemmArgs). Every generated GEMM translation unit expands the macro once.
#pragma once

#include <cstdio>

namespace boo_kernels {

inline void write_why(char* why, int32_t len, const char* text) {
  if (why != nullptr && len > 0) std::snprintf(why, static_cast<size_t>(len), "%s", text);
}

}  // namespace boo_kernels

#define BOO_GEMM_ENTRY_POINTS(Runner, kName)                                                    \
  extern "C" int32_t boo_info(BooKernelInfo* info) {                                            \
    info->abi_version = BOO_ABI_VERSION;                                                        \
    info->kind = BOO_KIND_GEMM;                                                                 \
    info->name = kName;                                                                         \
    return BOO_OK;                                                                              \
  }                                                                                             \
  extern "C" int32_t boo_supports(const void* args, char* why, int32_t len) {                   \
    return Runner::supports(*static_cast<const BooGemmArgs*>(args), why, len);                  \
  }                                                                                             \
  extern "C" int64_t boo_workspace(const void* args) {                                          \
    return Runner::workspace(*static_cast<const BooGemmArgs*>(args));                           \
  }                                                                                             \
  extern "C" int32_t boo_run(const void* args, void* ws, int64_t ws_bytes, void* stream,        \
                             char* why, int32_t len) {                                          \
    return Runner::run(*static_cast<const BooGemmArgs*>(args), ws, ws_bytes, stream, why, len); \
  }
