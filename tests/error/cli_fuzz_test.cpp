// Random command lines from hostile pieces (every subcommand, every flag,
// values that are empty, zero, negative, huge, overflowing, malformed or hold
// control characters): the tool answers each with exit 0, 1 (a requested
// check failed) or 2 (bad input: nothing on stdout, one line on stderr), in
// bounded time; never a signal, never exit 3, never a second line.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "bad_input.hpp"

namespace tileplan::test {
namespace {

std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

TEST(CliFuzz, RandomHostileCommandLines) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> commands = {
      {"tile", {"--m", "--n", "--k", "--instr", "--device", "--sm-count", "--smem-kb", "--power-budget", "--block-m", "--block-n",
                "--block-k", "--stages", "--threads", "--topk", "--model", "--family", "--family-file", "--emit",
                "--format", "--shapes", "--diagnose", "--dtype", "--out-dtype", "--a-layout", "--b-layout",
                "--lda", "--ldb", "--ldc"}},
      {"occupancy", {"--threads", "--regs", "--smem", "--smem-static", "--carveout", "--device", "--format"}},
      {"loop", {"--extents", "--threads", "--vector", "--format", "--points", "--origin", "--dtype", "--scope",
                "--buffer-shape", "--access", "--replicate", "--compare", "--device"}},
      {"validate", {"--split", "--family", "--format", "--max-top1-geomean", "--max-top1-worst", "--power-budget"}},
      {"devices", {"--device", "--format"}},
      {"families", {"--family", "--family-file", "--format"}},
  };
  const std::vector<std::string> values = {
      "", "0", "-1", "1", "3", "8", "64", "128", "256", "4096", "65536", "1048576", "2147483647", "2147483648",
      "4294967296", "9223372036854775807", "-9223372036854775808", "99999999999999999999", "+-64", "+64", " 64",
      "64 ", "1e3", "0x10", "abc", "64,128", ",", "64,,128", "128,128,128", "nan", "inf", "-inf", "1.5",
      "h200", "a100-sxm", "wgmma", "simt", "seed", "calibrated", "triton", "json", "csv", "svg", "text",
      "/dev/null", "/dev/zero", "/nonexistent", "/tmp", "float16", "bfloat16", "float8_e4m3", "float8_e5m2",
      "tfloat32", "float32", "row", "col", "4100", "a\nb", "\x1b[31mred", "\x01\x02", "96 32", "1,2,3"};
  std::mt19937_64 rng(20261130);
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  int runs = 0, usage_errors = 0;
  for (int i = 0; i < 160; ++i) {
    const auto& [name, flags] = commands[pick(commands.size())];
    std::string args = name;
    if (name == "validate") args += " " + std::string(TILEPLAN_SOURCE_DIR) + "/data/h200-triton-v4";
    const std::size_t n = 1 + pick(4);
    for (std::size_t f = 0; f < n; ++f) {
      const std::string& flag = flags[pick(flags.size())];
      args += " " + flag;
      if (flag != "--diagnose" && flag != "--compare" && flag != "--replicate") args += " " + quoted(values[pick(values.size())]);
    }
    const CliResult r = run_cli(args);
    ++runs;
    ASSERT_TRUE(r.status == 0 || r.status == 1 || r.status == 2) << args << "\nstatus " << r.status << "\n" << r.err;
    if (r.status != 0) {
      EXPECT_EQ(count_lines(r.err), 1) << args << "\n" << r.err;
      EXPECT_EQ(r.err.rfind("tileplan: ", 0), 0u) << args << "\n" << r.err;
      for (char c : r.err.substr(0, r.err.size() - 1))
        EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20) << args << ": raw control character in " << r.err;
    }
    if (r.status == 2) {
      ++usage_errors;
      EXPECT_TRUE(r.out.empty()) << args;
    }
  }
  EXPECT_EQ(runs, 160);
  EXPECT_GT(usage_errors, 40);
}

}  // namespace
}  // namespace tileplan::test
