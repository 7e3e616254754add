#include "boo/tune/layernorm_operands.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "boo/core/parallel.h"
#include "boo/reference/layernorm_ref.h"

namespace boo::tune {
namespace {

using core::DType;

constexpr int64_t kOutputAlignment = 256;  // bytes; every output starts at such an offset

int64_t align_up(int64_t bytes) {
  return (bytes + kOutputAlignment - 1) / kOutputAlignment * kOutputAlignment;
}

// Host values (already rounded to `t`, as reference::make_inputs makes them) encoded in `t` and
// copied into a fresh device buffer.
core::Expected<runtime::DeviceBuffer> upload(const std::vector<double>& values, DType t) {
  const int bytes = core::dtype_bytes(t);
  const int64_t n = static_cast<int64_t>(values.size());
  std::vector<uint8_t> raw(static_cast<size_t>(n * bytes));
  core::parallel_for(n, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const uint32_t bits = core::encode_bits(t, values[static_cast<size_t>(i)]);
      std::memcpy(raw.data() + i * bytes, &bits, static_cast<size_t>(bytes));
    }
  });
  BOO_ASSIGN_OR_RETURN(auto buf, runtime::DeviceBuffer::allocate(n * bytes));
  BOO_RETURN_IF_ERROR(buf.upload(raw.data(), static_cast<int64_t>(raw.size())));
  return buf;
}

// `elements` values of `t` at device address `src`, decoded (the exact values the GPU wrote).
core::Expected<std::vector<double>> download(const void* src, DType t, int64_t elements) {
  const int bytes = core::dtype_bytes(t);
  std::vector<uint8_t> raw(static_cast<size_t>(elements * bytes));
  BOO_RETURN_IF_ERROR(runtime::cuda_status(
      cudaMemcpy(raw.data(), src, raw.size(), cudaMemcpyDeviceToHost), "cudaMemcpy"));
  std::vector<double> out(static_cast<size_t>(elements));
  core::parallel_for(elements, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      uint32_t bits = 0;
      std::memcpy(&bits, raw.data() + i * bytes, static_cast<size_t>(bytes));
      out[static_cast<size_t>(i)] = core::decode_bits(t, bits);
    }
  });
  return out;
}

// Worst first: NaN/Inf (relative error +inf) before finite errors, larger before smaller.
bool worse(const reference::ErrorStats& a, const reference::ErrorStats& b) {
  return a.rel_fro > b.rel_fro || (std::isnan(a.rel_fro) && !std::isnan(b.rel_fro));
}

// The worst relative error of several outputs; NaN/Inf and element counts summed, the largest
// absolute difference of any.
reference::ErrorStats worst_of(
    const std::vector<std::pair<std::string, reference::ErrorStats>>& each) {
  reference::ErrorStats w;
  bool first = true;
  for (const auto& [name, e] : each) {
    if (first || worse(e, w)) w.rel_fro = e.rel_fro;
    first = false;
    w.max_abs = std::max(w.max_abs, e.max_abs);
    w.nonfinite += e.nonfinite;
    w.count += e.count;
  }
  return w;
}

// This problem's output `name` at `out`, compared with `ref`.
core::Expected<reference::ErrorStats> compare_output(const ops::LayerNormProblem& p,
                                                     const std::string& name, const void* out,
                                                     const std::vector<double>& ref) {
  for (const LayerNormOutput& o : layernorm_outputs(p)) {
    if (o.name != name) continue;
    BOO_ASSIGN_OR_RETURN(std::vector<double> got, download_layernorm_output(o, out));
    return reference::compare(got, ref);
  }
  return core::internal_error("layer norm output '" + name + "' is not an output of " + p.key());
}

// Row r's part of L = sum(y * dy) with x[r][j] replaced by `v` (the fp64 forward's formulas:
// two-pass mean and biased variance, as reference::layernorm_forward).
double row_loss(const ops::LayerNormProblem& p, const double* xr, const double* dyr,
                const double* w, const double* b, int64_t cols, int64_t j, double v) {
  auto at = [&](int64_t c) { return c == j ? v : xr[c]; };
  double sum = 0.0;
  for (int64_t c = 0; c < cols; ++c) sum += at(c);
  const double mu = sum / static_cast<double>(cols);
  double sq = 0.0;
  for (int64_t c = 0; c < cols; ++c) sq += (at(c) - mu) * (at(c) - mu);
  const double rs = 1.0 / std::sqrt(sq / static_cast<double>(cols) + p.eps);
  double loss = 0.0;
  for (int64_t c = 0; c < cols; ++c) {
    const double xhat = (at(c) - mu) * rs;
    loss += dyr[c] * (p.affine ? xhat * w[c] + b[c] : xhat);
  }
  return loss;
}

// d f / d v at `v` by Richardson-extrapolated central differences (see layernorm_fd_gradients).
template <typename F>
double central_difference(double v, const F& f) {
  const double h = std::ldexp(std::max(1.0, std::fabs(v)), -10);
  const double d1 = (f(v + h) - f(v - h)) / (2.0 * h);
  const double d2 = (f(v + 0.5 * h) - f(v - 0.5 * h)) / h;
  return (4.0 * d2 - d1) / 3.0;
}

}  // namespace

std::vector<LayerNormOutput> layernorm_outputs(const ops::LayerNormProblem& p) {
  const int64_t rows = p.rows();
  const int64_t cols = p.cols();
  std::vector<LayerNormOutput> out;
  int64_t offset = 0;
  auto add = [&](const char* name, DType t, int64_t elements) {
    out.push_back({name, t, elements, offset});
    offset = align_up(offset + elements * core::dtype_bytes(t));
  };
  if (p.forward()) {
    add("y", p.dtype, rows * cols);
    add("mean", DType::kF32, rows);
    add("rstd", DType::kF32, rows);
    return out;
  }
  if (p.parts & ops::kLayerNormDx) add("dx", p.dtype, rows * cols);
  if (p.parts & ops::kLayerNormDweight) add("dweight", p.dtype, cols);
  if (p.parts & ops::kLayerNormDbias) add("dbias", p.dtype, cols);
  return out;
}

int64_t layernorm_output_bytes(const ops::LayerNormProblem& p) {
  int64_t bytes = 0;
  for (const LayerNormOutput& o : layernorm_outputs(p)) {
    bytes = std::max(bytes, align_up(o.offset + o.elements * core::dtype_bytes(o.dtype)));
  }
  return bytes;
}

core::Expected<std::vector<double>> download_layernorm_output(const LayerNormOutput& o,
                                                              const void* out) {
  // The backends run on non-blocking streams, which a plain cudaMemcpy does not wait for.
  BOO_RETURN_IF_ERROR(runtime::cuda_status(cudaDeviceSynchronize(), "cudaDeviceSynchronize"));
  return download(static_cast<const char*>(out) + o.offset, o.dtype, o.elements);
}

core::Expected<LayerNormOperands> LayerNormOperands::create(const ops::LayerNormProblem& p,
                                                            uint64_t seed, void* stream) {
  BOO_RETURN_IF_ERROR(p.validate());
  LayerNormOperands o;
  o.problem_ = p;
  BOO_ASSIGN_OR_RETURN(o.host_, reference::make_inputs(ops::Problem{p}, seed));
  const reference::HostTensor* x = o.host_.input("x");
  const reference::HostTensor* w = o.host_.input("weight");
  const reference::HostTensor* b = o.host_.input("bias");
  const reference::HostTensor* dy = o.host_.input("dy");
  BOO_ASSIGN_OR_RETURN(o.x_, upload(x->data, p.dtype));
  if (p.affine) {
    BOO_ASSIGN_OR_RETURN(o.weight_, upload(w->data, p.dtype));
    BOO_ASSIGN_OR_RETURN(o.bias_, upload(b->data, p.dtype));
  }
  if (!p.forward()) {
    BOO_ASSIGN_OR_RETURN(o.dy_, upload(dy->data, p.dtype));
    // The forward's statistics of x, saved by a training step in fp32.
    ops::LayerNormProblem fwd = p;
    fwd.parts = ops::kLayerNormForward;
    reference::HostTensor y = reference::make_host_tensor(x->desc);
    BOO_RETURN_IF_ERROR(reference::layernorm_forward(fwd, *x, w, b, y, o.mean_, o.rstd_));
    BOO_ASSIGN_OR_RETURN(o.mean_dev_, upload(o.mean_, DType::kF32));
    BOO_ASSIGN_OR_RETURN(o.rstd_dev_, upload(o.rstd_, DType::kF32));
  }
  // A copy from pageable memory may still be in flight when cudaMemcpy returns, and the
  // backends' non-blocking streams are not ordered after it.
  BOO_RETURN_IF_ERROR(runtime::cuda_status(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)),
                                           "cudaStreamSynchronize"));
  BOO_RETURN_IF_ERROR(runtime::cuda_status(cudaDeviceSynchronize(), "cudaDeviceSynchronize"));
  return o;
}

dispatch::LayerNormPointers LayerNormOperands::pointers(void* out) const {
  dispatch::LayerNormPointers ptrs;
  ptrs.x = x_.data();
  ptrs.weight = weight_.data();
  ptrs.bias = bias_.data();
  ptrs.dy = dy_.data();
  ptrs.mean = static_cast<float*>(mean_dev_.data());
  ptrs.rstd = static_cast<float*>(rstd_dev_.data());
  if (out == nullptr) return ptrs;
  char* base = static_cast<char*>(out);
  for (const LayerNormOutput& o : layernorm_outputs(problem_)) {
    void* at = base + o.offset;
    if (o.name == "y") ptrs.y = at;
    if (o.name == "mean") ptrs.mean = static_cast<float*>(at);
    if (o.name == "rstd") ptrs.rstd = static_cast<float*>(at);
    if (o.name == "dx") ptrs.dx = at;
    if (o.name == "dweight") ptrs.dweight = at;
    if (o.name == "dbias") ptrs.dbias = at;
  }
  return ptrs;
}

core::Expected<runtime::DeviceBuffer> LayerNormOperands::make_output() const {
  return runtime::DeviceBuffer::allocate(layernorm_output_bytes(problem_));
}

double layernorm_tolerance(const ops::LayerNormProblem& p) {
  return dtype_tolerance(p.dtype, /*tf32=*/false);  // fp32 math throughout
}

core::Expected<LayerNormReference> LayerNormReference::compute(const LayerNormOperands& ops) {
  const ops::LayerNormProblem& p = ops.problem();
  LayerNormReference r;
  r.data_ = ops.host();
  BOO_RETURN_IF_ERROR(reference::run_reference(ops::Problem{p}, r.data_));
  return r;
}

core::Expected<std::vector<std::pair<std::string, reference::ErrorStats>>>
LayerNormReference::compare_each(const LayerNormOperands& ops, const void* out) const {
  const ops::LayerNormProblem& p = ops.problem();
  std::vector<std::pair<std::string, reference::ErrorStats>> each;
  for (const LayerNormOutput& o : layernorm_outputs(p)) {
    const reference::HostTensor* ref = data_.output(o.name);
    if (ref == nullptr) return core::internal_error("no reference output '" + o.name + "'");
    BOO_ASSIGN_OR_RETURN(reference::ErrorStats e, compare_output(p, o.name, out, ref->data));
    each.emplace_back(o.name, e);
  }
  std::stable_sort(each.begin(), each.end(),
                   [](const auto& a, const auto& b) { return worse(a.second, b.second); });
  return each;
}

core::Expected<reference::ErrorStats> LayerNormReference::compare(const LayerNormOperands& ops,
                                                                  const void* out) const {
  BOO_ASSIGN_OR_RETURN(auto each, compare_each(ops, out));
  return worst_of(each);
}

core::Expected<LayerNormGradients> layernorm_fd_gradients(const ops::LayerNormProblem& p,
                                                          const reference::ProblemData& data) {
  BOO_RETURN_IF_ERROR(p.validate());
  if (p.forward()) {
    return core::unsupported("finite differences check backward layer norms (-F 2, 4, 8)");
  }
  const int64_t rows = p.rows();
  const int64_t cols = p.cols();
  const reference::HostTensor* x = data.input("x");
  const reference::HostTensor* dy = data.input("dy");
  const reference::HostTensor* w = data.input("weight");
  const reference::HostTensor* b = data.input("bias");
  auto too_small = [](const reference::HostTensor* t, int64_t n) {
    return t == nullptr || static_cast<int64_t>(t->data.size()) < n;
  };
  if (too_small(x, rows * cols) || too_small(dy, rows * cols) ||
      (p.affine && (too_small(w, cols) || too_small(b, cols)))) {
    return core::internal_error("layer norm finite differences: an input is missing or too small");
  }
  const double* wd = p.affine ? w->data.data() : nullptr;
  const double* bd = p.affine ? b->data.data() : nullptr;
  LayerNormGradients g;
  if (p.parts & ops::kLayerNormDx) {
    g.dx.resize(static_cast<size_t>(rows * cols));
    core::parallel_for(rows * cols, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        const int64_t r = i / cols;
        const int64_t j = i % cols;
        const double* xr = x->data.data() + r * cols;
        const double* dyr = dy->data.data() + r * cols;
        g.dx[static_cast<size_t>(i)] = central_difference(
            xr[j], [&](double v) { return row_loss(p, xr, dyr, wd, bd, cols, j, v); });
      }
    });
  }
  if (p.parts & (ops::kLayerNormDweight | ops::kLayerNormDbias)) {
    // The forward's normalized x: weight[c] and bias[c] enter y only through column c,
    // y[r][c] = xhat[r][c] weight[c] + bias[c].
    ops::LayerNormProblem fwd = p;
    fwd.parts = ops::kLayerNormForward;
    reference::HostTensor y = reference::make_host_tensor(x->desc);
    std::vector<double> mean, rstd;
    BOO_RETURN_IF_ERROR(reference::layernorm_forward(fwd, *x, w, b, y, mean, rstd));
    auto column_loss = [&](int64_t c, double wc, double bc) {
      double loss = 0.0;
      for (int64_t r = 0; r < rows; ++r) {
        const double xhat = (x->data[static_cast<size_t>(r * cols + c)] - mean[r]) * rstd[r];
        loss += dy->data[static_cast<size_t>(r * cols + c)] * (xhat * wc + bc);
      }
      return loss;
    };
    if (p.parts & ops::kLayerNormDweight) g.dweight.resize(static_cast<size_t>(cols));
    if (p.parts & ops::kLayerNormDbias) g.dbias.resize(static_cast<size_t>(cols));
    core::parallel_for(cols, [&](int64_t begin, int64_t end) {
      for (int64_t c = begin; c < end; ++c) {
        const double wc = wd[c];
        const double bc = bd[c];
        if (!g.dweight.empty()) {
          g.dweight[static_cast<size_t>(c)] =
              central_difference(wc, [&](double v) { return column_loss(c, v, bc); });
        }
        if (!g.dbias.empty()) {
          g.dbias[static_cast<size_t>(c)] =
              central_difference(bc, [&](double v) { return column_loss(c, wc, v); });
        }
      }
    });
  }
  return g;
}

core::Expected<reference::ErrorStats> layernorm_finite_difference_error(
    const LayerNormOperands& ops, const void* out, int64_t max_elements, int64_t max_work) {
  const ops::LayerNormProblem& p = ops.problem();
  if (p.forward()) {
    return core::unsupported("finite differences check backward layer norms (-F 2, 4, 8)");
  }
  const int64_t rows = p.rows();
  const int64_t cols = p.cols();
  const double work = static_cast<double>(rows) * static_cast<double>(cols) * cols;
  if (rows * cols > max_elements ||
      ((p.parts & ops::kLayerNormDx) && work > static_cast<double>(max_work))) {
    return core::resource_limit("finite differences: " + std::to_string(rows) + " x " +
                                std::to_string(cols) + " is above the limits of " +
                                std::to_string(max_elements) + " elements and " +
                                std::to_string(max_work) + " rows x cols^2");
  }
  BOO_ASSIGN_OR_RETURN(LayerNormGradients g, layernorm_fd_gradients(p, ops.host()));
  std::vector<std::pair<std::string, reference::ErrorStats>> each;
  const std::pair<const char*, const std::vector<double>*> parts[] = {
      {"dx", &g.dx}, {"dweight", &g.dweight}, {"dbias", &g.dbias}};
  for (const auto& [name, fd] : parts) {
    if (fd->empty()) continue;
    BOO_ASSIGN_OR_RETURN(reference::ErrorStats e, compare_output(p, name, out, *fd));
    each.emplace_back(name, e);
  }
  return worst_of(each);
}

Numerics judge_layernorm(const ops::LayerNormProblem& p, const reference::ErrorStats& boo,
                         const std::string& reference_name) {
  return judge_numerics(layernorm_tolerance(p), boo, std::nullopt, reference_name);
}

}  // namespace boo::tune
