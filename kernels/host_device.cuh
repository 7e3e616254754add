// BOO_HD: __host__ __device__ under nvcc, nothing in plain C++, for the plan headers that both a
// kernel and host code (dispatch's models, host unit tests) include; BOO_HD_UNROLL: `#pragma
// unroll` under nvcc.
#pragma once

#if defined(__CUDACC__)
#define BOO_HD __host__ __device__
#define BOO_HD_UNROLL _Pragma("unroll")
#else
#define BOO_HD
#define BOO_HD_UNROLL
#endif
