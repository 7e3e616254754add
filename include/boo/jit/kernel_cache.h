// The JIT's kernel cache (DESIGN.md §4): memory, then disk, then compile.
//
// Layout: <root>/<arch>/<kernel name>/<hash>.{so,cu,cmd,log,json} where the hash covers the
// source text and the toolchain identity. Objects are compiled under a temporary name and
// renamed into place; a per-entry file lock with a re-check after acquiring it makes N
// processes wanting one kernel compile it once. An object that fails to load is deleted and
// rebuilt; a failed compile leaves <hash>.failed (with the log) so that nobody retries it.
//
// Environment: BOO_CACHE_DIR (root; default $XDG_CACHE_HOME/boo, else ~/.cache/boo),
// BOO_CACHE_ON=0 (a temporary root removed at exit), BOO_JIT=0 (never compile).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "boo/codegen/abi.h"
#include "boo/codegen/gemm_codegen.h"
#include "boo/core/status.h"
#include "boo/jit/compiler.h"

namespace boo::jit {

// A loaded kernel object and its entry points. Objects stay loaded for the process's life.
struct LoadedKernel {
  std::string name;
  std::string path;
  BooSupportsFn supports = nullptr;
  BooWorkspaceFn workspace = nullptr;
  BooRunFn run = nullptr;
  int32_t kind = 0;
};

struct CacheOptions {
  std::string root;           // the cache folder
  bool persistent = true;     // false: BOO_CACHE_ON=0
  bool allow_compile = true;  // false: BOO_JIT=0

  static core::Expected<CacheOptions> from_environment();
};

// Where an entry's files are.
struct EntryPaths {
  std::string dir;
  std::string stem;  // dir/<hash>
  std::string object() const { return stem + ".so"; }
  std::string source() const { return stem + ".cu"; }
  std::string command() const { return stem + ".cmd"; }
  std::string log() const { return stem + ".log"; }
  std::string metadata() const { return stem + ".json"; }
  std::string failed() const { return stem + ".failed"; }
  std::string lock() const { return stem + ".lock"; }
};

enum class CacheOutcome { kMemory, kDisk, kCompiled };

// Whether `s` is KernelCache's error for a kernel that did not compile (now or in an earlier
// run), as opposed to any other reason a kernel is unavailable.
bool is_compile_failure(const core::Status& s);

class KernelCache {
 public:
  KernelCache(CacheOptions cache, CompilerOptions compiler);

  // The loaded kernel for `source`: from memory, from disk, or compiled now.
  core::Expected<std::shared_ptr<const LoadedKernel>> get(const codegen::KernelSource& source,
                                                          CacheOutcome* outcome = nullptr);
  // Compiles `source` into the cache unless it is there (or failed before); loads nothing, so
  // it works without a GPU. Returns what happened.
  core::Expected<CacheOutcome> ensure_compiled(const codegen::KernelSource& source);

  EntryPaths paths(const codegen::KernelSource& source) const;
  const CacheOptions& options() const { return cache_; }
  const CompilerOptions& compiler() const { return compiler_; }

 private:
  core::Expected<std::shared_ptr<const LoadedKernel>> load(const std::string& path,
                                                           const std::string& name) const;
  core::Status compile(const codegen::KernelSource& source, const EntryPaths& p) const;

  CacheOptions cache_;
  CompilerOptions compiler_;
  std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<const LoadedKernel>> memory_;
};

}  // namespace boo::jit
