// The L2's read requests: an asynchronous copy's row takes one request per
// cache line it touches, so a row shorter than a line (K-major, block_K ·
// element size < 128 bytes) takes more requests per byte, and a stage's
// bytes and its requests, at l2_request_bytes each, join in a smooth maximum
// of order overlap_power (docs/model.md §3; data/h200-profile-partial-lines).
#include <gtest/gtest.h>

#include <cmath>

#include <nlohmann/json.hpp>

#include "../../src/detail.hpp"
#include "tileplan/device.hpp"
#include "tileplan/family.hpp"
#include "tileplan/gemm.hpp"
#include "tileplan/model.hpp"

namespace tileplan {
namespace {

const Device& h200() {
  static const Device d = *find_device("h200");
  return d;
}

TileCosts costs(const GemmProblem& p, const TileConfig& cfg, double request_bytes, double power = 5.5) {
  TimeConstants k = time_for(default_family(), p.dtype);
  k.l2_request_bytes = request_bytes;
  k.overlap_power = power;
  k.kmajor_wide_unit_saving = 0;  // the requests alone (the saving: kmajor_wide_unit_test.cpp)
  return detail::tile_costs(h200(), cfg, p, 1, false, k, 0.0, 0.0);
}

GemmProblem aligned(DType t, Layout b) {
  GemmProblem p{.m = 4096, .n = 4096, .k = 4096};
  p.dtype = t;
  p.b_layout = b;
  return p;
}

TEST(L2Requests, ShippedFamilyPricesThem_BelowALinesBytes) {
  // Below 128 bytes a request, rows of whole lines stay priced by their bytes
  // (within the smooth maximum's rounding).
  EXPECT_GT(default_family().time.l2_request_bytes, 0.0);
  EXPECT_LT(default_family().time.l2_request_bytes, 128.0);
}

TEST(L2Requests, CountOneRequestPerLineARowTouches) {
  // bf16, B K-major: block_K 32 gives 64 + 256 rows of 64 bytes, one request
  // each; block_K 64 the same rows of 128 bytes; block_K 128 two lines a row.
  const GemmProblem rc = aligned(DType::bfloat16, Layout::col);
  EXPECT_DOUBLE_EQ(costs(rc, TileConfig{64, 256, 32, 5, 128}, 70).l2_requests, 320.0);
  EXPECT_DOUBLE_EQ(costs(rc, TileConfig{64, 256, 64, 4, 128}, 70).l2_requests, 320.0);
  EXPECT_DOUBLE_EQ(costs(rc, TileConfig{64, 256, 128, 2, 128}, 70).l2_requests, 640.0);
  // B N-major: A's 64 rows of 64 bytes and B's 32 rows of 512 (four lines).
  const GemmProblem rr = aligned(DType::bfloat16, Layout::row);
  EXPECT_DOUBLE_EQ(costs(rr, TileConfig{64, 256, 32, 5, 128}, 70).l2_requests, 64.0 + 32.0 * 4.0);
  // A column-major: block_K rows of block_M · 2 = 128 bytes.
  GemmProblem cr = rr;
  cr.a_layout = Layout::col;
  EXPECT_DOUBLE_EQ(costs(cr, TileConfig{64, 256, 32, 5, 128}, 70).l2_requests, 32.0 + 32.0 * 4.0);
  // fp8 (B K-major): block_K 64 is 64 bytes a row, 128 a whole line.
  const GemmProblem f8 = aligned(DType::float8_e4m3, Layout::col);
  EXPECT_DOUBLE_EQ(costs(f8, TileConfig{64, 256, 64, 5, 128}, 70).l2_requests, 320.0);
  EXPECT_DOUBLE_EQ(costs(f8, TileConfig{64, 256, 128, 4, 128}, 70).l2_requests, 320.0);
}

TEST(L2Requests, StageCost_IsTheSmoothMaximumOfBytesAndRequests) {
  const GemmProblem rc = aligned(DType::bfloat16, Layout::col);
  const TileConfig short_rows{64, 256, 32, 5, 128};
  const TileCosts t = costs(rc, short_rows, 80.0, 5.5);
  ASSERT_DOUBLE_EQ(t.stage_bytes, 320.0 * 64.0);
  EXPECT_DOUBLE_EQ(t.l2_async_bytes, t.stage_bytes);
  const double req = 80.0 * 320.0;  // 25600 against 20480 bytes: the requests bind
  EXPECT_NEAR(t.l2_stage_bytes, std::pow(std::pow(t.stage_bytes, 5.5) + std::pow(req, 5.5), 1.0 / 5.5),
              1e-5 * req);
  EXPECT_GT(t.l2_stage_bytes, req);
  // The plain maximum at order 0; the bytes alone with the term off.
  EXPECT_DOUBLE_EQ(costs(rc, short_rows, 80.0, 0.0).l2_stage_bytes, req);
  EXPECT_DOUBLE_EQ(costs(rc, short_rows, 0.0, 5.5).l2_stage_bytes, t.stage_bytes);
  // Whole lines: 320 requests for 40 KB, 25600 against 40960 bytes: 1.3%
  // above the bytes ((1 + 0.625^5.5)^(1/5.5)).
  const TileCosts full = costs(rc, TileConfig{64, 256, 64, 4, 128}, 80.0, 5.5);
  EXPECT_NEAR(full.l2_stage_bytes, full.stage_bytes * std::pow(1.0 + std::pow(0.625, 5.5), 1.0 / 5.5), 1e-6);
  EXPECT_LT(full.l2_stage_bytes, full.stage_bytes * 1.02);
  // Only A's rows short (B N-major): 192 requests, 15360 against 20480
  // bytes: 3% above the bytes, where both short add 25%.
  const TileCosts rr = costs(aligned(DType::bfloat16, Layout::row), short_rows, 80.0, 5.5);
  EXPECT_LT(rr.l2_stage_bytes, rr.stage_bytes * 1.04);
  EXPECT_GT(t.l2_stage_bytes, t.stage_bytes * 1.25);
}

TEST(L2Requests, OperandsThroughRegisters_AreNotCounted) {
  // K = 4008: both operands' leading dimensions are not multiples of 16
  // bytes, both go through registers: no asynchronous rows, no requests.
  GemmProblem p = aligned(DType::float16, Layout::col);
  p.k = 4008;
  const TileCosts t = costs(p, TileConfig{64, 256, 32, 3, 128}, 80.0);
  ASSERT_TRUE(t.through_registers);
  EXPECT_EQ(t.l2_requests, 0.0);
  EXPECT_EQ(t.l2_async_bytes, 0.0);
  EXPECT_NEAR(t.l2_stage_bytes, t.stage_bytes, 1e-9 * t.stage_bytes);
  // N unaligned, both row-major: B through registers; A's 128 rows of 64
  // bytes are copied asynchronously, 128 requests for 16 KB.
  GemmProblem n_odd = aligned(DType::float16, Layout::row);
  n_odd.n = 50257;
  const TileCosts b_narrow = costs(n_odd, TileConfig{128, 64, 32, 3, 128}, 80.0);
  EXPECT_DOUBLE_EQ(b_narrow.l2_requests, 128.0);
  EXPECT_DOUBLE_EQ(b_narrow.l2_async_bytes, 128.0 * 64.0);
}

TEST(L2Requests, PredictionOfAnL2BoundShortRowTileGrowsWithThem) {
  // 555x10240x8192 bf16, B K-major: 64x256x32 with two blocks per SM is
  // L2-bound; its prediction grows with the requests' price, 64x256x64's
  // (whole lines) by less than 2%.
  GemmProblem p{.m = 555, .n = 10240, .k = 8192};
  p.dtype = DType::bfloat16;
  p.b_layout = Layout::col;
  KernelFamily off = default_family();
  off.time.l2_request_bytes = 0.0;
  KernelFamily on = default_family();
  on.time.l2_request_bytes = 80.0;
  const auto time = [&](const KernelFamily& f, const TileConfig& cfg, int64_t blocks) {
    const Result<Prediction> r = predict(h200(), p, cfg, blocks, false, f);
    EXPECT_TRUE(r.ok());
    return r.ok() ? r.value().time_us : 0.0;
  };
  const TileConfig short_rows{64, 256, 32, 5, 128}, full_rows{64, 256, 64, 5, 128};
  EXPECT_GT(time(on, short_rows, 2), time(off, short_rows, 2) * 1.10);
  EXPECT_LT(time(on, full_rows, 1), time(off, full_rows, 1) * 1.02);
}

TEST(L2Requests, Family_WithoutTheConstant_ReadsZero) {
  nlohmann::json j = nlohmann::json::parse(family_json(default_family()));
  ASSERT_TRUE(j["time"]["constants"].contains("l2_request_bytes"));
  j["time"]["constants"].erase("l2_request_bytes");
  const Result<KernelFamily> f = parse_family(j.dump(), "old.json");
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(f.value().time.l2_request_bytes, 0.0);
}

}  // namespace
}  // namespace tileplan
