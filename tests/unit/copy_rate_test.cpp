// A program's stage arrives at most copy_bytes_per_cycle bytes a cycle: a
// stage's round trip takes its bytes at the lesser of that and the program's
// L2 share (docs/model.md §3; fitted on data/h200-triton-v43 with the latency
// constants, judged on the fresh data/h200-triton-v44). On wgmma tiles fp8
// keeps its own latency constants and takes none, tf32 takes float16's with
// the cap. The tiles that compile to mma.sync take the same value as
// mma_copy_bytes_per_cycle, in every input type (not fitted; chosen on the
// held-out decode-tile sets, docs/model.md §5).
#include <gtest/gtest.h>

#include <string>
#include <vector>

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

TEST(CopyRate, ShippedWithTheLatencyConstantsItWasFittedWith) {
  const TimeConstants f16 = time_for(default_family(), DType::float16);
  EXPECT_GT(f16.copy_bytes_per_cycle, 20.0);
  EXPECT_LT(f16.copy_bytes_per_cycle, 80.0);
  for (DType t : {DType::bfloat16, DType::tfloat32}) {
    const TimeConstants k = time_for(default_family(), t);
    EXPECT_EQ(k.copy_bytes_per_cycle, f16.copy_bytes_per_cycle) << to_string(t);
    EXPECT_EQ(k.load_latency_cycles, f16.load_latency_cycles) << to_string(t);
  }
  for (DType t : {DType::float8_e4m3, DType::float8_e5m2}) {
    const TimeConstants k = time_for(default_family(), t);
    EXPECT_EQ(k.copy_bytes_per_cycle, 0.0) << to_string(t);
    EXPECT_NE(k.load_latency_cycles, f16.load_latency_cycles) << to_string(t);
  }
}

TEST(CopyRate, CapsTheStagesOfMmaTilesWithTheirOwnConstantInEveryType) {
  const GemmProblem p{640, 2048, 8192};
  for (DType t : {DType::float16, DType::bfloat16, DType::float8_e4m3, DType::tfloat32}) {
    const GemmProblem q{.m = p.m, .n = p.n, .k = p.k, .dtype = t};
    const TimeConstants k = time_for(default_family(), t);
    EXPECT_GT(k.mma_copy_bytes_per_cycle, 20.0) << to_string(t);
    EXPECT_EQ(k.mma_copy_bytes_per_cycle, time_for(default_family(), DType::float16).copy_bytes_per_cycle)
        << to_string(t);
    const TileCosts wg =
        detail::tile_costs(h200(), TileConfig{128, 128, 64, 3, 128, Instr::wgmma}, q, 1, false, k, 0.0, 0.0);
    EXPECT_DOUBLE_EQ(wg.copy_bytes_per_us, k.copy_bytes_per_cycle * h200().boost_clock_mhz) << to_string(t);
    const TileCosts mma =
        detail::tile_costs(h200(), TileConfig{16, 128, 64, 4, 128, Instr::mma}, q, 1, false, k, 0.0, 0.0);
    EXPECT_DOUBLE_EQ(mma.copy_bytes_per_us, k.mma_copy_bytes_per_cycle * h200().boost_clock_mhz) << to_string(t);
  }
  // fp8 on wgmma tiles: none (its latency constants were fitted without it).
  EXPECT_EQ(time_for(default_family(), DType::float8_e4m3).copy_bytes_per_cycle, 0.0);
  // SIMT tiles copy nothing asynchronously to cap.
  const TimeConstants k = time_for(default_family(), DType::float16);
  EXPECT_EQ(detail::tile_costs(h200(), TileConfig{64, 64, 32, 2, 128, Instr::simt}, p, 1, false, k, 0.0, 0.0)
                .copy_bytes_per_us,
            0.0);
}

double predicted(const GemmProblem& p, const TileConfig& cfg, const KernelFamily& f) {
  Result<Verdict> v = diagnose(p, h200(), cfg, Model::calibrated, f);
  EXPECT_TRUE(v.ok());
  return v.ok() ? v->predicted_us : 0.0;
}

TEST(CopyRate, ALargerStageCostsMoreOfItsRoundTrip) {
  // 640x2048x8192 fp16 (data/h200-triton-v42, held out): 80 tiles of 128x128,
  // one block alone on each SM. Measured 45.4 us for 128x128x64 with 5
  // stages, 56.0 for 128x128x128 with 3; without the cap the model had the
  // second faster.
  const GemmProblem p{640, 2048, 8192};
  const TileConfig deep{128, 128, 64, 5, 128, Instr::wgmma}, wide{128, 128, 128, 3, 128, Instr::wgmma};
  KernelFamily without = default_family();
  without.time.copy_bytes_per_cycle = 0;
  EXPECT_LT(predicted(p, wide, without), predicted(p, deep, without));
  EXPECT_LT(predicted(p, deep, default_family()), predicted(p, wide, default_family()));
  // The cap only ever adds time.
  EXPECT_GE(predicted(p, wide, default_family()) / predicted(p, wide, without),
            predicted(p, deep, default_family()) / predicted(p, deep, without));
}

TEST(CopyRate, MovesThePickOfAFreshCase) {
  // 640x2048x8192 again, over the measured grid: the pick was 128x128x128
  // with 3 stages (1.250 of the best); with the cap, 128x128x64 with 5.
  const GemmProblem p{640, 2048, 8192};
  const TileConfig with = test::first_pick_on_measured_grid(p, default_family());
  EXPECT_EQ(with.block_k, 64);
  EXPECT_EQ(with.stages, 5);
  KernelFamily without = default_family();
  without.time.copy_bytes_per_cycle = 0;
  EXPECT_EQ(test::first_pick_on_measured_grid(p, without).block_k, 128);
}

TEST(CopyRate, AFamilyFileWithoutItReadsZero) {
  for (const char* name : {"copy_bytes_per_cycle", "mma_copy_bytes_per_cycle"}) {
    Result<KernelFamily> f = test::family_file_without(name);
    ASSERT_TRUE(f.ok()) << f.error().message;
    EXPECT_EQ(name == std::string("copy_bytes_per_cycle") ? f.value().time.copy_bytes_per_cycle
                                                          : f.value().time.mma_copy_bytes_per_cycle,
              0.0);
  }
}

TEST(CopyRate, NarrowsTheMmaTileOfAnFp8DecodeStep) {
  // 1x8192x2048 fp8 e4m3, B K-major (data/h200-triton-splitk-bm16-again,
  // held out), unsplit: 16x256x128 with 5 stages is 32 programs, each alone
  // on its SM with 102 KB in flight. Priced without the cap they pull it as
  // fast as the L2 share of 32 SMs allows: with an mma tile's stages in
  // flight counted as stages - 2 it was the first pick, 1.323x the measured
  // best (16x64x128 with 8 warps); with stages - 1 in flight it ranks second.
  // The cap moves it down the list, and a tile of 128 columns is picked.
  const GemmProblem p{.m = 1, .n = 8192, .k = 2048, .dtype = DType::float8_e4m3, .b_layout = Layout::col};
  // The decode-tile sets' grid, its 16- and 32-row tiles.
  const SearchSpace space{.block_m = {16, 32}, .block_n = {64, 128, 256}, .block_k = {64, 128},
                          .stages = {3, 4, 5}, .threads = {128, 256}, .split_k = {1, 2, 4, 8, 16}};
  const auto ranked = [&](const KernelFamily& f) {
    Result<std::vector<Verdict>> v = sweep(p, h200(), Instr::automatic, space, 1000, Model::calibrated, f);
    EXPECT_TRUE(v.ok() && !v->empty());
    return v.ok() ? *v : std::vector<Verdict>{};
  };
  const auto rank_of_wide = [](const std::vector<Verdict>& v) {
    for (std::size_t i = 0; i < v.size(); ++i) {
      const TileConfig& c = v[i].config;
      if (c.block_m == 16 && c.block_n == 256 && c.block_k == 128 && c.stages == 5 && c.threads == 128 &&
          c.split_k == 1)
        return i;
    }
    return v.size();
  };
  KernelFamily without = default_family();
  without.time.mma_copy_bytes_per_cycle = 0;
  const std::vector<Verdict> before = ranked(without), after = ranked(default_family());
  ASSERT_FALSE(before.empty());
  ASSERT_FALSE(after.empty());
  EXPECT_LE(rank_of_wide(before), 1u);
  EXPECT_GE(rank_of_wide(after), 3u);
  EXPECT_LT(rank_of_wide(after), after.size());
  EXPECT_LT(after.front().config.block_n, 256);
  EXPECT_EQ(after.front().config.instr, Instr::mma);
}

}  // namespace
}  // namespace tileplan
