// What a kernel's compile log says. The JIT keeps each compile's log beside its object
// (kernel_cache.h: <hash>.log), whether the compile succeeded or not.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace boo::jit {

// The first line of a compiler log that says "error", for a one-line message; "see the log"
// when there is none.
std::string first_error_line(std::string_view log);

// Register spills ptxas reported. The JIT compiles with -warn-spills (compiler.cc), which prints
// one line per spilling function: "ptxas warning : Registers are spilled to local memory in
// function 'F', N bytes spill stores, M bytes spill loads". A spilling kernel can run several
// times slower than its model predicts (fp8 128x256 tiles: 824 bytes, 0.33x cuBLASLt on an H200,
// bench/results/2026-11-30-model-lists-h200.md).
struct SpillReport {
  int functions = 0;
  int64_t store_bytes = 0;
  int64_t load_bytes = 0;
  bool any() const { return functions > 0; }
};
SpillReport spills_in_log(std::string_view log);
// The first 1 MB of the compile log at `path` (a log is a few KB); empty when it cannot be read.
// For callers that read several things from one log.
std::string read_compile_log(const std::string& path);
// The same for the log at `path` (its first 1 MB: a log is a few KB); none when it cannot be read.
SpillReport spills_in_log_file(const std::string& path);

// Places where ptxas gave up the asynchrony of warpgroup MMAs (wgmma), one log line each: it
// waits for the MMAs in flight before a register they write is used ("(C7517) warpgroup.wait is
// injected in around line N by compiler to allow use of registers defined by GMMA in function
// 'F'"), or runs them one after another ("Potential Performance Loss: wgmma.mma_async
// instructions are serialized due to ..."). ptxas prints both without -v. A first form of
// gemm.sm90's overlapped fp8 promotion had such a wait once a tile (kernels/gemm_sm90_fp8.cuh).
// An injected warpgroup.arrive (C7519: registers fenced before the MMAs read them) is not
// counted.
int mma_waits_in_log(std::string_view log);
// The same for the log at `path`; none when it cannot be read.
int mma_waits_in_log_file(const std::string& path);

// "824 bytes of spill stores, 600 of spill loads, in 1 function".
std::string describe(const SpillReport& spills);
// "KERNEL spills registers to local memory (ptxas: <describe><more>)": the warning of the JIT
// (`more`: "; log: PATH") and of boo preload.
std::string spill_warning(std::string_view kernel, const SpillReport& spills,
                          std::string_view more = "");
// "KERNEL waits for its warpgroup MMAs where ptxas made it (N places in the compile log<more>)".
std::string mma_wait_warning(std::string_view kernel, int places, std::string_view more = "");

}  // namespace boo::jit
