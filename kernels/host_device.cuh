// BOO_HD: __host__ __device__ under nvcc, nothing in plain C++, for the plan headers that both a
// kernel and host code (dispatch's models, host unit tests) include.
#pragma once

#if defined(__CUDACC__)
#define BOO_HD __host__ __device__
#else
#define BOO_HD
#endif
