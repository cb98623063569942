// Bad types, layouts and leading dimensions for `tileplan tile`, from flags
// and from shapes-file lines: one line on stderr naming the flag (or file and
// line) and the rule, exit status 2, nothing on stdout.
#include <gtest/gtest.h>

#include <fstream>

#include "bad_input.hpp"

namespace tileplan::test {
namespace {

class TypesBadInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(TypesBadInput, OneLineExitTwo) {
  expect_usage_error(run_cli(GetParam().args), GetParam().args, GetParam().mentions);
}

INSTANTIATE_TEST_SUITE_P(
    Flags, TypesBadInput,
    ::testing::Values(
        BadInput{"tile --dtype fp7", "--dtype 'fp7' is not one of: float16, bfloat16, float8_e4m3, float8_e5m2, tfloat32"},
        // float32 is an output type only: tf32 is how tensor cores take float32 operands.
        BadInput{"tile --dtype float32", "--dtype 'float32' is not one of: float16"},
        BadInput{"tile --dtype FLOAT16", "--dtype 'FLOAT16'"}, BadInput{"tile --dtype ''", "--dtype"},
        BadInput{"tile --diagnose --dtype fp16", "--dtype 'fp16'"},
        BadInput{"tile --out-dtype float8_e4m3", "--out-dtype 'float8_e4m3' is not one of: float16, bfloat16, float32"},
        BadInput{"tile --out-dtype tfloat32", "--out-dtype 'tfloat32' is not one of"},
        BadInput{"tile --out-dtype int8", "--out-dtype 'int8'"},
        BadInput{"tile --a-layout diag", "--a-layout 'diag' is not one of: row, col"},
        BadInput{"tile --b-layout ROW", "--b-layout 'ROW' is not one of: row, col"},
        BadInput{"tile --b-layout column", "--b-layout 'column'"},
        // A row-major: lda strides past K.
        BadInput{"tile --lda 100", "--lda 100 must be 0 (packed) or between the extent it strides past (4096)"},
        BadInput{"tile --k 1000 --lda 999", "--lda 999 must be 0 (packed) or between the extent it strides past (1000)"},
        // A column-major: lda strides past M.
        BadInput{"tile --a-layout col --m 5000 --lda 4096", "strides past (5000)"},
        // B row-major: ldb strides past N; column-major: past K.
        BadInput{"tile --n 8192 --ldb 4096", "--ldb 4096 must be 0 (packed) or between the extent it strides past (8192)"},
        BadInput{"tile --b-layout col --k 2048 --ldb 1024", "--ldb 1024 must be 0 (packed) or between the extent it strides past (2048)"},
        BadInput{"tile --ldc 4095", "--ldc 4095 must be 0 (packed) or between the extent it strides past (4096)"},
        BadInput{"tile --lda -1", "--lda -1 must be 0 (packed)"},
        BadInput{"tile --lda 99999999999", "--lda 99999999999 must be 0 (packed) or between the extent it strides past (4096) and 2147483647"},
        BadInput{"tile --ldb 99999999999999999999", "--ldb '99999999999999999999' does not fit in a 64-bit integer"},
        BadInput{"tile --ldc abc", "--ldc 'abc' is not an integer"}, BadInput{"tile --lda ''", "--lda"},
        // 2e9 rows of lda = 2e9 tf32 elements (4 bytes): 1.6e19 bytes, past 2^63.
        BadInput{"tile --dtype tfloat32 --m 2000000000 --n 16 --k 16 --lda 2000000000",
                 "--lda 2000000000: 2000000000 rows of 2000000000 elements of 4 bytes must fit in 64 bits"},
        BadInput{"tile --diagnose --ldc 5", "--ldc 5"}, BadInput{"tile --emit triton --ldb 5", "--ldb 5"}),
    case_name);

// Shapes-file lines with a type and layouts: each bad one named by file and line.
class TypedShapesBadInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(TypedShapesBadInput, NamesTheLine) {
  const std::string path = "/tmp/tileplan_bad_typed_shapes_" + std::to_string(::getpid()) + ".txt";
  {
    std::ofstream f(path, std::ios::binary);
    f << GetParam().args;
  }
  expect_usage_error(run_cli("tile --shapes " + path + " --topk 1"), GetParam().args, path + GetParam().mentions);
  std::remove(path.c_str());
}

INSTANTIATE_TEST_SUITE_P(
    Files, TypedShapesBadInput,
    ::testing::Values(
        BadInput{"64 64 64 fp7\n",
                 ":1: type 'fp7' is not one of: float16, bfloat16, float8_e4m3, float8_e5m2, tfloat32"},
        BadInput{"64 64 64\n64 64 64 float32\n", ":2: type 'float32' is not one of"},
        // Layouts follow the type: a layout in the type's place is named as such.
        BadInput{"64 64 64 row\n", ":1: type 'row' is not one of"},
        BadInput{"64 64 64 float16 diag\n", ":1: a-layout 'diag' is not one of: row, col"},
        BadInput{"64 64 64 bfloat16 row Col\n", ":1: b-layout 'Col' is not one of: row, col"},
        BadInput{"64 64 64 float16 row row row\n", ":1: more than 6 fields"},
        BadInput{"64,64,64,float16,row,col,extra,more\n", ":1: more than 6 fields"},
        BadInput{"64 64\n", ":1: expected `M N K [dtype] [a-layout] [b-layout]`"},
        BadInput{"float16 64 64 64\n", ":1: expected `M N K [dtype] [a-layout] [b-layout]`"}),
    [](const auto& info) { return "Line" + std::to_string(info.index); });

// A leading dimension from the flags is checked against each line's shape.
TEST(TypedShapesBadInput, LeadingDimensionTooSmallForALine) {
  const std::string path = "/tmp/tileplan_bad_ld_shapes_" + std::to_string(::getpid()) + ".txt";
  {
    std::ofstream f(path);
    f << "64 64 64\n64 64 128\n";
  }
  expect_usage_error(run_cli("tile --shapes " + path + " --lda 64"), path,
                     path + ":2: --lda 64 must be 0 (packed) or between the extent it strides past (128)");
  std::remove(path.c_str());
}

TEST(TypedShapesBadInput, BadTypeFlagWithShapes) {
  expect_usage_error(run_cli("tile --shapes /dev/null --dtype fp7"), "--dtype fp7", "--dtype 'fp7'");
}

}  // namespace
}  // namespace tileplan::test
