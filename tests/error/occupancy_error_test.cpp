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
        BadInput{"occupancy --threads 256 --regs ''", "--regs"},
        BadInput{"occupancy --threads 99999999999999999999 --regs 32", "--threads"},
        BadInput{"occupancy --device h300 --threads 256 --regs 32", "--device"},
        BadInput{"occupancy --threads 256 --regs 32 --carveout 101", "--carveout"},
        BadInput{"occupancy --threads 256 --regs 32 --carveout -1", "--carveout"},
        BadInput{"occupancy --threads 256 --regs 32 --carveout half", "--carveout"},
        BadInput{"occupancy --threads 256 --regs 32 --format csv", "--format"},
        BadInput{"occupancy --regs 32", "--threads"},
        BadInput{"occupancy --threads 256", "--regs"},
        BadInput{"occupancy --threads 256 --regs 32 --smem-kb 0", "--smem-kb"}));

}  // namespace
}  // namespace tileplan::test
