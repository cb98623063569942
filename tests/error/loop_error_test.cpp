// Bad input to `tileplan loop`: one line on stderr naming the flag, exit 2,
// nothing on stdout.
#include <gtest/gtest.h>

#include <ostream>

#include "bad_input.hpp"

namespace tileplan::test {
namespace {

class LoopError : public ::testing::TestWithParam<BadInput> {};

TEST_P(LoopError, OneLineExitTwo) {
  const BadInput& b = GetParam();
  expect_usage_error(run_cli("loop " + b.args), b.args, b.mentions);
}

INSTANTIATE_TEST_SUITE_P(
    Loop, LoopError,
    ::testing::Values(
        BadInput{"--extents 0 4", "every extent must be at least 1"},
        BadInput{"--extents -3", "every extent must be at least 1"},
        BadInput{"--extents 4,abc", "--extents 'abc' is not an integer"},
        BadInput{"--extents 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17", "at most 16"},
        BadInput{"--extents 4294967296 4294967296", "more than 2^63-1 points"},
        BadInput{"--extents 99999999999999999999", "does not fit in a 64-bit integer"},
        BadInput{"--threads 0", "--threads 0 must be at least 1"},
        BadInput{"--threads -1", "--threads -1 must be at least 1"},
        BadInput{"--threads 2000000", "at most"},
        BadInput{"--vector 0", "--vector 0 must be at least 1"},
        BadInput{"--vector -2", "--vector -2 must be at least 1"},
        BadInput{"--vector 3", "does not divide the innermost extent 32"},
        BadInput{"--vector eight", "--vector 'eight' is not an integer"},
        BadInput{"--extents 9223372036854775807 --threads 1048576 --vector 9223372036854775807", "does not fit in 63 bits"},
        BadInput{"--dtype fp13", "--dtype 'fp13' is not one of"},
        BadInput{"--vector auto --dtype int4", "--dtype 'int4' is not one of"},
        BadInput{"--scope texture", "--scope 'texture'"},
        BadInput{"--access 1,1", "is not a permutation of 0..1"},
        BadInput{"--access 0,2", "is not a permutation of 0..1"},
        BadInput{"--access 0,1,2", "list every loop axis once"},
        BadInput{"--buffer-shape 64,64", "runs past its size 64"},
        BadInput{"--buffer-shape 4096", "one dimension per loop"},
        BadInput{"--buffer-shape 4096,0", "every dimension must be at least 1"},
        BadInput{"--buffer-shape 4294967296,4294967296", "do not fit in 63 bits"},
        BadInput{"--origin -1,0", "must not be negative"},
        BadInput{"--origin 0,0,0 --buffer-shape 4096,4096", "one coordinate per buffer dimension"},
        BadInput{"--extents 65536 65536 --points", "listing is limited"},
        BadInput{"--compare --format svg", "--compare draws no picture"},
        BadInput{"--compare --vector 3", "does not divide the innermost extent"},
        BadInput{"--format png", "--format"},
        BadInput{"--device h300", "--device 'h300' is not a preset"},
        BadInput{"--format svg -o /nonexistent/dir/out.svg", "cannot be opened for writing"}));

// Hostile values for every flag: empty, extreme, overflowing products. Each is
// refused in one line naming the flag and the rule, in bounded time.
INSTANTIATE_TEST_SUITE_P(
    Hostile, LoopError,
    ::testing::Values(
        BadInput{"--extents ''", "--extents: the value is empty"},
        // An empty value is an error, never the default (tileplan: every subcommand).
        BadInput{"--access ''", "--access: the value is empty"}, BadInput{"--origin ''", "--origin: the value is empty"},
        BadInput{"--buffer-shape ''", "--buffer-shape: the value is empty"},
        BadInput{"--extents 9223372036854775807 9223372036854775807", "more than 2^63-1 points"},
        BadInput{"--extents -9223372036854775808", "every extent must be at least 1"},
        BadInput{"--threads ''", "--threads: the value is empty"},
        BadInput{"--threads 9223372036854775807", "--threads 9223372036854775807 must be at most 1048576"},
        BadInput{"--threads -9223372036854775808", "--threads -9223372036854775808 must be at least 1"},
        BadInput{"--vector ''", "--vector: the value is empty"},
        BadInput{"--vector -9223372036854775808", "--vector -9223372036854775808 must be at least 1"},
        // 128 threads x 2^59 lanes: the product is checked before it is formed.
        BadInput{"--vector 576460752303423488", "does not fit in 63 bits"},
        BadInput{"--vector 9223372036854775807", "does not fit in 63 bits"},
        BadInput{"--buffer-shape 9223372036854775807,9223372036854775807", "do not fit in 63 bits"},
        BadInput{"--buffer-shape -9223372036854775808,32", "every dimension must be at least 1"},
        BadInput{"--access 9223372036854775807,0", "is not a permutation of 0..1"},
        BadInput{"--access -9223372036854775808,0", "is not a permutation of 0..1"},
        // The default buffer ends where the box does: past 2^63 it is refused, not wrapped.
        BadInput{"--origin 9223372036854775807,0", "--origin 9223372036854775807,0: coordinate 0"},
        BadInput{"--origin 0,9223372036854775807", "does not fit in 63 bits"},
        BadInput{"--origin 9223372036854775807,0 --buffer-shape 4096,4096", "runs past its size 4096"},
        BadInput{"--origin -9223372036854775808,0", "must not be negative"},
        BadInput{"--dtype ''", "--dtype: the value is empty"},
        BadInput{"--dtype \"$(printf 'a\\nb')\"", "--dtype 'a\\nb' is not one of"},
        BadInput{"--scope ''", "--scope: the value is empty"},
        BadInput{"--format ''", "--format"},
        BadInput{"--device ''", "--device: the value is empty"},
        // 64 points replicated on 2^20 threads: 2^26 (thread, point) pairs to list.
        BadInput{"--extents 64 --threads 1048576 --vector 64 --replicate --points", "listing is limited to 16777216"},
        BadInput{"--points -o /dev/full", "--output '/dev/full': writing failed"},
        BadInput{"--compare -o /dev/full", "--output '/dev/full': writing failed"},
        BadInput{"--compare --threads 9223372036854775807", "--threads 9223372036854775807 must be at most"},
        BadInput{"--compare --vector 0", "--vector 0 must be at least 1"},
        BadInput{"--compare --vector ''", "--vector: the value is empty"}));

}  // namespace
}  // namespace tileplan::test
