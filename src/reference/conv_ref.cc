#include "boo/reference/conv_ref.h"

#include <array>

#include "boo/core/parallel.h"
#include "boo/core/strings.h"
#include "boo/reference/activation.h"

namespace boo::reference {
namespace {

using core::Status;

// The problem's geometry padded to 3 spatial dims (leading unit dims), and a tensor's strides
// in the same form: [N or K, C, D, H, W].
struct Geometry {
  std::array<int64_t, 3> in{1, 1, 1}, fil{1, 1, 1}, out{1, 1, 1};
  std::array<int64_t, 3> stride{1, 1, 1}, pad{0, 0, 0}, dil{1, 1, 1};
  int64_t n, c, k, cg, kg;
};

Geometry geometry(const ops::ConvProblem& p) {
  Geometry g;
  const std::vector<int64_t> out = p.output();
  const int off = 3 - p.spatial_dims;
  for (int i = 0; i < p.spatial_dims; ++i) {
    g.in[off + i] = p.input[i];
    g.fil[off + i] = p.filter[i];
    g.out[off + i] = out[i];
    g.stride[off + i] = p.stride[i];
    g.pad[off + i] = p.padding[i];
    g.dil[off + i] = p.dilation[i];
  }
  g.n = p.n;
  g.c = p.c;
  g.k = p.k;
  g.cg = p.c / p.groups;
  g.kg = p.k / p.groups;
  return g;
}

struct Strides {
  int64_t s0, s1;
  std::array<int64_t, 3> sp{0, 0, 0};
};

Strides strides(const HostTensor& t, int spatial_dims) {
  Strides s{t.desc.strides[0], t.desc.strides[1]};
  for (int i = 0; i < spatial_dims; ++i) s.sp[3 - spatial_dims + i] = t.desc.strides[2 + i];
  return s;
}

Status check(const char* name, const HostTensor& t, const core::TensorDesc& want) {
  if (t.desc.dims != want.dims || static_cast<int64_t>(t.data.size()) < want.span_elements() ||
      t.desc.strides.size() != want.dims.size()) {
    return core::internal_error(std::string("conv reference: tensor ") + name + " has shape " +
                                core::format_shape(t.desc.dims) + ", expected " +
                                core::format_shape(want.dims));
  }
  return Status::ok();
}

}  // namespace

Status conv_forward(const ops::ConvProblem& p, const HostTensor& x, const HostTensor& w,
                    const HostTensor* bias, HostTensor& y) {
  BOO_RETURN_IF_ERROR(p.validate());
  BOO_RETURN_IF_ERROR(check("x", x, p.x_desc()));
  BOO_RETURN_IF_ERROR(check("w", w, p.w_desc()));
  BOO_RETURN_IF_ERROR(check("y", y, p.y_desc()));
  if (p.bias && (bias == nullptr || static_cast<int64_t>(bias->data.size()) < p.k)) {
    return core::internal_error("conv reference: the problem has a bias but none was given");
  }
  const Geometry g = geometry(p);
  const Strides sx = strides(x, p.spatial_dims);
  const Strides sw = strides(w, p.spatial_dims);
  const Strides sy = strides(y, p.spatial_dims);
  core::parallel_for(g.n * g.k, [&](int64_t begin, int64_t end) {
    for (int64_t nk = begin; nk < end; ++nk) {
      const int64_t n = nk / g.k;
      const int64_t k = nk % g.k;
      const int64_t c0 = (k / g.kg) * g.cg;
      for (int64_t o0 = 0; o0 < g.out[0]; ++o0)
        for (int64_t o1 = 0; o1 < g.out[1]; ++o1)
          for (int64_t o2 = 0; o2 < g.out[2]; ++o2) {
            double acc = 0.0;
            for (int64_t r0 = 0; r0 < g.fil[0]; ++r0) {
              const int64_t i0 = o0 * g.stride[0] - g.pad[0] + r0 * g.dil[0];
              if (i0 < 0 || i0 >= g.in[0]) continue;
              for (int64_t r1 = 0; r1 < g.fil[1]; ++r1) {
                const int64_t i1 = o1 * g.stride[1] - g.pad[1] + r1 * g.dil[1];
                if (i1 < 0 || i1 >= g.in[1]) continue;
                for (int64_t r2 = 0; r2 < g.fil[2]; ++r2) {
                  const int64_t i2 = o2 * g.stride[2] - g.pad[2] + r2 * g.dil[2];
                  if (i2 < 0 || i2 >= g.in[2]) continue;
                  const double* xp = x.data.data() + n * sx.s0 + c0 * sx.s1 + i0 * sx.sp[0] +
                                     i1 * sx.sp[1] + i2 * sx.sp[2];
                  const double* wp =
                      w.data.data() + k * sw.s0 + r0 * sw.sp[0] + r1 * sw.sp[1] + r2 * sw.sp[2];
                  for (int64_t cc = 0; cc < g.cg; ++cc) acc += xp[cc * sx.s1] * wp[cc * sw.s1];
                }
              }
            }
            if (p.bias) acc += bias->data[k];
            y.data[n * sy.s0 + k * sy.s1 + o0 * sy.sp[0] + o1 * sy.sp[1] + o2 * sy.sp[2]] =
                apply_activation(p.activation, acc);
          }
    }
  });
  return Status::ok();
}

Status conv_backward_data(const ops::ConvProblem& p, const HostTensor& dy, const HostTensor& w,
                          HostTensor& dx) {
  BOO_RETURN_IF_ERROR(p.validate());
  BOO_RETURN_IF_ERROR(check("dy", dy, p.y_desc()));
  BOO_RETURN_IF_ERROR(check("w", w, p.w_desc()));
  BOO_RETURN_IF_ERROR(check("dx", dx, p.x_desc()));
  const Geometry g = geometry(p);
  const Strides sdy = strides(dy, p.spatial_dims);
  const Strides sw = strides(w, p.spatial_dims);
  const Strides sdx = strides(dx, p.spatial_dims);
  // dx[n, c, i] = sum over k in c's group and filter taps r with i = o * s - p + r * d.
  core::parallel_for(g.n * g.c, [&](int64_t begin, int64_t end) {
    for (int64_t nc = begin; nc < end; ++nc) {
      const int64_t n = nc / g.c;
      const int64_t c = nc % g.c;
      const int64_t k0 = (c / g.cg) * g.kg;
      const int64_t cc = c % g.cg;
      for (int64_t i0 = 0; i0 < g.in[0]; ++i0)
        for (int64_t i1 = 0; i1 < g.in[1]; ++i1)
          for (int64_t i2 = 0; i2 < g.in[2]; ++i2) {
            double acc = 0.0;
            for (int64_t r0 = 0; r0 < g.fil[0]; ++r0) {
              const int64_t t0 = i0 + g.pad[0] - r0 * g.dil[0];
              if (t0 < 0 || t0 % g.stride[0] != 0 || t0 / g.stride[0] >= g.out[0]) continue;
              for (int64_t r1 = 0; r1 < g.fil[1]; ++r1) {
                const int64_t t1 = i1 + g.pad[1] - r1 * g.dil[1];
                if (t1 < 0 || t1 % g.stride[1] != 0 || t1 / g.stride[1] >= g.out[1]) continue;
                for (int64_t r2 = 0; r2 < g.fil[2]; ++r2) {
                  const int64_t t2 = i2 + g.pad[2] - r2 * g.dil[2];
                  if (t2 < 0 || t2 % g.stride[2] != 0 || t2 / g.stride[2] >= g.out[2]) continue;
                  const double* dyp =
                      dy.data.data() + n * sdy.s0 + k0 * sdy.s1 + (t0 / g.stride[0]) * sdy.sp[0] +
                      (t1 / g.stride[1]) * sdy.sp[1] + (t2 / g.stride[2]) * sdy.sp[2];
                  const double* wp = w.data.data() + k0 * sw.s0 + cc * sw.s1 + r0 * sw.sp[0] +
                                     r1 * sw.sp[1] + r2 * sw.sp[2];
                  for (int64_t kk = 0; kk < g.kg; ++kk) acc += dyp[kk * sdy.s1] * wp[kk * sw.s0];
                }
              }
            }
            dx.data[n * sdx.s0 + c * sdx.s1 + i0 * sdx.sp[0] + i1 * sdx.sp[1] + i2 * sdx.sp[2]] =
                acc;
          }
    }
  });
  return Status::ok();
}

Status conv_backward_weight(const ops::ConvProblem& p, const HostTensor& x, const HostTensor& dy,
                            HostTensor& dw) {
  BOO_RETURN_IF_ERROR(p.validate());
  BOO_RETURN_IF_ERROR(check("x", x, p.x_desc()));
  BOO_RETURN_IF_ERROR(check("dy", dy, p.y_desc()));
  BOO_RETURN_IF_ERROR(check("dw", dw, p.w_desc()));
  const Geometry g = geometry(p);
  const Strides sx = strides(x, p.spatial_dims);
  const Strides sdy = strides(dy, p.spatial_dims);
  const Strides sdw = strides(dw, p.spatial_dims);
  core::parallel_for(g.k * g.cg, [&](int64_t begin, int64_t end) {
    for (int64_t kc = begin; kc < end; ++kc) {
      const int64_t k = kc / g.cg;
      const int64_t cc = kc % g.cg;
      const int64_t c = (k / g.kg) * g.cg + cc;
      for (int64_t r0 = 0; r0 < g.fil[0]; ++r0)
        for (int64_t r1 = 0; r1 < g.fil[1]; ++r1)
          for (int64_t r2 = 0; r2 < g.fil[2]; ++r2) {
            double acc = 0.0;
            for (int64_t n = 0; n < g.n; ++n)
              for (int64_t o0 = 0; o0 < g.out[0]; ++o0) {
                const int64_t i0 = o0 * g.stride[0] - g.pad[0] + r0 * g.dil[0];
                if (i0 < 0 || i0 >= g.in[0]) continue;
                for (int64_t o1 = 0; o1 < g.out[1]; ++o1) {
                  const int64_t i1 = o1 * g.stride[1] - g.pad[1] + r1 * g.dil[1];
                  if (i1 < 0 || i1 >= g.in[1]) continue;
                  const double* xrow =
                      x.data.data() + n * sx.s0 + c * sx.s1 + i0 * sx.sp[0] + i1 * sx.sp[1];
                  const double* dyrow =
                      dy.data.data() + n * sdy.s0 + k * sdy.s1 + o0 * sdy.sp[0] + o1 * sdy.sp[1];
                  for (int64_t o2 = 0; o2 < g.out[2]; ++o2) {
                    const int64_t i2 = o2 * g.stride[2] - g.pad[2] + r2 * g.dil[2];
                    if (i2 < 0 || i2 >= g.in[2]) continue;
                    acc += xrow[i2 * sx.sp[2]] * dyrow[o2 * sdy.sp[2]];
                  }
                }
              }
            dw.data[k * sdw.s0 + cc * sdw.s1 + r0 * sdw.sp[0] + r1 * sdw.sp[1] + r2 * sdw.sp[2]] =
                acc;
          }
    }
  });
  return Status::ok();
}

}  // namespace boo::reference
