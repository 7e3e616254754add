// How the JIT compiles a translation unit into a shared object: the nvcc command line
// (DESIGN.md §4) and the identity of the toolchain that goes into every cache hash.
#pragma once

#include <string>
#include <vector>

#include "boo/core/status.h"

namespace boo::jit {

struct CompilerOptions {
  std::string nvcc;                       // BOO_NVCC, else the build's CUDA toolkit nvcc
  std::vector<std::string> include_dirs;  // CUTLASS: BOO_CUTLASS_DIR, else found at build time
  std::vector<std::string> flags;         // everything but -I, -o and the input
  std::string arch = "sm_90a";            // the cache folder of the objects
  std::string compiler_version;           // toolkit release, or `BOO_NVCC --version`
  std::string cutlass_version;            // from cutlass/version.h, e.g. "4.2.0"

  // Reads BOO_NVCC and BOO_CUTLASS_DIR; fails with a clear message when CUTLASS is missing.
  static core::Expected<CompilerOptions> from_environment();
  // The full argument vector for compiling `source` into `output`.
  std::vector<std::string> command(const std::string& source, const std::string& output) const;
  // What makes two objects of the same source differ: compiler, flags, CUTLASS, boo, ABI.
  std::string identity() const;
};

// Runs argv[0] with its output (stdout and stderr) appended to `log_path`; returns the exit
// status (or an error when it could not start).
core::Expected<int> run_logged(const std::vector<std::string>& argv, const std::string& log_path);

}  // namespace boo::jit
