// Programs walking K in step: where A has M < 16 rows, the Triton kernel's A
// tile repeats them (offs_am % M), every resident program of one K slice
// requests the same lines of A at once, block_M / M copies each, and those
// requests queue on the L2 slices that hold the lines. Measured: a variant
// whose program p starts its K loop at tile p mod k_tiles (same tiles, same
// bytes) runs 0.83x the plain kernel at M = 2 (data/h200-profile-few-programs).
// The model adds in_step_a_ns x (resident programs / split) x block_M / M to
// each K step of a program's path (docs/model.md §3; fitted with
// one_row_a_extra on data/h200-triton-mstep and -m1a, scripts/fit_in_step.py).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

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

KernelFamily with_in_step(double ns) {
  KernelFamily f = default_family();
  f.time.in_step_a_ns = ns;
  return f;
}

Prediction run(const GemmProblem& p, const TileConfig& cfg, const KernelFamily& f, int64_t blocks = 1) {
  const Result<Prediction> r = predict(h200(), p, cfg, blocks, false, f);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? r.value() : Prediction{};
}

// kt K steps of (resident programs / s) x block_M / M copies, c ns each.
double expected_us(const GemmProblem& p, const TileConfig& cfg, double ns, int64_t blocks) {
  const int64_t tiles = (p.m + cfg.block_m - 1) / cfg.block_m * ((p.n + cfg.block_n - 1) / cfg.block_n);
  const int64_t programs = tiles * cfg.split_k;
  const int64_t kt_all = (p.k + cfg.block_k - 1) / cfg.block_k;
  const int64_t kt = (kt_all + cfg.split_k - 1) / cfg.split_k;
  const double resident = static_cast<double>(std::min<int64_t>(programs, h200().sm_count * blocks));
  return static_cast<double>(kt) * ns * 1e-3 * resident / static_cast<double>(cfg.split_k) *
         static_cast<double>(cfg.block_m) / static_cast<double>(p.m);
}

TEST(InStep, ShippedFamilyPricesIt) {
  EXPECT_GT(default_family().time.in_step_a_ns, 0.005);
  EXPECT_LT(default_family().time.in_step_a_ns, 0.2);
}

TEST(InStep, AddsItsEquationToTheProgramsPath) {
  // 2x6144x4096, 64x128x128: 48 programs of 32 K steps, 32 copies of each row.
  const GemmProblem p{.m = 2, .n = 6144, .k = 4096};
  const TileConfig cfg{64, 128, 128, 4, 128};
  const Prediction off = run(p, cfg, with_in_step(0.0)), on = run(p, cfg, with_in_step(0.05));
  EXPECT_EQ(off.in_step_us, 0.0);
  EXPECT_NEAR(on.in_step_us, 32 * 0.05e-3 * 48 * 32, 1e-12);
  EXPECT_NEAR(on.in_step_us, expected_us(p, cfg, 0.05, 1), 1e-12);
  // The SMs' time grows by it (the path binds at 48 programs); the kernel's
  // by at most that (DRAM's time overlaps the SMs').
  EXPECT_NEAR(on.terms.sm_us - off.terms.sm_us, on.in_step_us, 1e-9);
  EXPECT_GT(on.time_us - off.time_us, 0.5 * on.in_step_us);
  EXPECT_LE(on.time_us - off.time_us, on.in_step_us + 1e-9);
  // Linear in the constant.
  EXPECT_NEAR(run(p, cfg, with_in_step(0.1)).in_step_us, 2 * on.in_step_us, 1e-12);
}

TEST(InStep, GrowsWithTheProgramsInStepAndTheCopiesOfEachRow) {
  const TileConfig cfg{64, 128, 128, 4, 128};
  const KernelFamily f = with_in_step(0.03);
  // More programs at once, up to the resident limit (132 SMs x 1 block).
  const double n2048 = run(GemmProblem{.m = 2, .n = 2048, .k = 4096}, cfg, f).in_step_us;   // 16 programs
  const double n8192 = run(GemmProblem{.m = 2, .n = 8192, .k = 4096}, cfg, f).in_step_us;   // 64
  const double n32768 = run(GemmProblem{.m = 2, .n = 32768, .k = 4096}, cfg, f).in_step_us;  // 256 -> 132
  EXPECT_NEAR(n8192, 4 * n2048, 1e-12);
  EXPECT_NEAR(n32768, 132.0 / 16.0 * n2048, 1e-12);
  // Fewer copies of each row as M grows: block_M / M.
  const double m8 = run(GemmProblem{.m = 8, .n = 8192, .k = 4096}, cfg, f).in_step_us;
  EXPECT_NEAR(m8, n8192 / 4, 1e-12);
  // Two resident blocks per SM: all 256 programs at once (264 places).
  const GemmProblem wide{.m = 2, .n = 32768, .k = 4096};
  EXPECT_NEAR(run(wide, cfg, f, 2).in_step_us, expected_us(wide, cfg, 0.03, 2), 1e-12);
  EXPECT_NEAR(run(wide, cfg, f, 2).in_step_us, 256.0 / 132.0 * n32768, 1e-12);
}

TEST(InStep, ASplitSpreadsTheProgramsOverItsKSlices) {
  const GemmProblem p{.m = 2, .n = 4096, .k = 8192};
  TileConfig cfg{64, 128, 128, 4, 128};
  const KernelFamily f = with_in_step(0.03);
  for (int64_t s : {1, 2, 4, 8, 16}) {
    cfg.split_k = s;
    const Prediction pr = run(p, cfg, f);
    EXPECT_NEAR(pr.in_step_us, expected_us(p, cfg, 0.03, 1), 1e-12) << s;
  }
  // 32 tiles: up to split 4 every program is resident and each slice has 32
  // in step over 64 / s steps; split 8 has 256 programs, 132 resident.
  cfg.split_k = 1;
  const double one = run(p, cfg, f).in_step_us;
  cfg.split_k = 4;
  EXPECT_NEAR(run(p, cfg, f).in_step_us, one / 4, 1e-12);
  cfg.split_k = 8;
  EXPECT_NEAR(run(p, cfg, f).in_step_us, one / 8 * (132.0 / 256.0), 1e-12);
}

TEST(InStep, OnlyWhereATileRepeatsARowMajorAsRows) {
  const TileConfig cfg{64, 128, 128, 4, 128};
  const KernelFamily f = with_in_step(0.03), off = with_in_step(0.0);
  const auto same = [&](GemmProblem p) {
    EXPECT_EQ(run(p, cfg, f).in_step_us, 0.0) << p.m << "x" << p.n << "x" << p.k;
    EXPECT_DOUBLE_EQ(run(p, cfg, f).time_us, run(p, cfg, off).time_us);
  };
  same(GemmProblem{.m = 16, .n = 4096, .k = 4096});   // distinct rows
  same(GemmProblem{.m = 64, .n = 4096, .k = 4096});
  GemmProblem col{.m = 2, .n = 4096, .k = 4096};
  col.a_layout = Layout::col;  // M contiguous, two elements: through registers
  same(col);
  same(GemmProblem{.m = 2, .n = 4096, .k = 4001});  // K unaligned: A's loads are narrow
  // Every input type whose A is copied asynchronously: bf16 and fp8 too.
  for (DType t : {DType::bfloat16, DType::float8_e4m3}) {
    GemmProblem p{.m = 4, .n = 4096, .k = 4096};
    p.dtype = t;
    p.b_layout = Layout::col;
    EXPECT_GT(run(p, cfg, f).in_step_us, 0.0) << to_string(t);
  }
}

TEST(InStep, Family_WithoutTheConstant_ReadsZero) {
  nlohmann::json j = nlohmann::json::parse(family_json(default_family()));
  ASSERT_TRUE(j["time"]["constants"].contains("in_step_a_ns"));
  j["time"]["constants"].erase("in_step_a_ns");
  const Result<KernelFamily> f = parse_family(j.dump(), "old.json");
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(f.value().time.in_step_a_ns, 0.0);
  const Prediction pr = run(GemmProblem{.m = 2, .n = 4096, .k = 4096}, TileConfig{64, 128, 128, 4, 128}, f.value());
  EXPECT_EQ(pr.in_step_us, 0.0);
}

}  // namespace
}  // namespace tileplan
