#include "boo/jit/cache_inventory.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <map>
#include <set>

#include "boo/core/env.h"
#include "boo/core/strings.h"

namespace boo::jit {
namespace {

namespace fs = std::filesystem;

// What KernelCache writes next to a hash (kernel_cache.h, EntryPaths). The temporaries of a
// compile are "<hash>.<ext>.tmp.<pid>" (write_file and the object's compile output).
constexpr std::array<std::string_view, 7> kEntryExtensions = {"so",   "cu",     "cmd", "log",
                                                              "json", "failed", "lock"};
constexpr size_t kHashDigits = 16;  // core::to_hex of a 64-bit hash

bool is_hex_hash(std::string_view s) {
  return s.size() == kHashDigits && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// An entry file's hash and extension ("so", "cu", ...; a compile's temporary keeps the
// extension it will have and is marked), or nothing for a file that is not KernelCache's.
struct EntryFileName {
  std::string hash;
  std::string ext;
  bool temporary = false;
};

std::optional<EntryFileName> parse_entry_file(std::string_view name) {
  if (name.size() < kHashDigits + 2 || name[kHashDigits] != '.') return std::nullopt;
  EntryFileName f;
  f.hash = std::string(name.substr(0, kHashDigits));
  if (!is_hex_hash(f.hash)) return std::nullopt;
  std::string_view rest = name.substr(kHashDigits + 1);
  if (const size_t tmp = rest.find(".tmp."); tmp != std::string_view::npos) {
    if (!all_digits(rest.substr(tmp + 5))) return std::nullopt;
    f.temporary = true;
    rest = rest.substr(0, tmp);
  }
  if (std::find(kEntryExtensions.begin(), kEntryExtensions.end(), rest) == kEntryExtensions.end()) {
    return std::nullopt;
  }
  if (f.temporary && rest == "lock") return std::nullopt;  // locks are never written that way
  f.ext = std::string(rest);
  return f;
}

// "sm_90a", "sm_100", "compute_90a": the arch folders CompilerOptions::arch names.
bool is_arch_name(std::string_view name) {
  std::string_view rest;
  if (name.rfind("sm_", 0) == 0) {
    rest = name.substr(3);
  } else if (name.rfind("compute_", 0) == 0) {
    rest = name.substr(8);
  } else {
    return false;
  }
  size_t digits = 0;
  while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9') ++digits;
  if (digits == 0) return false;
  return std::all_of(rest.begin() + digits, rest.end(),
                     [](char c) { return c >= 'a' && c <= 'z'; });
}

// A directory that is not a symbolic link (the walk never follows links out of the root).
bool is_real_directory(const fs::directory_entry& e) {
  std::error_code ec;
  return e.is_directory(ec) && !e.is_symlink(ec);
}

// Whether another process holds the entry's lock. Holding it briefly ourselves is harmless: a
// compile that asks for it meanwhile waits microseconds.
bool lock_is_held(const std::string& lock_path) {
  const int fd = ::open(lock_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;  // no lock file: nobody can hold it
  bool held = false;
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    held = errno == EWOULDBLOCK;
  } else {
    flock(fd, LOCK_UN);
  }
  ::close(fd);
  return held;
}

// The compile's first error line from a .failed marker ("exit status N", "log: PATH", why).
std::string failure_reason(const std::string& marker) {
  std::ifstream in(marker);
  std::string first;
  for (std::string line; std::getline(in, line);) {
    const std::string text(core::trim(line));
    if (text.empty()) continue;
    if (first.empty()) first = text;
    if (text.rfind("exit status ", 0) == 0 || text.rfind("log: ", 0) == 0) continue;
    return text;
  }
  return first;
}

// The entries of one kernel folder, by hash.
std::vector<CacheEntry> scan_kernel_folder(const std::string& arch, const std::string& kernel,
                                           const fs::path& dir, std::error_code& ec) {
  struct Group {
    std::vector<std::pair<std::string, fs::directory_entry>> files;  // ext, file
    bool has_lock = false;
  };
  std::map<std::string, Group> groups;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code fec;
    if (!it->is_regular_file(fec) || it->is_symlink(fec)) continue;
    auto f = parse_entry_file(it->path().filename().string());
    if (!f) continue;
    Group& g = groups[f->hash];
    if (f->ext == "lock") {
      g.has_lock = true;
    } else {
      g.files.emplace_back(f->temporary ? f->ext + ".tmp" : f->ext, *it);
    }
  }
  std::vector<CacheEntry> out;
  if (ec) return out;
  for (auto& [hash, g] : groups) {
    CacheEntry e;
    e.arch = arch;
    e.kernel = kernel;
    e.stem = (dir / hash).string();
    const fs::directory_entry* object = nullptr;
    const fs::directory_entry* marker = nullptr;
    const fs::directory_entry* log = nullptr;
    const fs::directory_entry* newest = nullptr;
    fs::file_time_type newest_time{};
    for (auto& [ext, file] : g.files) {
      std::error_code fec;
      e.files.push_back(file.path().string());
      const uintmax_t size = file.file_size(fec);
      if (!fec) e.bytes += size;
      const fs::file_time_type t = file.last_write_time(fec);
      if (!fec && (newest == nullptr || t > newest_time)) {
        newest = &file;
        newest_time = t;
      }
      if (ext == "so") object = &file;
      if (ext == "failed") marker = &file;
      if (ext == "log") log = &file;
    }
    std::sort(e.files.begin(), e.files.end());
    std::error_code tec;
    if (object != nullptr) {  // an object wins over a marker, as in KernelCache::ensure_compiled
      e.state = EntryState::kOk;
      e.mtime = object->last_write_time(tec);
      if (log != nullptr) {
        const std::string text = read_compile_log(log->path().string());
        e.spills = spills_in_log(text);
        e.mma_waits = mma_waits_in_log(text);
      }
    } else if (marker != nullptr) {
      e.state = EntryState::kFailed;
      e.mtime = marker->last_write_time(tec);
      e.reason = failure_reason(marker->path().string());
    } else {
      e.state = EntryState::kPartial;
      e.mtime = newest_time;
      if (newest == nullptr && g.has_lock) {  // only a lock file: a compile about to start
        e.mtime = fs::last_write_time(e.stem + ".lock", tec);
      }
    }
    e.in_use = g.has_lock && lock_is_held(e.stem + ".lock");
    out.push_back(std::move(e));
  }
  return out;
}

// Absolute, with "." and ".." and symbolic links resolved as far as the path exists, and no
// trailing separator.
fs::path normalized(const std::string& p) {
  std::error_code ec;
  fs::path abs = fs::absolute(p, ec);
  if (ec) abs = p;
  fs::path n = fs::weakly_canonical(abs, ec);
  if (ec) n = abs.lexically_normal();
  if (!n.has_filename() && n != n.root_path()) n = n.parent_path();
  return n;
}

// Whether `ancestor` is `p` or one of the folders that hold it.
bool holds(const fs::path& ancestor, const fs::path& p) {
  auto [a, b] = std::mismatch(ancestor.begin(), ancestor.end(), p.begin(), p.end());
  return a == ancestor.end();
}

}  // namespace

std::string_view entry_state_name(EntryState state) {
  switch (state) {
    case EntryState::kOk:
      return "ok";
    case EntryState::kFailed:
      return "failed";
    case EntryState::kPartial:
      return "partial";
  }
  return "?";
}

std::string CacheEntry::main_path() const {
  auto has = [this](const std::string& path) {
    return std::find(files.begin(), files.end(), path) != files.end();
  };
  switch (state) {
    case EntryState::kOk:
      return stem + ".so";
    case EntryState::kFailed:
      return has(stem + ".log") ? stem + ".log" : stem + ".failed";
    case EntryState::kPartial:
      break;
  }
  // The newest file of a partial entry: what the interrupted compile wrote last.
  std::string best;
  fs::file_time_type best_time{};
  for (const std::string& f : files) {
    std::error_code ec;
    const fs::file_time_type t = fs::last_write_time(f, ec);
    if (!ec && (best.empty() || t > best_time)) {
      best = f;
      best_time = t;
    }
  }
  return best.empty() ? stem + ".*" : best;
}

std::vector<ArchSummary> CacheInventory::by_arch() const {
  std::map<std::string, ArchSummary> rows;
  for (const std::string& a : arch_folders) rows[a].arch = a;
  for (const CacheEntry& e : entries) {
    ArchSummary& s = rows[e.arch];
    s.arch = e.arch;
    s.ok += e.state == EntryState::kOk ? 1 : 0;
    s.failed += e.state == EntryState::kFailed ? 1 : 0;
    s.partial += e.state == EntryState::kPartial ? 1 : 0;
    s.bytes += e.bytes;
  }
  std::vector<ArchSummary> out;
  for (auto& [name, s] : rows) out.push_back(s);
  return out;
}

ArchSummary CacheInventory::total() const {
  ArchSummary t;
  for (const ArchSummary& s : by_arch()) {
    t.ok += s.ok;
    t.failed += s.failed;
    t.partial += s.partial;
    t.bytes += s.bytes;
  }
  return t;
}

core::Expected<CacheInventory> scan_cache(const std::string& root) {
  CacheInventory inv;
  inv.root = root;
  std::error_code ec;
  const fs::file_status st = fs::status(root, ec);
  if (!fs::exists(st)) return inv;  // nothing compiled yet
  if (!fs::is_directory(st)) {
    return core::unavailable("the kernel cache '" + root + "' is not a folder");
  }
  inv.exists = true;
  std::vector<fs::directory_entry> arch_dirs;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (is_real_directory(*it) && is_arch_name(name)) {
      arch_dirs.push_back(*it);
    } else {
      inv.foreign.push_back(name);
    }
  }
  if (ec) return core::unavailable("cannot read the kernel cache '" + root + "': " + ec.message());
  std::sort(inv.foreign.begin(), inv.foreign.end());
  std::sort(arch_dirs.begin(), arch_dirs.end());
  for (const fs::directory_entry& arch_dir : arch_dirs) {
    const std::string arch = arch_dir.path().filename().string();
    inv.arch_folders.push_back(arch);
    std::vector<fs::directory_entry> kernel_dirs;
    for (fs::directory_iterator it(arch_dir.path(), ec), end; !ec && it != end; it.increment(ec)) {
      if (is_real_directory(*it)) kernel_dirs.push_back(*it);
    }
    if (ec) {
      return core::unavailable("cannot read '" + arch_dir.path().string() + "': " + ec.message());
    }
    std::sort(kernel_dirs.begin(), kernel_dirs.end());
    for (const fs::directory_entry& kernel_dir : kernel_dirs) {
      std::vector<CacheEntry> entries =
          scan_kernel_folder(arch, kernel_dir.path().filename().string(), kernel_dir.path(), ec);
      if (ec) {
        return core::unavailable("cannot read '" + kernel_dir.path().string() +
                                 "': " + ec.message());
      }
      for (CacheEntry& e : entries) inv.entries.push_back(std::move(e));
    }
  }
  return inv;
}

core::Status check_clearable_root(const std::string& root) {
  if (root.empty()) return core::invalid_argument("the kernel cache root is empty");
  const fs::path dir = normalized(root);
  if (dir == dir.root_path()) {
    return core::invalid_argument("refusing to clear the cache root '" + root +
                                  "': it is the file system root");
  }
  if (auto home = core::get_env("HOME"); home && !home->empty()) {
    if (holds(dir, normalized(*home))) {
      return core::invalid_argument("refusing to clear the cache root '" + root +
                                    "': it is or holds the home folder " + *home);
    }
  }
  std::error_code ec;
  const fs::file_status st = fs::status(dir, ec);
  if (!fs::exists(st)) return core::Status::ok();
  if (!fs::is_directory(st)) {
    return core::invalid_argument("the kernel cache root '" + root + "' is not a folder");
  }
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!is_real_directory(*it) || !is_arch_name(name)) {
      return core::invalid_argument(
          "refusing to clear '" + root + "': it does not look like a boo kernel cache ('" + name +
          "' is not an arch folder such as sm_90a); point BOO_CACHE_DIR at the cache itself");
    }
  }
  if (ec) return core::unavailable("cannot read '" + root + "': " + ec.message());
  return core::Status::ok();
}

bool clear_selects(const ClearOptions& options, const CacheEntry& entry) {
  if (options.failed_only && entry.state != EntryState::kFailed) return false;
  if (options.older_than_days) {
    // 100 years is "never": it keeps the nanosecond count far from overflowing.
    const double days = std::min(*options.older_than_days, 36500.0);
    const auto age = std::chrono::duration_cast<fs::file_time_type::duration>(
        std::chrono::duration<double>(days * 86400.0));
    if (!(options.now - entry.mtime > age)) return false;
  }
  return true;
}

core::Expected<ClearReport> clear_cache(const std::string& root, const ClearOptions& options) {
  BOO_RETURN_IF_ERROR(check_clearable_root(root));
  BOO_ASSIGN_OR_RETURN(const CacheInventory inv, scan_cache(root));
  ClearReport report;
  std::set<std::string> emptied;  // kernel folders that lost an entry
  for (const CacheEntry& scanned : inv.entries) {
    if (!clear_selects(options, scanned)) continue;
    if (options.dry_run) {
      if (scanned.in_use) {
        report.in_use.push_back(scanned);
      } else {
        report.removed.push_back(scanned);
        report.bytes_freed += scanned.bytes;
      }
      continue;
    }
    // KernelCache compiles and rebuilds under this lock; holding it means no process is
    // writing the entry's files while they go. Never wait: a held lock is a compile that may
    // take minutes.
    const std::string lock_path = scanned.stem + ".lock";
    const bool had_lock = access(lock_path.c_str(), F_OK) == 0;
    const int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
      report.errors.push_back("cannot lock '" + lock_path + "': " + std::strerror(errno));
      continue;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd);
      report.in_use.push_back(scanned);
      continue;
    }
    // Read the entry again under the lock: a compile may have finished or failed since the
    // scan, and the choice is made on what is there now.
    const fs::path dir = fs::path(scanned.stem).parent_path();
    std::error_code ec;
    std::vector<CacheEntry> now = scan_kernel_folder(scanned.arch, scanned.kernel, dir, ec);
    auto fresh = std::find_if(now.begin(), now.end(),
                              [&](const CacheEntry& e) { return e.stem == scanned.stem; });
    // Someone else removed the entry's files meanwhile: only its lock is left.
    const bool vanished =
        !ec && (fresh == now.end() || (fresh->files.empty() && !scanned.files.empty()));
    const bool chosen = !ec && !vanished && clear_selects(options, *fresh);
    if (chosen) {
      for (const std::string& f : fresh->files) {
        std::error_code fec;
        const uintmax_t size = fs::file_size(f, fec);
        const uint64_t bytes = fec ? 0 : size;
        const bool gone = fs::remove(f, fec);
        if (fec) {
          report.errors.push_back("cannot remove '" + f + "': " + fec.message());
        } else if (gone) {
          report.bytes_freed += bytes;
        }
      }
      fresh->in_use = false;  // the lock it reports held is ours
      report.removed.push_back(*fresh);
      emptied.insert(dir.string());
    }
    // The lock file goes with its entry, and a lock file this pass made goes too. A process
    // that opened it before the unlink and waits on it still compiles correctly: every file of
    // an entry is written under a temporary name and renamed into place, so two compiles of one
    // kernel at worst duplicate the work.
    if (chosen || vanished || !had_lock) std::remove(lock_path.c_str());
    flock(fd, LOCK_UN);
    ::close(fd);
  }
  for (const std::string& dir : emptied) {
    // rmdir only removes an empty folder: one that still holds entries or other files stays.
    std::error_code ec;
    if (fs::is_empty(dir, ec) && !ec && fs::remove(dir, ec) && !ec) {
      report.removed_folders.push_back(dir);
    }
  }
  return report;
}

}  // namespace boo::jit
