// One operand through registers, the other copied asynchronously: the
// asynchronous operand is still pipelined stages - 1 ahead (its buffers scale
// with the stages), so async_share of a stage's round trip is spread over the
// stages in flight and the rest is exposed every iteration.
// docs/model.md §3 gives the equations.
#include <gtest/gtest.h>

#include "../../src/detail.hpp"
#include "tileplan/family.hpp"
#include "tileplan/gemm.hpp"
#include "tileplan/model.hpp"

namespace tileplan {
namespace {

const Device& h200() {
  static const Device d = *find_device("h200");
  return d;
}

// A and B row-major, N unaligned, K aligned: B through registers, A async.
GemmProblem b_narrow() { return GemmProblem{.m = 4096, .n = 5001, .k = 4096}; }
// K unaligned, M and N aligned: A through registers, B async.
GemmProblem a_narrow() { return GemmProblem{.m = 4096, .n = 4096, .k = 4008}; }
// Every dimension unaligned: both through registers.
GemmProblem both_narrow() { return GemmProblem{.m = 1000, .n = 5001, .k = 1000}; }
GemmProblem aligned() { return GemmProblem{.m = 4096, .n = 4096, .k = 4096}; }

// The chain of one iteration dominates a tile whose K step is short, whose
// narrow operand is the small one and whose SM runs one program: the time
// follows the pipeline's exposure.
double time_us(const GemmProblem& p, int64_t stages, double share) {
  TimeConstants k = time_for(default_family(), DType::float16);
  k.async_share = share;
  const bool a_through_registers = problem_access(p).a.through_registers;
  const TileConfig cfg{a_through_registers ? 64 : 256, a_through_registers ? 256 : 64, 32, stages, 128};
  const TileCosts t = detail::tile_costs(h200(), cfg, p, 1, false, k, 0.0, 0.0);
  return detail::predict_us(h200(), p, t, k, 8);
}

TEST(AsyncShare, ShippedFamilyHasTheTerm) {
  const double s = time_for(default_family(), DType::float16).async_share;
  EXPECT_GT(s, 0.0);
  EXPECT_LE(s, 1.0);
}

TEST(AsyncShare, MarksExactlyOneOperandThroughRegisters) {
  const TimeConstants k = time_for(default_family(), DType::float16);
  const TileConfig cfg{256, 64, 32, 3, 128};
  EXPECT_TRUE(detail::tile_costs(h200(), cfg, b_narrow(), 1, false, k, 0.0, 0.0).single_narrow);
  EXPECT_TRUE(detail::tile_costs(h200(), cfg, a_narrow(), 1, false, k, 0.0, 0.0).single_narrow);
  EXPECT_FALSE(detail::tile_costs(h200(), cfg, both_narrow(), 1, false, k, 0.0, 0.0).single_narrow);
  EXPECT_FALSE(detail::tile_costs(h200(), cfg, aligned(), 1, false, k, 0.0, 0.0).single_narrow);
}

TEST(AsyncShare, MoreStagesHideTheAsynchronousShareOnly) {
  for (const GemmProblem& p : {b_narrow(), a_narrow()}) {
    // Without the term the stages of a single-narrow kernel are inert.
    EXPECT_DOUBLE_EQ(time_us(p, 2, 0.0), time_us(p, 4, 0.0));
    // With it, 3 and 4 stages beat 2, and a larger share hides more.
    EXPECT_LT(time_us(p, 3, 0.3), time_us(p, 2, 0.3));
    EXPECT_LT(time_us(p, 4, 0.3), time_us(p, 3, 0.3));
    EXPECT_LT(time_us(p, 4, 0.6), time_us(p, 4, 0.3));
    // Two stages keep one in flight: the share changes nothing.
    EXPECT_DOUBLE_EQ(time_us(p, 2, 0.3), time_us(p, 2, 0.0));
    // The term only hides latency: never slower than without it.
    EXPECT_LE(time_us(p, 4, 0.3), time_us(p, 4, 0.0));
  }
}

TEST(AsyncShare, LeavesOtherKernelsAlone) {
  for (const GemmProblem& p : {aligned(), both_narrow()})
    for (int64_t s : {2, 3, 4}) EXPECT_DOUBLE_EQ(time_us(p, s, 0.0), time_us(p, s, 0.9));
}

TEST(AsyncShare, FamilyFileChecksTheShare) {
  KernelFamily f = default_family();
  f.time.async_share = 1.5;
  const Status s = check_family(f);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().param, "async_share");
  f.time.async_share = 1.0;
  EXPECT_TRUE(check_family(f).ok());
}

}  // namespace
}  // namespace tileplan
