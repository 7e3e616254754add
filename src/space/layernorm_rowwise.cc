#include "boo/space/layernorm_rowwise.h"

#include <algorithm>
#include <cctype>
#include <limits>

#include "boo/core/strings.h"

namespace boo::space {
namespace {

using core::DType;

bool is_power_of_two(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

bool supported_dtype(DType t) { return t == DType::kF32 || t == DType::kF16 || t == DType::kBF16; }

std::string dtype_text(DType t) { return std::string(core::dtype_name(t)); }

// A name quoted whole when it is short and printable (names run to about 45 characters, past
// core::quote's 40), else cut by core::quote.
std::string quoted_name(std::string_view text) {
  const bool printable = std::all_of(text.begin(), text.end(), [](char ch) {
    return std::isprint(static_cast<unsigned char>(ch)) != 0;
  });
  if (text.size() > 100 || !printable) return core::quote(text);
  return "'" + std::string(text) + "'";
}

// The most values (vec * items) one thread keeps in registers for a block size. Above these
// the kernels spill (255 registers per thread at 256 threads, 128 at 512, 64 at 1024: 65536 per
// SM). The backward holds x and dy in their own type and keeps its column sums in shared
// memory: ptxas gives it about 2.5 registers per value + 24, the forward 1 + 24, so both fit
// the same budget.
int register_budget(bool /*backward*/, int block_threads) {
  return block_threads <= 256 ? 64 : block_threads <= 512 ? 32 : 16;
}

// The vector width of 16 bytes for a dtype (4 for fp32, 8 for 16-bit types).
int widest_vec(DType t) { return 16 / core::dtype_bytes(t); }

// "v<N>", "t<N>", "r<N>", "i<N>": the integer after the one-letter tag of `field`.
core::Expected<int> tagged_int(std::string_view field, char tag, std::string_view token) {
  if (token.empty() || token.front() != tag) {
    return core::invalid_argument(std::string(field) + ": expected " + tag + "<N>, got " +
                                  core::quote(token));
  }
  BOO_ASSIGN_OR_RETURN(int64_t v, core::parse_int(field, token.substr(1)));
  if (v < 0 || v > std::numeric_limits<int>::max()) {
    return core::invalid_argument(std::string(field) + ": out of range, got " + std::to_string(v));
  }
  return static_cast<int>(v);
}

}  // namespace

std::string LayerNormRowwiseConfig::name() const {
  std::string s = std::string(kLayerNormRowwisePrefix) + dtype_text(dtype) +
                  (backward ? "_bwd" : "_fwd") + "_v" + std::to_string(vec) + "_t" +
                  std::to_string(threads) + "_r" + std::to_string(rows);
  return s + (items == 0 ? "_stream" : "_i" + std::to_string(items));
}

core::Expected<LayerNormRowwiseConfig> LayerNormRowwiseConfig::parse_name(std::string_view text) {
  const auto bad = [&](const std::string& why) {
    return core::invalid_argument("layernorm.rowwise config " + quoted_name(text) + ": " + why);
  };
  if (text.rfind(kLayerNormRowwisePrefix, 0) != 0) {
    return bad("must start with layernorm.rowwise_");
  }
  const std::vector<std::string_view> f =
      core::split(text.substr(kLayerNormRowwisePrefix.size()), '_');
  if (f.size() != 6) {
    return bad("expected <dtype>_<fwd|bwd>_v<vec>_t<threads>_r<rows>_<i<items>|stream>, got " +
               std::to_string(f.size()) + " fields");
  }
  LayerNormRowwiseConfig c;
  const auto dtype = core::dtype_from_name(f[0]);
  if (!dtype || !supported_dtype(*dtype)) {
    return bad("dtype: expected fp32, fp16 or bf16, got " + core::quote(f[0]));
  }
  c.dtype = *dtype;
  if (f[1] != "fwd" && f[1] != "bwd") {
    return bad("direction: expected fwd or bwd, got " + core::quote(f[1]));
  }
  c.backward = f[1] == "bwd";
  const auto field = [&](std::string_view what, char tag, std::string_view token,
                         int& to) -> core::Status {
    auto v = tagged_int(what, tag, token);
    if (!v) return v.status();
    to = *v;
    return core::Status::ok();
  };
  if (core::Status s = field("vec", 'v', f[2], c.vec); !s.is_ok()) return bad(s.message());
  if (core::Status s = field("threads", 't', f[3], c.threads); !s.is_ok()) {
    return bad(s.message());
  }
  if (core::Status s = field("rows", 'r', f[4], c.rows); !s.is_ok()) return bad(s.message());
  if (f[5] == "stream") {
    c.items = 0;
  } else if (core::Status s = field("items", 'i', f[5], c.items); !s.is_ok()) {
    return bad(s.message() + " (or stream)");
  }
  BOO_RETURN_IF_ERROR(check_layernorm_rowwise(c).with_context(std::string(text) + ": "));
  if (c.name() != text) return bad("not in canonical form (expected " + c.name() + ")");
  return c;
}

int64_t LayerNormRowwiseConfig::max_cols() const {
  return items == 0 ? -1 : int64_t{vec} * threads * items;
}

int64_t LayerNormRowwiseConfig::backward_stage_bytes() const {
  return items == 0 ? 0 : int64_t{rows} * 2 * max_cols() * core::dtype_bytes(dtype);
}

int LayerNormRowwiseConfig::backward_stages() const {
  const int64_t stage = backward_stage_bytes();
  if (stage == 0) return 2;
  return static_cast<int>(std::clamp<int64_t>((int64_t{32} * 1024 + stage - 1) / stage, 2, 8));
}

bool LayerNormRowwiseConfig::backward_pipelined() const {
  return items > 0 && backward_stages() * backward_stage_bytes() <= int64_t{160} * 1024;
}

bool LayerNormRowwiseConfig::backward_holds() const {
  return backward_pipelined() && 5 * items * vec + 24 <= register_share();
}

int64_t LayerNormRowwiseConfig::backward_smem_bytes() const {
  if (items == 0) return 0;
  if (!backward_pipelined()) return int64_t{rows} * 2 * max_cols() * 4;
  const int64_t sums = rows > 1 ? int64_t{rows} * max_cols() * 4 : 0;
  return std::max(backward_stages() * backward_stage_bytes(), sums);
}

core::Status check_layernorm_rowwise(const LayerNormRowwiseConfig& c) {
  const auto no = [](const std::string& why) {
    return core::unsupported("layernorm.rowwise: " + why);
  };
  if (!supported_dtype(c.dtype)) {
    return no("dtype must be fp32, fp16 or bf16, got " + dtype_text(c.dtype));
  }
  if (c.vec != 1 && c.vec != 2 && c.vec != 4 && c.vec != 8) {
    return no("vec must be 1, 2, 4 or 8, got " + std::to_string(c.vec));
  }
  const int vec_bytes = c.vec * core::dtype_bytes(c.dtype);
  if (vec_bytes > 16) {
    return no("vec " + std::to_string(c.vec) + " of " + dtype_text(c.dtype) + " is " +
              std::to_string(vec_bytes) + " bytes; vector accesses are at most 16 bytes");
  }
  if (!is_power_of_two(c.threads) || c.threads > 1024) {
    return no("threads must be a power of two from 1 to 1024, got " + std::to_string(c.threads));
  }
  if (!is_power_of_two(c.rows)) {
    return no("rows must be a power of two >= 1, got " + std::to_string(c.rows));
  }
  const int64_t block = int64_t{c.threads} * c.rows;
  if (block < 32 || block > 1024) {
    return no("threads * rows (the block) must be 32 to 1024 threads, got " +
              std::to_string(block) + " (threads " + std::to_string(c.threads) + ", rows " +
              std::to_string(c.rows) + ")");
  }
  if (c.items < 0 || c.items > kLayerNormMaxItems) {
    return no("items must be 0 (stream) to " + std::to_string(kLayerNormMaxItems) + ", got " +
              std::to_string(c.items));
  }
  const int values = c.vec * c.items;
  const int budget = register_budget(c.backward, static_cast<int>(block));
  if (values > budget) {
    return no("vec * items = " + std::to_string(values) + " values per thread exceed the " +
              (c.backward ? "backward" : "forward") + "'s register budget of " +
              std::to_string(budget) + " for blocks of " + std::to_string(block) + " threads");
  }
  return core::Status::ok();
}

core::Status layernorm_rowwise_fits(const LayerNormRowwiseConfig& c, int64_t cols,
                                    int64_t pointer_alignment) {
  BOO_RETURN_IF_ERROR(check_layernorm_rowwise(c));
  if (cols < 1) {
    return core::invalid_argument("layernorm.rowwise: cols must be >= 1, got " +
                                  std::to_string(cols));
  }
  if (!is_power_of_two(pointer_alignment)) {
    return core::invalid_argument(
        "layernorm.rowwise: the pointer alignment must be a power of two (bytes), got " +
        std::to_string(pointer_alignment));
  }
  // The name only on failure: dispatch asks every config of the default space.
  const auto no = [&](const std::string& why) { return core::unsupported(c.name() + ": " + why); };
  if (cols % c.vec != 0) {
    return no("cols " + std::to_string(cols) + " is not a multiple of vec " +
              std::to_string(c.vec));
  }
  const int64_t vec_bytes = int64_t{c.vec} * core::dtype_bytes(c.dtype);
  if (pointer_alignment < vec_bytes) {
    return no("pointers aligned to " + std::to_string(pointer_alignment) + " bytes; vec " +
              std::to_string(c.vec) + " needs " + std::to_string(vec_bytes));
  }
  if (c.items == 0) return core::Status::ok();
  if (cols > c.max_cols()) {
    return no("cols " + std::to_string(cols) + " exceed the " + std::to_string(c.max_cols()) +
              " that vec * threads * items hold in registers");
  }
  // With one item fewer enough, a whole item of every thread would sit idle: the default and
  // full spaces hold the smaller config, so refusing this one keeps the heuristic's candidates
  // free of configs that only waste registers.
  const int64_t vectors = cols / c.vec;
  if (vectors <= int64_t{c.threads} * (c.items - 1)) {
    const int64_t need = (vectors + c.threads - 1) / c.threads;
    return no("a smaller item count covers the row: cols " + std::to_string(cols) + " need items " +
              std::to_string(need));
  }
  return core::Status::ok();
}

std::vector<LayerNormRowwiseConfig> layernorm_rowwise_space(DType dtype, bool backward,
                                                            RuleSet rules) {
  std::vector<LayerNormRowwiseConfig> out;
  if (!supported_dtype(dtype)) return out;
  const auto add = [&](int vec, int threads, int rows, int items) {
    const LayerNormRowwiseConfig c{dtype, backward, vec, threads, rows, items};
    if (!check_layernorm_rowwise(c).is_ok()) return;
    if (std::find(out.begin(), out.end(), c) != out.end()) return;
    out.push_back(c);
  };
  const int wide = widest_vec(dtype);
  if (rules == RuleSet::kTiny) {
    const LayerNormRowwiseConfig f = layernorm_rowwise_fallback(dtype, backward);
    add(f.vec, f.threads, f.rows, f.items);
    add(wide, 256, 1, 0);
    add(wide, 32, 4, 1);
    add(wide, 128, 2, 2);
    add(wide, 256, 1, 4);
    return out;
  }
  // Blocks of 128, 256 and 512 threads (or one row of more) for default: enough warps per block
  // to hide latency and blocks small enough to fill 132 SMs. The backward's default adds 1024:
  // its pipelined kernel is fastest with 512 or 1024 on an H100 (one workspace row per block,
  // so bigger blocks write fewer; bench/results/2026-11-23-layernorm-bwd-h100.md). full adds
  // 32, 64 and 1024.
  std::vector<int> blocks = {128, 256, 512};
  if (backward) blocks.push_back(1024);
  if (rules == RuleSet::kFull) blocks = {32, 64, 128, 256, 512, 1024};
  for (int vec = 1; vec <= 8; vec *= 2) {
    for (int threads = 1; threads <= 1024; threads *= 2) {
      for (int items = 0; items <= kLayerNormMaxItems; ++items) {
        // Stream configs are for rows too long for registers: fewer than a warp per row would
        // walk such a row in thousands of serial steps.
        if (items == 0 && threads < 32) continue;
        for (int block : blocks) add(vec, threads, std::max(1, block / threads), items);
      }
    }
  }
  return out;
}

LayerNormRowwiseConfig layernorm_rowwise_fallback(DType dtype, bool backward) {
  return {dtype, backward, /*vec=*/1, /*threads=*/256, /*rows=*/1, /*items=*/0};
}

}  // namespace boo::space
