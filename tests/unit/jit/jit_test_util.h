// Helpers for tests of the JIT without a GPU or nvcc: a temporary cache root and the fake
// compiler (tests/unit/jit/fake_nvcc.sh) that builds stub kernel objects with the host compiler.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "boo/jit/kernel_cache.h"

namespace boo::testing {

inline std::string make_temp_dir(const std::string& tag) {
  std::string templ =
      (std::filesystem::temp_directory_path() / ("boo_" + tag + "_XXXXXX")).string();
  return mkdtemp(templ.data());
}

inline jit::CompilerOptions fake_compiler() {
  jit::CompilerOptions c;
  c.nvcc = BOO_FAKE_NVCC;
  c.compiler_version = "fake 1.0";
  c.cutlass_version = "none";
  return c;
}

inline int count_lines(const std::string& path) {
  std::ifstream in(path);
  int n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

inline codegen::KernelSource fake_source(const std::string& name, const std::string& extra = "") {
  return {name, "// name: " + name + "\n" + extra + "\n"};
}

}  // namespace boo::testing
