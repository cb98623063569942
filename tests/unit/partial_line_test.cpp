// Operand rows shorter than a cache line: an asynchronously copied tile whose
// rows are K-major and block_K · element size < 128 bytes long moves partly
// filled lines, and partial_line_share of their unused bytes still costs L2
// bandwidth (docs/model.md §3, the ninth round).
#include <gtest/gtest.h>

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

TileCosts costs(const GemmProblem& p, const TileConfig& cfg, double share) {
  TimeConstants k = time_for(default_family(), p.dtype);
  k.partial_line_share = share;
  return detail::tile_costs(h200(), cfg, p, 1, false, k, 0.0, 0.0);
}

GemmProblem aligned(DType t, Layout b) {
  GemmProblem p{.m = 4096, .n = 4096, .k = 4096};
  p.dtype = t;
  p.b_layout = b;
  return p;
}

TEST(PartialLine, ShippedFamilyPricesIt) {
  EXPECT_GT(default_family().time.partial_line_share, 0.0);
  EXPECT_LE(default_family().time.partial_line_share, 1.0);
}

TEST(PartialLine, BothOperandsKMajor_RowsOf64Bytes_AddTheShareOfHalfALine) {
  // bf16, B K-major, block_K 32: 64 + 256 rows of 64 bytes, each leaving 64
  // bytes of its 128-byte line unused.
  const GemmProblem p = aligned(DType::bfloat16, Layout::col);
  const TileConfig cfg{64, 256, 32, 5, 128};
  const TileCosts t = costs(p, cfg, 0.3);
  EXPECT_DOUBLE_EQ(t.stage_bytes, (64.0 + 256.0) * 32.0 * 2.0);
  EXPECT_DOUBLE_EQ(t.l2_stage_bytes, t.stage_bytes + 0.3 * (64.0 + 256.0) * 64.0);
  // Off: the bytes themselves.
  EXPECT_DOUBLE_EQ(costs(p, cfg, 0.0).l2_stage_bytes, t.stage_bytes);
  // block_K 64 fills the lines: nothing added, whatever the share.
  const TileCosts full = costs(p, TileConfig{64, 256, 64, 4, 128}, 1.0);
  EXPECT_DOUBLE_EQ(full.l2_stage_bytes, full.stage_bytes);
  // 96 bytes (block_K 48) leave 32.
  const TileCosts three_quarters = costs(p, TileConfig{64, 256, 48, 4, 128}, 1.0);
  EXPECT_DOUBLE_EQ(three_quarters.l2_stage_bytes, three_quarters.stage_bytes + (64.0 + 256.0) * 32.0);
}

TEST(PartialLine, BNMajor_OnlyARowsAreShort) {
  // B row-major (N contiguous): block_K rows of 256 · 2 = 512 bytes, whole
  // lines; A's 64 rows of 64 bytes are the only partial lines.
  const GemmProblem p = aligned(DType::float16, Layout::row);
  const TileCosts t = costs(p, TileConfig{64, 256, 32, 5, 128}, 0.5);
  EXPECT_DOUBLE_EQ(t.l2_stage_bytes, t.stage_bytes + 0.5 * 64.0 * 64.0);
  // A column-major: block_K rows of block_M · 2 = 128 bytes, whole lines.
  GemmProblem cr = p;
  cr.a_layout = Layout::col;
  const TileCosts c = costs(cr, TileConfig{64, 256, 32, 5, 128}, 0.5);
  EXPECT_DOUBLE_EQ(c.l2_stage_bytes, c.stage_bytes);
}

TEST(PartialLine, EightBitTypes_ShortRowsAtBlockK64) {
  // fp8 (B K-major): 64 one-byte elements are half a line, 128 a whole one.
  const GemmProblem p = aligned(DType::float8_e4m3, Layout::col);
  const TileCosts half = costs(p, TileConfig{64, 256, 64, 5, 128}, 0.4);
  EXPECT_DOUBLE_EQ(half.l2_stage_bytes, half.stage_bytes + 0.4 * (64.0 + 256.0) * 64.0);
  const TileCosts whole = costs(p, TileConfig{64, 256, 128, 4, 128}, 0.4);
  EXPECT_DOUBLE_EQ(whole.l2_stage_bytes, whole.stage_bytes);
}

TEST(PartialLine, OperandsThroughRegisters_AreNotPriced) {
  // K = 4008 with A row-major: lda is not a multiple of 16 bytes, A goes
  // through registers (its lines are the L1 term's); B K-major with ldb = K
  // the same. Nothing is copied asynchronously, nothing is added.
  GemmProblem p = aligned(DType::float16, Layout::col);
  p.k = 4008;
  const TileCosts t = costs(p, TileConfig{64, 256, 32, 3, 128}, 1.0);
  ASSERT_TRUE(t.through_registers);
  EXPECT_DOUBLE_EQ(t.l2_stage_bytes, t.stage_bytes);
  // N unaligned, both row-major: B through registers, A still copied
  // asynchronously in 64-byte rows: A's partial lines alone.
  GemmProblem n_odd = aligned(DType::float16, Layout::row);
  n_odd.n = 50257;
  const TileCosts b_narrow = costs(n_odd, TileConfig{128, 64, 32, 3, 128}, 1.0);
  EXPECT_DOUBLE_EQ(b_narrow.l2_stage_bytes, b_narrow.stage_bytes + 128.0 * 64.0);
}

TEST(PartialLine, PredictionOfAnL2BoundShortRowTileGrowsWithTheShare) {
  // 555x10240x8192 bf16, B K-major: 64x256x32 with two blocks per SM is
  // L2-bound; its prediction grows with the share, 64x256x64's does not.
  GemmProblem p{.m = 555, .n = 10240, .k = 8192};
  p.dtype = DType::bfloat16;
  p.b_layout = Layout::col;
  KernelFamily off = default_family();
  off.time.partial_line_share = 0.0;
  KernelFamily on = default_family();
  on.time.partial_line_share = 0.5;
  const auto time = [&](const KernelFamily& f, const TileConfig& cfg, int64_t blocks) {
    const Result<Prediction> r = predict(h200(), p, cfg, blocks, false, f);
    EXPECT_TRUE(r.ok());
    return r.ok() ? r.value().time_us : 0.0;
  };
  const TileConfig short_rows{64, 256, 32, 5, 128}, full_rows{64, 256, 64, 5, 128};
  // Two blocks per SM of the first (202 registers), one of the second (228).
  EXPECT_GT(time(on, short_rows, 2), time(off, short_rows, 2) * 1.05);
  EXPECT_DOUBLE_EQ(time(on, full_rows, 1), time(off, full_rows, 1));
}

TEST(PartialLine, Family_WithoutTheConstant_ReadsZero_AndAShareAboveOneIsRefused) {
  nlohmann::json j = nlohmann::json::parse(family_json(default_family()));
  ASSERT_TRUE(j["time"]["constants"].contains("partial_line_share"));
  j["time"]["constants"].erase("partial_line_share");
  const Result<KernelFamily> f = parse_family(j.dump(), "old.json");
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(f.value().time.partial_line_share, 0.0);
  TimeConstants k = default_family().time;
  k.partial_line_share = 1.5;
  const Status s = check_time_constants(k);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().param, "partial_line_share");
  EXPECT_NE(s.error().message.find("at most 1"), std::string::npos) << s.error().message;
}

}  // namespace
}  // namespace tileplan
