// B's reuse in L2 between program groups (the family's l2_reuse shares) and
// the join of the SMs' time with DRAM's where the SMs bind in a grid of a
// wave or more (sm_overlap_power). docs/model.md §3 gives the equations and
// §4 works the first case through by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "tileplan/family.hpp"
#include "tileplan/gemm.hpp"
#include "tileplan/model.hpp"
#include "tileplan/planner.hpp"
#include "../../src/detail.hpp"

namespace tileplan {
namespace {

constexpr double kMiB = 1048576.0;

const Device& h200() {
  static const Device d = *find_device("h200");
  return d;
}

// The shipped family's shares (fp16; every type takes them).
double near() { return time_for(default_family(), DType::float16).l2_reuse_near_share; }
double far() { return time_for(default_family(), DType::float16).l2_reuse_far_share; }

TEST(L2Reuse, ShippedFamilyHasTheMeasuredShares) {
  EXPECT_DOUBLE_EQ(near(), 0.36);
  EXPECT_DOUBLE_EQ(far(), 0.62);
  for (DType t : {DType::bfloat16, DType::float8_e4m3, DType::tfloat32}) {
    EXPECT_EQ(time_for(default_family(), t).l2_reuse_near_share, near());
    EXPECT_EQ(time_for(default_family(), t).l2_reuse_far_share, far());
  }
}

// 4096^3 fp16 in 128x256 tiles: B 32 MiB, a group's 8 tile rows of A 8 MiB
// and of C 8 MiB, a reuse distance of 48 MiB = 0.8 of the H200's 60 MiB,
// past the far share (0.62): nothing stays by distance. 16 tile columns: a
// group's 128 programs leave 4 of 132 SMs to the next group, so 4/132 of B
// is read together. 32 tile rows make 4 groups.
TEST(L2Reuse, HandDerivation_FourGroupsPastTheFarShare) {
  const double kept = 4.0 / 132.0;
  const double b = 32 * kMiB;
  EXPECT_NEAR(grouped_dram_bytes(h200(), {4096, 4096, 4096}, 128, 8, 256, near(), far()).value(),
              b + b * (1.0 + 3.0 * (1.0 - kept)) + b, 1.0);
  // The room rule (block_n 0) has B fit beside a group's rows of A: read once.
  EXPECT_DOUBLE_EQ(grouped_dram_bytes(h200(), {4096, 4096, 4096}, 128, 8).value(), 3.0 * b);
}

// A grid of one wave runs every group together: B is read once however far
// its reuse distance, which the room rule would not give.
TEST(L2Reuse, OneWave_ReadsBOnce) {
  const GemmProblem p{1024, 4096, 32768};  // 8 x 16 = 128 tiles of 128x256 on 132 SMs
  const double a = 1024.0 * 32768 * 2, b = 4096.0 * 32768 * 2, c = 1024.0 * 4096 * 2;
  EXPECT_DOUBLE_EQ(grouped_dram_bytes(h200(), p, 128, 8, 256, near(), far()).value(), a + b + c);
  // The same problem in 64-row tiles is two waves, 16 tile rows in two groups:
  // B (256 MiB) is read again.
  EXPECT_GT(grouped_dram_bytes(h200(), p, 64, 8, 256, near(), far()).value(), a + 1.9 * b + c);
}

// Within the near share everything stays; between the shares the share of B
// read again grows with the distance; a device without the shares keeps the
// room rule.
TEST(L2Reuse, SharesOfTheL2_LinearBetween) {
  const auto b_reads = [](const Device& d, int64_t k) -> double {
    // 64 x 34 tiles of 128x256 (8 groups): a group's 272 programs fill the SMs, none run together.
    const GemmProblem p{8192, 8704, k};
    const double a = 8192.0 * k * 2, b = 8704.0 * k * 2, c = 8192.0 * 8704 * 2;
    return (grouped_dram_bytes(d, p, 128, 8, 256, near(), far()).value() - a - c) / b;
  };
  // The distance: B, a group's 8 tile rows of A and of C (17 MiB).
  const auto distance = [](int64_t k) { return 8704.0 * k * 2 + 8.0 * 128 * k * 2 + 8.0 * 128 * 8704 * 2; };
  const double l2 = 60 * kMiB;
  // K = 2048: 34 + 4 + 17 = 55 MiB, 0.92 of the L2: B read by every group.
  ASSERT_GT(distance(2048), 0.62 * l2);
  EXPECT_DOUBLE_EQ(b_reads(h200(), 2048), 8.0);
  // K = 512: 8.5 + 1 + 17 = 26.5 MiB, 0.44: linear between the shares.
  const double share = (0.62 * l2 - distance(512)) / ((0.62 - 0.36) * l2);
  ASSERT_GT(share, 0.0);
  ASSERT_LT(share, 1.0);
  EXPECT_NEAR(b_reads(h200(), 512), 1.0 + 7.0 * (1.0 - share), 1e-9);
  // K = 64: 1.06 + 0.13 + 17 = 18.2 MiB, 0.30: within the near share, read once.
  ASSERT_LT(distance(64), 0.36 * l2);
  EXPECT_DOUBLE_EQ(b_reads(h200(), 64), 1.0);
  // More K, more distance: never fewer reads.
  double last = 0;
  for (int64_t k : {64, 256, 512, 768, 1024, 2048, 4096}) {
    EXPECT_GE(b_reads(h200(), k), last) << k;
    last = b_reads(h200(), k);
  }
  // No shares, or no block_n: the room rule.
  const GemmProblem big{8192, 8192, 8192};
  const double room = grouped_dram_bytes(h200(), big, 128, 8).value();
  EXPECT_DOUBLE_EQ(grouped_dram_bytes(h200(), big, 128, 8, 256).value(), room);
  EXPECT_DOUBLE_EQ(grouped_dram_bytes(h200(), big, 128, 8, 0, near(), far()).value(), room);
  EXPECT_NE(grouped_dram_bytes(h200(), big, 128, 8, 256, near(), far()).value(), room);
}

TEST(L2Reuse, BadArguments_AreAnErrorNamingThem) {
  const struct {
    int64_t block_n;
    double near, far;
    const char* param;
  } cases[] = {{-1, 0.36, 0.62, "block_n"},
               {int64_t{1} << 40, 0.36, 0.62, "block_n"},
               {256, -0.1, 0.62, "l2_reuse_near_share"},
               {256, std::nan(""), 0.62, "l2_reuse_near_share"},
               {256, 65.0, 66.0, "l2_reuse_near_share"},
               {256, 0.62, 0.36, "l2_reuse_far_share"},
               {256, 0.4, 0.4, "l2_reuse_far_share"},
               {256, 0.4, 0.0, "l2_reuse_far_share"},
               {256, 0.1, 65.0, "l2_reuse_far_share"},
               {256, 0.1, std::numeric_limits<double>::infinity(), "l2_reuse_far_share"}};
  for (const auto& c : cases) {
    const Result<double> r = grouped_dram_bytes(h200(), {4096, 4096, 4096}, 128, 8, c.block_n, c.near, c.far);
    ASSERT_FALSE(r.ok()) << c.param << " " << c.near << " " << c.far;
    EXPECT_EQ(r.error().param, c.param);
  }
  // A family file is checked the same way, naming the far share.
  KernelFamily f = default_family();
  for (const auto& [n, fr] : {std::pair{0.62, 0.36}, {0.4, 0.4}, {0.4, 0.0}, {0.1, 65.0}}) {
    f.time.l2_reuse_near_share = n;
    f.time.l2_reuse_far_share = fr;
    const Status s = check_family(f);
    ASSERT_FALSE(s.ok()) << n << " " << fr;
    EXPECT_EQ(s.error().param, "l2_reuse_far_share");
  }
  f.time.l2_reuse_near_share = 0;
  f.time.l2_reuse_far_share = 0;
  EXPECT_TRUE(check_family(f).ok());
  f.time.l2_reuse_near_share = -1;
  ASSERT_FALSE(check_family(f).ok());
  EXPECT_EQ(check_family(f).error().param, "l2_reuse_near_share");
}

// The predicted time and its terms (fp16) under a family whose
// sm_overlap_power is P.
Verdict with_power(const GemmProblem& p, const TileConfig& cfg, double P) {
  KernelFamily f = default_family();
  f.time.sm_overlap_power = P;
  return diagnose(p, h200(), cfg, Model::calibrated, f).value();
}

TEST(SmOverlap, ShippedFamilyHasTheTerm) {
  const double P = time_for(default_family(), DType::float16).sm_overlap_power;
  EXPECT_GT(P, 2.0);
  EXPECT_LE(P, 64.0);
  // fp8 and tf32 take float16's value.
  EXPECT_EQ(time_for(default_family(), DType::float8_e4m3).sm_overlap_power, P);
  EXPECT_EQ(time_for(default_family(), DType::tfloat32).sm_overlap_power, P);
}

// Where the SMs bind in a grid of a wave or more, the join lies between the
// plain maximum and the Euclidean norm, and nearer the maximum as P grows.
TEST(SmOverlap, SmBoundManyWaves_BetweenTheMaximumAndTheNorm) {
  const GemmProblem p{4096, 4096, 4096};
  const TileConfig c{128, 256, 64, 4, 256, Instr::wgmma};  // 512 programs, SM-bound
  const Verdict e = with_power(p, c, 0);
  const Verdict v3 = with_power(p, c, 3);
  const Verdict v8 = with_power(p, c, 8);
  const TimeTerms& t = e.time_terms;
  ASSERT_LT(t.dram_us, t.sm_us);
  EXPECT_EQ(t.overlap_order, 2.0);
  EXPECT_NEAR(e.predicted_us, t.launch_us + std::hypot(t.sm_us, t.dram_us), 1e-9);
  const double r = t.dram_us / t.sm_us;
  EXPECT_NEAR(v3.time_terms.overlap_order, 3.0 - r, 1e-12);
  EXPECT_LT(v3.predicted_us, e.predicted_us);
  EXPECT_LT(v8.predicted_us, v3.predicted_us);
  EXPECT_GT(v8.predicted_us, t.launch_us + t.sm_us);
  // The terms themselves do not move: only their join.
  EXPECT_EQ(v3.time_terms.sm_us, t.sm_us);
  EXPECT_EQ(v3.time_terms.dram_us, t.dram_us);
}

// Under one wave, or where DRAM binds, the Euclidean norm whatever P.
TEST(SmOverlap, UnderOneWaveOrDramBound_TheEuclideanNorm) {
  const TileConfig c{128, 256, 64, 4, 256, Instr::wgmma};
  const GemmProblem one_wave{1024, 4096, 4096};  // 128 programs on 132 SMs
  const Verdict a = with_power(one_wave, c, 0), b = with_power(one_wave, c, 8);
  EXPECT_LT(a.time_terms.dram_us, a.time_terms.sm_us);
  EXPECT_EQ(b.time_terms.overlap_order, 2.0);
  EXPECT_EQ(a.predicted_us, b.predicted_us);
  // 16 rows against 262144 columns: B's 2 GiB stream from DRAM in 4096 programs.
  const GemmProblem dram_bound{16, 262144, 4096};
  const TileConfig thin{16, 64, 128, 4, 128, Instr::mma};
  const Verdict d0 = with_power(dram_bound, thin, 0), d8 = with_power(dram_bound, thin, 8);
  ASSERT_GE(d0.grid, h200().sm_count);
  ASSERT_GT(d0.time_terms.dram_us, d0.time_terms.sm_us);
  EXPECT_EQ(d8.time_terms.overlap_order, 2.0);
  EXPECT_EQ(d0.predicted_us, d8.predicted_us);
}

// Continuous where the two times meet: the order tends to 2 as t_DRAM
// approaches t_SM, so the join meets the Euclidean norm's sqrt(2) there.
TEST(SmOverlap, OrderTendsToTwoWhereTheTimesMeet) {
  const double P = 5;
  for (double r : {0.9, 0.99, 0.999}) {
    const double q = P - (P - 2) * r;
    const double g = std::pow(1.0 + std::pow(r, q), 1.0 / q);
    EXPECT_LE(std::abs(g - std::hypot(1.0, r)), 0.3 * (P - 2) * (1 - r)) << r;
  }
}

// The join is tabulated per P (1025 points, linear between): within 1e-6
// of the exact smooth maximum over every ratio of DRAM's time to the SMs'.
TEST(SmOverlap, TabulatedJoin_WithinAMillionthOfTheExactOne) {
  const GemmProblem p{4096, 4096, 4096};
  const TileConfig c{128, 256, 64, 4, 256, Instr::wgmma};
  for (double P : {2.79, 4.0, 8.0}) {
    const Verdict v = with_power(p, c, P);
    const TimeTerms& t = v.time_terms;
    const double q = t.overlap_order;
    const double exact = t.launch_us + std::pow(std::pow(t.sm_us, q) + std::pow(t.dram_us, q), 1.0 / q);
    EXPECT_NEAR(v.predicted_us, exact, 1e-6 * exact) << P;
  }
  // The table itself, against the formula, at ratios between its points.
  for (double r = 0.0005; r < 1.0; r += 0.0173) {
    const double q = 2.79 - 0.79 * r;
    const double exact = std::pow(1.0 + std::pow(r, q), 1.0 / q);
    EXPECT_NEAR(detail::smooth_max_graded(1.0, r, 2.79), exact, 1e-6) << r;
  }
}

TEST(SmOverlap, FamilyFileChecksTheOrder) {
  KernelFamily f = default_family();
  for (double bad : {0.5, -1.0, 65.0, std::numeric_limits<double>::infinity(), std::nan("")}) {
    f.time.sm_overlap_power = bad;
    const Status s = check_family(f);
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_EQ(s.error().param, "sm_overlap_power") << bad;
    EXPECT_NE(s.error().message.find("sm_overlap_power"), std::string::npos) << s.error().message;
  }
  for (double good : {0.0, 1.0, 2.79, 64.0}) {
    f.time.sm_overlap_power = good;
    EXPECT_TRUE(check_family(f).ok()) << good;
  }
}


// A grid's terms fetch both orders' tables (overlap_power's, and
// sm_overlap_power's graded one) from this thread's cache of the last four
// orders, once per grid rather than per configuration. Fetching the second
// must not evict the first where the cache's next slot holds it: the
// prediction would then read one order's table as the other's.
TEST(SmOverlap, GridTermsKeepBothOrders_WhenTheCacheIsFull) {
  const GemmProblem p{4096, 4096, 4096};
  const TileConfig c{128, 256, 64, 4, 256, Instr::wgmma};  // SM-bound, its round trip near its MMAs
  KernelFamily f = default_family();
  f.time.overlap_power = 7.25;     // orders no other test tabulates
  f.time.sm_overlap_power = 3.75;
  const TimeConstants k = time_for(f, DType::float16);
  const Verdict v = diagnose(p, h200(), c, Model::calibrated, f).value();
  const TileCosts costs =
      detail::tile_costs(h200(), c, p, v.blocks_per_sm, v.spills, k, v.spilled_registers, v.epilogue_spilled_registers);
  // Both orders cached: nothing is evicted.
  (void)detail::smooth_max_graded(1.0, 0.5, 3.75);
  (void)detail::smooth_max(1.0, 0.5, 7.25);
  const double expected = detail::predict_us(h200(), p, costs, k, detail::grid_terms(h200(), p, 128, 256, k, f.group_m));
  EXPECT_EQ(expected, v.predicted_us);
  // Four misses in a row, the first overlap_power's: the next slot to
  // replace is then overlap_power's table, and the graded order is not cached.
  // (Four other orders first, so that each of the four is a miss.)
  for (double q : {21.5, 23.5, 25.5, 27.5, 7.25, 11.5, 13.5, 17.5}) (void)detail::smooth_max(1.0, 0.5, q);
  const detail::GridTerms g = detail::grid_terms(h200(), p, 128, 256, k, f.group_m);
  EXPECT_EQ(detail::predict_us(h200(), p, costs, k, g), expected);
  // The two tables are distinct and each still answers its own order.
  ASSERT_NE(g.smooth, nullptr);
  ASSERT_NE(g.graded, nullptr);
  EXPECT_NE(g.smooth, g.graded);
}
}  // namespace
}  // namespace tileplan
