// A of one row: at M = 1 (a decode step of one token) Triton compiles the
// kernel apart, every row of its A tile is A's one row, and each copy of
// that row requests the same cache lines. The same kernel then runs 1.0-2.5x
// slower than at M = 8, the more the larger A's share of a stage
// (data/h200-profile-m1); the model prices A's stage bytes one_row_a_extra
// more in L2 (docs/model.md §3, fitted on data/h200-triton-m1a).
#include <gtest/gtest.h>

#include <cmath>

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

TEST(OneRowA, OnlyARowMajorAOfOneRowCopiedAsynchronously) {
  EXPECT_TRUE(problem_access(decode(1)).a.one_row);
  EXPECT_TRUE(problem_access(decode(1, DType::bfloat16, Layout::row, Layout::col)).a.one_row);
  EXPECT_TRUE(problem_access(decode(1, DType::float8_e4m3, Layout::row, Layout::col)).a.one_row);
  // Two rows or more: distinct rows in the tile (and Triton's general kernel).
  EXPECT_FALSE(problem_access(decode(2)).a.one_row);
  EXPECT_FALSE(problem_access(decode(16)).a.one_row);
  // A column-major with M = 1: its contiguous extent is 1, a narrow operand
  // that goes through registers, priced as such.
  const ProblemAccess col = problem_access(decode(1, DType::float16, Layout::col));
  EXPECT_FALSE(col.a.one_row);
  EXPECT_TRUE(col.a.through_registers);
  // K not a multiple of 16: A's loads are narrow, no asynchronous copy.
  GemmProblem odd_k = decode(1);
  odd_k.k = 4001;
  EXPECT_FALSE(problem_access(odd_k).a.one_row);
}

TEST(OneRowA, ShippedFamilyPricesIt) {
  EXPECT_GT(default_family().time.one_row_a_extra, 1.0);
  EXPECT_LT(default_family().time.one_row_a_extra, 20.0);
}

TEST(OneRowA, AddsTheConstantTimesAsStageBytesToTheL2Cost) {
  const TileConfig cfg{64, 128, 128, 4, 128};
  const GemmProblem p = decode(1);
  const TileCosts off = costs(p, cfg, 0.0), on = costs(p, cfg, 5.0);
  const double a_stage = 64.0 * 128.0 * 2.0;
  EXPECT_DOUBLE_EQ(on.one_row_a_bytes, 5.0 * a_stage);
  EXPECT_EQ(off.one_row_a_bytes, 0.0);
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
  // M = 2: nothing added, whatever the constant.
  EXPECT_EQ(costs(decode(2), cfg, 5.0).one_row_a_bytes, 0.0);
  EXPECT_DOUBLE_EQ(costs(decode(2), cfg, 5.0).l2_stage_bytes, costs(decode(2), cfg, 0.0).l2_stage_bytes);
}

TEST(OneRowA, SlowsTilesByAsShareOfAStage) {
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

TEST(OneRowA, PlannerKeepsM1AndM2InTablesOfTheirOwn) {
  // The planner caches the shape-independent costs per class: M = 1 must not
  // reuse M = 2's (or the reverse), whichever comes first.
  const Planner pl =
      Planner::create(h200(), Instr::wgmma, SearchSpace{}, Model::calibrated, default_family()).value();
  const Planner fresh1 =
      Planner::create(h200(), Instr::wgmma, SearchSpace{}, Model::calibrated, default_family()).value();
  const std::vector<Verdict> two = pl.plan(decode(2), 0).value();
  const std::vector<Verdict> one = pl.plan(decode(1), 0).value();
  const std::vector<Verdict> alone = fresh1.plan(decode(1), 0).value();
  ASSERT_FALSE(one.empty());
  ASSERT_EQ(one.size(), alone.size());
  for (std::size_t i = 0; i < one.size(); ++i) {
    EXPECT_DOUBLE_EQ(one[i].predicted_us, alone[i].predicted_us);
    EXPECT_GT(one[i].one_row_a_bytes, 0.0);
  }
  ASSERT_FALSE(two.empty());
  for (const Verdict& v : two) EXPECT_EQ(v.one_row_a_bytes, 0.0);
}

TEST(OneRowA, Family_WithoutTheConstant_ReadsZero) {
  nlohmann::json j = nlohmann::json::parse(family_json(default_family()));
  ASSERT_TRUE(j["time"]["constants"].contains("one_row_a_extra"));
  j["time"]["constants"].erase("one_row_a_extra");
  const Result<KernelFamily> f = parse_family(j.dump(), "old.json");
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(f.value().time.one_row_a_extra, 0.0);
}

}  // namespace
}  // namespace tileplan
