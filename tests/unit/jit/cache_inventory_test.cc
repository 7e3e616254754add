#include "boo/jit/cache_inventory.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>

#include "boo/jit/kernel_cache.h"
#include "jit_test_util.h"

namespace boo::jit {
namespace {

namespace fs = std::filesystem;
using boo::testing::fake_compiler;
using boo::testing::fake_source;
using boo::testing::make_temp_dir;

void write(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

// Sets every file of an entry `days` into the past, as an old compile would have left them.
void age_entry(const EntryPaths& p, double days) {
  const auto then =
      fs::file_time_type::clock::now() - std::chrono::duration_cast<fs::file_time_type::duration>(
                                             std::chrono::duration<double>(days * 86400.0));
  for (const std::string& f :
       {p.object(), p.source(), p.command(), p.log(), p.metadata(), p.failed()}) {
    if (fs::exists(f)) fs::last_write_time(f, then);
  }
}

const CacheEntry* find(const CacheInventory& inv, const std::string& kernel) {
  for (const CacheEntry& e : inv.entries) {
    if (e.kernel == kernel) return &e;
  }
  return nullptr;
}

// Holds an entry's lock as a compiling process does (KernelCache's FileLock).
class HeldLock {
 public:
  explicit HeldLock(const std::string& path)
      : fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
    if (fd_ >= 0) flock(fd_, LOCK_EX);
  }
  ~HeldLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  bool ok() const { return fd_ >= 0; }

 private:
  int fd_;
};

class CacheInventoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = make_temp_dir("inventory");
    root_ = dir_ + "/cache";
    unsetenv("BOO_FAKE_NVCC_LOG");
    unsetenv("BOO_FAKE_NVCC_SLEEP");
    unsetenv("BOO_FAKE_NVCC_FAIL");
  }
  void TearDown() override { fs::remove_all(dir_); }

  KernelCache make_cache() {
    CacheOptions o;
    o.root = root_;
    return KernelCache(o, fake_compiler());
  }
  // Compiles `name` with the fake compiler (a failed compile when `fail`); returns its paths.
  EntryPaths compile(const std::string& name, bool fail = false) {
    KernelCache cache = make_cache();
    const codegen::KernelSource src = fake_source(name, fail ? "FAIL_COMPILE" : "");
    ::testing::internal::CaptureStderr();
    auto r = cache.ensure_compiled(src);
    ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(r.has_value(), !fail) << name;
    return cache.paths(src);
  }
  // Two compiled kernels and one failed compile.
  void populate() {
    a_ = compile("gemm.test_a");
    b_ = compile("gemm.test_b");
    bad_ = compile("gemm.test_bad", /*fail=*/true);
  }

  std::string dir_;
  std::string root_;
  EntryPaths a_, b_, bad_;
};

TEST_F(CacheInventoryTest, MissingRootIsAnEmptyCache) {
  auto inv = scan_cache(root_);
  ASSERT_TRUE(inv.has_value()) << inv.status().to_string();
  EXPECT_FALSE(inv->exists);
  EXPECT_TRUE(inv->entries.empty());
  auto report = clear_cache(root_, {});
  ASSERT_TRUE(report.has_value()) << report.status().to_string();
  EXPECT_TRUE(report->removed.empty());
  EXPECT_FALSE(fs::exists(root_));  // clearing creates nothing
}

TEST_F(CacheInventoryTest, CountsCompiledAndFailedEntriesWithTheirFiles) {
  populate();
  auto inv = scan_cache(root_);
  ASSERT_TRUE(inv.has_value()) << inv.status().to_string();
  EXPECT_TRUE(inv->exists);
  EXPECT_TRUE(inv->foreign.empty());
  const ArchSummary total = inv->total();
  EXPECT_EQ(total.ok, 2);
  EXPECT_EQ(total.failed, 1);
  EXPECT_EQ(total.partial, 0);
  const std::vector<ArchSummary> arch = inv->by_arch();
  ASSERT_EQ(arch.size(), 1u);
  EXPECT_EQ(arch[0].arch, "sm_90a");
  EXPECT_EQ(arch[0].ok, 2);

  const CacheEntry* a = find(*inv, "gemm.test_a");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->state, EntryState::kOk);
  EXPECT_EQ(a->stem, a_.stem);
  EXPECT_EQ(a->main_path(), a_.object());
  EXPECT_FALSE(a->in_use);
  // Every artefact counts; the lock file (empty) is not listed.
  const std::vector<std::string> want = [&] {
    std::vector<std::string> v = {a_.command(), a_.source(), a_.metadata(), a_.log(), a_.object()};
    std::sort(v.begin(), v.end());
    return v;
  }();
  EXPECT_EQ(a->files, want);
  uint64_t bytes = 0;
  for (const std::string& f : want) bytes += fs::file_size(f);
  EXPECT_EQ(a->bytes, bytes);
  EXPECT_EQ(a->mtime, fs::last_write_time(a_.object()));

  const CacheEntry* bad = find(*inv, "gemm.test_bad");
  ASSERT_NE(bad, nullptr);
  EXPECT_EQ(bad->state, EntryState::kFailed);
  EXPECT_EQ(bad->main_path(), bad_.log());
  EXPECT_NE(bad->reason.find("planted compile failure"), std::string::npos) << bad->reason;
  EXPECT_EQ(entry_state_name(bad->state), "failed");

  uint64_t sum = 0;
  for (const CacheEntry& e : inv->entries) sum += e.bytes;
  EXPECT_EQ(total.bytes, sum);
}

TEST_F(CacheInventoryTest, ForeignFilesAreNeitherCountedNorDeleted) {
  populate();
  const std::string kernel_dir = fs::path(a_.stem).parent_path().string();
  // Not KernelCache's names: not 16 hex digits, an unknown extension, a non-numeric temporary.
  for (const char* name : {"notes.txt", "0123456789abcdeg.so", "0123456789abcdef.so.bak",
                           "0123456789abcdef.so.tmp.x", "0123456789ABCDEF.so"}) {
    write(kernel_dir + "/" + name, "keep me");
  }
  auto inv = scan_cache(root_);
  ASSERT_TRUE(inv.has_value());
  EXPECT_EQ(inv->total().ok, 2);
  EXPECT_EQ(inv->total().partial, 0);
  auto report = clear_cache(root_, {});
  ASSERT_TRUE(report.has_value()) << report.status().to_string();
  EXPECT_EQ(report->removed.size(), 3u);
  EXPECT_TRUE(fs::exists(kernel_dir + "/notes.txt"));
  EXPECT_TRUE(fs::exists(kernel_dir + "/0123456789abcdef.so.bak"));
  EXPECT_FALSE(fs::exists(a_.object()));
  EXPECT_TRUE(fs::exists(kernel_dir));  // not empty: it stays
}

TEST_F(CacheInventoryTest, PartialEntryFromAnInterruptedCompile) {
  const std::string dir = root_ + "/sm_90a/gemm.test_partial";
  fs::create_directories(dir);
  write(dir + "/00000000000000aa.cu", "// source");
  write(dir + "/00000000000000aa.so.tmp.4242", "half an object");
  auto inv = scan_cache(root_);
  ASSERT_TRUE(inv.has_value());
  ASSERT_EQ(inv->entries.size(), 1u);
  EXPECT_EQ(inv->entries[0].state, EntryState::kPartial);
  EXPECT_EQ(inv->entries[0].files.size(), 2u);
  auto report = clear_cache(root_, {});
  ASSERT_TRUE(report.has_value());
  EXPECT_EQ(report->removed.size(), 1u);
  EXPECT_FALSE(fs::exists(dir));
}

TEST_F(CacheInventoryTest, ClearAllRemovesEntriesAndEmptyKernelFolders) {
  populate();
  auto before = scan_cache(root_);
  ASSERT_TRUE(before.has_value());
  auto report = clear_cache(root_, {});
  ASSERT_TRUE(report.has_value()) << report.status().to_string();
  EXPECT_TRUE(report->errors.empty());
  EXPECT_EQ(report->removed.size(), 3u);
  EXPECT_EQ(report->bytes_freed, before->total().bytes);
  EXPECT_EQ(report->removed_folders.size(), 3u);
  EXPECT_FALSE(fs::exists(fs::path(a_.stem).parent_path()));
  EXPECT_TRUE(fs::is_directory(root_ + "/sm_90a"));  // the arch folder stays
  EXPECT_TRUE(scan_cache(root_)->entries.empty());
  // The cache works after a clear: the next request compiles again, the failed one included.
  KernelCache cache = make_cache();
  ::testing::internal::CaptureStderr();
  auto again = cache.ensure_compiled(fake_source("gemm.test_a"));
  ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(again.has_value()) << again.status().to_string();
  EXPECT_EQ(*again, CacheOutcome::kCompiled);
}

TEST_F(CacheInventoryTest, ClearOlderThanUsesTheObjectsAndMarkersTime) {
  populate();
  age_entry(a_, 10);
  age_entry(bad_, 3);
  // b_'s log is old but its object new: the object's time counts.
  fs::last_write_time(b_.log(), fs::file_time_type::clock::now() - std::chrono::hours(24 * 30));
  ClearOptions o;
  o.older_than_days = 5;
  auto report = clear_cache(root_, o);
  ASSERT_TRUE(report.has_value()) << report.status().to_string();
  ASSERT_EQ(report->removed.size(), 1u);
  EXPECT_EQ(report->removed[0].kernel, "gemm.test_a");
  EXPECT_FALSE(fs::exists(a_.object()));
  EXPECT_TRUE(fs::exists(b_.object()));
  EXPECT_TRUE(fs::exists(bad_.failed()));
  o.older_than_days = 2.5;  // fractions of a day
  report = clear_cache(root_, o);
  ASSERT_TRUE(report.has_value());
  ASSERT_EQ(report->removed.size(), 1u);
  EXPECT_EQ(report->removed[0].kernel, "gemm.test_bad");
  EXPECT_TRUE(fs::exists(b_.object()));
}

TEST_F(CacheInventoryTest, ClearFailedOnlyLeavesObjects) {
  populate();
  ClearOptions o;
  o.failed_only = true;
  auto report = clear_cache(root_, o);
  ASSERT_TRUE(report.has_value()) << report.status().to_string();
  ASSERT_EQ(report->removed.size(), 1u);
  EXPECT_EQ(report->removed[0].state, EntryState::kFailed);
  EXPECT_FALSE(fs::exists(bad_.failed()));
  EXPECT_FALSE(fs::exists(bad_.log()));
  EXPECT_TRUE(fs::exists(a_.object()));
  EXPECT_TRUE(fs::exists(b_.object()));
  // The marker is what makes KernelCache skip a kernel: without it the next run retries.
  auto inv = scan_cache(root_);
  EXPECT_EQ(inv->total().failed, 0);
  EXPECT_EQ(inv->total().ok, 2);
}

TEST_F(CacheInventoryTest, DryRunReportsWithoutDeleting) {
  populate();
  ClearOptions o;
  o.dry_run = true;
  auto dry = clear_cache(root_, o);
  ASSERT_TRUE(dry.has_value()) << dry.status().to_string();
  EXPECT_EQ(dry->removed.size(), 3u);
  EXPECT_GT(dry->bytes_freed, 0u);
  EXPECT_TRUE(dry->removed_folders.empty());
  for (const EntryPaths& p : {a_, b_}) EXPECT_TRUE(fs::exists(p.object())) << p.stem;
  EXPECT_TRUE(fs::exists(bad_.failed()));
  auto real = clear_cache(root_, {});
  ASSERT_TRUE(real.has_value());
  EXPECT_EQ(real->bytes_freed, dry->bytes_freed);
}

TEST_F(CacheInventoryTest, EntryWhoseLockIsHeldIsSkipped) {
  populate();
  // A compile in flight: its lock is held and only the source is there yet.
  const codegen::KernelSource busy_src = fake_source("gemm.test_busy");
  const EntryPaths busy = make_cache().paths(busy_src);
  fs::create_directories(busy.dir);
  write(busy.source(), busy_src.text);
  {
    HeldLock lock(a_.lock());
    HeldLock compiling(busy.lock());
    ASSERT_TRUE(lock.ok() && compiling.ok());
    auto inv = scan_cache(root_);
    ASSERT_TRUE(inv.has_value());
    EXPECT_TRUE(find(*inv, "gemm.test_a")->in_use);
    EXPECT_TRUE(find(*inv, "gemm.test_busy")->in_use);
    EXPECT_EQ(find(*inv, "gemm.test_busy")->state, EntryState::kPartial);
    EXPECT_FALSE(find(*inv, "gemm.test_b")->in_use);
    ClearOptions dry;
    dry.dry_run = true;
    auto would = clear_cache(root_, dry);
    ASSERT_TRUE(would.has_value());
    EXPECT_EQ(would->in_use.size(), 2u);
    auto report = clear_cache(root_, {});
    ASSERT_TRUE(report.has_value()) << report.status().to_string();
    EXPECT_EQ(report->removed.size(), 2u);  // gemm.test_b and the failed one
    ASSERT_EQ(report->in_use.size(), 2u);
    EXPECT_TRUE(fs::exists(a_.object()));
    EXPECT_TRUE(fs::exists(busy.source()));
    EXPECT_TRUE(fs::exists(busy.lock()));  // the compiling process's lock is not pulled away
  }
  auto report = clear_cache(root_, {});  // the locks are free now
  ASSERT_TRUE(report.has_value());
  EXPECT_EQ(report->removed.size(), 2u);
  EXPECT_FALSE(fs::exists(a_.object()));
  EXPECT_FALSE(fs::exists(busy.dir));
}

TEST_F(CacheInventoryTest, ClearDuringACompileLeavesItToFinish) {
  populate();
  setenv("BOO_FAKE_NVCC_SLEEP", "1", 1);  // a compile that takes a second
  const codegen::KernelSource src = fake_source("gemm.test_racing_clear");
  const EntryPaths p = make_cache().paths(src);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    KernelCache cache = make_cache();
    auto r = cache.ensure_compiled(src);
    _exit(r.has_value() && *r == CacheOutcome::kCompiled ? 0 : 1);
  }
  // Wait until the child holds the entry's lock, then clear everything.
  bool seen = false;
  for (int i = 0; i < 500 && !seen; ++i) {
    auto inv = scan_cache(root_);
    const CacheEntry* e = inv ? find(*inv, "gemm.test_racing_clear") : nullptr;
    seen = e != nullptr && e->in_use;
    if (!seen) usleep(2000);
  }
  auto report =
      seen ? clear_cache(root_, {})
           : core::Expected<ClearReport>(core::internal_error("the compile never took its lock"));
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  unsetenv("BOO_FAKE_NVCC_SLEEP");
  ASSERT_TRUE(report.has_value()) << report.status().to_string();
  EXPECT_EQ(report->removed.size(), 3u);
  ASSERT_EQ(report->in_use.size(), 1u);
  EXPECT_EQ(report->in_use[0].kernel, "gemm.test_racing_clear");
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_TRUE(fs::exists(p.object()));
  EXPECT_TRUE(fs::exists(p.metadata()));
}

TEST_F(CacheInventoryTest, RefusesRootsThatAreNotACache) {
  EXPECT_FALSE(check_clearable_root(""));
  EXPECT_FALSE(check_clearable_root("/"));
  EXPECT_FALSE(check_clearable_root(dir_ + "/../../../../../../../.."));  // "/" too
  const char* old_home = std::getenv("HOME");
  const std::optional<std::string> saved =
      old_home ? std::optional<std::string>(old_home) : std::nullopt;
  const std::string home = dir_ + "/home/someone";
  fs::create_directories(home);
  setenv("HOME", home.c_str(), 1);
  const core::Status at_home = check_clearable_root(home);
  const core::Status above_home = check_clearable_root(dir_ + "/home");
  const core::Status trailing = check_clearable_root(home + "/");
  const core::Status below_home = check_clearable_root(home + "/.cache/boo");
  if (saved) {
    setenv("HOME", saved->c_str(), 1);
  } else {
    unsetenv("HOME");
  }
  EXPECT_EQ(at_home.code(), core::StatusCode::kInvalidArgument);
  EXPECT_NE(at_home.message().find("home folder"), std::string::npos) << at_home.message();
  EXPECT_FALSE(above_home);
  EXPECT_FALSE(trailing);
  EXPECT_TRUE(below_home) << below_home.to_string();

  // A folder that holds anything but arch folders at the top does not look like a cache.
  populate();
  EXPECT_TRUE(check_clearable_root(root_));
  write(root_ + "/notes.txt", "mine");
  const core::Status foreign = check_clearable_root(root_);
  EXPECT_EQ(foreign.code(), core::StatusCode::kInvalidArgument);
  EXPECT_NE(foreign.message().find("notes.txt"), std::string::npos) << foreign.message();
  auto refused = clear_cache(root_, {});
  ASSERT_FALSE(refused.has_value());
  EXPECT_TRUE(fs::exists(a_.object()));  // nothing touched
  auto inv = scan_cache(root_);          // listing still works, and says why
  ASSERT_TRUE(inv.has_value());
  EXPECT_EQ(inv->foreign, std::vector<std::string>{"notes.txt"});
  fs::remove(root_ + "/notes.txt");
  // A symbolic link at the top is refused too (the walk never leaves the root).
  fs::create_directory_symlink(dir_, root_ + "/sm_80");
  EXPECT_FALSE(check_clearable_root(root_));
  fs::remove(root_ + "/sm_80");
  // Other arch folders are fine.
  fs::create_directories(root_ + "/sm_100a/gemm.x");
  EXPECT_TRUE(check_clearable_root(root_));
  // A file is not a cache root.
  write(dir_ + "/file", "x");
  EXPECT_FALSE(check_clearable_root(dir_ + "/file"));
}

TEST_F(CacheInventoryTest, SelectionByStateAndAge) {
  CacheEntry e;
  e.state = EntryState::kOk;
  ClearOptions o;
  e.mtime = o.now - std::chrono::hours(25);
  EXPECT_TRUE(clear_selects(o, e));
  o.failed_only = true;
  EXPECT_FALSE(clear_selects(o, e));
  e.state = EntryState::kFailed;
  EXPECT_TRUE(clear_selects(o, e));
  o.older_than_days = 1;
  EXPECT_TRUE(clear_selects(o, e));
  o.older_than_days = 1.1;
  EXPECT_FALSE(clear_selects(o, e));
  o.older_than_days = 0;
  EXPECT_TRUE(clear_selects(o, e));
}

}  // namespace
}  // namespace boo::jit
