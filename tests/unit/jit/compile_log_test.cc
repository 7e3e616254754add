#include "boo/jit/compile_log.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

namespace boo::jit {
namespace {

TEST(CompileLog, SpillsOfEveryFunctionAddUp) {
  // What ptxas printed for boo's fp8 128x256 cooperative kernel (CUDA 13.0, -warn-spills), one
  // line per function, among other output.
  const std::string log =
      "some/path.cu(12): warning #177-D: variable \"x\" was declared but never referenced\n"
      "ptxas warning : Registers are spilled to local memory in function "
      "'_ZN7cutlass13device_kernelIN4gemm6kernelEEEvNT_6ParamsE', 824 bytes spill stores, 600 "
      "bytes spill loads\n"
      "ptxas warning : Registers are spilled to local memory in function '_Z1kPfPKf', 644 bytes "
      "spill stores, 692 bytes spill loads\n";
  const SpillReport s = spills_in_log(log);
  EXPECT_TRUE(s.any());
  EXPECT_EQ(s.functions, 2);
  EXPECT_EQ(s.store_bytes, 824 + 644);
  EXPECT_EQ(s.load_bytes, 600 + 692);
  EXPECT_EQ(describe(s), "1468 bytes of spill stores, 1292 of spill loads, in 2 functions");
}

TEST(CompileLog, NoSpillLineNoSpills) {
  EXPECT_FALSE(spills_in_log("").any());
  // -Xptxas -v's resource lines mention spills with zero bytes: not a warning, not a spill.
  const SpillReport s = spills_in_log(
      "ptxas info    : Used 168 registers, used 2 barriers\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n");
  EXPECT_FALSE(s.any());
  EXPECT_EQ(s.store_bytes, 0);
  // A warning whose byte counts are missing still counts the function.
  const SpillReport odd =
      spills_in_log("ptxas warning : Registers are spilled to local memory in function 'f'\n");
  EXPECT_EQ(odd.functions, 1);
  EXPECT_EQ(odd.store_bytes, 0);
  EXPECT_EQ(describe(odd), "0 bytes of spill stores, 0 of spill loads, in 1 function");
}

TEST(CompileLog, SpillsFromALogFile) {
  const std::string path = ::testing::TempDir() + "/compile_log_test.log";
  {
    std::ofstream out(path);
    out << "ptxas warning : Registers are spilled to local memory in function 'f', 4 bytes spill "
           "stores, 4 bytes spill loads\n";
  }
  EXPECT_EQ(spills_in_log_file(path).store_bytes, 4);
  std::remove(path.c_str());
  EXPECT_FALSE(spills_in_log_file(path).any());  // missing: no spills, no error
}

TEST(CompileLog, WarpgroupMmaWaitsAndSerializationsButNotFences) {
  // What ptxas (CUDA 13.0, no -v) printed for a first form of the overlapped fp8 promotion, and
  // for conv.sm90_taps (an injected arrive: a fence, not a wait), with the serialization note
  // it prints for other kernels.
  const std::string log =
      "ptxas info    : (C7517) warpgroup.wait is injected in around line 1652 by compiler to "
      "allow use of registers defined by GMMA in function '_ZN7cutlass13device_kernelIvEEvv'\n"
      "ptxas info    : (C7519) warpgroup.arrive is injected in around line 5819 by compiler to "
      "allow use of registers in GMMA in function '_ZN11boo_kernels22conv_taps_wgmma_kernelEv'\n"
      "ptxas info    : (C7510) Potential Performance Loss: wgmma.mma_async instructions are "
      "serialized due to the presence of Extern calls in the function '_Z1kv'\n";
  EXPECT_EQ(mma_waits_in_log(log), 2);
  EXPECT_EQ(mma_waits_in_log(""), 0);
  EXPECT_EQ(mma_waits_in_log(log.substr(
                log.find("ptxas info    : (C7519)"),
                log.find("ptxas info    : (C7510)") - log.find("ptxas info    : (C7519)"))),
            0);
  EXPECT_EQ(mma_wait_warning("gemm.k", 1, "; log: x.log"),
            "gemm.k waits for its warpgroup MMAs where ptxas made it (1 place in the compile "
            "log; log: x.log)");
  const std::string path = ::testing::TempDir() + "/compile_log_mma_test.log";
  {
    std::ofstream out(path);
    out << log;
  }
  EXPECT_EQ(mma_waits_in_log_file(path), 2);
  std::remove(path.c_str());
  EXPECT_EQ(mma_waits_in_log_file(path), 0);  // missing: none, no error
}

TEST(CompileLog, FirstErrorLine) {
  EXPECT_EQ(first_error_line("note\n  k.cu(3): error: identifier \"x\" is undefined  \nmore\n"),
            "k.cu(3): error: identifier \"x\" is undefined");
  EXPECT_EQ(first_error_line("all fine\n"), "see the log");
}

}  // namespace
}  // namespace boo::jit
