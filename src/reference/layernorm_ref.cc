#include "boo/reference/layernorm_ref.h"

#include <cmath>

#include "boo/core/parallel.h"

namespace boo::reference {
namespace {

bool too_small(const HostTensor* t, int64_t n) {
  return t == nullptr || static_cast<int64_t>(t->data.size()) < n;
}

}  // namespace

core::Status layernorm_forward(const ops::LayerNormProblem& p, const HostTensor& x,
                               const HostTensor* weight, const HostTensor* bias, HostTensor& y,
                               std::vector<double>& mean, std::vector<double>& rstd) {
  BOO_RETURN_IF_ERROR(p.validate());
  const int64_t rows = p.rows();
  const int64_t cols = p.cols();
  if (too_small(&x, rows * cols) || too_small(&y, rows * cols) ||
      (p.affine && (too_small(weight, cols) || too_small(bias, cols)))) {
    return core::internal_error("layernorm reference: an operand is missing or too small");
  }
  mean.assign(rows, 0.0);
  rstd.assign(rows, 0.0);
  core::parallel_for(rows, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const double* xr = x.data.data() + r * cols;
      double sum = 0.0;
      for (int64_t c = 0; c < cols; ++c) sum += xr[c];
      const double mu = sum / static_cast<double>(cols);
      double sq = 0.0;
      for (int64_t c = 0; c < cols; ++c) sq += (xr[c] - mu) * (xr[c] - mu);
      const double rs = 1.0 / std::sqrt(sq / static_cast<double>(cols) + p.eps);
      mean[r] = mu;
      rstd[r] = rs;
      double* yr = y.data.data() + r * cols;
      for (int64_t c = 0; c < cols; ++c) {
        const double xhat = (xr[c] - mu) * rs;
        yr[c] = p.affine ? xhat * weight->data[c] + bias->data[c] : xhat;
      }
    }
  });
  return core::Status::ok();
}

core::Status layernorm_backward(const ops::LayerNormProblem& p, const HostTensor& dy,
                                const HostTensor& x, const std::vector<double>& mean,
                                const std::vector<double>& rstd, const HostTensor* weight,
                                HostTensor* dx, HostTensor* dweight, HostTensor* dbias) {
  BOO_RETURN_IF_ERROR(p.validate());
  const int64_t rows = p.rows();
  const int64_t cols = p.cols();
  if (too_small(&dy, rows * cols) || too_small(&x, rows * cols) ||
      static_cast<int64_t>(mean.size()) < rows || static_cast<int64_t>(rstd.size()) < rows ||
      (dx && too_small(dx, rows * cols)) || (dx && p.affine && too_small(weight, cols)) ||
      (dweight && too_small(dweight, cols)) || (dbias && too_small(dbias, cols))) {
    return core::internal_error("layernorm reference: an operand is missing or too small");
  }
  if (dx != nullptr) {
    core::parallel_for(rows, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const double* xr = x.data.data() + r * cols;
        const double* dyr = dy.data.data() + r * cols;
        double sum_g = 0.0;
        double sum_gx = 0.0;
        for (int64_t c = 0; c < cols; ++c) {
          const double g = p.affine ? dyr[c] * weight->data[c] : dyr[c];
          sum_g += g;
          sum_gx += g * (xr[c] - mean[r]) * rstd[r];
        }
        const double mg = sum_g / static_cast<double>(cols);
        const double mgx = sum_gx / static_cast<double>(cols);
        double* dxr = dx->data.data() + r * cols;
        for (int64_t c = 0; c < cols; ++c) {
          const double g = p.affine ? dyr[c] * weight->data[c] : dyr[c];
          const double xhat = (xr[c] - mean[r]) * rstd[r];
          dxr[c] = rstd[r] * (g - mg - xhat * mgx);
        }
      }
    });
  }
  if (dweight != nullptr || dbias != nullptr) {
    core::parallel_for(cols, [&](int64_t begin, int64_t end) {
      for (int64_t c = begin; c < end; ++c) {
        double dw = 0.0;
        double db = 0.0;
        for (int64_t r = 0; r < rows; ++r) {
          const double d = dy.data[r * cols + c];
          dw += d * (x.data[r * cols + c] - mean[r]) * rstd[r];
          db += d;
        }
        if (dweight) dweight->data[c] = dw;
        if (dbias) dbias->data[c] = db;
      }
    });
  }
  return core::Status::ok();
}

}  // namespace boo::reference
