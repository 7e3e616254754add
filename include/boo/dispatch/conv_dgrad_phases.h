// conv.sm90_implicit's stride phases (configs "_phases", kernels/conv_dgrad_phases.cuh): backward
// data that CUTLASS 4.2's sm90 dgrad does not take (a stride above 1, or tf32, whose dgrad would
// read an MN-major operand) as one stride-1 forward convolution of dy per phase of dx (the
// positions a + s m along each dimension), each over the taps that meet its phase, turned around
// (kernels/conv_dgrad_phases_plan.cuh has the arithmetic, which this file shares).
#pragma once

#include <string>
#include <vector>

#include "boo/core/status.h"
#include "boo/dispatch/gemm_algorithms.h"
#include "boo/ops/conv_problem.h"
#include "boo/space/conv_sm90.h"

namespace boo::dispatch {

// Whether the stride phases take the problem: backward data, one group, strides of at most 3
// (boo_kernels::kDgradMaxStride),
// each phase a problem conv.sm90_implicit takes as a forward convolution (channels that are not
// 16-byte vectors padded first: conv.padded_channels' configs); and only where its own dgrad
// does not (a stride above 1, or fp32).
core::Status conv_dgrad_phases_supports(const ops::ConvProblem& p);

// Whether C and K are whole 16-byte vectors (conv.sm90_implicit's configs), else the problem with
// them padded (conv.padded_channels').
bool channels_aligned(const ops::ConvProblem& p);
ops::ConvProblem channel_padded(const ops::ConvProblem& p);

// The forward convolutions of the phases some tap meets (dy's K channels in, C out; the lower
// padding as the padding: the model's approximation of each phase's asymmetric padding).
std::vector<ops::ConvProblem> dgrad_phase_problems(const ops::ConvProblem& p);

// Their predicted times on the config's forward twin, plus the turned filters and the gather of
// the phases' buffers into dx.
double predict_conv_dgrad_phases_us(const ops::ConvProblem& p, const space::ConvSm90Config& c,
                                    const DeviceModel& d, std::string* why = nullptr);

// conv.sm90_implicit's configs for the stride phases: the forward class's space, each config
// carrying the backward-data class and the phases flag.
std::vector<space::ConvSm90Config> dgrad_phases_space(const ops::ConvProblem& p,
                                                      space::RuleSet rules);

}  // namespace boo::dispatch
