#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "boo/tune/result_csv.h"
#include "boo/tune/stats.h"

namespace boo::tune {
namespace {

TEST(TimingStats, MedianMeanStddev) {
  const double s[] = {4.0, 1.0, 3.0, 2.0};
  const TimingStats t = timing_stats(s);
  EXPECT_EQ(t.samples, 4);
  EXPECT_DOUBLE_EQ(t.min_us, 1.0);
  EXPECT_DOUBLE_EQ(t.max_us, 4.0);
  EXPECT_DOUBLE_EQ(t.median_us, 2.5);
  EXPECT_DOUBLE_EQ(t.mean_us, 2.5);
  EXPECT_DOUBLE_EQ(t.stddev_us, std::sqrt(1.25));
  EXPECT_EQ(format_timing(t), "min=1.00us max=4.00us mean=2.50us median=2.50us stddev=1.12us");
  const double odd[] = {5.0, 1.0, 9.0};
  EXPECT_DOUBLE_EQ(timing_stats(odd).median_us, 5.0);
  EXPECT_EQ(timing_stats({}).samples, 0);
}

TEST(ResultCsv, HeaderAndQuoting) {
  EXPECT_EQ(result_csv_header(),
            "command,key,backend,algorithm,config,median_us,min_us,max_us,floor_us,flops,bytes,"
            "rel_error,passed,device,date");
  EXPECT_EQ(csv_escape("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_escape("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_escape("plain"), "plain");
  ResultRow r;
  r.command = "- {function: matmul, M: 1}";
  r.key = "k";
  r.backend = "reference";
  r.median_us = 1.5;
  r.rel_error = 0.001;
  r.passed = true;
  r.device = "cpu";
  r.date = "2026-11-22";
  EXPECT_EQ(to_csv_line(r),
            "\"- {function: matmul, M: 1}\",k,reference,,,1.5,0,0,0,0,0,0.001,true,cpu,2026-11-22");
  r.rel_error.reset();
  r.passed.reset();
  EXPECT_NE(to_csv_line(r).find(",0,,,cpu,"), std::string::npos);
}

TEST(ResultCsv, WriterWritesHeaderAndRows) {
  char path[] = "/tmp/boo_csv_XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  {
    auto w = ResultCsvWriter::open(path);
    ASSERT_TRUE(w.has_value());
    ResultRow r;
    r.key = "x";
    ASSERT_TRUE(w->write(r).is_ok());
  }
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  EXPECT_EQ(text.substr(0, result_csv_header().size()), result_csv_header());
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2);
  std::remove(path);
  EXPECT_FALSE(ResultCsvWriter::open("/nonexistent/dir/x.csv").has_value());
}

}  // namespace
}  // namespace boo::tune
