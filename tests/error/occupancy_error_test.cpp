// Bad input to `tileplan occupancy`: one line on stderr that names the flag and
// the rule, exit status 2, nothing on stdout.
#include <gtest/gtest.h>

#include "bad_input.hpp"

namespace tileplan::test {
namespace {

class OccupancyBadInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(OccupancyBadInput, OneLineExitTwo) {
  expect_usage_error(run_cli(GetParam().args), GetParam().args, GetParam().mentions);
}

INSTANTIATE_TEST_SUITE_P(
    Flags, OccupancyBadInput,
    ::testing::Values(
        BadInput{"occupancy --threads 0 --regs 32", "--threads"},
        BadInput{"occupancy --threads 1025 --regs 32", "1024"},
        BadInput{"occupancy --threads -32 --regs 32", "--threads"},
        BadInput{"occupancy --threads 256 --regs 0", "--regs"},
        BadInput{"occupancy --threads 256 --regs 256", "255"},
        // 228 KB = 233472 B is over the H200's opt-in maximum of 232448 B (227 KB).
        BadInput{"occupancy --threads 256 --regs 32 --smem 228K", "232448"},
        BadInput{"occupancy --threads 256 --regs 32 --smem 232449", "--smem"},
        // The L40S allows 99 KB per block.
        BadInput{"occupancy --device l40s --threads 256 --regs 32 --smem 100K", "l40s"},
        BadInput{"occupancy --threads 256 --regs 32 --smem 200K --smem-static 40K", "--smem"},
        BadInput{"occupancy --threads 256 --regs 32 --smem-static 49153", "--smem-static"},
        BadInput{"occupancy --threads 256 --regs 32 --smem -1", "--smem"},
        BadInput{"occupancy --threads 256 --regs 32 --smem 12Q", "--smem"},
        BadInput{"occupancy --threads 256 --regs 32 --smem 99999999999M", "--smem"},
        BadInput{"occupancy --threads 256 --regs 32 --smem 9999999999999999", "--smem"},
        BadInput{"occupancy --threads abc --regs 32", "--threads"},
        BadInput{"occupancy --threads 256 --regs 3.5", "--regs"},
        BadInput{"occupancy --threads 256 --regs ''", "--regs: the value is empty"},
        BadInput{"occupancy --threads 99999999999999999999 --regs 32", "--threads"},
        BadInput{"occupancy --device h300 --threads 256 --regs 32", "--device"},
        BadInput{"occupancy --threads 256 --regs 32 --carveout 101", "--carveout"},
        BadInput{"occupancy --threads 256 --regs 32 --carveout -1", "--carveout"},
        BadInput{"occupancy --threads 256 --regs 32 --carveout half", "--carveout"},
        BadInput{"occupancy --threads 256 --regs 32 --format csv", "--format"},
        BadInput{"occupancy --regs 32", "--threads"},
        BadInput{"occupancy --threads 256", "--regs"},
        BadInput{"occupancy --threads 256 --regs 32 --smem-kb 0", "--smem-kb"}));

// Hostile values for every flag: empty, extreme, sums that overflow.
INSTANTIATE_TEST_SUITE_P(
    Hostile, OccupancyBadInput,
    ::testing::Values(
        BadInput{"occupancy --threads 9223372036854775807 --regs 32", "--threads 9223372036854775807: threads per block"},
        BadInput{"occupancy --threads -9223372036854775808 --regs 32", "--threads -9223372036854775808"},
        BadInput{"occupancy --threads '' --regs 32", "--threads: the value is empty"},
        BadInput{"occupancy --threads 256 --regs 9223372036854775807", "--regs 9223372036854775807: registers per thread"},
        BadInput{"occupancy --threads 256 --regs -9223372036854775808", "--regs -9223372036854775808"},
        BadInput{"occupancy --threads 256 --regs 32 --smem 9223372036854775807", "--smem 9223372036854775807:"},
        // 48 KB static + (2^63 - 1) dynamic: the sum is never formed.
        BadInput{"occupancy --threads 256 --regs 32 --smem 9223372036854775807 --smem-static 48K",
                 "over 9223372036854775807 B of shared memory"},
        BadInput{"occupancy --threads 256 --regs 32 --smem ''", "--smem: the value is empty"},
        BadInput{"occupancy --threads 256 --regs 32 --smem-static 9223372036854775807", "--smem-static 9223372036854775807:"},
        BadInput{"occupancy --threads 256 --regs 32 --smem-static -9223372036854775808", "--smem-static"},
        BadInput{"occupancy --threads 256 --regs 32 --smem-static ''", "--smem-static: the value is empty"},
        BadInput{"occupancy --threads 256 --regs 32 --carveout 9223372036854775807", "--carveout 9223372036854775807"},
        BadInput{"occupancy --threads 256 --regs 32 --carveout -9223372036854775808", "--carveout -9223372036854775808"},
        BadInput{"occupancy --threads 256 --regs 32 --sm-count 0", "--sm-count"},
        BadInput{"occupancy --threads 256 --regs 32 --sm-count 9223372036854775807", "--sm-count"},
        BadInput{"occupancy --threads 256 --regs 32 --smem-kb 9223372036854775807", "--smem-kb"},
        BadInput{"occupancy --threads 256 --regs 32 --smem-kb -9223372036854775808", "--smem-kb"},
        BadInput{"occupancy --threads 256 --regs 32 --smem-kb 1073741825", "--smem-kb"},
        // 2^30 KB per SM: the opt-in maximum is 2^40 - 1024 B.
        BadInput{"occupancy --threads 256 --regs 32 --smem-kb 1073741824 --smem 1099511627776", "--smem 1099511627776:"}));

}  // namespace
}  // namespace tileplan::test
