// A main-loop iteration's busiest resource r and its round trip c overlap
// imperfectly when they are close: the period is the smooth maximum
// (r^p + c^p)^(1/p) of order overlap_power (0: the plain maximum).
// docs/model.md §3 gives the equations.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

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

double time_us(const GemmProblem& p, const TileConfig& cfg, int64_t blocks, double power) {
  TimeConstants k = time_for(default_family(), DType::float16);
  k.overlap_power = power;
  const TileCosts t = detail::tile_costs(h200(), cfg, p, blocks, false, k, 0.0, 0.0);
  return detail::predict_us(h200(), p, t, k, 8);
}

TEST(OverlapPower, ShippedFamilyHasTheTerm) {
  const double p = time_for(default_family(), DType::float16).overlap_power;
  EXPECT_GE(p, 1.0);
  EXPECT_LE(p, 64.0);
}

TEST(OverlapPower, NeverFasterThanThePlainMaximumAndConvergesToIt) {
  const GemmProblem aligned{.m = 4096, .n = 4096, .k = 4096};
  const GemmProblem b_narrow{.m = 4096, .n = 5001, .k = 4096};
  const GemmProblem small{.m = 512, .n = 1024, .k = 8192};
  const TileConfig configs[] = {{128, 256, 64, 4, 256}, {64, 64, 32, 2, 128}, {256, 64, 64, 3, 128},
                                {128, 128, 128, 2, 128}};
  int moved = 0;
  for (const GemmProblem& p : {aligned, b_narrow, small})
    for (const TileConfig& cfg : configs)
      for (int64_t blocks : {1, 2}) {
        const double plain = time_us(p, cfg, blocks, 0.0);
        double previous = std::numeric_limits<double>::infinity();
        for (double power : {1.0, 2.0, 4.0, 8.0, 16.0, 64.0}) {
          const double t = time_us(p, cfg, blocks, power);
          EXPECT_GE(t, plain * (1 - 1e-12)) << power;
          // A higher order is closer to the maximum: never slower.
          EXPECT_LE(t, previous * (1 + 1e-12)) << power;
          previous = t;
        }
        // Order 64 is within 2^(1/64) - 1 (1.1%) of the maximum.
        EXPECT_LE(previous, plain * 1.011);
        moved += time_us(p, cfg, blocks, 8.0) > plain * 1.0001;
      }
  // The term is live: it moves some of these predictions.
  EXPECT_GT(moved, 0);
}

TEST(OverlapPower, CloseTermsCostMoreThanDistantOnes) {
  // Order 1 adds the round trip to the resource time in full: the plain
  // maximum's ratio to it is at most 2, and exactly 2 nowhere here.
  const GemmProblem p{.m = 4096, .n = 4096, .k = 4096};
  const TileConfig cfg{128, 128, 64, 3, 256};
  EXPECT_GT(time_us(p, cfg, 1, 1.0), time_us(p, cfg, 1, 0.0));
  EXPECT_LT(time_us(p, cfg, 1, 1.0), 2.0 * time_us(p, cfg, 1, 0.0));
}

TEST(OverlapPower, FamilyFileChecksTheOrder) {
  KernelFamily f = default_family();
  for (double bad : {0.5, -1.0, 65.0, std::numeric_limits<double>::infinity(), std::nan("")}) {
    f.time.overlap_power = bad;
    const Status s = check_family(f);
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_EQ(s.error().param, "overlap_power") << bad;
  }
  for (double good : {0.0, 1.0, 8.0, 64.0}) {
    f.time.overlap_power = good;
    EXPECT_TRUE(check_family(f).ok()) << good;
  }
}

}  // namespace
}  // namespace tileplan
