// Narrow stores of C (N or ldc not a multiple of 16): the epilogue holds an
// address per row of the tile a thread stores beside the accumulators. Its
// register demand (per_narrow_c_accumulator per accumulator, per_narrow_c_row
// per row) raises the allocation and so lowers blocks/SM;
// beyond the limit it spills, in the main loop when both operands go through
// registers, else once per tile (epilogue_spill_cycles).
// docs/model.md §1 and §3 give the equations.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "../../src/detail.hpp"
#include "tileplan/constraints.hpp"
#include "tileplan/family.hpp"
#include "tileplan/model.hpp"
#include "tileplan/planner.hpp"
#include "tileplan/registers.hpp"

namespace tileplan {
namespace {

const Device& h200() {
  static const Device d = *find_device("h200");
  return d;
}

// B K-major, K a multiple of 16: A and B move 16-byte vectors. N decides C.
GemmProblem vector_operands(int64_t n) { return GemmProblem{.m = 4096, .n = n, .k = 4096, .b_layout = Layout::col}; }
// A and B row-major, every dimension unaligned: both operands through registers, C narrow.
GemmProblem both_narrow() { return GemmProblem{.m = 1000, .n = 5001, .k = 1000}; }

RegisterEstimate estimate(const RegisterProfile& prof, const TileConfig& cfg, const GemmProblem& p) {
  Result<RegisterEstimate> r = estimate_registers(prof, h200(), cfg, p);
  EXPECT_TRUE(r.ok());
  return r.ok() ? *r : RegisterEstimate{};
}

TEST(Epilogue, ShippedProfileHasTheTerm) {
  const RegisterProfile prof = registers_for(default_family(), DType::float16);
  EXPECT_GT(prof.per_narrow_c_row, 0.0);
  EXPECT_GE(prof.per_narrow_c_accumulator, 0.0);
}

// A warp stores 32 columns of one row and the warps sit side by side along N,
// so a thread visits every row of the tile when block_N >= threads, and one
// row per accumulator otherwise: min(accumulators, block_M) rows, an address
// each (data/h200-profile-epilogue-store). The compiler: 64x256 with 4 warps
// (128 accumulators on 64 rows) never spills in the epilogue, 128x128 with 4
// warps (128 on 128 rows) spills 166-192 registers.
TEST(Epilogue, AThreadHoldsAnAddressPerRowItStores) {
  RegisterProfile prof = registers_for(default_family(), DType::float16);
  prof.per_narrow_c_accumulator = 0.5;
  prof.per_narrow_c_row = 2.0;
  const TileConfig wide{64, 256, 64, 3, 128};    // 128 accumulators, 64 rows a thread
  const TileConfig square{128, 128, 64, 3, 128}; // 128 accumulators, 128 rows
  const TileConfig tall{256, 128, 64, 3, 256};   // 128 accumulators, 128 rows (block_N < threads)
  const GemmProblem p = vector_operands(4001);
  const RegisterEstimate w = estimate(prof, wide, p);
  const RegisterEstimate s = estimate(prof, square, p);
  const RegisterEstimate t = estimate(prof, tall, p);
  ASSERT_EQ(w.accumulators, 128);
  ASSERT_EQ(s.accumulators, 128);
  // 0.5*128 + 2*64 = 192: under the limit, no spill; the main loop may ask more.
  EXPECT_GE(w.demand, 192);
  EXPECT_EQ(w.epilogue_spilled, 0.0);
  // 0.5*128 + 2*128 = 320: 65 over, spilled once per tile.
  EXPECT_DOUBLE_EQ(s.epilogue_spilled, 320.0 - 255.0);
  EXPECT_DOUBLE_EQ(t.epilogue_spilled, 320.0 - 255.0);
  // Without the row term the two 128-accumulator tiles are alike again.
  prof.per_narrow_c_row = 0;
  prof.per_narrow_c_accumulator = 2.5;
  EXPECT_DOUBLE_EQ(estimate(prof, wide, p).epilogue_spilled, estimate(prof, square, p).epilogue_spilled);
  // C stored with vectors: no epilogue demand, whatever the terms.
  prof.per_narrow_c_row = 2.0;
  EXPECT_EQ(estimate(prof, square, vector_operands(4096)).epilogue_spilled, 0.0);
}

// The shipped rule against the compiler on the tiles above (v20's fp16
// nn.Linear layout with N = 32001: 64x256 with 4 warps 174-240 registers and
// no spill; 128x128 with 4 warps 255 and a spill).
TEST(Epilogue, ShippedRuleSeparatesTheWideWarpgroupFromTheSquareTile) {
  const RegisterProfile prof = registers_for(default_family(), DType::float16);
  GemmProblem p = vector_operands(32001);
  const RegisterEstimate w = estimate(prof, TileConfig{64, 256, 64, 3, 128}, p);
  const RegisterEstimate s = estimate(prof, TileConfig{128, 128, 64, 3, 128}, p);
  EXPECT_EQ(w.epilogue_spilled, 0.0);
  EXPECT_LT(w.regs_per_thread, 255);
  EXPECT_GT(s.epilogue_spilled, 0.0);
  EXPECT_EQ(s.regs_per_thread, 255);
}

TEST(Epilogue, NarrowStoresOfCRaiseTheDemandToTheEpiloguesWhenItIsLarger) {
  RegisterProfile prof = registers_for(default_family(), DType::float16);
  prof.per_narrow_c_accumulator = 2.5;
  prof.per_narrow_c_row = 0;
  // 128x128x64 with 8 warps: 64 accumulators, an epilogue of 160 registers,
  // above the main loop's estimate for vector loads.
  const TileConfig cfg{128, 128, 64, 3, 256};
  const RegisterEstimate aligned = estimate(prof, cfg, vector_operands(4096));
  const RegisterEstimate narrow = estimate(prof, cfg, vector_operands(4001));
  ASSERT_LT(aligned.demand, 160);
  EXPECT_EQ(narrow.demand, 160);
  EXPECT_EQ(narrow.regs_per_thread, 160);
  EXPECT_FALSE(narrow.spills);
  EXPECT_EQ(narrow.epilogue_spilled, 0.0);
  // Without the term, or with C aligned, the main loop's estimate stands.
  prof.per_narrow_c_accumulator = 0;
  EXPECT_EQ(estimate(prof, cfg, vector_operands(4001)).demand, aligned.demand);
  // A smaller epilogue than the main loop changes nothing.
  prof.per_narrow_c_accumulator = 0.5;
  EXPECT_EQ(estimate(prof, cfg, vector_operands(4001)).demand, aligned.demand);
}

// B K-major slows a tile wider than 128 columns over two or more warpgroups
// (kmajor_wide_n) because the assembler serializes its wgmma, which it does
// only when C is stored with 16-byte vectors (data/h200-profile-wgmma-serial):
// with narrow stores of C, or B N-major, or a 128-column tile, or one
// warpgroup, the MMA time is the plain one.
TEST(Epilogue, KMajorWideTileOfTwoWarpgroupsIsSlowedOnlyWhereCIsStoredWithVectors) {
  const TimeConstants k = time_for(default_family(), DType::float16);
  ASSERT_GT(k.kmajor_wide_n, 0.0);
  TimeConstants plain = k;
  plain.kmajor_wide_n = 0;
  const auto mma = [&](const TimeConstants& c, const TileConfig& cfg, const GemmProblem& p) {
    return detail::tile_costs(h200(), cfg, p, 1, false, c, 0.0, 0.0).mma_us;
  };
  const TileConfig wide{128, 256, 64, 3, 256};    // two warpgroups of 64x256
  const TileConfig narrow{256, 128, 64, 3, 256};  // two warpgroups of 128x128
  // B K-major, C with vectors: one unit of width beyond 128, priced.
  const GemmProblem vec = vector_operands(4096);
  const double base = mma(plain, wide, vec) - k.iteration_cycles / h200().boost_clock_mhz;
  EXPECT_NEAR(mma(k, wide, vec), base * (1.0 + k.kmajor_wide_n) + k.iteration_cycles / h200().boost_clock_mhz,
              1e-9 * base);
  // C with narrow stores (N = 4001): not serialized.
  EXPECT_DOUBLE_EQ(mma(k, wide, vector_operands(4001)), mma(plain, wide, vector_operands(4001)));
  // A custom ldc that is not a multiple of 16 does the same at N = 4096.
  GemmProblem odd_ldc = vec;
  odd_ldc.ldc = 4104;
  EXPECT_DOUBLE_EQ(mma(k, wide, odd_ldc), mma(plain, wide, odd_ldc));
  // B N-major, or a warpgroup 128 columns wide: nothing to serialize.
  GemmProblem rr = vec;
  rr.b_layout = Layout::row;
  EXPECT_DOUBLE_EQ(mma(k, wide, rr), mma(plain, wide, rr));
  EXPECT_DOUBLE_EQ(mma(k, narrow, vec), mma(plain, narrow, vec));
  // The compiled kernels: 64x256 with 8 warps (two warpgroups of 64x128)
  // serializes like 128x256; with 4 warps (one warpgroup of 64x256) it does not.
  const TileConfig split_n{64, 256, 64, 4, 256};
  const TileConfig one_group{64, 256, 64, 4, 128};
  const double split_base = mma(plain, split_n, vec) - k.iteration_cycles / h200().boost_clock_mhz;
  EXPECT_NEAR(mma(k, split_n, vec),
              split_base * (1.0 + k.kmajor_wide_n) + k.iteration_cycles / h200().boost_clock_mhz, 1e-9 * split_base);
  EXPECT_EQ(detail::tile_costs(h200(), split_n, vec, 1, false, k, 0.0, 0.0).serialized_wgmma_cols, 256);
  EXPECT_DOUBLE_EQ(mma(k, one_group, vec), mma(plain, one_group, vec));
  EXPECT_EQ(detail::tile_costs(h200(), one_group, vec, 1, false, k, 0.0, 0.0).serialized_wgmma_cols, 0);
}

TEST(Epilogue, ALargerAllocationLowersBlocksPerSm) {
  // 128x128x64, 8 warps: two blocks by registers with vector stores of C, one
  // with the epilogue's 160 registers (160*256 = 40960 of 65536).
  const TileConfig cfg{128, 128, 64, 3, 256};
  Result<Verdict> aligned = diagnose(vector_operands(4096), h200(), cfg, Model::calibrated, default_family());
  Result<Verdict> narrow = diagnose(vector_operands(4001), h200(), cfg, Model::calibrated, default_family());
  ASSERT_TRUE(aligned.ok() && narrow.ok());
  EXPECT_GT(narrow->regs_per_thread, aligned->regs_per_thread);
  EXPECT_LT(narrow->blocks_by_regs, aligned->blocks_by_regs);
}

TEST(Epilogue, BeyondTheLimitTheEpilogueSpillsOnItsOwnWhenOperandsUseVectors) {
  RegisterProfile prof = registers_for(default_family(), DType::float16);
  prof.per_narrow_c_accumulator = 2.5;
  prof.per_narrow_c_row = 0;
  // 256x128 with 8 warps: 128 accumulators, an epilogue of 320 registers.
  const TileConfig cfg{256, 128, 64, 3, 256};
  const RegisterEstimate r = estimate(prof, cfg, vector_operands(4001));
  EXPECT_EQ(r.regs_per_thread, h200().regs_per_thread_max);
  EXPECT_DOUBLE_EQ(r.epilogue_spilled, 320.0 - static_cast<double>(h200().regs_per_thread_max));
  EXPECT_FALSE(r.spills);  // the main loop does not spill
  EXPECT_EQ(r.spilled_registers, 0.0);
  EXPECT_EQ(estimate(prof, cfg, vector_operands(4096)).epilogue_spilled, 0.0);
}

TEST(Epilogue, WithMUnalignedItSpillsARowTermMoreButAllocatesTheSame) {
  RegisterProfile prof = registers_for(default_family(), DType::float16);
  prof.per_narrow_c_accumulator = 2.5;
  prof.per_narrow_c_row = 0;
  prof.per_narrow_c_row_accumulator = 0.85;
  const TileConfig wide{256, 128, 64, 3, 256};  // 128 accumulators: the epilogue spills
  GemmProblem m_unaligned = vector_operands(4001);
  m_unaligned.m = 4001;
  const RegisterEstimate aligned = estimate(prof, wide, vector_operands(4001));
  const RegisterEstimate rows = estimate(prof, wide, m_unaligned);
  EXPECT_DOUBLE_EQ(aligned.epilogue_spilled, 320.0 - 255.0);
  EXPECT_DOUBLE_EQ(rows.epilogue_spilled, 320.0 - 255.0 + 0.85 * 128);
  EXPECT_EQ(rows.regs_per_thread, aligned.regs_per_thread);
  // Below the limit nothing spills, whatever M: the term is a spill count.
  const TileConfig narrow{128, 128, 64, 3, 256};  // 64 accumulators: 160 registers
  EXPECT_EQ(estimate(prof, narrow, m_unaligned).epilogue_spilled, 0.0);
  EXPECT_EQ(estimate(prof, narrow, m_unaligned).regs_per_thread, estimate(prof, narrow, vector_operands(4001)).regs_per_thread);
  // A family file's negative term never makes a negative spill.
  prof.per_narrow_c_row_accumulator = -100;
  EXPECT_EQ(estimate(prof, wide, m_unaligned).epilogue_spilled, 0.0);
  prof.per_narrow_c_row_accumulator = 0.85;
  // C stored with vectors: no epilogue term at all.
  GemmProblem vector_c = vector_operands(4096);
  vector_c.m = 4001;
  EXPECT_EQ(estimate(prof, wide, vector_c).epilogue_spilled, 0.0);
}

TEST(Epilogue, WithBothOperandsThroughRegistersTheExcessJoinsTheMainLoopsSpill) {
  RegisterProfile prof = registers_for(default_family(), DType::float16);
  prof.per_narrow_c_accumulator = 2.5;
  prof.per_narrow_c_row = 0;
  prof.spill_per_element = 2.8;
  prof.spill_reserve = 0;
  // 256x128x32, 8 warps: 128 accumulators, 48 held elements: the main loop
  // is 128 + 2.8*48 - 255 = 7.4 over, the epilogue 320 - 255 = 65.
  const TileConfig cfg{256, 128, 32, 2, 256};
  const RegisterEstimate r = estimate(prof, cfg, both_narrow());
  EXPECT_TRUE(r.spills);
  EXPECT_DOUBLE_EQ(r.spilled_registers, 65.0);
  EXPECT_EQ(r.epilogue_spilled, 0.0);
  // A main loop further over than the epilogue keeps its own count.
  prof.per_narrow_c_accumulator = 1.0;
  EXPECT_NEAR(estimate(prof, cfg, both_narrow()).spilled_registers, 128 + 2.8 * 48 - 255, 1e-9);
}

TEST(Epilogue, SpillIsAPricedWarningOncePerTile) {
  const TileConfig cfg{256, 128, 64, 3, 256};
  Result<Verdict> v = diagnose(vector_operands(4001), h200(), cfg, Model::calibrated, default_family());
  ASSERT_TRUE(v.ok());
  ASSERT_GT(v->epilogue_spilled_registers, 0.0);
  EXPECT_TRUE(v->feasible());
  EXPECT_FALSE(v->spills);
  bool warned = false;
  for (const Finding& f : v->warnings)
    if (f.kind == FindingKind::epilogue_spill) {
      warned = true;
      EXPECT_EQ(f.value, static_cast<int64_t>(std::ceil(v->epilogue_spilled_registers)));
      EXPECT_EQ(message(f, cfg).rfind("C2 about ", 0), 0u) << message(f, cfg);
      EXPECT_NE(message(f, cfg).find("epilogue"), std::string::npos) << message(f, cfg);
    }
  EXPECT_TRUE(warned);

  // Priced per register and warp, once per tile: the time grows with the
  // constant, and does not depend on K's iterations.
  TimeConstants k = time_for(default_family(), DType::float16);
  k.epilogue_spill_cycles = 30;
  const TileCosts none = detail::tile_costs(h200(), cfg, vector_operands(4001), 1, false, k, 0.0, 0.0);
  const TileCosts some = detail::tile_costs(h200(), cfg, vector_operands(4001), 1, false, k, 0.0, 65.0);
  EXPECT_NEAR(some.epilogue_spill_us, 65.0 * 8 * 30 / h200().boost_clock_mhz, 1e-12);
  EXPECT_EQ(none.epilogue_spill_us, 0.0);
  EXPECT_EQ(some.narrow_us, none.narrow_us);  // not in the main loop
  const double t0 = detail::predict_us(h200(), vector_operands(4001), none, k, 8);
  const double t1 = detail::predict_us(h200(), vector_operands(4001), some, k, 8);
  EXPECT_GT(t1, t0);
  GemmProblem longer = vector_operands(4001);
  longer.k = 4 * longer.k;
  const double l0 = detail::predict_us(h200(), longer, detail::tile_costs(h200(), cfg, longer, 1, false, k, 0.0, 0.0), k, 8);
  const double l1 = detail::predict_us(h200(), longer, detail::tile_costs(h200(), cfg, longer, 1, false, k, 0.0, 65.0), k, 8);
  // (not four times as much: DRAM's time joins the SMs' in a norm, so not exactly equal either)
  EXPECT_NEAR(l1 - l0, t1 - t0, 0.05 * (t1 - t0));
  // The public predict agrees with the planner's verdict.
  KernelFamily f = default_family();
  f.time.epilogue_spill_cycles = 30;
  Result<Prediction> p = predict(h200(), vector_operands(4001), cfg, 1, false, f);
  ASSERT_TRUE(p.ok());
  Result<Verdict> w = diagnose(vector_operands(4001), h200(), cfg, Model::calibrated, f);
  ASSERT_TRUE(w.ok());
  EXPECT_NEAR(p->time_us, w->predicted_us, 1e-9 * p->time_us);
}

// Narrow stores of C queue on the SM's load/store path: with j programs
// sharing an SM, a program's epilogue waits behind the other j - 1 programs'
// narrow stores, except where both operands go through registers
// (docs/model.md §3, "Narrow stores of C queue").
TEST(Epilogue, NarrowStoresOfTheProgramsSharingAnSmQueue) {
  const TimeConstants k = time_for(default_family(), DType::float16);
  // 64x128x64, 2 stages (one stage in flight: the round trip binds the path),
  // on 1024 x 4217 (N unaligned: C stored narrow): 16 x 33 = 528 programs,
  // four on each of the 132 SMs.
  const TileConfig cfg{64, 128, 64, 2, 128};
  GemmProblem problem = vector_operands(4001);
  problem.m = 1024, problem.n = 33 * 128 - 7;
  for (const int64_t blocks : {1, 2}) {
    TileCosts t = detail::tile_costs(h200(), cfg, problem, blocks, false, k, 0.0, 0.0);
    ASSERT_GT(t.narrow_store_us, 0.0);
    ASSERT_FALSE(t.paired_narrow);
    const Prediction base = detail::predict(h200(), problem, t, k, 8);
    const double d = 0.5;  // µs more of narrow stores per tile
    t.narrow_store_us += d;
    const Prediction more = detail::predict(h200(), problem, t, k, 8);
    // Four programs per SM: one block runs four rounds of one (4 d); two run
    // two rounds of two, each program's path waiting for both programs' stores (4 d).
    EXPECT_NEAR(more.terms.sm_us - base.terms.sm_us, 4.0 * d, 1e-9) << blocks << " blocks/SM";
    // Paired kernels do not queue: each path takes its own stores only, and
    // the round is the path while the SM's resources are not the bound.
    t.narrow_store_us -= d;
    t.paired_narrow = true;
    const Prediction paired = detail::predict(h200(), problem, t, k, 8);
    t.narrow_store_us += d;
    const Prediction paired_more = detail::predict(h200(), problem, t, k, 8);
    EXPECT_NEAR(paired_more.terms.sm_us - paired.terms.sm_us, (blocks == 1 ? 4.0 : 2.0) * d, 1e-9) << blocks << " blocks/SM";
  }
}

TEST(Epilogue, SeedModelHasNoEpilogueTerm) {
  const TileConfig cfg{256, 128, 64, 3, 256};
  Result<Verdict> v = diagnose(vector_operands(4001), h200(), cfg, Model::seed, default_family());
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->epilogue_spilled_registers, 0.0);
  for (const Finding& f : v->warnings) EXPECT_NE(f.kind, FindingKind::epilogue_spill);
}

}  // namespace
}  // namespace tileplan
