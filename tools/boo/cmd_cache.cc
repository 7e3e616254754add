// `boo cache status|list|clear`: what the kernel cache holds and removing entries from it
// (DESIGN.md §4). The walking and deleting live in the jit layer (boo/jit/cache_inventory.h);
// this file chooses the root as the JIT does and prints. Needs no GPU.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "boo/core/env.h"
#include "boo/core/strings.h"
#include "boo/jit/cache_inventory.h"
#include "boo/jit/kernel_cache.h"
#include "format.h"
#include "subcommands.h"

namespace boo::cli {
namespace {

namespace fs = std::filesystem;

struct CacheCommandOptions {
  bool failed_only = false;
  std::optional<double> older_than_days;
  bool dry_run = false;
};

// Bad environment values (BOO_CACHE_ON=maybe) and refusals are usage errors (2); the rest 1.
int exit_status_of(const core::Status& s) {
  return s.code() == core::StatusCode::kInvalidArgument ? 2 : 1;
}

int fail(const char* what, const core::Status& s) {
  std::fprintf(stderr, "boo cache %s: error: %s\n", what, s.message().c_str());
  return exit_status_of(s);
}

// Which setting chose the root, in CacheOptions::from_environment's order.
std::string root_origin(const jit::CacheOptions& o) {
  if (!o.persistent) return "a temporary folder: BOO_CACHE_ON=0";
  if (auto d = core::get_env("BOO_CACHE_DIR"); d && !d->empty()) return "BOO_CACHE_DIR";
  if (auto x = core::get_env("XDG_CACHE_HOME"); x && !x->empty()) return "$XDG_CACHE_HOME/boo";
  return "~/.cache/boo";
}

// The cache the JIT of this environment would use, with a note when it is not the persistent
// one (BOO_CACHE_ON=0 gives every process a fresh temporary folder).
core::Expected<jit::CacheOptions> environment_cache() {
  BOO_ASSIGN_OR_RETURN(jit::CacheOptions o, jit::CacheOptions::from_environment());
  if (!o.persistent) {
    std::fprintf(stderr,
                 "boo cache: note: BOO_CACHE_ON=0 makes the cache a temporary folder of each "
                 "process; unset it to see the persistent cache\n");
  }
  return o;
}

// "40 s", "12 min", "5 h", "3 days": since the entry was made.
std::string age_of(fs::file_time_type mtime, fs::file_time_type now) {
  const int64_t s =
      std::max<int64_t>(0, std::chrono::duration_cast<std::chrono::seconds>(now - mtime).count());
  char buf[32];
  if (s < 60) {
    std::snprintf(buf, sizeof(buf), "%lld s", static_cast<long long>(s));
  } else if (s < 3600) {
    std::snprintf(buf, sizeof(buf), "%lld min", static_cast<long long>(s / 60));
  } else if (s < 48 * 3600) {
    std::snprintf(buf, sizeof(buf), "%lld h", static_cast<long long>(s / 3600));
  } else {
    std::snprintf(buf, sizeof(buf), "%lld days", static_cast<long long>(s / 86400));
  }
  return buf;
}

std::string bytes_of(uint64_t bytes) { return with_unit(static_cast<double>(bytes), "B"); }

// "1 entry", "3 entries".
std::string count_of(size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

size_t name_width(const std::vector<jit::CacheEntry>& entries) {
  size_t w = 0;
  for (const jit::CacheEntry& e : entries) w = std::max(w, e.kernel.size());
  return w;
}

// One line per entry: "<prefix>state  kernel  size  age  path", kernel names aligned.
void print_entry(const char* prefix, const jit::CacheEntry& e, size_t width,
                 fs::file_time_type now) {
  std::printf("%s%-7s  %-*s  %9s  %8s  %s%s\n", prefix,
              std::string(jit::entry_state_name(e.state)).c_str(), static_cast<int>(width),
              e.kernel.c_str(), bytes_of(e.bytes).c_str(), age_of(e.mtime, now).c_str(),
              e.main_path().c_str(), e.in_use ? "  (in use: its lock is held)" : "");
}

// The compiler's message names the source by its full path; within the entry's own line the
// file name says as much.
std::string short_reason(const jit::CacheEntry& e) {
  std::string r = e.reason;
  const std::string dir = fs::path(e.stem).parent_path().string() + "/";
  for (size_t at; (at = r.find(dir)) != std::string::npos;) r.erase(at, dir.size());
  return r;
}

std::string counts(const jit::ArchSummary& s) {
  std::string out = std::to_string(s.ok) + " compiled, " + std::to_string(s.failed) + " failed";
  if (s.partial > 0) out += ", " + std::to_string(s.partial) + " partial";
  return out + "; " + bytes_of(s.bytes);
}

int run_status() {
  auto cache = environment_cache();
  if (!cache) return fail("status", cache.status());
  auto inv = jit::scan_cache(cache->root);
  if (!inv) return fail("status", inv.status());
  std::printf("%-11s %s (%s)\n", "cache", cache->root.c_str(), root_origin(*cache).c_str());
  std::printf("%-11s %s\n", "persistent",
              cache->persistent ? "yes" : "no (removed when the process exits)");
  if (!inv->exists) {
    std::printf("%-11s none (the folder does not exist yet)\n", "entries");
    return 0;
  }
  std::printf("%-11s %s\n", "entries", counts(inv->total()).c_str());
  for (const jit::ArchSummary& s : inv->by_arch()) {
    std::printf("  %-9s %s\n", s.arch.c_str(), counts(s).c_str());
  }
  int in_use = 0;
  for (const jit::CacheEntry& e : inv->entries) in_use += e.in_use ? 1 : 0;
  if (in_use > 0) {
    std::printf("%-11s %s (being compiled or rebuilt now: their lock is held)\n", "in use",
                count_of(in_use, "entry", "entries").c_str());
  }
  for (const jit::CacheEntry& e : inv->entries) {
    if (e.state != jit::EntryState::kFailed) continue;
    const std::string why = short_reason(e);
    std::printf("%-11s %s: %s\n", "failed", e.kernel.c_str(),
                why.empty() ? "(no error line: see the log)" : why.c_str());
    std::printf("%-11s   log %s\n", "", e.main_path().c_str());
  }
  for (const jit::CacheEntry& e : inv->entries) {
    if (e.state != jit::EntryState::kOk || !e.spills.any()) continue;
    std::printf("%-11s %s: %s (ptxas; it may run slower than predicted)\n", "spills",
                e.kernel.c_str(), jit::describe(e.spills).c_str());
    std::printf("%-11s   log %s\n", "", (e.stem + ".log").c_str());
  }
  for (const jit::CacheEntry& e : inv->entries) {
    if (e.state != jit::EntryState::kOk || e.mma_waits == 0) continue;
    std::printf("%-11s %s: %s (ptxas; it may run slower than predicted)\n", "mma waits",
                e.kernel.c_str(), count_of(e.mma_waits, "place", "places").c_str());
    std::printf("%-11s   log %s\n", "", (e.stem + ".log").c_str());
  }
  if (!inv->foreign.empty()) {
    std::printf(
        "%-11s not a boo cache layout: it holds '%s', which is not an arch folder "
        "(boo cache clear refuses such a folder)\n",
        "warning", inv->foreign.front().c_str());
  }
  return 0;
}

int run_list(const CacheCommandOptions& opt) {
  auto cache = environment_cache();
  if (!cache) return fail("list", cache.status());
  auto inv = jit::scan_cache(cache->root);
  if (!inv) return fail("list", inv.status());
  std::vector<jit::CacheEntry> shown;
  for (const jit::CacheEntry& e : inv->entries) {
    if (!opt.failed_only || e.state == jit::EntryState::kFailed) shown.push_back(e);
  }
  const fs::file_time_type now = fs::file_time_type::clock::now();
  const size_t width = name_width(shown);
  for (const jit::CacheEntry& e : shown) print_entry("", e, width, now);
  std::fprintf(stderr, "boo cache list: %s in %s\n",
               count_of(shown.size(), opt.failed_only ? "failed entry" : "entry",
                        opt.failed_only ? "failed entries" : "entries")
                   .c_str(),
               cache->root.c_str());
  return 0;
}

int run_clear(const CacheCommandOptions& opt) {
  auto cache = environment_cache();
  if (!cache) return fail("clear", cache.status());
  jit::ClearOptions co;
  co.failed_only = opt.failed_only;
  co.older_than_days = opt.older_than_days;
  co.dry_run = opt.dry_run;
  auto report = jit::clear_cache(cache->root, co);
  if (!report) return fail("clear", report.status());
  const size_t width = std::max(name_width(report->removed), name_width(report->in_use));
  for (const jit::CacheEntry& e : report->removed) {
    print_entry(opt.dry_run ? "would remove  " : "removed  ", e, width, co.now);
  }
  for (const jit::CacheEntry& e : report->in_use) {
    print_entry(opt.dry_run ? "would skip    " : "skipped  ", e, width, co.now);
  }
  for (const std::string& line : report->errors) {
    std::fprintf(stderr, "boo cache clear: error: %s\n", line.c_str());
  }
  int failed = 0;
  for (const jit::CacheEntry& e : report->removed) {
    failed += e.state == jit::EntryState::kFailed ? 1 : 0;
  }
  const std::string entries = count_of(report->removed.size(), "entry", "entries") + " (" +
                              std::to_string(failed) + " failed)";
  if (opt.dry_run) {
    std::printf(
        "boo cache clear: would remove %s from %s, freeing %s (dry run: nothing was "
        "deleted)",
        entries.c_str(), cache->root.c_str(), bytes_of(report->bytes_freed).c_str());
  } else {
    std::string folders;
    if (!report->removed_folders.empty()) {
      folders = " and " + count_of(report->removed_folders.size(), "empty kernel folder",
                                   "empty kernel folders");
    }
    std::printf("boo cache clear: removed %s%s from %s; %s freed", entries.c_str(), folders.c_str(),
                cache->root.c_str(), bytes_of(report->bytes_freed).c_str());
  }
  if (!report->in_use.empty()) {
    std::printf("; left %s alone (%s)", count_of(report->in_use.size(), "entry", "entries").c_str(),
                "being compiled: its lock is held");
  }
  std::printf("\n");
  return report->errors.empty() ? 0 : 1;
}

}  // namespace

Run add_cache_command(CLI::App& app) {
  auto opt = std::make_shared<CacheCommandOptions>();
  CLI::App* cache = app.add_subcommand(
      "cache",
      "Show or clear the kernel cache (BOO_CACHE_DIR, else $XDG_CACHE_HOME/boo, else\n"
      "~/.cache/boo): compiled objects, failed compiles and their logs. Needs no GPU.");
  cache->require_subcommand(1);
  CLI::App* status = cache->add_subcommand(
      "status", "Where the cache is, and its compiled and failed entries per arch folder");
  CLI::App* list = cache->add_subcommand(
      "list", "One line per entry: state, kernel, size, age, object (or log) path");
  list->add_flag("--failed", opt->failed_only, "Only failed compiles");
  CLI::App* clear = cache->add_subcommand(
      "clear",
      "Remove entries (every file of each, then kernel folders left empty); entries being\n"
      "compiled are left alone");
  clear
      ->add_option("--older-than", opt->older_than_days,
                   "Only entries made more than DAYS ago (fractions allowed)")
      ->type_name("DAYS")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            auto days = core::parse_double("--older-than", text);
            if (!days || !(*days >= 0)) {
              return "expected a number of days >= 0, got '" + text + "'";
            }
            return "";
          },
          ""));
  clear->add_flag("--failed", opt->failed_only, "Only failed compiles (they are never retried)");
  clear->add_flag("--dry-run", opt->dry_run, "Print what would be removed; delete nothing");
  return [opt, status, list, clear] {
    if (status->parsed()) return run_status();
    if (list->parsed()) return run_list(*opt);
    if (clear->parsed()) return run_clear(*opt);
    return 2;
  };
}

}  // namespace boo::cli
