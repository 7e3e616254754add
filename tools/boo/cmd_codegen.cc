// `boo codegen`: lists the configs of boo's kernel spaces with their fields, and writes the
// generated CUDA source of chosen configs — one .cu per kernel plus a registration header — for
// builds that compile kernels ahead of time instead of through the JIT. Needs no GPU.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <variant>

#include "boo/codegen/abi.h"
#include "boo/codegen/conv_codegen.h"
#include "boo/codegen/gemm_codegen.h"
#include "boo/codegen/layernorm_codegen.h"
#include "boo/core/strings.h"
#include "boo/space/config_fields.h"
#include "cli_checks.h"
#include "codegen_configs.h"
#include "subcommands.h"

namespace boo::cli {
namespace {

namespace fs = std::filesystem;
using space::ConfigFields;
using space::ConvClass;
using space::GemmClass;

constexpr char kHeaderFile[] = "boo_generated.h";

std::string count_text(size_t n, const char* what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

struct CodegenOptions {
  bool list = false;
  std::string out_dir;
  std::vector<std::string> names;
  std::vector<std::string> algorithms;
  std::string rule_set = "default";
  std::string dtype;
  std::vector<std::string> classes;
  // One config from flags.
  int tile_m = 128, tile_n = 128, tile_k = 0, cluster_m = 1, cluster_n = 1, splits = 1;
  int swizzle = 1;
  bool swap_ab = false;
  std::string schedule = "coop", scheduler = "persistent", raster = "heuristic", narrow = "n";
  std::string loop = "split";
  const CLI::App* sub = nullptr;  // tells which flags were given
};

bool given(const CodegenOptions& o, const std::string& flag) { return o.sub->count(flag) > 0; }

// The flags that shape one config (write mode only).
const std::vector<std::string> kShapeFlags = {
    "--tile-m", "--tile-n",  "--tile-k", "--cluster-m", "--cluster-n", "--schedule", "--scheduler",
    "--splits", "--swizzle", "--raster", "--narrow",    "--swap-ab",   "--loop"};

// Which shape flags each algorithm takes.
bool takes_flag(std::string_view algorithm, std::string_view flag) {
  const bool tile = flag.rfind("--tile-", 0) == 0 || flag.rfind("--cluster-", 0) == 0;
  if (algorithm == kGemmSm90) return flag != "--narrow";
  if (algorithm == kGemmSm90Unaligned) return flag != "--narrow" && flag != "--swap-ab";
  if (algorithm == kGemmSkinny) return flag == "--narrow" || flag == "--splits" || flag == "--loop";
  if (algorithm == kConvSm90) return tile || flag == "--schedule";
  return false;
}

// A class name of either family: GEMM class names start with dotted operand types.
core::Expected<ClassOf> parse_class(const std::string& text) {
  const std::string_view head = std::string_view(text).substr(0, text.find('_'));
  if (head.find('.') != std::string_view::npos) {
    auto g = GemmClass::parse_name(text);
    if (!g) return g.status().with_context("--class: ");
    return ClassOf{*g};
  }
  auto c = ConvClass::parse_name(text);
  if (!c) return c.status().with_context("--class: ");
  return ClassOf{*c};
}

// The one config that the flags describe.
core::Expected<AnyConfig> config_from_flags(const CodegenOptions& o) {
  if (o.algorithms.size() != 1) {
    return core::invalid_argument(
        "--algorithm: give exactly one to build a config from flags (got " +
        std::to_string(o.algorithms.size()) + ")");
  }
  const std::string& algorithm = o.algorithms.front();
  if (algorithm == kLayerNormRowwise) {
    return core::invalid_argument(
        "--algorithm layernorm.rowwise takes no class or flags: write its configs by name (see "
        "--list-configs --algorithm layernorm.rowwise)");
  }
  if (o.classes.size() != 1) {
    return core::invalid_argument("--class: give exactly one class to build a " + algorithm +
                                  " config from flags (see --list-configs for class names)");
  }
  for (const std::string& flag : kShapeFlags) {
    if (given(o, flag) && !takes_flag(algorithm, flag)) {
      return core::invalid_argument(flag + " does not apply to " + algorithm);
    }
  }
  BOO_ASSIGN_OR_RETURN(ClassOf cls, parse_class(o.classes.front()));
  if (is_gemm(algorithm) != std::holds_alternative<GemmClass>(cls)) {
    return check_class(algorithm, cls);  // the family's message
  }
  std::optional<AnyConfig> config;
  if (algorithm == kGemmSm90 || algorithm == kGemmSm90Unaligned) {
    space::GemmSm90Config c;
    c.cls = std::get<GemmClass>(cls);
    c.unaligned = algorithm == kGemmSm90Unaligned;
    c.tile_m = o.tile_m;
    c.tile_n = o.tile_n;
    // A 128-byte k-block unless told: 64 elements of a 16-bit type.
    c.tile_k = given(o, "--tile-k") ? o.tile_k : 128 / core::dtype_bytes(c.cls.a);
    c.cluster_m = o.cluster_m;
    c.cluster_n = o.cluster_n;
    c.schedule = o.schedule == "pingpong" ? space::GemmSchedule::kPingpong
                                          : space::GemmSchedule::kCooperative;
    c.scheduler = o.scheduler == "streamk"   ? space::GemmScheduler::kStreamK
                  : o.scheduler == "splitk"  ? space::GemmScheduler::kSplitK
                  : o.scheduler == "psplitk" ? space::GemmScheduler::kSplitKParallel
                                             : space::GemmScheduler::kPersistent;
    c.splits = o.splits;
    c.swizzle = o.swizzle;
    c.raster = o.raster == "m"   ? space::GemmRaster::kAlongM
               : o.raster == "n" ? space::GemmRaster::kAlongN
                                 : space::GemmRaster::kHeuristic;
    c.swap_ab = o.swap_ab;
    config = c;
  } else if (algorithm == kGemmSkinny) {
    // Without --splits the count is auto (0), as dispatch's default.
    config = space::GemmSkinnyConfig{std::get<GemmClass>(cls), o.narrow == "m",
                                     given(o, "--splits") ? o.splits : 0, o.loop == "stream"};
  } else if (algorithm == kGemmFallback) {
    config = GemmFallbackConfig{std::get<GemmClass>(cls)};
  } else if (algorithm == kConvSm90) {
    space::ConvSm90Config c;
    c.cls = std::get<ConvClass>(cls);
    c.tile_m = o.tile_m;
    c.tile_n = o.tile_n;
    c.tile_k = given(o, "--tile-k") ? o.tile_k : 128 / core::dtype_bytes(c.cls.dtype);
    c.cluster_m = o.cluster_m;
    c.cluster_n = o.cluster_n;
    if (given(o, "--schedule")) {
      c.schedule =
          o.schedule == "coop" ? space::ConvSchedule::kCooperative : space::ConvSchedule::kPingpong;
    }
    config = c;
  } else {
    config = ConvDirectConfig{std::get<ConvClass>(cls), conv_own(algorithm)};
  }
  if (core::Status s = check_config(*config); !s.is_ok()) {
    const std::string name = name_of(*config);
    return s.message().find(name) == std::string::npos ? s.with_context(name + ": ") : s;
  }
  return *config;
}

// Prints one line per config: the name, then key=value fields in columns, aligned among the
// rows of one algorithm (their keys are the same).
void print_listing(const std::vector<AnyConfig>& configs) {
  std::vector<std::string> names;
  std::vector<ConfigFields> fields;
  // Column widths by algorithm: the name's, then each field's.
  std::map<std::string, std::vector<size_t>> widths;
  for (const AnyConfig& c : configs) {
    names.push_back(name_of(c));
    fields.push_back(fields_of(c));
    const ConfigFields& f = fields.back();
    std::vector<size_t>& w = widths[f.front().second];
    w.resize(std::max(w.size(), f.size() + 1));
    w[0] = std::max(w[0], names.back().size());
    for (size_t i = 0; i < f.size(); ++i) {
      w[i + 1] = std::max(w[i + 1], f[i].first.size() + 1 + f[i].second.size());
    }
  }
  for (size_t r = 0; r < configs.size(); ++r) {
    const std::vector<size_t>& w = widths[fields[r].front().second];
    std::string line = names[r];
    line.resize(w[0], ' ');
    for (size_t i = 0; i < fields[r].size(); ++i) {
      std::string cell = fields[r][i].first + "=" + fields[r][i].second;
      if (i + 1 < fields[r].size()) cell.resize(w[i + 1], ' ');
      line += "  " + cell;
    }
    std::printf("%s\n", line.c_str());
  }
}

int fail(const core::Status& s, int code) {
  std::fprintf(stderr, "boo codegen: error: %s\n", s.message().c_str());
  return code;
}

int usage(const std::string& message) { return fail(core::invalid_argument(message), 2); }

// Bad names and configs the rules refuse are usage errors (2); anything else is a failure (1).
int exit_code_of(const core::Status& s) {
  const bool usage_error =
      s.code() == core::StatusCode::kInvalidArgument || s.code() == core::StatusCode::kUnsupported;
  return usage_error ? 2 : 1;
}

int run_list(const CodegenOptions& o) {
  std::vector<AnyConfig> configs;
  if (!o.names.empty()) {
    for (const std::string& name : o.names) {
      auto c = parse_config(name);
      if (!c) return fail(c.status(), exit_code_of(c.status()));
      configs.push_back(*c);
    }
    print_listing(configs);
    std::printf("%s\n", count_text(configs.size(), "config").c_str());
    return 0;
  }
  auto rules = space::parse_rule_set(o.rule_set);
  if (!rules) return usage("--rule-set: " + rules.status().message());
  std::vector<ClassOf> classes;
  for (const std::string& text : o.classes) {
    auto cls = parse_class(text);
    if (!cls) return fail(cls.status(), 2);
    classes.push_back(*cls);
  }
  const bool explicit_classes = !classes.empty();
  if (!explicit_classes) {
    // --dtype keeps the default classes of one input type (A's for GEMMs).
    const auto dtype = core::dtype_from_name(o.dtype);
    for (const GemmClass& c : space::representative_gemm_classes()) {
      if (o.dtype.empty() || c.a == *dtype) classes.push_back(c);
    }
    for (const ConvClass& c : space::representative_conv_classes()) {
      if (o.dtype.empty() || c.dtype == *dtype) classes.push_back(c);
    }
  }
  auto of_family = [&](const std::string& a) {
    std::vector<ClassOf> out;
    if (a == kLayerNormRowwise) return out;  // no classes
    for (const ClassOf& c : classes) {
      if (is_gemm(a) == std::holds_alternative<GemmClass>(c)) out.push_back(c);
    }
    return out;
  };
  std::vector<std::string> algorithms = o.algorithms;
  if (algorithms.empty()) {
    // With classes given, the algorithms of their families.
    for (const std::string& a : kAlgorithms) {
      if (!explicit_classes || !of_family(a).empty()) algorithms.push_back(a);
    }
  }
  std::map<std::string, size_t> per_algorithm;
  for (const std::string& a : algorithms) {
    if (a == kLayerNormRowwise) {
      if (explicit_classes) {
        return usage("--algorithm layernorm.rowwise takes no classes (list it with --dtype)");
      }
      // --dtype keeps one element type (none for fp8).
      for (core::DType t : kLayerNormDTypes) {
        if (!o.dtype.empty() && core::dtype_name(t) != o.dtype) continue;
        for (bool backward : {false, true}) {
          for (const auto& c : space::layernorm_rowwise_space(t, backward, *rules)) {
            configs.push_back(c);
            ++per_algorithm[a];
          }
        }
      }
      continue;
    }
    const std::vector<ClassOf> mine = of_family(a);
    if (explicit_classes && mine.empty()) {
      return usage("--algorithm " + a + " takes " + (is_gemm(a) ? "GEMM" : "convolution") +
                   " classes and --class names none");
    }
    for (const ClassOf& cls : mine) {
      if (core::Status s = check_class(a, cls); explicit_classes && !s.is_ok()) {
        // Say why a class named on purpose lists nothing.
        std::fprintf(stderr, "boo codegen: note: no %s configs for %s: %s\n", a.c_str(),
                     name_of(cls).c_str(), s.message().c_str());
      }
      std::vector<AnyConfig> some = enumerate(a, cls, *rules);
      per_algorithm[a] += some.size();
      configs.insert(configs.end(), some.begin(), some.end());
    }
  }
  print_listing(configs);
  std::string counts;
  for (const std::string& a : algorithms) {
    counts += (counts.empty() ? "" : ", ") + a + " " + std::to_string(per_algorithm[a]);
  }
  std::printf("%s (rule set %s: %s)\n", count_text(configs.size(), "config").c_str(),
              o.rule_set.c_str(), counts.c_str());
  return 0;
}

// Writes `text` to `path` through a temporary name, so that a reader never sees half a file.
core::Status write_whole(const fs::path& path, const std::string& text) {
  const fs::path tmp = path.string() + ".tmp" + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) return core::unavailable("cannot write " + tmp.string());
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return core::unavailable("cannot write " + path.string() + ": " + ec.message());
  }
  return core::Status::ok();
}

struct Written {
  std::string config;
  std::string algorithm;
  std::string kernel;
  std::string file;
};

std::string registration_header(const std::vector<Written>& entries) {
  std::string h =
      "/* Generated by boo codegen: the kernels in this folder and the configs they run.\n"
      " * Each .cu file is one translation unit exporting the C entry points of boo's abi.h\n"
      " * (boo_info, boo_supports, boo_workspace, boo_run): compile each into a shared object of\n"
      " * its own. Configs that differ only in launch arguments (split count, swizzle, raster)\n"
      " * share one kernel file. */\n"
      "#ifndef BOO_GENERATED_H_\n"
      "#define BOO_GENERATED_H_\n\n"
      "/* BOO_ABI_VERSION of the generated kernels. */\n"
      "#define BOO_GENERATED_ABI_VERSION " +
      std::to_string(BOO_ABI_VERSION) +
      "\n\n"
      "typedef struct BooGeneratedKernel {\n"
      "  const char* name;      /* the config name */\n"
      "  const char* algorithm; /* gemm.sm90, conv.direct, ... */\n"
      "  const char* kernel;    /* the kernel it runs (what boo_info reports) */\n"
      "  const char* file;      /* its .cu file, beside this header */\n"
      "} BooGeneratedKernel;\n\n"
      "#define BOO_GENERATED_KERNEL_COUNT " +
      std::to_string(entries.size()) +
      "\n\n"
      "static const BooGeneratedKernel kBooGeneratedKernels[BOO_GENERATED_KERNEL_COUNT] = {\n";
  for (const Written& w : entries) {
    h += "    {\"" + w.config + "\", \"" + w.algorithm + "\", \"" + w.kernel + "\", \"" + w.file +
         "\"},\n";
  }
  h += "};\n\n#endif /* BOO_GENERATED_H_ */\n";
  return h;
}

int run_write(const std::vector<AnyConfig>& configs, const std::string& dir) {
  // Generate everything first: a bad config writes nothing.
  std::vector<Written> entries;
  std::map<std::string, std::string> texts;  // by kernel name
  std::vector<std::string> order;
  std::set<std::string> seen;
  for (const AnyConfig& c : configs) {
    const std::string name = name_of(c);
    if (!seen.insert(name).second) continue;
    auto src = source_of(c);
    if (!src) return fail(src.status().with_context(name + ": "), exit_code_of(src.status()));
    entries.push_back({name, fields_of(c).front().second, src->name, src->name + ".cu"});
    if (texts.emplace(src->name, std::move(src->text)).second) order.push_back(src->name);
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    return fail(core::unavailable("-o " + dir + ": cannot create the folder" +
                                  (ec ? ": " + ec.message() : std::string())),
                1);
  }
  for (const std::string& kernel : order) {
    const fs::path path = fs::path(dir) / (kernel + ".cu");
    if (core::Status s = write_whole(path, texts[kernel]); !s.is_ok()) return fail(s, 1);
    std::printf("wrote %s (%zu bytes)\n", path.c_str(), texts[kernel].size());
  }
  const fs::path header = fs::path(dir) / kHeaderFile;
  if (core::Status s = write_whole(header, registration_header(entries)); !s.is_ok()) {
    return fail(s, 1);
  }
  std::printf("wrote %s (%s, %s)\n", header.c_str(), count_text(entries.size(), "config").c_str(),
              count_text(order.size(), "kernel").c_str());
  return 0;
}

int run_codegen(const CodegenOptions& o) {
  std::vector<std::string> shape;
  for (const std::string& f : kShapeFlags) {
    if (given(o, f)) shape.push_back(f);
  }
  if (o.list) {
    if (!o.out_dir.empty()) return usage("-o and --list-configs are exclusive");
    if (!shape.empty()) return usage(shape.front() + " builds a config to write (-o DIR)");
    if (!o.names.empty() && (!o.algorithms.empty() || !o.classes.empty() || !o.dtype.empty() ||
                             given(o, "--rule-set"))) {
      return usage("config names and --algorithm/--class/--dtype/--rule-set are exclusive");
    }
    if (!o.dtype.empty() && !o.classes.empty()) {
      return usage("--dtype filters the default classes; with --class there are none to filter");
    }
    return run_list(o);
  }
  if (o.out_dir.empty()) {
    return usage("nothing to do: give --list-configs, or -o DIR with config names or flags");
  }
  if (!o.dtype.empty() || given(o, "--rule-set")) {
    return usage(std::string(o.dtype.empty() ? "--rule-set" : "--dtype") +
                 " applies to --list-configs");
  }
  const bool flags = !o.algorithms.empty() || !o.classes.empty() || !shape.empty();
  if (!o.names.empty() && flags) {
    const std::string flag = !o.algorithms.empty() ? "--algorithm"
                             : !o.classes.empty()  ? "--class"
                                                   : shape.front();
    return usage("config names and " + flag +
                 " are exclusive: give names, or build one config from flags");
  }
  std::vector<AnyConfig> configs;
  if (!o.names.empty()) {
    for (const std::string& name : o.names) {
      auto c = parse_config(name);
      if (!c) return fail(c.status(), exit_code_of(c.status()));
      configs.push_back(*c);
    }
  } else if (flags) {
    auto c = config_from_flags(o);
    if (!c) return fail(c.status(), exit_code_of(c.status()));
    configs.push_back(*c);
  } else {
    return usage("-o " + o.out_dir + ": give config names, or --algorithm and --class");
  }
  return run_write(configs, o.out_dir);
}

std::string default_classes_text() {
  std::string s = "Default classes (without --class; --dtype keeps those of one input type):\n";
  s += "  GEMM (gemm.*), A.B.C.D types, C void when beta is 0:\n";
  for (const GemmClass& c : space::representative_gemm_classes()) s += "    " + c.name() + "\n";
  s += "  convolution (conv.*):\n";
  for (const ConvClass& c : space::representative_conv_classes()) s += "    " + c.name() + "\n";
  s += "  layer norm (layernorm.rowwise) takes no class: bf16, fp16 and fp32, fwd and bwd\n";
  return s;
}

}  // namespace

Run add_codegen_command(CLI::App& app) {
  auto opt = std::make_shared<CodegenOptions>();
  CLI::App* sub = app.add_subcommand(
      "codegen",
      "List the configs of boo's kernel spaces with their fields, or write the CUDA source of\n"
      "chosen configs (DIR/<kernel>.cu, one per kernel, and DIR/boo_generated.h listing them)\n"
      "for builds that compile kernels ahead of time. Needs no GPU.");
  sub->add_flag("--list-configs", opt->list,
                "List configs (one line each: name, then key=value fields) and their count");
  sub->add_option("-o,--output", opt->out_dir, "Write the configs' sources into DIR (created)")
      ->type_name("DIR");
  sub->add_option("NAME", opt->names, "Config names (as --list-configs and dispatch print them)");
  sub->add_option("--algorithm", opt->algorithms,
                  "gemm.sm90, gemm.sm90_unaligned, gemm.skinny, gemm.fallback, "
                  "conv.sm90_implicit, conv.direct or layernorm.rowwise; comma-separated or "
                  "repeated when listing "
                  "(default: all, or those of --class's family)")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->check(CLI::IsMember(kAlgorithms));
  sub->add_option("--rule-set", opt->rule_set, "tiny, default or full (default: default)")
      ->check(CLI::IsMember({"tiny", "default", "full"}));
  sub->add_option("--dtype", opt->dtype,
                  "Keep the default classes (and layer norm configs) of this input type: bf16, "
                  "fp16, fp32, fp8e4m3, fp8e5m2")
      ->check(CLI::IsMember({"bf16", "fp16", "fp32", "fp8e4m3", "fp8e5m2"}));
  sub->add_option("--class", opt->classes,
                  "A GEMM or convolution class name (repeat to list several)")
      ->type_name("CLASS")
      ->allow_extra_args(false);
  sub->add_option("--tile-m", opt->tile_m, "Tile M (default 128)")->check(boo::cli::positive());
  sub->add_option("--tile-n", opt->tile_n, "Tile N (default 128)")->check(boo::cli::positive());
  sub->add_option("--tile-k", opt->tile_k, "Tile K (default: 128 bytes, 64 in 16 bits)")
      ->check(boo::cli::positive());
  sub->add_option("--cluster-m", opt->cluster_m, "Cluster M (default 1)")
      ->check(boo::cli::positive());
  sub->add_option("--cluster-n", opt->cluster_n, "Cluster N (default 1)")
      ->check(boo::cli::positive());
  sub->add_option("--schedule", opt->schedule,
                  "gemm.sm90 kernel schedule: coop or pingpong (default coop); "
                  "conv.sm90_implicit: coop or pingpong for its persistent kernel (default: "
                  "CUTLASS's non-persistent one)")
      ->check(CLI::IsMember({"coop", "pingpong"}));
  sub->add_option("--scheduler", opt->scheduler,
                  "gemm.sm90 tile scheduler: persistent, streamk, splitk or psplitk "
                  "(parallel split-K; default persistent)")
      ->check(CLI::IsMember({"persistent", "streamk", "splitk", "psplitk"}));
  sub->add_option("--splits", opt->splits,
                  "Split-K slices: 2 to 16 with --scheduler splitk, 2 to 256 with psplitk; "
                  "for gemm.skinny 1 to 64, 0 auto (default); with --loop stream, warps per row "
                  "tile: 1, 2, 4 or 8, 0 auto (default)")
      ->check(boo::cli::non_negative());
  sub->add_option("--swizzle", opt->swizzle, "gemm.sm90 tile swizzle: 1, 2, 4, 8")
      ->check(boo::cli::positive());
  sub->add_option("--raster", opt->raster,
                  "gemm.sm90 raster order: heuristic, m or n (default heuristic)")
      ->check(CLI::IsMember({"heuristic", "m", "n"}));
  sub->add_flag("--swap-ab", opt->swap_ab,
                "gemm.sm90 with swapped operands: D^T = op(B)^T op(A)^T, for narrow-M problems "
                "(persistent, 16-bit, no bias)");
  sub->add_option("--narrow", opt->narrow, "gemm.skinny's narrow side: n or m (default n)")
      ->check(CLI::IsMember({"n", "m"}));
  sub->add_option("--loop", opt->loop,
                  "gemm.skinny's main loop: split (K split over blocks) or stream (the large "
                  "operand straight into tensor-core fragments; 16-bit and fp8 inputs)")
      ->check(CLI::IsMember({"split", "stream"}));
  sub->footer(
      "Usage:\n"
      "  boo codegen --list-configs [--algorithm A,..] [--rule-set R] [--dtype T | --class C..]\n"
      "  boo codegen --list-configs NAME...   the fields of these configs\n"
      "  boo codegen -o DIR NAME...           write these configs\n"
      "  boo codegen -o DIR --algorithm A --class C [--tile-m M ...]   write one config\n"
      "Files: DIR/<kernel>.cu per kernel (configs that differ only in launch arguments, split\n"
      "count, swizzle or raster, share one), DIR/boo_generated.h. Exit status 2 for bad usage,\n"
      "a bad name or a config the validity rules refuse (the message names the rule).\n" +
      default_classes_text());
  opt->sub = sub;
  return [opt] { return run_codegen(*opt); };
}

}  // namespace boo::cli
