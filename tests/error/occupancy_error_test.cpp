// Bad input to `tileplan occupancy`: one line on stderr that names the flag and
// the rule, exit status 2, nothing on stdout.
#include <gtest/gtest.h>

#include "run_cli.hpp"

namespace tileplan::test {
namespace {

struct BadInput {
  const char* args;
  const char* mentions;  // the flag (or rule) the message must name
};

class OccupancyBadInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(OccupancyBadInput, OneLineExitTwo) {
  const BadInput& c = GetParam();
  const CliResult r = run_cli(c.args);
  EXPECT_EQ(r.status, 2) << c.args << "\n" << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_EQ(r.err.rfind("tileplan: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(c.mentions), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out.substr(0, 200);
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
