// A lone warpgroup 256 columns wide (64x256 with 4 warps) with B stored
// K-major, copied asynchronously, and C stored with 16-byte vectors: its
// stage costs L2 kmajor_wide_unit_saving less (docs/model.md §3; fitted on
// data/h200-triton-v39). Every other tile, layout and type is priced as
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

GemmProblem linear(DType t, int64_t n = 4096) {
  GemmProblem p{.m = 1000, .n = n, .k = 4096};
  p.dtype = t;
  p.b_layout = Layout::col;
  return p;
}

double stage_l2(const GemmProblem& p, const TileConfig& cfg, double saving) {
  TimeConstants k = time_for(default_family(), p.dtype);
  k.kmajor_wide_unit_saving = saving;
  return detail::tile_costs(h200(), cfg, p, 1, false, k, 0.0, 0.0).l2_stage_bytes;
}

const TileConfig kLone{64, 256, 64, 5, 128};  // one warpgroup of 64x256

TEST(KMajorWideUnit, ShippedForSixteenBitTypesNotForFp8) {
  EXPECT_GT(time_for(default_family(), DType::float16).kmajor_wide_unit_saving, 0.05);
  EXPECT_LT(time_for(default_family(), DType::float16).kmajor_wide_unit_saving, 0.2);
  EXPECT_EQ(time_for(default_family(), DType::bfloat16).kmajor_wide_unit_saving,
            time_for(default_family(), DType::float16).kmajor_wide_unit_saving);
  // fp8's own constants were fitted with B K-major throughout.
  EXPECT_EQ(time_for(default_family(), DType::float8_e4m3).kmajor_wide_unit_saving, 0.0);
  EXPECT_EQ(time_for(default_family(), DType::float8_e5m2).kmajor_wide_unit_saving, 0.0);
}

TEST(KMajorWideUnit, SavesOnTheLoneWideWarpgroupWithBKMajorAndVectorStoresOfC) {
  for (DType t : {DType::float16, DType::bfloat16}) {
    const GemmProblem p = linear(t);
    EXPECT_NEAR(stage_l2(p, kLone, 0.1), 0.9 * stage_l2(p, kLone, 0.0), 1e-9 * stage_l2(p, kLone, 0.0));
  }
}

TEST(KMajorWideUnit, LeavesEveryOtherCaseAlone) {
  const GemmProblem p = linear(DType::float16);
  const auto same = [&](const GemmProblem& q, const TileConfig& cfg) {
    EXPECT_DOUBLE_EQ(stage_l2(q, cfg, 0.1), stage_l2(q, cfg, 0.0)) << cfg.block_m << "x" << cfg.block_n << " "
                                                                     << cfg.threads;
  };
  // Two warpgroups (64x256 with 8 warps: two of 64x128, serialized instead:
  // kmajor_wide_n), a 128-column warpgroup, and 128x256 over two warpgroups.
  same(p, TileConfig{64, 256, 64, 4, 256});
  same(p, TileConfig{128, 128, 64, 3, 128});
  same(p, TileConfig{128, 256, 64, 3, 256});
  // B N-major.
  GemmProblem rr = p;
  rr.b_layout = Layout::row;
  same(rr, kLone);
  // C stored with narrow stores: N not a multiple of 16, or an odd ldc.
  same(linear(DType::float16, 4001), kLone);
  GemmProblem odd_ldc = p;
  odd_ldc.ldc = 4104;
  same(odd_ldc, kLone);
  // B through registers: K not a multiple of 16 narrows a K-major B.
  GemmProblem odd_k = p;
  odd_k.k = 1000;
  same(odd_k, kLone);
  // An mma tile (16 rows, four warps of 16x64).
  same(p, TileConfig{16, 256, 64, 4, 128, Instr::mma});
}

TEST(KMajorWideUnit, MovesThePickOfTheCaseItWasFoundOn) {
  // 700x28672x8192 fp16, the nn.Linear layout (data/h200-triton-v33): the
  // measured best is 64x256x64 with 5 stages and 4 warps (0.539 ms), which
  // the model before the term ranked below 128x128x64 with 3 stages (0.597).
  GemmProblem p = linear(DType::float16, 28672);
  p.m = 700;
  p.k = 8192;
  const TileConfig with = test::first_pick_on_measured_grid(p, default_family());
  EXPECT_EQ(with.block_n, 256);
  EXPECT_EQ(with.threads, 128);
  KernelFamily without = default_family();
  without.time.kmajor_wide_unit_saving = 0;
  EXPECT_EQ(test::first_pick_on_measured_grid(p, without).block_n, 128);
}

TEST(KMajorWideUnit, AFamilyFileWithoutItReadsZero_AndOneIsRefused) {
  Result<KernelFamily> f = test::family_file_without("kmajor_wide_unit_saving");
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(f.value().time.kmajor_wide_unit_saving, 0.0);
  Result<KernelFamily> g =
      test::family_file_without("kmajor_wide_unit_saving", {{"value", 1.0}, {"fitted_on", "test"}});
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.error().message.find("kmajor_wide_unit_saving 1 must be below 1"), std::string::npos)
      << g.error().message;
}

}  // namespace
}  // namespace tileplan
