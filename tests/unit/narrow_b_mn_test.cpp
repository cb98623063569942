// B alone through registers with N contiguous (A and B row-major, N or ldb not
// a multiple of 16, A copied asynchronously): every main-loop step takes
// 1 + narrow_b_mn_step_share times the modeled one. Each warp-wide 2-byte
// load of such a B reads different rows (about 27 sectors a request:
// data/h200-profile-row-alignment), and these kernels ran 1.6-2.4x their
// predicted times across their tiles before the term (docs/model.md §3).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "../../src/detail.hpp"
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

// N unaligned, K aligned, A and B row-major: B through registers, N contiguous.
GemmProblem b_mn() { return GemmProblem{.m = 4096, .n = 5001, .k = 4096}; }

Prediction predict_with(const GemmProblem& p, const TileConfig& cfg, double share) {
  TimeConstants k = time_for(default_family(), p.dtype);
  k.narrow_b_mn_step_share = share;
  const TileCosts t = detail::tile_costs(h200(), cfg, p, 1, false, k, 0.0, 0.0);
  return detail::predict(h200(), p, t, k, 8);
}

TEST(NarrowBMn, MarksOnlyBAloneThroughRegistersWithNContiguous) {
  const TimeConstants k = time_for(default_family(), DType::float16);
  const TileConfig cfg{256, 64, 32, 3, 128};
  const auto marked = [&](const GemmProblem& p) {
    return detail::tile_costs(h200(), cfg, p, 1, false, k, 0.0, 0.0).narrow_b_mn;
  };
  EXPECT_TRUE(marked(b_mn()));
  EXPECT_TRUE(marked(GemmProblem{.m = 1000, .n = 5001, .k = 4096})) << "M is only a loop bound";
  GemmProblem ldb = GemmProblem{.m = 4096, .n = 4096, .k = 4096};
  ldb.ldb = 4100;
  EXPECT_TRUE(marked(ldb)) << "an unaligned ldb narrows B as N does";
  EXPECT_FALSE(marked(GemmProblem{.m = 4096, .n = 4096, .k = 4096})) << "aligned";
  EXPECT_FALSE(marked(GemmProblem{.m = 4096, .n = 4096, .k = 4008})) << "A alone through registers";
  EXPECT_FALSE(marked(GemmProblem{.m = 4096, .n = 5001, .k = 4008})) << "both through registers";
  GemmProblem col = b_mn();
  col.b_layout = Layout::col;
  EXPECT_FALSE(marked(col)) << "B K-major with K aligned: copied; only C is narrow";
  GemmProblem fp8 = GemmProblem{.m = 4096, .n = 4096, .k = 4096, .dtype = DType::float8_e4m3};
  EXPECT_FALSE(marked(fp8)) << "fp8 B N-contiguous goes through registers with 16-byte loads: not narrow";
  GemmProblem tf32 = b_mn();
  tf32.dtype = DType::tfloat32;
  EXPECT_FALSE(marked(tf32)) << "4-byte loads: copied asynchronously";
}

TEST(NarrowBMn, ScalesEveryStepOfTheMarkedKernelsOnly) {
  const TileConfig cfg{256, 64, 64, 3, 128};
  const Prediction off = predict_with(b_mn(), cfg, 0.0), on = predict_with(b_mn(), cfg, 1.0);
  ASSERT_EQ(off.in_step_us, 0.0) << "A of 4096 rows: no programs in step";
  EXPECT_NEAR(on.terms.iteration_us, 2.0 * off.terms.iteration_us, 1e-9);
  EXPECT_GT(on.time_us, 1.5 * off.time_us) << "the main loop dominates a K of 4096";
  EXPECT_LT(on.time_us, 2.0 * off.time_us) << "launch, epilogue and the start are not scaled";
  for (const GemmProblem& p : {GemmProblem{.m = 4096, .n = 4096, .k = 4096}, GemmProblem{.m = 4096, .n = 4096, .k = 4008},
                               GemmProblem{.m = 1000, .n = 5001, .k = 1000}})
    EXPECT_DOUBLE_EQ(predict_with(p, cfg, 0.0).time_us, predict_with(p, cfg, 1.0).time_us);
}

TEST(NarrowBMn, ShippedFamilyHasTheTermForSixteenBitTypes) {
  for (DType t : {DType::float16, DType::bfloat16}) {
    const double s = time_for(default_family(), t).narrow_b_mn_step_share;
    EXPECT_GT(s, 0.3);
    EXPECT_LT(s, 2.0);
  }
}

TEST(NarrowBMn, AFamilyFileWithoutTheConstantReadsAsZero) {
  nlohmann::json j = nlohmann::json::parse(family_json(default_family()));
  ASSERT_TRUE(j["time"]["constants"].contains("narrow_b_mn_step_share"));
  j["time"]["constants"].erase("narrow_b_mn_step_share");
  Result<KernelFamily> f = parse_family(j.dump(), "test");
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(f.value().time.narrow_b_mn_step_share, 0.0);
}

}  // namespace
}  // namespace tileplan
