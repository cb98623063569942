// Bad input to `tileplan tile` and `tileplan devices`: one line on stderr that
// names the flag (or file and line) and the rule, exit status 2, nothing on stdout.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "bad_input.hpp"

namespace tileplan::test {
namespace {

class TileBadInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(TileBadInput, OneLineExitTwo) {
  expect_usage_error(run_cli(GetParam().args), GetParam().args, GetParam().mentions);
}

INSTANTIATE_TEST_SUITE_P(
    Flags, TileBadInput,
    ::testing::Values(BadInput{"tile --m 0", "--m"}, BadInput{"tile --n -4", "--n"}, BadInput{"tile --k abc", "--k"},
                      BadInput{"tile --m 12.5", "--m"}, BadInput{"tile --m ''", "--m"},
                      BadInput{"tile --m 99999999999999999999", "--m"},
                      BadInput{"tile --m 2000000000 --n 2000000000 --k 2000000000", "64 bits"},
                      BadInput{"tile --m 4294967296", "--m"}, BadInput{"tile --instr tensor", "--instr"},
                      BadInput{"tile --device h300", "--device"}, BadInput{"tile --sm-count 0", "--sm-count"},
                      BadInput{"tile --sm-count -1", "--sm-count"}, BadInput{"tile --smem-kb 0", "--smem-kb"},
                      BadInput{"tile --smem-kb 99999999999999", "--smem-kb"},
                      BadInput{"tile --device h100-sxm --power-budget -1", "--power-budget"},
                      BadInput{"tile --device h100-sxm --power-budget nan", "--power-budget"},
                      BadInput{"tile --device h100-sxm --power-budget inf", "--power-budget"},
                      BadInput{"tile --power-budget 636W", "--power-budget"},
                      BadInput{"tile --power-budget ''", "--power-budget"},
                      BadInput{"tile --device h100-sxm --power-budget 1e7", "--power-budget"},
                      BadInput{"tile --power-budget 500", "--power-budget 500: device 'h200' has no measured energy"},
                      BadInput{"validate " TILEPLAN_SOURCE_DIR "/data/h100-triton-pad1 --power-budget -0.5", "--power-budget"},
                      BadInput{"validate " TILEPLAN_SOURCE_DIR "/data/h200-triton-v47 --power-budget 700",
                               "--power-budget 700: device 'h200' has no measured energy"},
                      BadInput{"validate nowhere --power-budget 7OO", "--power-budget '7OO' is not a number"},
                      BadInput{"tile --block-m ''", "--block-m"}, BadInput{"tile --block-n 64,,128", "--block-n"},
                      BadInput{"tile --block-k 0", "--block-k"}, BadInput{"tile --stages 2,x", "--stages"},
                      BadInput{"tile --threads 1048576", "--threads"}, BadInput{"tile --block-m 64,", "--block-m"},
                      BadInput{"tile --topk -1", "--topk"}, BadInput{"tile --format xml", "--format"},
                      BadInput{"tile --model magic", "--model"},
                      BadInput{"tile --diagnose --block-m 64,128", "--block-m"},
                      BadInput{"tile --unknown-flag", "--unknown-flag"}, BadInput{"", "subcommand"},
                      BadInput{"devices --device nope", "--device"},
                      // A space of 2^64 configurations wrapped a 64-bit count to 0 and hung; 10^9 ran out of memory.
                      BadInput{"tile --block-m $(seq -s, 1 4096) --block-n $(seq -s, 1 4096) "
                               "--block-k $(seq -s, 1 4096) --stages $(seq -s, 1 4096) --threads $(seq -s, 1 4096)",
                               "the search space (--block-m x --block-n x --block-k x --stages x --threads x --split-k) holds "
                               "more than 1048576 configurations"},
                      BadInput{"tile --block-m $(seq -s, 1 1000) --block-n $(seq -s, 1 1000) --block-k $(seq -s, 1 1000)",
                               "a sweep walks at most 1048576"},
                      BadInput{"tile --family cutlass", "--family 'cutlass' is not one of: seed, triton"},
                      BadInput{"tile --family-file /nonexistent.json", "--family-file '/nonexistent.json' cannot be opened"},
                      BadInput{"tile --family-file /tmp", "--family-file"},
                      BadInput{"tile --family triton --family-file x.json", "cannot be combined"},
                      BadInput{"tile --model seed --family-file x.json", "--family-file needs --model calibrated"},
                      BadInput{"families --family nope", "--family 'nope'"},
                      BadInput{"families --family-file /nonexistent.json", "--family-file"},
                      // Split-K: zero, negative and non-numbers name the flag; a split
                      // beyond the K tiles of the one diagnosed configuration is an error
                      // (in a sweep it is a C4 failure); the seed model never splits.
                      BadInput{"tile --split-k 0", "--split-k value 0 must be at least 1"},
                      BadInput{"tile --split-k -4", "--split-k value -4 must be at least 1"},
                      BadInput{"tile --split-k 2,x", "--split-k"}, BadInput{"tile --split-k ''", "--split-k"},
                      BadInput{"tile --split-k 65537", "--split-k value 65537 must be at most 65536"},
                      BadInput{"tile --diagnose --split-k 2,4", "--split-k: --diagnose takes exactly one value"},
                      BadInput{"tile --diagnose --k 256 --block-k 64 --split-k 8",
                               "--split-k 8 exceeds the 4 K tiles of K 256 in block_k 64"},
                      BadInput{"tile --model seed --split-k 1,2", "the seed model (the reference procedure) has no split-K"},
                      BadInput{"tile --model seed --diagnose --split-k 2", "--split-k 2: the seed model"}),
    case_name);

// Shapes files: each malformed line is named by file and line number.
class ShapesBadInput : public ::testing::TestWithParam<std::pair<const char*, const char*>> {};

TEST_P(ShapesBadInput, NamesTheLine) {
  const auto& [content, mentions] = GetParam();
  const std::string path = "/tmp/tileplan_bad_shapes_" + std::to_string(::getpid()) + ".txt";
  {
    std::ofstream f(path);
    f << content;
  }
  // The file is read whole before anything is planned, whatever is written.
  for (const char* mode : {"", " --format text", " --emit triton"}) {
    const CliResult r = run_cli("tile --shapes " + path + mode);
    expect_usage_error(r, std::string(content) + mode, mentions);
    EXPECT_TRUE(r.out.empty()) << mode << ": " << r.out;
  }
  std::remove(path.c_str());
}

INSTANTIATE_TEST_SUITE_P(
    Files, ShapesBadInput,
    ::testing::Values(std::pair{"4096 4096 4096\n128 4096\n", ":2:"}, std::pair{"# only comments\n\n", "no shapes"},
                      std::pair{"1 2 3 4\n", ":1:"}, std::pair{"64 64 64\n\n0 64 64\n", ":3:"},
                      std::pair{"64 x 64\n", ":1:"}, std::pair{"64,64,-1\n", ":1:"},
                      std::pair{"3000000000 1 1\n", ":1:"}, std::pair{"64;64;64\n", ":1:"},
                      std::pair{"2000000000 2000000000 2000000000\n", "64 bits"}),
    [](const auto& info) { return "Line" + std::to_string(info.index); });

// An endless line (no newline, ever) is refused at the line limit, in bounded time and memory.
TEST(ShapesBadInput, EndlessLine_RefusedAtTheLimit) {
  expect_usage_error(run_cli("tile --shapes /dev/zero"), "/dev/zero", "/dev/zero:1: the line is longer than 4096 bytes");
}

// overlap_power, the order of the smooth maximum: 0 (the plain maximum) or
// 1 to 64, a number; in the float16 section and in a type's override alike.
TEST(FamilyBadInput, OverlapPowerOutOfRange_NamesTheConstant) {
  std::ifstream in(source_path("data/families/triton.json"));
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string shipped = ss.str();
  const std::string key = "\"overlap_power\": {";
  const std::size_t fp16 = shipped.find(key, shipped.find("\"time\": {\n    \"constants\""));
  const std::size_t fp8 = shipped.find(key);
  ASSERT_NE(fp16, std::string::npos);
  ASSERT_NE(fp8, std::string::npos);
  ASSERT_NE(fp8, fp16);  // by_input_type comes first in the file
  const std::string path = "/tmp/tileplan_bad_overlap_" + std::to_string(::getpid()) + ".json";
  for (const std::size_t at : {fp16, fp8})
    for (const char* bad : {"0.5", "65", "-1", "\"x\"", "null", "true"}) {
      std::string text = shipped;
      const std::size_t value = text.find("\"value\": ", at) + 9;
      const std::size_t end = text.find_first_of(",\n}", value);
      text.replace(value, end - value, bad);
      {
        std::ofstream f(path);
        f << text;
      }
      const CliResult r = run_cli("tile --family-file " + path);
      expect_usage_error(r, std::string(bad) + (at == fp16 ? " (float16)" : " (float8_e4m3)"), "overlap_power");
    }
  std::remove(path.c_str());
}

TEST(FamilyBadInput, MalformedFamilyFile_NamesTheKey) {
  const std::string path = "/tmp/tileplan_bad_family_" + std::to_string(::getpid()) + ".json";
  {
    std::ofstream f(path);
    f << R"({"format": "tileplan-family", "version": 1, "name": "x"})";
  }
  expect_usage_error(run_cli("tile --family-file " + path), path, "--family-file " + path + ": 'kernel' is missing");
  std::remove(path.c_str());
}

TEST(ShapesBadInput, UnreadableFile) {
  const CliResult r = run_cli("tile --shapes /nonexistent/shapes.txt");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--shapes"), std::string::npos) << r.err;
  EXPECT_EQ(count_lines(r.err), 1);
}

TEST(ShapesBadInput, DirectoryIsNotAFile) {
  const CliResult r = run_cli("tile --shapes /tmp");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
}

TEST(ShapesBadInput, AnEmptyFileInEveryFormat) {
  for (const char* format : {"text", "csv", "json"}) {
    const CliResult r = run_cli(std::string("tile --shapes /dev/null --format ") + format);
    EXPECT_EQ(r.status, 2) << format;
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("holds no shapes"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << format << ": " << r.out;
  }
  const CliResult x = run_cli("tile --shapes /dev/null --format xml");
  EXPECT_EQ(x.status, 2);
  EXPECT_EQ(count_lines(x.err), 1) << x.err;
}

TEST(TileBadOutput, UnwritableOutputFile) {
  const CliResult r = run_cli("tile --output /nonexistent/dir/out.txt");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--output"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace tileplan::test
