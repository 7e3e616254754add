#include "boo/jit/compiler.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>

#include "boo/codegen/abi.h"
#include "boo/core/build_info.h"
#include "boo/core/env.h"
#include "boo/core/strings.h"

extern char** environ;

namespace boo::jit {
namespace {

bool file_exists(const std::string& p) { return access(p.c_str(), F_OK) == 0; }

std::string read_cutlass_version(const std::string& include_dir) {
  std::ifstream in(include_dir + "/cutlass/version.h");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  std::string out;
  for (const char* name : {"CUTLASS_MAJOR", "CUTLASS_MINOR", "CUTLASS_PATCH"}) {
    const std::regex re(std::string("#define ") + name + R"(\s+(\d+))");
    std::smatch m;
    if (std::regex_search(text, m, re)) out += (out.empty() ? "" : ".") + m[1].str();
  }
  return out.empty() ? "unknown" : out;
}

// "CUDA 13.0" from "13.0.88" or from nvcc's "Cuda compilation tools, release 13.0, V13.0.88":
// patch releases of one CUDA release generate the same code, so cached objects carry over.
std::string release_of(const std::string& text) {
  const std::regex re(R"((\d+)\.(\d+))");
  std::smatch m;
  const size_t at = text.find("release ");
  const std::string from = at == std::string::npos ? text : text.substr(at);
  if (std::regex_search(from, m, re)) return "CUDA " + m[1].str() + "." + m[2].str();
  return "CUDA " + text;
}

// The release named by `cmd --version`.
std::string probe_version(const std::string& nvcc) {
  const std::string log = "/tmp/boo_nvcc_version_" + std::to_string(getpid()) + ".txt";
  std::string version = "unknown";
  auto status = run_logged({nvcc, "--version"}, log);
  if (status.has_value() && *status == 0) {
    std::ifstream in(log);
    for (std::string line; std::getline(in, line);) {
      if (line.find("release") != std::string::npos) version = release_of(line);
    }
  }
  std::remove(log.c_str());
  return version;
}

}  // namespace

core::Expected<CompilerOptions> CompilerOptions::from_environment() {
  CompilerOptions o;
  if (auto env = core::get_env("BOO_NVCC"); env && !env->empty()) {
    o.nvcc = *env;
    o.compiler_version = probe_version(o.nvcc);
  } else {
    const std::string built = std::string(core::kCudaToolkitBinDir) + "/nvcc";
    o.nvcc = file_exists(built) ? built : "nvcc";
    o.compiler_version = release_of(core::kCudaToolkitVersion);
  }
  if (auto env = core::get_env("BOO_CUTLASS_DIR"); env && !env->empty()) {
    o.include_dirs = {*env + "/include", *env + "/tools/util/include"};
  } else {
    for (std::string_view d : core::split(core::kCutlassIncludeDirs, ';')) {
      if (!d.empty()) o.include_dirs.emplace_back(d);
    }
  }
  if (o.include_dirs.empty() || !file_exists(o.include_dirs[0] + "/cutlass/cutlass.h")) {
    return core::unavailable(
        "CUTLASS headers not found" +
        (o.include_dirs.empty() ? std::string() : " in '" + o.include_dirs[0] + "'") +
        ": run scripts/setup.sh or set BOO_CUTLASS_DIR to a CUTLASS 4.2 source folder");
  }
  o.cutlass_version = read_cutlass_version(o.include_dirs[0]);
  o.flags = {"-std=c++17", "-O3", "-DNDEBUG", "--expt-relaxed-constexpr",
             "-gencode=arch=compute_90a,code=sm_90a", "-shared", "-Xcompiler=-fPIC",
             // Static locals of inline and template functions (CUTLASS params caches, the
             // once-per-process shared-memory attribute flag) are STB_GNU_UNIQUE by default:
             // the dynamic loader merges them across every loaded object, RTLD_LOCAL or not, so
             // two objects holding the same CUTLASS kernel type (a conv config with and without
             // space-to-depth) shared one flag and the second never raised its kernel's shared
             // memory limit ("CUTLASS run failed" on the GPU, 2026-11-23). Each object keeps its
             // own.
             "-Xcompiler=-fno-gnu-unique", "-cudart", "shared", "-lineinfo",
             // ptxas names each function that spills registers in the compile log; the cache
             // warns about such kernels (compile_log.h).
             "-Xptxas=-warn-spills"};
  // Extra flags for experiments (e.g. -D macros a kernel reads, -Xptxas -v); they are part of
  // the cache key (key_text), so their kernels never mix with the default ones.
  if (auto env = core::get_env("BOO_NVCC_FLAGS"); env && !env->empty()) {
    for (std::string_view f : core::split(*env, ' ')) {
      if (!f.empty()) o.flags.emplace_back(f);
    }
  }
  return o;
}

std::vector<std::string> CompilerOptions::command(const std::string& source,
                                                  const std::string& output) const {
  std::vector<std::string> argv = {nvcc};
  argv.insert(argv.end(), flags.begin(), flags.end());
  for (const std::string& d : include_dirs) argv.push_back("-I" + d);
  argv.push_back("-o");
  argv.push_back(output);
  argv.push_back(source);
  return argv;
}

std::string CompilerOptions::identity() const {
  std::string s = "compiler=" + compiler_version + ";arch=" + arch + ";flags=";
  for (const std::string& f : flags) s += f + " ";
  s += ";cutlass=" + cutlass_version + ";boo=" + std::string(core::kBooVersion) +
       ";abi=" + std::to_string(BOO_ABI_VERSION);
  return s;
}

core::Expected<int> run_logged(const std::vector<std::string>& argv, const std::string& log_path) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND,
                                   0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int err = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (err != 0) {
    return core::unavailable("cannot run '" + argv[0] + "': " + std::strerror(err) +
                             " (set BOO_NVCC to the CUDA compiler)");
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR)
      return core::internal_error("waitpid failed: " + std::string(std::strerror(errno)));
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

}  // namespace boo::jit
