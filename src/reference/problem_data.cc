#include "boo/reference/problem_data.h"

#include "boo/reference/conv_ref.h"
#include "boo/reference/gemm_ref.h"
#include "boo/reference/layernorm_ref.h"

namespace boo::reference {
namespace {

using core::DType;
using ops::ConvDirection;

const HostTensor* find(const std::vector<NamedTensor>& v, std::string_view name) {
  for (const NamedTensor& t : v) {
    if (t.name == name) return &t.tensor;
  }
  return nullptr;
}

HostTensor* find_mut(std::vector<NamedTensor>& v, std::string_view name) {
  for (NamedTensor& t : v) {
    if (t.name == name) return &t.tensor;
  }
  return nullptr;
}

// The seed of operand stream `i`: hashed, so that consecutive user seeds share no operand data
// (seed + i would make seed s + 1's first operand equal seed s's second).
uint64_t stream_seed(uint64_t seed, uint64_t i) {
  Rng rng(seed * 0x9e3779b97f4a7c15ull ^ (i + 1) * 0xd1b54a32d192ed03ull);
  return rng.next();
}

HostTensor random_tensor(const core::TensorDesc& d, uint64_t seed) {
  HostTensor t = make_host_tensor(d);
  fill_uniform(t, seed);
  return t;
}

ProblemData conv_inputs(const ops::ConvProblem& p, uint64_t seed) {
  ProblemData data;
  switch (p.direction) {
    case ConvDirection::kForward:
      data.inputs.push_back({"x", random_tensor(p.x_desc(), stream_seed(seed, 1))});
      data.inputs.push_back({"w", random_tensor(p.w_desc(), stream_seed(seed, 2))});
      if (p.bias) {
        HostTensor b = make_vector(p.dtype, p.k);
        fill_uniform(b, stream_seed(seed, 3));
        data.inputs.push_back({"bias", std::move(b)});
      }
      data.outputs.push_back({"y", make_host_tensor(p.y_desc())});
      break;
    case ConvDirection::kBackwardData:
      data.inputs.push_back({"dy", random_tensor(p.y_desc(), stream_seed(seed, 1))});
      data.inputs.push_back({"w", random_tensor(p.w_desc(), stream_seed(seed, 2))});
      data.outputs.push_back({"dx", make_host_tensor(p.x_desc())});
      break;
    case ConvDirection::kBackwardWeight:
      data.inputs.push_back({"x", random_tensor(p.x_desc(), stream_seed(seed, 1))});
      data.inputs.push_back({"dy", random_tensor(p.y_desc(), stream_seed(seed, 2))});
      data.outputs.push_back({"dw", make_host_tensor(p.w_desc())});
      break;
  }
  return data;
}

core::Status conv_run(const ops::ConvProblem& p, ProblemData& d) {
  switch (p.direction) {
    case ConvDirection::kForward:
      return conv_forward(p, *d.input("x"), *d.input("w"), d.input("bias"),
                          *find_mut(d.outputs, "y"));
    case ConvDirection::kBackwardData:
      return conv_backward_data(p, *d.input("dy"), *d.input("w"), *find_mut(d.outputs, "dx"));
    case ConvDirection::kBackwardWeight:
      return conv_backward_weight(p, *d.input("x"), *d.input("dy"), *find_mut(d.outputs, "dw"));
  }
  return core::internal_error("unknown conv direction");
}

ProblemData gemm_inputs(const ops::GemmProblem& p, uint64_t seed) {
  ProblemData data;
  HostTensor a = make_vector(p.a_type, gemm_operand_elements(p, 'A'));
  HostTensor b = make_vector(p.b_type, gemm_operand_elements(p, 'B'));
  fill_uniform(a, stream_seed(seed, 1));
  fill_uniform(b, stream_seed(seed, 2));
  data.inputs.push_back({"A", std::move(a)});
  data.inputs.push_back({"B", std::move(b)});
  if (p.reads_c()) {
    HostTensor c = make_vector(p.c_type, gemm_operand_elements(p, 'C'));
    fill_uniform(c, stream_seed(seed, 3));
    data.inputs.push_back({"C", std::move(c)});
  }
  if (p.bias) {
    HostTensor bias = make_vector(p.bias_type, p.m);
    fill_uniform(bias, stream_seed(seed, 4));
    data.inputs.push_back({"bias", std::move(bias)});
  }
  if (p.alpha_vector) {
    HostTensor av = make_vector(DType::kF32, p.m);
    fill_uniform(av, stream_seed(seed, 5));
    data.inputs.push_back({"alpha_vector", std::move(av)});
  }
  Rng rng(stream_seed(seed, 6));
  // Per-tensor scales as fp8 recipes use them: positive, around 1.
  if (p.scale_a == ops::ScaleMode::kScalar)
    data.scale_a = core::round_to(DType::kF32, rng.uniform(0.5, 2.0));
  if (p.scale_b == ops::ScaleMode::kScalar)
    data.scale_b = core::round_to(DType::kF32, rng.uniform(0.5, 2.0));
  core::TensorDesc d{p.d_type, {p.batch, p.n, p.m}, {p.n * p.m, p.m, 1}};
  data.outputs.push_back({"D", make_host_tensor(d)});
  return data;
}

core::Status gemm_run(const ops::GemmProblem& p, ProblemData& data) {
  HostTensor full = make_vector(p.d_type, gemm_operand_elements(p, 'D'));
  GemmOperands in;
  in.a = data.input("A");
  in.b = data.input("B");
  in.c = data.input("C");
  in.bias = data.input("bias");
  in.alpha_vector = data.input("alpha_vector");
  in.scale_a = data.scale_a;
  in.scale_b = data.scale_b;
  BOO_RETURN_IF_ERROR(gemm(p, in, full));
  HostTensor& packed = *find_mut(data.outputs, "D");
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t j = 0; j < p.n; ++j)
      for (int64_t i = 0; i < p.m; ++i)
        packed.data[(b * p.n + j) * p.m + i] = full.data[b * p.stride_d + j * p.ldd + i];
  return core::Status::ok();
}

ProblemData layernorm_inputs(const ops::LayerNormProblem& p, uint64_t seed) {
  ProblemData data;
  // Packed row-major in the problem's shape: rows x cols in memory.
  const core::TensorDesc rows_cols{p.dtype, p.shape, core::packed_strides(p.shape)};
  data.inputs.push_back({"x", random_tensor(rows_cols, stream_seed(seed, 1))});
  if (p.affine) {
    HostTensor w = make_vector(p.dtype, p.cols());
    HostTensor b = make_vector(p.dtype, p.cols());
    fill_uniform(w, stream_seed(seed, 2));
    fill_uniform(b, stream_seed(seed, 3));
    data.inputs.push_back({"weight", std::move(w)});
    data.inputs.push_back({"bias", std::move(b)});
  }
  if (p.forward()) {
    data.outputs.push_back({"y", make_host_tensor(rows_cols)});
    data.outputs.push_back({"mean", make_vector(DType::kF32, p.rows())});
    data.outputs.push_back({"rstd", make_vector(DType::kF32, p.rows())});
    return data;
  }
  data.inputs.push_back({"dy", random_tensor(rows_cols, stream_seed(seed, 4))});
  if (p.parts & ops::kLayerNormDx) data.outputs.push_back({"dx", make_host_tensor(rows_cols)});
  if (p.parts & ops::kLayerNormDweight) {
    data.outputs.push_back({"dweight", make_vector(p.dtype, p.cols())});
  }
  if (p.parts & ops::kLayerNormDbias) {
    data.outputs.push_back({"dbias", make_vector(p.dtype, p.cols())});
  }
  return data;
}

core::Status layernorm_run(const ops::LayerNormProblem& p, ProblemData& data) {
  std::vector<double> mean;
  std::vector<double> rstd;
  if (p.forward()) {
    BOO_RETURN_IF_ERROR(layernorm_forward(p, *data.input("x"), data.input("weight"),
                                          data.input("bias"), *find_mut(data.outputs, "y"), mean,
                                          rstd));
    find_mut(data.outputs, "mean")->data = mean;
    find_mut(data.outputs, "rstd")->data = rstd;
    return core::Status::ok();
  }
  // The backward pass takes the forward's statistics of x, as a training step saves them.
  ops::LayerNormProblem fwd = p;
  fwd.parts = ops::kLayerNormForward;
  HostTensor y = make_host_tensor(data.input("x")->desc);
  BOO_RETURN_IF_ERROR(layernorm_forward(fwd, *data.input("x"), data.input("weight"),
                                        data.input("bias"), y, mean, rstd));
  return layernorm_backward(p, *data.input("dy"), *data.input("x"), mean, rstd,
                            data.input("weight"), find_mut(data.outputs, "dx"),
                            find_mut(data.outputs, "dweight"), find_mut(data.outputs, "dbias"));
}

}  // namespace

const HostTensor* ProblemData::input(std::string_view name) const { return find(inputs, name); }
const HostTensor* ProblemData::output(std::string_view name) const { return find(outputs, name); }

int64_t reference_bytes(const ops::Problem& p) {
  int64_t elements = 0;
  if (const auto* c = std::get_if<ops::ConvProblem>(&p)) {
    elements =
        c->x_desc().element_count() + c->w_desc().element_count() + c->y_desc().element_count();
  } else if (const auto* g = std::get_if<ops::GemmProblem>(&p)) {
    elements = gemm_operand_elements(*g, 'A') + gemm_operand_elements(*g, 'B') +
               2 * gemm_operand_elements(*g, 'D') + g->m * g->n * g->batch;
  } else if (const auto* l = std::get_if<ops::LayerNormProblem>(&p)) {
    elements = 4 * l->rows() * l->cols();
  }
  return elements * 8;
}

core::Expected<ProblemData> make_inputs(const ops::Problem& p, uint64_t seed) {
  BOO_RETURN_IF_ERROR(ops::validate(p));
  if (const auto* c = std::get_if<ops::ConvProblem>(&p)) return conv_inputs(*c, seed);
  if (const auto* g = std::get_if<ops::GemmProblem>(&p)) return gemm_inputs(*g, seed);
  return layernorm_inputs(std::get<ops::LayerNormProblem>(p), seed);
}

core::Status run_reference(const ops::Problem& p, ProblemData& data) {
  if (const auto* c = std::get_if<ops::ConvProblem>(&p)) return conv_run(*c, data);
  if (const auto* g = std::get_if<ops::GemmProblem>(&p)) return gemm_run(*g, data);
  return layernorm_run(std::get<ops::LayerNormProblem>(p), data);
}

}  // namespace boo::reference
