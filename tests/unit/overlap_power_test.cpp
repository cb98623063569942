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
  // The main loop's join alone: the L2 requests' join (same order) is off.
  k.l2_request_bytes = 0;
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

// The model tabulates (1 + r^p)^(1/p) per order and interpolates: within
// 2e-6 of the exact smooth maximum for every legal order, exact at the ends.
TEST(OverlapPower, TabulatedSmoothMaximumMatchesTheFormula) {
  for (double p : {1.0, 2.0, 5.5, 10.3, 64.0}) {
    double worst = 0;
    for (int i = 0; i <= 10000; ++i) {
      const double lo = i / 10000.0, hi = 1.0;
      const double exact = std::pow(std::pow(hi, p) + std::pow(lo, p), 1.0 / p);
      const double got = detail::smooth_max(3.0 * lo, 3.0 * hi, p) / 3.0;
      worst = std::max(worst, std::abs(got / exact - 1));
      EXPECT_DOUBLE_EQ(detail::smooth_max(3.0 * hi, 3.0 * lo, p), detail::smooth_max(3.0 * lo, 3.0 * hi, p));
    }
    EXPECT_LT(worst, p <= 10.3 ? 5e-7 : 2e-6) << p;
    EXPECT_DOUBLE_EQ(detail::smooth_max(2.0, 0.0, p), 2.0);
    EXPECT_NEAR(detail::smooth_max(2.0, 2.0, p), 2.0 * std::pow(2.0, 1.0 / p), 1e-12);
  }
  // Order 0 is the plain maximum; zeros give zero; a NaN gives a NaN or a
  // value at least the other argument, never an out-of-table read (UBSan).
  EXPECT_EQ(detail::smooth_max(1.5, 2.5, 0.0), 2.5);
  EXPECT_EQ(detail::smooth_max(0.0, 0.0, 5.5), 0.0);
  for (const double v : {detail::smooth_max(std::nan(""), 2.0, 5.5), detail::smooth_max(2.0, std::nan(""), 5.5)})
    EXPECT_TRUE(std::isnan(v) || v >= 2.0) << v;
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
