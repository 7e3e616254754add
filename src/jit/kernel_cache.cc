#include "boo/jit/kernel_cache.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>

#include "boo/core/env.h"
#include "boo/core/hash.h"
#include "boo/core/log.h"
#include "boo/core/strings.h"
#include "boo/jit/compile_log.h"

namespace boo::jit {
namespace {

// KernelCache's error for a kernel that did not compile: "compiling <name> failed<rest>"
// (is_compile_failure recognizes it).
constexpr std::string_view kCompilingPrefix = "compiling ";
constexpr std::string_view kFailedWord = " failed";
core::Status compile_failure(const std::string& name, const std::string& rest) {
  return core::unavailable(std::string(kCompilingPrefix) + name + std::string(kFailedWord) + rest);
}

namespace fs = std::filesystem;

bool exists(const std::string& p) { return access(p.c_str(), F_OK) == 0; }

core::Status write_file(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::binary);
    out << text;
    if (!out) return core::unavailable("cannot write '" + tmp + "'");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    return core::unavailable("cannot rename '" + tmp + "' to '" + path + "'");
  }
  return core::Status::ok();
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string shell_quote(const std::string& s) {
  if (s.find_first_of(" '\"\\$") == std::string::npos) return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Holds an exclusive flock on a file while alive.
class FileLock {
 public:
  explicit FileLock(const std::string& path) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ >= 0) {
      while (flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
      }
    }
  }
  ~FileLock() {
    if (fd_ >= 0) {
      flock(fd_, LOCK_UN);
      ::close(fd_);
    }
  }
  bool ok() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

std::string temporary_root() {
  static std::string root = [] {
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/boo-cache-XXXXXX";
    std::vector<char> buf(templ.begin(), templ.end());
    buf.push_back('\0');
    const char* dir = mkdtemp(buf.data());
    std::string r = dir ? dir : "/tmp/boo-cache";
    static const std::string keep = r;
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(keep, ec);
    });
    return r;
  }();
  return root;
}

}  // namespace

core::Expected<CacheOptions> CacheOptions::from_environment() {
  CacheOptions o;
  BOO_ASSIGN_OR_RETURN(o.persistent, core::env_flag("BOO_CACHE_ON", true));
  BOO_ASSIGN_OR_RETURN(o.allow_compile, core::env_flag("BOO_JIT", true));
  if (!o.persistent) {
    o.root = temporary_root();
    return o;
  }
  if (auto dir = core::get_env("BOO_CACHE_DIR"); dir && !dir->empty()) {
    o.root = *dir;
  } else if (auto xdg = core::get_env("XDG_CACHE_HOME"); xdg && !xdg->empty()) {
    o.root = *xdg + "/boo";
  } else if (auto home = core::get_env("HOME"); home && !home->empty()) {
    o.root = *home + "/.cache/boo";
  } else {
    return core::unavailable(
        "no cache folder: set BOO_CACHE_DIR (HOME and XDG_CACHE_HOME are unset)");
  }
  return o;
}

KernelCache::KernelCache(CacheOptions cache, CompilerOptions compiler)
    : cache_(std::move(cache)), compiler_(std::move(compiler)) {}

EntryPaths KernelCache::paths(const codegen::KernelSource& source) const {
  uint64_t h = core::hash_combine(core::fnv1a64(compiler_.identity()), source.text);
  EntryPaths p;
  p.dir = cache_.root + "/" + compiler_.arch + "/" + source.name;
  p.stem = p.dir + "/" + core::to_hex(h);
  return p;
}

core::Expected<std::shared_ptr<const LoadedKernel>> KernelCache::load(
    const std::string& path, const std::string& name) const {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* err = dlerror();
    return core::unavailable("cannot load '" + path + "': " + (err ? err : "unknown error"));
  }
  auto info = reinterpret_cast<BooInfoFn>(dlsym(handle, "boo_info"));
  auto kernel = std::make_shared<LoadedKernel>();
  kernel->supports = reinterpret_cast<BooSupportsFn>(dlsym(handle, "boo_supports"));
  kernel->workspace = reinterpret_cast<BooWorkspaceFn>(dlsym(handle, "boo_workspace"));
  kernel->run = reinterpret_cast<BooRunFn>(dlsym(handle, "boo_run"));
  BooKernelInfo ki{};
  if (info == nullptr || kernel->supports == nullptr || kernel->workspace == nullptr ||
      kernel->run == nullptr || info(&ki) != BOO_OK || ki.abi_version != BOO_ABI_VERSION ||
      ki.name == nullptr || name != ki.name) {
    dlclose(handle);
    return core::unavailable("'" + path + "' is not a boo kernel object for " + name +
                             " (missing entry points, other ABI version or other name)");
  }
  kernel->name = name;
  kernel->path = path;
  kernel->kind = ki.kind;
  return std::shared_ptr<const LoadedKernel>(std::move(kernel));
}

core::Status KernelCache::compile(const codegen::KernelSource& source, const EntryPaths& p) const {
  const std::string tmp_object = p.stem + ".so.tmp." + std::to_string(getpid());
  const std::string tmp_log = p.log() + ".tmp." + std::to_string(getpid());
  BOO_RETURN_IF_ERROR(write_file(p.source(), source.text));
  const std::vector<std::string> argv = compiler_.command(p.source(), tmp_object);
  std::string cmd;
  for (const std::string& a : argv) cmd += (cmd.empty() ? "" : " ") + shell_quote(a);
  BOO_RETURN_IF_ERROR(write_file(p.command(), cmd + "\n"));
  std::remove(tmp_log.c_str());
  const auto start = std::chrono::steady_clock::now();
  auto status = run_logged(argv, tmp_log);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::rename(tmp_log.c_str(), p.log().c_str());
  if (!status) return status.status();
  char took[64];
  std::snprintf(took, sizeof(took), "%.1f s", seconds);
  if (*status != 0 || !exists(tmp_object)) {
    std::remove(tmp_object.c_str());
    const std::string why = first_error_line(read_file(p.log()));
    (void)write_file(p.failed(), "exit status " + std::to_string(*status) + "\nlog: " + p.log() +
                                     "\n" + why + "\n");
    core::log_warn("compile failed: " + source.name + " after " + took + " (log: " + p.log() + ")");
    return compile_failure(source.name, ": " + why + " (log: " + p.log() + ")");
  }
  if (std::rename(tmp_object.c_str(), p.object().c_str()) != 0) {
    return core::unavailable("cannot move the compiled object into '" + p.object() + "'");
  }
  const std::string log = read_file(p.log());
  const SpillReport spills = spills_in_log(log);
  const int mma_waits = mma_waits_in_log(log);
  (void)write_file(p.metadata(),
                   "{\"name\": \"" + source.name + "\", \"compiler\": \"" +
                       compiler_.compiler_version + "\", \"cutlass\": \"" +
                       compiler_.cutlass_version + "\", \"seconds\": " + std::to_string(seconds) +
                       ", \"spill_store_bytes\": " + std::to_string(spills.store_bytes) + "}\n");
  core::log_info("compiled " + source.name + " in " + took);
  if (spills.any()) {
    // A spilling kernel may run slower than its model predicts (by far when it spills much): say
    // so once, here.
    core::log_warn(spill_warning(source.name, spills, "; log: " + p.log()));
  }
  if (mma_waits > 0) {
    // Warpgroup MMAs that ptxas waits for or serializes run without overlap: a kernel built for
    // it runs slower than its model predicts.
    core::log_warn(mma_wait_warning(source.name, mma_waits, "; log: " + p.log()));
  }
  return core::Status::ok();
}

bool is_compile_failure(const core::Status& s) {
  return s.code() == core::StatusCode::kUnavailable &&
         s.message().rfind(kCompilingPrefix, 0) == 0 &&
         s.message().find(kFailedWord) != std::string::npos;
}

core::Expected<CacheOutcome> KernelCache::ensure_compiled(const codegen::KernelSource& source) {
  const EntryPaths p = paths(source);
  if (exists(p.object())) return CacheOutcome::kDisk;
  if (exists(p.failed())) {
    return compile_failure(source.name,
                           " before (log: " + p.log() + "; delete " + p.failed() + " to retry)");
  }
  if (!cache_.allow_compile) {
    return core::unavailable("kernel " + source.name +
                             " is not in the cache and BOO_JIT=0 forbids compiling (" +
                             cache_.root + ")");
  }
  std::error_code ec;
  fs::create_directories(p.dir, ec);
  if (ec)
    return core::unavailable("cannot create the cache folder '" + p.dir + "': " + ec.message());
  FileLock lock(p.lock());
  if (!lock.ok()) return core::unavailable("cannot lock '" + p.lock() + "'");
  // Another process may have finished (or failed) while this one waited for the lock.
  if (exists(p.object())) return CacheOutcome::kDisk;
  if (exists(p.failed())) {
    return compile_failure(source.name, " (log: " + p.log() + ")");
  }
  BOO_RETURN_IF_ERROR(compile(source, p));
  return CacheOutcome::kCompiled;
}

core::Expected<std::shared_ptr<const LoadedKernel>> KernelCache::get(
    const codegen::KernelSource& source, CacheOutcome* outcome) {
  const EntryPaths p = paths(source);
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = memory_.find(p.stem);
    if (it != memory_.end()) {
      if (outcome) *outcome = CacheOutcome::kMemory;
      return it->second;
    }
  }
  for (int attempt = 0; attempt < 2; ++attempt) {
    BOO_ASSIGN_OR_RETURN(CacheOutcome how, ensure_compiled(source));
    auto kernel = load(p.object(), source.name);
    if (kernel.has_value()) {
      std::lock_guard<std::mutex> lock(mu_);
      memory_.emplace(p.stem, *kernel);
      if (outcome) *outcome = how;
      return *kernel;
    }
    // A truncated or foreign object: delete it under the lock and build it again.
    core::log_warn("cache entry " + p.object() + " is unusable (" + kernel.status().message() +
                   "); rebuilding");
    FileLock lock(p.lock());
    if (load(p.object(), source.name).has_value()) continue;  // someone rebuilt it meanwhile
    std::remove(p.object().c_str());
  }
  return core::unavailable("cache entry " + p.object() + " is still unusable after a rebuild");
}

}  // namespace boo::jit
