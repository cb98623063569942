// A of few rows: at M < 16 (decode steps of one to fifteen tokens) the
// Triton kernel wraps its A tile's rows (offs_am % M), so each of A's M rows
// appears BM/M times in the tile and each copy of it requests the same cache
// lines. At M = 1 the same kernel runs 1.0-2.5x slower than at M = 8, the
// more the larger A's share of a stage (data/h200-profile-m1); at M = 2 the
// data want half that (data/h200-triton-m23). The model prices A's stage
// bytes one_row_a_extra / M more in L2 (docs/model.md §3, the constant
// fitted on data/h200-triton-m1a, the 1/M judged on data/h200-triton-mfew).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <utility>

#include <nlohmann/json.hpp>

#include "../../src/detail.hpp"
#include "tileplan/device.hpp"
#include "tileplan/family.hpp"
#include "tileplan/gemm.hpp"
#include "tileplan/model.hpp"
#include "tileplan/planner.hpp"

namespace tileplan {
namespace {

const Device& h200() {
  static const Device d = *find_device("h200");
  return d;
}

GemmProblem decode(int64_t m, DType t = DType::float16, Layout a = Layout::row, Layout b = Layout::row) {
  GemmProblem p{.m = m, .n = 4096, .k = 14336};
  p.dtype = t;
  p.a_layout = a;
  p.b_layout = b;
  return p;
}

TileCosts costs(const GemmProblem& p, const TileConfig& cfg, double extra) {
  TimeConstants k = time_for(default_family(), p.dtype);
  k.one_row_a_extra = extra;
  return detail::tile_costs(h200(), cfg, p, 1, false, k, 0.0, 0.0);
}

TEST(RepeatedRowsA, OnlyARowMajorOfFewerThan16RowsCopiedAsynchronously) {
  for (int64_t m : {1, 2, 3, 8, 15}) EXPECT_TRUE(problem_access(decode(m)).a.repeated_rows) << m;
  EXPECT_TRUE(problem_access(decode(1, DType::bfloat16, Layout::row, Layout::col)).a.repeated_rows);
  EXPECT_TRUE(problem_access(decode(2, DType::float8_e4m3, Layout::row, Layout::col)).a.repeated_rows);
  // 16 rows or more: the tiles hold distinct rows (but for the last one).
  EXPECT_FALSE(problem_access(decode(16)).a.repeated_rows);
  EXPECT_FALSE(problem_access(decode(100)).a.repeated_rows);
  // A column-major with M = 1: its contiguous extent is 1, a narrow operand
  // that goes through registers, priced as such.
  const ProblemAccess col = problem_access(decode(1, DType::float16, Layout::col));
  EXPECT_FALSE(col.a.repeated_rows);
  EXPECT_TRUE(col.a.through_registers);
  // K not a multiple of 16: A's loads are narrow, no asynchronous copy.
  GemmProblem odd_k = decode(2);
  odd_k.k = 4001;
  EXPECT_FALSE(problem_access(odd_k).a.repeated_rows);
}

TEST(RepeatedRowsA, ShippedFamilyPricesIt) {
  EXPECT_GT(default_family().time.one_row_a_extra, 1.0);
  EXPECT_LT(default_family().time.one_row_a_extra, 20.0);
}

TEST(RepeatedRowsA, AddsTheConstantTimesAsStageBytesToTheL2Cost) {
  const TileConfig cfg{64, 128, 128, 4, 128};
  const GemmProblem p = decode(1);
  const TileCosts off = costs(p, cfg, 0.0), on = costs(p, cfg, 5.0);
  const double a_stage = 64.0 * 128.0 * 2.0;
  EXPECT_DOUBLE_EQ(on.repeated_rows_a_bytes, 5.0 * a_stage);
  EXPECT_EQ(off.repeated_rows_a_bytes, 0.0);
  // The bytes side of the smooth maximum with the requests grows by exactly that.
  const TimeConstants k = time_for(default_family(), p.dtype);
  const auto joined = [&](double bytes) {
    const double req = k.l2_request_bytes * on.l2_requests;
    return std::pow(std::pow(bytes, k.overlap_power) + std::pow(req, k.overlap_power), 1.0 / k.overlap_power);
  };
  EXPECT_NEAR(off.l2_stage_bytes, joined(off.stage_bytes), 1e-5 * off.stage_bytes);
  EXPECT_NEAR(on.l2_stage_bytes, joined(on.stage_bytes + 5.0 * a_stage), 1e-5 * on.stage_bytes);
  EXPECT_GT(on.l2_stage_bytes - off.l2_stage_bytes, 4.9 * a_stage);
  // The stage's own bytes (shared memory) do not change.
  EXPECT_DOUBLE_EQ(on.stage_bytes, off.stage_bytes);
  // M rows: the constant over M; 16 rows: nothing, whatever the constant.
  EXPECT_DOUBLE_EQ(costs(decode(2), cfg, 5.0).repeated_rows_a_bytes, 2.5 * a_stage);
  EXPECT_DOUBLE_EQ(costs(decode(5), cfg, 5.0).repeated_rows_a_bytes, 1.0 * a_stage);
  EXPECT_EQ(costs(decode(16), cfg, 5.0).repeated_rows_a_bytes, 0.0);
  EXPECT_DOUBLE_EQ(costs(decode(16), cfg, 5.0).l2_stage_bytes, costs(decode(16), cfg, 0.0).l2_stage_bytes);
  // An mma tile of 16 rows at M = 15 repeats a row: priced; at M = 16 none.
  EXPECT_DOUBLE_EQ(costs(decode(15), TileConfig{16, 128, 64, 3, 128}, 5.0).repeated_rows_a_bytes,
                   5.0 / 15.0 * 16 * 64 * 2);
}

TEST(RepeatedRowsA, SlowsTilesByAsShareOfAStage) {
  // Measured (data/h200-profile-m1, 1x14336x4096 against 8x14336x4096):
  // 128x64 tiles (A two thirds of a stage) lose most, 64x256 (a fifth) least.
  const GemmProblem p{.m = 1, .n = 14336, .k = 4096};
  GemmProblem eight = p;
  eight.m = 8;
  const auto ratio = [&](const TileConfig& cfg) {
    const Result<Prediction> one = predict(h200(), p, cfg, 1, false, default_family());
    const Result<Prediction> ref = predict(h200(), eight, cfg, 1, false, default_family());
    EXPECT_TRUE(one.ok() && ref.ok());
    return one.ok() && ref.ok() ? one.value().time_us / ref.value().time_us : 0.0;
  };
  const double narrow_a = ratio(TileConfig{64, 256, 64, 5, 128});
  const double wide_a = ratio(TileConfig{128, 64, 64, 5, 128});
  EXPECT_GT(narrow_a, 1.0);
  EXPECT_GT(wide_a, narrow_a * 1.2);
}

TEST(RepeatedRowsA, PlannerKeepsEachMInATableOfItsOwn) {
  // The planner caches the shape-independent costs per class: the repeated
  // rows' cost depends on M, so M = 1, 2 and 4 must not reuse each other's
  // (nor M = 16's), whichever comes first.
  const Planner pl =
      Planner::create(h200(), Instr::wgmma, SearchSpace{}, Model::calibrated, default_family()).value();
  const std::vector<Verdict> sixteen = pl.plan(decode(16), 0).value();
  const std::vector<Verdict> two = pl.plan(decode(2), 0).value();
  const std::vector<Verdict> four = pl.plan(decode(4), 0).value();
  const std::vector<Verdict> one = pl.plan(decode(1), 0).value();
  for (int64_t m : {1, 2, 4}) {
    const Planner fresh =
        Planner::create(h200(), Instr::wgmma, SearchSpace{}, Model::calibrated, default_family()).value();
    const std::vector<Verdict> alone = fresh.plan(decode(m), 0).value();
    const std::vector<Verdict>& cached = m == 1 ? one : m == 2 ? two : four;
    ASSERT_FALSE(cached.empty());
    ASSERT_EQ(cached.size(), alone.size());
    for (std::size_t i = 0; i < cached.size(); ++i) {
      EXPECT_DOUBLE_EQ(cached[i].predicted_us, alone[i].predicted_us) << m;
      EXPECT_GT(cached[i].repeated_rows_a_bytes, 0.0) << m;
    }
  }
  // Of the same tile, M = 2 adds half what M = 1 does.
  std::map<std::pair<int64_t, int64_t>, double> at_one;  // (block_m, block_k) -> bytes
  for (const Verdict& v : one) at_one[{v.config.block_m, v.config.block_k}] = v.repeated_rows_a_bytes;
  ASSERT_GT(at_one.size(), 3u);
  for (const Verdict& v : two) {
    const auto it = at_one.find({v.config.block_m, v.config.block_k});
    ASSERT_NE(it, at_one.end());
    EXPECT_DOUBLE_EQ(v.repeated_rows_a_bytes * 2.0, it->second);
  }
  ASSERT_FALSE(sixteen.empty());
  for (const Verdict& v : sixteen) EXPECT_EQ(v.repeated_rows_a_bytes, 0.0);
}

TEST(RepeatedRowsA, Family_WithoutTheConstant_ReadsZero) {
  nlohmann::json j = nlohmann::json::parse(family_json(default_family()));
  ASSERT_TRUE(j["time"]["constants"].contains("one_row_a_extra"));
  j["time"]["constants"].erase("one_row_a_extra");
  const Result<KernelFamily> f = parse_family(j.dump(), "old.json");
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(f.value().time.one_row_a_extra, 0.0);
}

}  // namespace
}  // namespace tileplan
