// What the convolution dispatch tests share: a problem from a MIOpenDriver command, the NHWC
// layout flags, and a fixture with a GEMM dispatcher over the fake compiler's cache and a
// convolution dispatcher (optionally forced to one config).
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <variant>

#include "../jit/jit_test_util.h"
#include "boo/dispatch/conv_dispatcher.h"
#include "boo/parse/registry.h"

namespace boo::dispatch::testing {

inline ops::ConvProblem conv(const std::string& command) {
  auto parsed = parse::make_default_registry().parse(command);
  EXPECT_TRUE(parsed.has_value()) << parsed.status().message();
  return std::get<ops::ConvProblem>(parsed->problems.front());
}

inline constexpr const char* kNhwc = " --in_layout NHWC --out_layout NHWC --fil_layout NHWC";

class ConvDispatchFixture : public boo::testing::FakeCacheTest {
 protected:
  void SetUp() override {
    FakeCacheTest::SetUp();
    gemm_ = std::make_unique<GemmDispatcher>(*cache_, nullptr, DeviceModel{});
  }
  ConvDispatcher dispatcher(const std::string& force = "") {
    DispatchOptions o;
    o.force_config = force;
    return ConvDispatcher(*cache_, nullptr, *gemm_, o);
  }
  // A dispatcher built with the environment variable `name` set to `value` (unset again after):
  // the BOO_CONV_* switches are read when a dispatcher is built.
  ConvDispatcher dispatcher_with(const char* name, const char* value) {
    setenv(name, value, 1);
    ConvDispatcher d = dispatcher();
    unsetenv(name);
    return d;
  }
  std::unique_ptr<GemmDispatcher> gemm_;
};

}  // namespace boo::dispatch::testing
