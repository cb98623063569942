// A lone warpgroup 256 columns wide (64x256 with 4 warps, wgmma) with B
// N-major in shared memory: its MMA time is nmajor_wide_unit_cost more
// (docs/model.md §3; fitted on the calibration shapes, judged on the fresh
// data/h200-triton-v42). Every other tile, layout and type is priced as
// without the term.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "../../src/detail.hpp"
#include "tileplan/device.hpp"
#include "tileplan/family.hpp"
#include "tileplan/gemm.hpp"
#include "tileplan/model.hpp"
#include "tileplan/planner.hpp"
#include "family_term.hpp"

namespace tileplan {
namespace {

const Device& h200() {
  static const Device d = *find_device("h200");
  return d;
}

GemmProblem row_row(DType t, int64_t m = 333, int64_t n = 4096, int64_t k = 14336) {
  GemmProblem p{.m = m, .n = n, .k = k};
  p.dtype = t;
  return p;
}

double mma_us(const GemmProblem& p, const TileConfig& cfg, double cost) {
  TimeConstants k = time_for(default_family(), p.dtype);
  k.nmajor_wide_unit_cost = cost;
  return detail::tile_costs(h200(), cfg, p, 1, false, k, 0.0, 0.0).mma_us;
}

const TileConfig kLone{64, 256, 64, 5, 128};  // one warpgroup of 64x256

TEST(NMajorWideUnit, ShippedForSixteenBitTypes) {
  const double c = time_for(default_family(), DType::float16).nmajor_wide_unit_cost;
  EXPECT_GT(c, 0.1);
  EXPECT_LT(c, 0.4);
  EXPECT_EQ(time_for(default_family(), DType::bfloat16).nmajor_wide_unit_cost, c);
}

TEST(NMajorWideUnit, AddsItsShareToTheLoneWideWarpgroupsMmaTime) {
  for (DType t : {DType::float16, DType::bfloat16}) {
    const GemmProblem p = row_row(t);
    TimeConstants k = time_for(default_family(), t);
    // The term scales the MMAs, not the fixed cycles of an iteration.
    const double fixed = k.iteration_cycles / h200().boost_clock_mhz;
    const double base = mma_us(p, kLone, 0.0) - fixed;
    EXPECT_GT(base, 0.0);
    EXPECT_NEAR(mma_us(p, kLone, 0.2) - fixed, 1.2 * base, 1e-9 * base);
  }
  // B through registers (N not a multiple of 16) still sits N-major in
  // shared memory: the term applies there too.
  const GemmProblem odd_n = row_row(DType::float16, 333, 4001);
  EXPECT_GT(mma_us(odd_n, kLone, 0.2), mma_us(odd_n, kLone, 0.0));
}

TEST(NMajorWideUnit, LeavesEveryOtherCaseAlone) {
  const GemmProblem p = row_row(DType::float16);
  const auto same = [&](const GemmProblem& q, const TileConfig& cfg) {
    EXPECT_DOUBLE_EQ(mma_us(q, cfg, 0.2), mma_us(q, cfg, 0.0)) << cfg.block_m << "x" << cfg.block_n << " "
                                                                 << cfg.threads;
  };
  // Two warpgroups of 64x128, a 128-column warpgroup, 128x256 over two.
  same(p, TileConfig{64, 256, 64, 4, 256});
  same(p, TileConfig{128, 128, 64, 5, 128});
  same(p, TileConfig{128, 256, 64, 3, 256});
  // B K-major: stored col, or fp8 and tf32, whose B wgmma reads K-major.
  GemmProblem rc = p;
  rc.b_layout = Layout::col;
  same(rc, kLone);
  GemmProblem fp8 = rc;
  fp8.dtype = DType::float8_e4m3;
  same(fp8, TileConfig{64, 256, 128, 4, 128});
  same(row_row(DType::tfloat32), TileConfig{64, 256, 32, 3, 128});
  // An mma tile (16 rows, four warps of 16x64).
  same(p, TileConfig{16, 256, 64, 4, 128, Instr::mma});
}

TEST(NMajorWideUnit, MovesThePickOfTheCaseItWasFoundOn) {
  // 333x4096x14336 fp16, A and B row-major (data/h200-triton-v25, held
  // out): 96 tiles on 132 SMs; the measured best is 128x128x64 with 5 stages
  // and 4 warps (79.4 us), and 64x256x64 with 4 warps, which the model
  // before the term picked, ran 89.1 us.
  const GemmProblem p = row_row(DType::float16);
  const TileConfig with = test::first_pick_on_measured_grid(p, default_family());
  EXPECT_EQ(with.block_m, 128);
  EXPECT_EQ(with.block_n, 128);
  KernelFamily without = default_family();
  without.time.nmajor_wide_unit_cost = 0;
  const TileConfig before = test::first_pick_on_measured_grid(p, without);
  EXPECT_EQ(before.block_m, 64);
  EXPECT_EQ(before.block_n, 256);
  EXPECT_EQ(before.threads, 128);
}

TEST(NMajorWideUnit, AFamilyFileWithoutItReadsZero_AndANegativeOneIsRefused) {
  Result<KernelFamily> f = test::family_file_without("nmajor_wide_unit_cost");
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(f.value().time.nmajor_wide_unit_cost, 0.0);
  Result<KernelFamily> g =
      test::family_file_without("nmajor_wide_unit_cost", {{"value", -0.2}, {"fitted_on", "test"}});
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.error().message.find("nmajor_wide_unit_cost -0.2 must be a finite number between 0 and 1e9"),
            std::string::npos)
      << g.error().message;
}

}  // namespace
}  // namespace tileplan
