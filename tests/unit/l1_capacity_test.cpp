// The L1 a block keeps and the loads of operands that go through registers:
// the driver's carveout (Device::carveout_multi_block_min_kb, measured in
// data/h200-profile-two-blocks), the L1 left per block, the cache lines of
// one iteration's narrow tiles, and l1_miss_cycles times the squared share
// that does not fit. docs/model.md §3 gives the equations.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "../../src/detail.hpp"
#include "tileplan/device.hpp"
#include "tileplan/family.hpp"
#include "tileplan/gemm.hpp"
#include "tileplan/model.hpp"

namespace tileplan {
namespace {

const Device& dev(const char* name) {
  static const std::vector<Device> all = device_presets();
  for (const Device& d : all)
    if (d.name == name) return d;
  ADD_FAILURE() << name;
  return all.front();
}
constexpr int64_t KB = 1024;

TEST(L1Capacity, Carveout_AboveTheDefaultBlockSize_IsTheLargestStep) {
  // 112 KB per block (128x64x128, B through registers, 3 stages): the
  // profile's kernels above 48 KB all ran with 228 KB, whatever their blocks.
  for (int64_t blocks : {1, 2})
    EXPECT_EQ(detail::carveout_bytes(dev("h200"), 112 * KB, blocks), 228 * KB) << blocks;
  EXPECT_EQ(detail::carveout_bytes(dev("h200"), 48 * KB + 1, 1), 228 * KB);
  EXPECT_DOUBLE_EQ(detail::l1_bytes_per_block(dev("h200"), 112 * KB, 2), 14.0 * KB);
  EXPECT_DOUBLE_EQ(detail::l1_bytes_per_block(dev("h200"), 112 * KB, 1), 28.0 * KB);
}

TEST(L1Capacity, Carveout_AtOrBelowTheDefault_IsTheSmallestStepHoldingTheBlocks) {
  const Device& h = dev("h200");
  // One block of 32 KB: 33 KB with the reserve -> the 64 KB step.
  EXPECT_EQ(detail::carveout_bytes(h, 32 * KB, 1), 64 * KB);
  EXPECT_DOUBLE_EQ(detail::l1_bytes_per_block(h, 32 * KB, 1), 192.0 * KB);
  // Three of 40 KB: 123 KB -> 132 KB; 124 KB of L1 over three blocks.
  EXPECT_EQ(detail::carveout_bytes(h, 40 * KB, 3), 132 * KB);
  EXPECT_DOUBLE_EQ(detail::l1_bytes_per_block(h, 40 * KB, 3), 124.0 * KB / 3.0);
  // Four of 40 KB: 164 KB -> the 164 KB step.
  EXPECT_EQ(detail::carveout_bytes(h, 40 * KB, 4), 164 * KB);
  // Exactly 48 KB is not above the default: two blocks, 98 KB -> 100, floored at 132.
  EXPECT_EQ(detail::carveout_bytes(h, 48 * KB, 2), 132 * KB);
}

TEST(L1Capacity, Carveout_TwoOrMoreBlocks_AtLeastTheDevicesFloor) {
  // Two blocks of 12 KB need 26 KB: the H200 configures 132 KB (measured),
  // a device without a measured floor the 32 KB step.
  EXPECT_EQ(detail::carveout_bytes(dev("h200"), 12 * KB, 2), 132 * KB);
  EXPECT_EQ(detail::carveout_bytes(dev("h200"), 12 * KB, 1), 16 * KB);
  ASSERT_EQ(dev("a100-sxm").carveout_multi_block_min_kb, 0);
  EXPECT_EQ(detail::carveout_bytes(dev("a100-sxm"), 12 * KB, 2), 32 * KB);
  EXPECT_DOUBLE_EQ(detail::l1_bytes_per_block(dev("a100-sxm"), 12 * KB, 2), (192.0 - 32.0) * KB / 2.0);
}

TEST(L1Capacity, EveryPreset_HoldsItsSharedMemoryInTheUnifiedArray) {
  for (const Device& d : device_presets()) {
    EXPECT_GE(d.l1_smem_per_sm_bytes, d.smem_per_sm_bytes) << d.name;
    EXPECT_FALSE(d.source[static_cast<std::size_t>(DeviceField::l1_smem_per_sm_bytes)].empty()) << d.name;
    EXPECT_FALSE(d.carveout_rule_source.empty()) << d.name;
    EXPECT_TRUE(check_device(d).ok()) << d.name;
  }
}

TEST(L1Capacity, CheckDevice_RefusesAnL1SmallerThanTheSharedMemoryOrAFloorAboveIt) {
  Device d = dev("h200");
  d.l1_smem_per_sm_bytes = d.smem_per_sm_bytes - 1;
  Status s = check_device(d);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().param, "l1_smem_per_sm_bytes");
  d = dev("h200");
  d.carveout_multi_block_min_kb = 229;
  s = check_device(d);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().param, "carveout_multi_block_min_kb");
  d.carveout_multi_block_min_kb = -1;
  EXPECT_FALSE(check_device(d).ok());
  d.carveout_multi_block_min_kb = INT64_MAX;  // no overflow on the way to the message
  EXPECT_FALSE(check_device(d).ok());
}

TEST(L1Capacity, OverrideSmemKb_KeepsTheDeviceValid) {
  Device d = dev("h200");
  ASSERT_TRUE(override_smem_kb(d, 300).ok());  // more than the unified array
  EXPECT_EQ(d.l1_smem_per_sm_bytes, 300 * KB);
  EXPECT_TRUE(check_device(d).ok());
  d = dev("h200");
  ASSERT_TRUE(override_smem_kb(d, 64).ok());  // below the 132 KB floor
  EXPECT_EQ(d.carveout_multi_block_min_kb, 64);
  EXPECT_EQ(d.l1_smem_per_sm_bytes, 256 * KB);
  EXPECT_TRUE(check_device(d).ok());
}

// A and B row-major, N unaligned: B (K rows of N-contiguous 2-byte elements)
// goes through registers, A is copied asynchronously.
GemmProblem b_narrow() { return GemmProblem{.m = 128, .n = 50257, .k = 4096}; }

TileCosts costs(const GemmProblem& p, const TileConfig& cfg, int64_t blocks, double l1_miss_cycles) {
  TimeConstants k = time_for(default_family(), DType::float16);
  k.l1_miss_cycles = l1_miss_cycles;
  return detail::tile_costs(dev("h200"), cfg, p, blocks, false, k, 0.0, 0.0);
}

TEST(L1Capacity, TileCosts_NarrowB_PricesTheSquaredShareThatDoesNotFit) {
  const TileConfig cfg{128, 64, 128, 3, 128};
  // 112 KB of shared memory (A 3 x 32 KB, B one 16 KB buffer), two blocks:
  // 14 KB of L1 each against 128 rows x 2 lines x 128 B = 32 KB of B's lines.
  ASSERT_EQ(detail::allocated_smem_bytes(cfg, b_narrow()), 112 * KB);
  const TileCosts t = costs(b_narrow(), cfg, 2, 20.0);
  EXPECT_EQ(t.carveout_bytes, 228 * KB);
  EXPECT_DOUBLE_EQ(t.l1_bytes, 14.0 * KB);
  EXPECT_DOUBLE_EQ(t.narrow_footprint_bytes, 32.0 * KB);
  EXPECT_DOUBLE_EQ(t.l1_short, 1.0 - 14.0 / 32.0);
  // 256 warp-wide 2-byte loads of B per iteration (128 x 64 x 2 B / 2 B / 32).
  const double loads = 256.0;
  EXPECT_NEAR(t.l1_miss_us, loads * 20.0 * t.l1_short * t.l1_short / dev("h200").boost_clock_mhz, 1e-12);
  const TileCosts off = costs(b_narrow(), cfg, 2, 0.0);
  EXPECT_EQ(off.l1_miss_us, 0.0);
  EXPECT_DOUBLE_EQ(off.l1_short, t.l1_short);  // reported, not priced
  EXPECT_NEAR(t.narrow_us - off.narrow_us, t.l1_miss_us, 1e-12);
  // One block keeps all 28 KB: less is short, and it costs less.
  const TileCosts one = costs(b_narrow(), cfg, 1, 20.0);
  EXPECT_DOUBLE_EQ(one.l1_short, 1.0 - 28.0 / 32.0);
  EXPECT_LT(one.l1_miss_us, t.l1_miss_us);
  EXPECT_GT(one.l1_miss_us, 0.0);
}

TEST(L1Capacity, TileCosts_FittingTiles_AndAsyncOperands_CostNothing) {
  // 128x64x64 with 2 stages: 40 KB, at most 48 KB -> 132 KB carveout for 2
  // blocks, 62 KB of L1 each against 16 KB of lines.
  const TileCosts fits = costs(b_narrow(), TileConfig{128, 64, 64, 2, 128}, 2, 20.0);
  EXPECT_EQ(fits.carveout_bytes, 132 * KB);
  EXPECT_DOUBLE_EQ(fits.narrow_footprint_bytes, 16.0 * KB);
  EXPECT_EQ(fits.l1_short, 0.0);
  EXPECT_EQ(fits.l1_miss_us, 0.0);
  // Every operand copied asynchronously: no narrow loads, no footprint.
  const TileCosts aligned = costs(GemmProblem{.m = 4096, .n = 4096, .k = 4096}, TileConfig{128, 64, 128, 3, 128}, 2, 20.0);
  EXPECT_EQ(aligned.narrow_footprint_bytes, 0.0);
  EXPECT_EQ(aligned.l1_miss_us, 0.0);
}

TEST(L1Capacity, TileCosts_FootprintFollowsTheContiguousDimension) {
  // K unaligned with A row-major: A's rows are BM rows of BK contiguous
  // elements (lda = K); B is copied asynchronously.
  const GemmProblem a_narrow{.m = 4096, .n = 4096, .k = 4008};
  const TileCosts t = costs(a_narrow, TileConfig{128, 128, 64, 3, 256}, 1, 20.0);
  EXPECT_DOUBLE_EQ(t.narrow_footprint_bytes, 128.0 * (64.0 * 2.0 / 128.0 + 1.0) * 128.0);
  // B stored K-major (col) with K unaligned: BN rows of BK elements.
  GemmProblem b_col{.m = 4096, .n = 4096, .k = 4008};
  b_col.b_layout = Layout::col;
  b_col.ldb = 4008;
  b_col.lda = 4008;
  const TileCosts c = costs(b_col, TileConfig{128, 256, 64, 3, 256}, 1, 20.0);
  const double a_lines = 128.0 * 2.0, b_lines = 256.0 * 2.0;
  EXPECT_DOUBLE_EQ(c.narrow_footprint_bytes, (a_lines + b_lines) * 128.0);
}

TEST(L1Capacity, Family_WithoutTheConstant_ReadsZeroAndPricesNothing) {
  // Files written before the term: l1_miss_cycles absent reads as 0.
  nlohmann::json j = nlohmann::json::parse(family_json(default_family()));
  ASSERT_TRUE(j["time"]["constants"].contains("l1_miss_cycles"));
  EXPECT_GT(default_family().time.l1_miss_cycles, 0.0);
  j["time"]["constants"].erase("l1_miss_cycles");
  const Result<KernelFamily> f = parse_family(j.dump(), "old.json");
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(f.value().time.l1_miss_cycles, 0.0);
  const TileConfig cfg{128, 64, 128, 3, 128};
  const double with = predict(dev("h200"), b_narrow(), cfg, 2, false, default_family()).value().time_us;
  const double without = predict(dev("h200"), b_narrow(), cfg, 2, false, f.value()).value().time_us;
  EXPECT_GT(with, without);
}

}  // namespace
}  // namespace tileplan
