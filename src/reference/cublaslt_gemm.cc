#include "boo/reference/cublaslt_gemm.h"

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <vector>

#include "boo/reference/cublaslt_algo_text.h"
#include "boo/reference/gpu_reference.h"
#include "boo/runtime/cuda.h"

namespace boo::reference {
namespace {

// The candidates are timed as the benchmark times the winner (DESIGN.md §7), interleaved sample
// by sample: each sample behind a hold and a read sweep (gpu::before_cold_sample), clocks
// ramped first. With warm operands, 5 samples, no hold
// and no ramp, cuBLASLt's pick once ran 14% slower than its usual one (3072 x 4096 x 768 +gelu:
// 39.0 us against 34.3, H200, bench/results/2026-11-30-vendor-kernels-h200.md).
constexpr int kWarmups = 3;
constexpr int kSamples = 9;
// cuBLASLt's host cost per call is tens of microseconds at most (cuDNN's legacy API needs the
// benchmark's 1000: tune/bench.h).
constexpr double kHoldUs = 200.0;

core::Status lt(cublasStatus_t s, const char* what) {
  if (s == CUBLAS_STATUS_SUCCESS) return core::Status::ok();
  return core::unavailable(std::string("cuBLASLt ") + what +
                           " failed: " + cublasLtGetStatusString(s));
}

cudaDataType_t cuda_type(core::DType t) {
  switch (t) {
    case core::DType::kF32:
      return CUDA_R_32F;
    case core::DType::kF16:
      return CUDA_R_16F;
    case core::DType::kBF16:
      return CUDA_R_16BF;
    case core::DType::kF8E4M3:
      return CUDA_R_8F_E4M3;
    case core::DType::kF8E5M2:
      return CUDA_R_8F_E5M2;
  }
  return CUDA_R_32F;
}

}  // namespace

struct CublasLtGemm::State {
  cublasLtHandle_t handle = nullptr;
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr, d = nullptr;
  cublasLtMatmulAlgo_t algo{};
  runtime::DeviceBuffer workspace;
  ops::GemmProblem problem;
  bool prepared = false;
  bool separate_epilogue = false;  // bias and/or activation by a separate kernel
  float alpha = 1.0f;
  float beta = 0.0f;

  void release_descriptors() {
    if (op) cublasLtMatmulDescDestroy(op);
    for (auto* l : {&a, &b, &c, &d}) {
      if (*l) cublasLtMatrixLayoutDestroy(*l);
      *l = nullptr;
    }
    op = nullptr;
    prepared = false;
  }
  ~State() {
    release_descriptors();
    if (handle) cublasLtDestroy(handle);
  }
};

core::Expected<std::unique_ptr<CublasLtGemm>> CublasLtGemm::create(int64_t workspace_bytes) {
  std::unique_ptr<CublasLtGemm> g(new CublasLtGemm());
  g->state_ = std::make_unique<State>();
  BOO_RETURN_IF_ERROR(lt(cublasLtCreate(&g->state_->handle), "cublasLtCreate"));
  BOO_ASSIGN_OR_RETURN(g->state_->workspace, runtime::DeviceBuffer::allocate(workspace_bytes));
  return g;
}

CublasLtGemm::~CublasLtGemm() = default;

core::Status CublasLtGemm::prepare(const ops::GemmProblem& p, const dispatch::GemmPointers& ptrs,
                                   void* stream, int candidates) {
  // cuBLASLt's fused epilogue first; where it rejects the combination (e.g. an fp32 bias with a
  // bf16 output), the plain GEMM followed by a bias/activation kernel, as a user would.
  core::Status s = configure(p, ptrs, stream, candidates, /*fused=*/true);
  if (!s.is_ok() && (p.bias || p.activation != ops::Activation::kNone)) {
    s = configure(p, ptrs, stream, candidates, /*fused=*/false);
  }
  return s;
}

core::Status CublasLtGemm::configure(const ops::GemmProblem& p, const dispatch::GemmPointers& ptrs,
                                     void* stream, int candidates, bool fused) {
  State& s = *state_;
  s.release_descriptors();
  s.problem = p;
  const bool fp8 = core::is_fp8(p.a_type);
  if (fp8 && (p.trans_a != ops::Transpose::kT || p.trans_b != ops::Transpose::kN)) {
    return core::unsupported("cuBLASLt baseline: fp8 needs transA T and transB N");
  }
  if (p.alpha_vector && p.alpha != 1.0) {
    return core::unsupported("cuBLASLt baseline: an alpha vector with alpha != 1");
  }
  const cublasComputeType_t compute =
      p.math == core::MathMode::kTF32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  BOO_RETURN_IF_ERROR(lt(cublasLtMatmulDescCreate(&s.op, compute, CUDA_R_32F), "MatmulDescCreate"));
  const cublasOperation_t ta = p.trans_a == ops::Transpose::kT ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t tb = p.trans_b == ops::Transpose::kT ? CUBLAS_OP_T : CUBLAS_OP_N;
  BOO_RETURN_IF_ERROR(
      lt(cublasLtMatmulDescSetAttribute(s.op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof(ta)),
         "set TRANSA"));
  BOO_RETURN_IF_ERROR(
      lt(cublasLtMatmulDescSetAttribute(s.op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof(tb)),
         "set TRANSB"));
  // cuBLASLt's fused epilogues: bias, relu, gelu (tanh form) and their bias variants.
  cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_DEFAULT;
  const bool act_fused =
      fused && (p.activation == ops::Activation::kNone || p.activation == ops::Activation::kRelu ||
                p.activation == ops::Activation::kGeluTanh);
  s.separate_epilogue = !act_fused && (p.bias || p.activation != ops::Activation::kNone);
  if (act_fused) {
    if (p.activation == ops::Activation::kRelu) {
      epilogue = p.bias ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_RELU;
    } else if (p.activation == ops::Activation::kGeluTanh) {
      epilogue = p.bias ? CUBLASLT_EPILOGUE_GELU_BIAS : CUBLASLT_EPILOGUE_GELU;
    } else if (p.bias) {
      epilogue = CUBLASLT_EPILOGUE_BIAS;
    }
    if (p.bias) {
      const cudaDataType_t bt = cuda_type(p.bias_type);
      BOO_RETURN_IF_ERROR(lt(cublasLtMatmulDescSetAttribute(
                                 s.op, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bt, sizeof(bt)),
                             "set BIAS_DATA_TYPE"));
      BOO_RETURN_IF_ERROR(lt(cublasLtMatmulDescSetAttribute(s.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                                                            &ptrs.bias, sizeof(ptrs.bias)),
                             "set BIAS_POINTER"));
    }
  }
  BOO_RETURN_IF_ERROR(lt(cublasLtMatmulDescSetAttribute(s.op, CUBLASLT_MATMUL_DESC_EPILOGUE,
                                                        &epilogue, sizeof(epilogue)),
                         "set EPILOGUE"));
  if (!fp8 && (p.scale_a != ops::ScaleMode::kNone || p.scale_b != ops::ScaleMode::kNone)) {
    return core::unsupported("cuBLASLt baseline: per-tensor scales need fp8 operands");
  }
  if (fp8 && ptrs.alpha_scale != nullptr) {
    // boo keeps scaleA * scaleB as one device scalar; cuBLASLt reads it as the A scale.
    BOO_RETURN_IF_ERROR(
        lt(cublasLtMatmulDescSetAttribute(s.op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER,
                                          &ptrs.alpha_scale, sizeof(ptrs.alpha_scale)),
           "set A_SCALE_POINTER"));
  }
  if (p.alpha_vector) {
    const cublasLtPointerMode_t mode = CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_HOST;
    BOO_RETURN_IF_ERROR(lt(cublasLtMatmulDescSetAttribute(s.op, CUBLASLT_MATMUL_DESC_POINTER_MODE,
                                                          &mode, sizeof(mode)),
                           "set POINTER_MODE"));
  }
  auto layout = [&](cublasLtMatrixLayout_t* l, core::DType t, int64_t rows, int64_t cols,
                    int64_t ld, int64_t stride) -> core::Status {
    BOO_RETURN_IF_ERROR(lt(cublasLtMatrixLayoutCreate(l, cuda_type(t), static_cast<uint64_t>(rows),
                                                      static_cast<uint64_t>(cols), ld),
                           "MatrixLayoutCreate"));
    if (p.batch > 1) {
      const int32_t count = static_cast<int32_t>(p.batch);
      BOO_RETURN_IF_ERROR(lt(cublasLtMatrixLayoutSetAttribute(
                                 *l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count)),
                             "set BATCH_COUNT"));
      BOO_RETURN_IF_ERROR(
          lt(cublasLtMatrixLayoutSetAttribute(*l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                                              &stride, sizeof(stride)),
             "set STRIDED_BATCH_OFFSET"));
    }
    return core::Status::ok();
  };
  BOO_RETURN_IF_ERROR(layout(&s.a, p.a_type, p.a_rows(), p.a_cols(), p.lda, p.stride_a));
  BOO_RETURN_IF_ERROR(layout(&s.b, p.b_type, p.b_rows(), p.b_cols(), p.ldb, p.stride_b));
  BOO_RETURN_IF_ERROR(layout(&s.c, p.c_type, p.m, p.n, p.reads_c() ? p.ldc : p.ldd,
                             p.reads_c() ? p.stride_c : p.stride_d));
  BOO_RETURN_IF_ERROR(layout(&s.d, p.d_type, p.m, p.n, p.ldd, p.stride_d));

  cublasLtMatmulPreference_t pref = nullptr;
  BOO_RETURN_IF_ERROR(lt(cublasLtMatmulPreferenceCreate(&pref), "PreferenceCreate"));
  const uint64_t ws = static_cast<uint64_t>(s.workspace.bytes());
  cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws,
                                       sizeof(ws));
  std::vector<cublasLtMatmulHeuristicResult_t> results(static_cast<size_t>(candidates));
  int found = 0;
  const cublasStatus_t hs = cublasLtMatmulAlgoGetHeuristic(s.handle, s.op, s.a, s.b, s.c, s.d, pref,
                                                           candidates, results.data(), &found);
  cublasLtMatmulPreferenceDestroy(pref);
  BOO_RETURN_IF_ERROR(lt(hs, "AlgoGetHeuristic"));
  if (found == 0) return core::unsupported("cuBLASLt has no algorithm for this problem");
  s.alpha = static_cast<float>(p.alpha);
  s.beta = static_cast<float>(p.beta);
  s.prepared = true;
  // Time the candidates on the real operands (kWarmups, then the median of kSamples each,
  // interleaved); keep the fastest.
  BOO_ASSIGN_OR_RETURN(auto timer, runtime::EventTimer::create());
  // The sweep's buffer lives while the candidates are timed only (boo's own problems may need
  // the memory); without it they are timed with a warm L2.
  runtime::DeviceBuffer sweep, sink;
  auto sweep_buffer = runtime::DeviceBuffer::allocate(gpu::kColdSweepBytes);
  auto sink_buffer = runtime::DeviceBuffer::allocate(16);
  if (sweep_buffer.has_value() && sink_buffer.has_value()) {
    sweep = std::move(sweep_buffer).value();
    sink = std::move(sink_buffer).value();
    BOO_RETURN_IF_ERROR(sweep.fill_bytes(0, stream));
  } else {
    (void)cudaGetLastError();  // (the refused allocation's error)
  }
  BOO_RETURN_IF_ERROR(gpu::ramp_clocks(sweep.data(), sweep.bytes(), sink.data(), stream));
  std::vector<std::vector<double>> samples(static_cast<size_t>(found));
  std::vector<bool> failed(static_cast<size_t>(found), false);
  core::Status last_failure = core::Status::ok();
  for (int r = 0; r < kWarmups + kSamples; ++r) {
    for (int i = 0; i < found; ++i) {
      if (failed[i]) continue;
      s.algo = results[i].algo;
      BOO_RETURN_IF_ERROR(
          gpu::before_cold_sample(kHoldUs, sweep.data(), sweep.bytes(), sink.data(), stream));
      BOO_RETURN_IF_ERROR(timer->start(stream));
      if (core::Status st = run(ptrs, stream); !st.is_ok()) {
        // A candidate that fails to launch leaves its error behind; the next launch in the
        // process (boo's or cuBLASLt's) would report it as its own.
        (void)cudaGetLastError();
        failed[i] = true;
        last_failure = st;
      }
      BOO_RETURN_IF_ERROR(timer->stop(stream));
      BOO_ASSIGN_OR_RETURN(double us, timer->elapsed_us());
      if (r >= kWarmups) samples[i].push_back(us);
    }
  }
  double best = 1e30;
  int best_index = 0;
  for (int i = 0; i < found; ++i) {
    if (failed[i]) continue;
    std::vector<double>& v = samples[i];
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    if (v[v.size() / 2] < best) {
      best = v[v.size() / 2];
      best_index = i;
    }
  }
  if (best >= 1e30) {
    s.prepared = false;
    return core::unavailable("no cuBLASLt algorithm ran for this problem (the last failure: " +
                             last_failure.message() + ")");
  }
  s.algo = results[best_index].algo;
  CublasLtAlgoConfig config;
  // (An attribute cuBLASLt does not report keeps its default: UNDEFINED, AUTO, 1, 0.)
  const auto get = [&](cublasLtMatmulAlgoConfigAttributes_t attr, auto* value) {
    size_t written = 0;
    auto v = *value;
    if (cublasLtMatmulAlgoConfigGetAttribute(&s.algo, attr, &v, sizeof(v), &written) ==
            CUBLAS_STATUS_SUCCESS &&
        written == sizeof(v)) {
      *value = v;
    }
  };
  get(CUBLASLT_ALGO_CONFIG_ID, &config.id);
  get(CUBLASLT_ALGO_CONFIG_TILE_ID, &config.tile);
  get(CUBLASLT_ALGO_CONFIG_STAGES_ID, &config.stages);
  uint16_t cluster = 0;  // (uint16_t in the header, unlike the others)
  get(CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, &cluster);
  config.cluster = cluster;
  get(CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &config.split_k);
  get(CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &config.reduction);
  get(CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, &config.swizzle);
  description_ = "cuBLASLt " + cublaslt_algo_text(config) + " (fastest of " +
                 std::to_string(found) + " heuristic candidates timed)";
  if (s.separate_epilogue) {
    description_ += " + separate " + std::string(ops::activation_name(p.activation)) +
                    (p.bias ? "+bias" : "") + " kernel";
  }
  return core::Status::ok();
}

core::Status CublasLtGemm::run(const dispatch::GemmPointers& ptrs, void* stream) {
  State& s = *state_;
  if (!s.prepared) return core::internal_error("CublasLtGemm::run before prepare");
  const void* alpha = s.problem.alpha_vector ? static_cast<const void*>(ptrs.alpha_vector)
                                             : static_cast<const void*>(&s.alpha);
  const void* c = s.problem.reads_c() ? ptrs.c : ptrs.d;
  BOO_RETURN_IF_ERROR(
      lt(cublasLtMatmul(s.handle, s.op, alpha, ptrs.a, s.a, ptrs.b, s.b, &s.beta, c, s.c, ptrs.d,
                        s.d, &s.algo, s.workspace.data(), static_cast<size_t>(s.workspace.bytes()),
                        static_cast<cudaStream_t>(stream)),
         "Matmul"));
  if (s.separate_epilogue) {
    return gpu::bias_activation(s.problem, ptrs.d, s.problem.bias ? ptrs.bias : nullptr,
                                s.problem.activation, stream);
  }
  return core::Status::ok();
}

}  // namespace boo::reference
