// What the on-disk kernel cache holds, and removing entries from it (`boo cache`, DESIGN.md §4).
//
// An entry is every file of one hash stem in a kernel folder, <root>/<arch>/<kernel>/<hash>.*,
// as KernelCache lays them out (kernel_cache.h): .so, .cu, .cmd, .log, .json, .failed, .lock and
// the temporaries <hash>.<ext>.tmp.<pid> of a compile in flight. Nothing else is an entry: a file
// whose name is not <16 hex digits>.<one of those> is never counted and never deleted.
//
// Clearing is safe beside running jobs: an entry is removed while holding its lock (taken
// without waiting; an entry whose lock is held is being compiled or rebuilt and is skipped), and
// its state is read again under the lock before deleting. A process that has an object loaded
// keeps its mapping (unlinking does not unmap); one that finds the object gone compiles it again.
// The entry's lock file goes with it: a process already waiting on the unlinked file compiles
// beside one that makes a new lock, which duplicates work but not damage (every file is written
// under a temporary name and renamed). A kernel folder is removed only when empty (rmdir), so a
// compile that created it an instant before can fail once to create its lock ("cannot lock"); the
// next request compiles normally. There is no cache-wide lock to close that window.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "boo/core/status.h"
#include "boo/jit/compile_log.h"

namespace boo::jit {

enum class EntryState {
  kOk,       // the object (<hash>.so) is there
  kFailed,   // the compile failed: <hash>.failed marks it (with the log beside it)
  kPartial,  // neither: a compile in flight (lock held) or one that was interrupted
};

// "ok", "failed", "partial".
std::string_view entry_state_name(EntryState state);

struct CacheEntry {
  std::string arch;    // the arch folder, e.g. "sm_90a"
  std::string kernel;  // the kernel folder: the kernel's name
  std::string stem;    // <root>/<arch>/<kernel>/<hash>
  EntryState state = EntryState::kPartial;
  bool in_use = false;             // its lock is held: a compile or a rebuild is running
  std::vector<std::string> files;  // full paths of the entry's files, the lock file excepted
  uint64_t bytes = 0;              // what removing the entry frees
  // The object's time for kOk, the marker's for kFailed, the newest file's for kPartial: when
  // the entry was made (loading an object does not touch it, so this is not the last use).
  std::filesystem::file_time_type mtime{};
  std::string reason;  // kFailed: the first error line of the compile, from the marker
  // kOk: the register spills ptxas reported in the entry's compile log (compile_log.h; none for
  // entries compiled without -warn-spills).
  SpillReport spills;
  // kOk: the places where ptxas waits for or serializes warpgroup MMAs (compile_log.h).
  int mma_waits = 0;

  // The file to look at: the object (kOk), the compile log (kFailed; the marker when the log
  // is missing), the newest file (kPartial).
  std::string main_path() const;
};

struct ArchSummary {
  std::string arch;
  int ok = 0;
  int failed = 0;
  int partial = 0;
  uint64_t bytes = 0;
};

struct CacheInventory {
  std::string root;
  bool exists = false;              // false: the root folder is not there (yet)
  std::vector<CacheEntry> entries;  // by arch, kernel name, stem
  // Top-level items that are not arch folders (sm_*/compute_*): a root with any of them does
  // not look like a boo cache, and clear_cache refuses it.
  std::vector<std::string> foreign;
  std::vector<std::string> arch_folders;  // names, in order

  // One row per arch folder, in name order (folders without entries included).
  std::vector<ArchSummary> by_arch() const;
  ArchSummary total() const;
};

// Walks `root` (read-only; lock probes take no lock that a compile would wait on for long).
// A missing root is an empty inventory; an unreadable one is kUnavailable.
core::Expected<CacheInventory> scan_cache(const std::string& root);

// Whether clear_cache may delete under `root`: kInvalidArgument when `root` is empty, "/", the
// home folder or a folder that holds it, is not a folder, or holds top-level items other than
// arch folders (sm_* or compute_* folders, no symbolic links). A missing root passes.
core::Status check_clearable_root(const std::string& root);

struct ClearOptions {
  bool failed_only = false;               // only kFailed entries
  std::optional<double> older_than_days;  // only entries whose mtime is older than this
  bool dry_run = false;                   // decide and report, delete nothing
  std::filesystem::file_time_type now = std::filesystem::file_time_type::clock::now();
};

// Whether `entry` is chosen by `options` (in_use aside).
bool clear_selects(const ClearOptions& options, const CacheEntry& entry);

struct ClearReport {
  std::vector<CacheEntry> removed;           // removed, or in a dry run those that would be
  std::vector<CacheEntry> in_use;            // chosen but skipped: their lock is held
  std::vector<std::string> removed_folders;  // kernel folders left empty and removed
  uint64_t bytes_freed = 0;                  // (in a dry run: would be freed)
  std::vector<std::string> errors;           // one line per file that could not be removed
};

// Removes the entries `options` chooses, each under its lock, then the kernel folders that this
// left empty. Refuses (check_clearable_root's status) before touching anything; per-file
// failures are listed in the report and do not stop the rest.
core::Expected<ClearReport> clear_cache(const std::string& root, const ClearOptions& options);

}  // namespace boo::jit
