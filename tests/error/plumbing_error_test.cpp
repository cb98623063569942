// The CLI's plumbing under hostile input, for every subcommand: empty flag
// values, signs that are not part of a number, user text that would break the
// one error line or drive the terminal, output that cannot be written, and
// errors that are ours. Each bad-input case keeps the contract of
// bad_input.hpp: exit status 2, nothing on stdout, one line on stderr.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "bad_input.hpp"

namespace tileplan::test {
namespace {

// ---- empty values: "--flag ''" is an error, never the default ---------------

class EmptyValue : public ::testing::TestWithParam<BadInput> {};

TEST_P(EmptyValue, OneLineNamesTheFlag) {
  const CliResult r = run_cli(GetParam().args);
  expect_usage_error(r, GetParam().args, GetParam().mentions);
  EXPECT_NE(r.err.find("the value is empty"), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(
    Flags, EmptyValue,
    ::testing::Values(
        BadInput{"tile --shapes ''", "--shapes"}, BadInput{"tile --output ''", "--output"},
        BadInput{"tile -o ''", "--output"},
        BadInput{"tile --device ''", "--device"}, BadInput{"tile --format ''", "--format"},
        BadInput{"tile --family ''", "--family"}, BadInput{"tile --emit ''", "--emit"},
        BadInput{"tile --model ''", "--model"}, BadInput{"tile --instr ''", "--instr"},
        BadInput{"tile --topk ''", "--topk"}, BadInput{"tile --sm-count ''", "--sm-count"},
        BadInput{"tile --smem-kb ''", "--smem-kb"}, BadInput{"tile --diagnose --stages ''", "--stages"},
        BadInput{"devices --device ''", "--device"}, BadInput{"devices --format ''", "--format"},
        BadInput{"occupancy --threads 256 --regs 128 --smem ''", "--smem"},
        BadInput{"occupancy --threads 256 --regs 128 --carveout ''", "--carveout"},
        BadInput{"occupancy --threads '' --regs 128", "--threads"},
        BadInput{"loop --extents ''", "--extents"}, BadInput{"loop --extents 128 '' --threads 128", "--extents"},
        BadInput{"loop --vector ''", "--vector"}, BadInput{"loop --dtype ''", "--dtype"},
        BadInput{"loop --scope ''", "--scope"}, BadInput{"loop --buffer-shape ''", "--buffer-shape"},
        BadInput{"loop --access ''", "--access"}, BadInput{"loop --origin ''", "--origin"},
        BadInput{"loop --output ''", "--output"}, BadInput{"validate ''", "datasets"},
        BadInput{"validate data/h200-triton-v4 --split ''", "--split"},
        BadInput{"validate data/h200-triton-v4 --max-top1-geomean ''", "--max-top1-geomean"}),
    case_name);

// "--flag=" is CLI11's to reject ("1 required TEXT missing"): still one line naming the flag.
TEST(EmptyValue, EqualsSignWithNothingAfterIt) {
  for (const char* args : {"tile --output=", "tile --m=", "loop --extents=", "validate x --split="}) {
    const std::string flag = std::string(args).substr(std::string(args).find("--"));
    expect_usage_error(run_cli(args), args, flag.substr(0, flag.size() - 1));
  }
}

// Flags take no value: the empty-value rule leaves them alone.
TEST(EmptyValue, FlagsAreUnaffected) {
  for (const char* args : {"tile --diagnose", "loop --compare", "loop --extents 64 --threads 64 --replicate",
                           "loop --extents 8 8 --threads 32 --vector 2 --points"}) {
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.status, 0) << args << "\n" << r.err;
    EXPECT_TRUE(r.err.empty()) << args << ": " << r.err;
    EXPECT_FALSE(r.out.empty()) << args;
  }
}

// ---- integers: a sign directly before the first digit, nothing around it ----

class IntegerText : public ::testing::TestWithParam<BadInput> {};

TEST_P(IntegerText, IsNotAnInteger) {
  const CliResult r = run_cli(GetParam().args);
  expect_usage_error(r, GetParam().args, GetParam().mentions);
  EXPECT_NE(r.err.find("is not an integer"), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(
    Flags, IntegerText,
    ::testing::Values(BadInput{"tile --m +-64", "--m"}, BadInput{"tile --m -+64", "--m"},
                      BadInput{"tile --m +", "--m"}, BadInput{"tile --m ++64", "--m"},
                      BadInput{"tile --m '+ 64'", "--m"}, BadInput{"tile --m ' 64'", "--m"},
                      BadInput{"tile --m '64 '", "--m"}, BadInput{"tile --m \"$(printf '64\\t')\"", "--m"},
                      BadInput{"tile --block-m 64,+-128", "--block-m"}, BadInput{"tile --block-m '64, 128'", "--block-m"},
                      BadInput{"occupancy --threads 256 --regs +-128", "--regs"},
                      BadInput{"occupancy --threads 256 --regs 128 --smem +-1K", "--smem"},
                      BadInput{"loop --extents '+-8'", "--extents"}),
    case_name);

TEST(IntegerText, PlusBeforeADigitIsAccepted) {
  const CliResult plus = run_cli("tile --m +4096 --topk 1 --format json");
  const CliResult plain = run_cli("tile --m 4096 --topk 1 --format json");
  EXPECT_EQ(plus.status, 0) << plus.err;
  EXPECT_EQ(plus.out, plain.out);
}

// ---- the error line: escaped, one line, bounded ------------------------------

struct Hostile {
  std::string args;     // command line after `tileplan`, for /bin/sh
  std::string escaped;  // what the line must show instead of the raw bytes
  std::string absent;   // raw bytes that must not reach stderr
};

void PrintTo(const Hostile& h, std::ostream* os) { *os << h.args; }

class EscapedMessage : public ::testing::TestWithParam<Hostile> {};

TEST_P(EscapedMessage, OneLineNoRawControlBytes) {
  const Hostile& h = GetParam();
  const CliResult r = run_cli(h.args);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_TRUE(r.out.empty());
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.back(), '\n');
  EXPECT_EQ(r.err.rfind("tileplan: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(h.escaped), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(h.absent), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\r'), std::string::npos) << r.err;
}

// /bin/sh's printf writes the bytes: \033 is ESC, \377 a byte that is never UTF-8.
INSTANTIATE_TEST_SUITE_P(
    UserText, EscapedMessage,
    ::testing::Values(
        Hostile{"tile --device \"$(printf 'h\\n200')\"", "'h\\n200'", "h\n200"},
        Hostile{"tile --device \"$(printf '\\033[31mred')\"", "\\x1b[31mred", "\033"},
        Hostile{"tile --m \"$(printf '1\\r2')\"", "'1\\r2'", "1\r2"},
        Hostile{"tile --family \"$(printf 'a\\tb')\"", "'a\\tb'", "a\tb"},
        Hostile{"tile --instr \"$(printf '\\377')\"", "'\\xff'", "\377"},
        Hostile{"tile --model \"$(printf '\\302\\233')\"", "\\u009b", "\302\233"},  // U+009B, the one-byte CSI
        Hostile{"tile \"$(printf '%sbo\\ngus' --)\"", "--bo\\ngus", "bo\ngus"},   // CLI11's own message
        Hostile{"devices --device \"$(printf 'x\\033]0;title\\007')\"", "\\x1b]0;title\\x07", "\007"}),
    [](const auto& info) { return "Case" + std::to_string(info.index); });

// A line in a shapes file may hold any byte, NUL included.
TEST(EscapedMessage, ShapesLineWithNul) {
  const std::string path = "/tmp/tileplan_nul_shapes_" + std::to_string(::getpid()) + ".txt";
  {
    std::ofstream f(path, std::ios::binary);
    f << std::string("64 64 64\n64\0 64 64\n", 19);
  }
  const CliResult r = run_cli("tile --shapes " + path);
  expect_usage_error(r, "NUL in a shapes line", ":2:");
  EXPECT_NE(r.err.find("\\x00"), std::string::npos) << r.err;
  std::remove(path.c_str());
}

// A huge value is cut in the middle: the flag and the rule both stay.
TEST(EscapedMessage, LongValueIsBounded) {
  const CliResult r = run_cli("tile --device " + std::string(100000, 'a'));
  expect_usage_error(r, "100000-byte --device", "--device 'aaa");
  EXPECT_LE(r.err.size(), 420u) << r.err.size();
  EXPECT_NE(r.err.find("..."), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("rtx-4090"), std::string::npos) << r.err;  // the rule's end: the list of presets
}

TEST(EscapedMessage, LongValueOfEscapesIsBoundedToo) {
  const CliResult r = run_cli("tile --m \"$(printf '\\033%.0s' $(seq 1 5000))\"");
  expect_usage_error(r, "5000 ESC bytes", "--m '\\x1b");
  EXPECT_LE(r.err.size(), 420u) << r.err.size();
  EXPECT_NE(r.err.find("is not an integer"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace tileplan::test
