// Operand tiles held in registers (narrow loads, tf32's on-chip transpose of
// B): their own spill rule (spill_per_element, spill_reserve), a spill priced
// per spilled register (spill_access_cycles) instead of spill_factor, and
// both operands through registers priced apart (paired_narrow_cycles,
// paired_b_mn_cycles, paired_b_mn_spill_free).
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

// A and B row-major with every dimension not a multiple of 16: both operands
// move with 2-byte loads through registers.
GemmProblem both_narrow() { return GemmProblem{.m = 1000, .n = 5001, .k = 1000}; }
// B K-major with K not a multiple of 16: both through registers too.
GemmProblem both_narrow_rc() { return GemmProblem{.m = 4096, .n = 4096, .k = 1000, .b_layout = Layout::col}; }
// Only A through registers (K not a multiple of 16, B row-major with N aligned).
GemmProblem a_narrow() { return GemmProblem{.m = 4096, .n = 4096, .k = 1000}; }

TEST(HeldTiles, SpilledRegistersFollowTheRule) {
  RegisterProfile prof = registers_for(default_family(), DType::float16);
  prof.spill_per_element = 2.5;
  prof.spill_reserve = 10;
  prof.per_narrow_c_accumulator = 0;  // the held rule alone (tests/unit/epilogue_test.cpp: the epilogue's)
  prof.per_narrow_c_row = 0;
  // 128x128x32 with 4 warps: 128 accumulators, (128*32 + 32*128)/128 = 64
  // held elements: 128 + 2.5*64 + 10 - 255 = 43 registers over.
  const TileConfig cfg{128, 128, 32, 3, 128};
  Result<RegisterEstimate> r = estimate_registers(prof, h200(), cfg, both_narrow());
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->spills);
  EXPECT_DOUBLE_EQ(r->spilled_registers, 43.0);
  // With only A narrow, 32 held elements: 128 + 80 + 10 < 255.
  Result<RegisterEstimate> one = estimate_registers(prof, h200(), cfg, a_narrow());
  ASSERT_TRUE(one.ok());
  EXPECT_FALSE(one->spills);
  EXPECT_EQ(one->spilled_registers, 0.0);
}

TEST(HeldTiles, AccumulatorSpillsAreNotCountedAsHeld) {
  // 256x256 with 4 warps, aligned: 512 accumulators spill, no tile is held.
  const RegisterProfile prof = registers_for(default_family(), DType::float16);
  Result<RegisterEstimate> r =
      estimate_registers(prof, h200(), TileConfig{256, 256, 64, 3, 128}, GemmProblem{.m = 4096, .n = 4096, .k = 4096});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->spills);
  EXPECT_EQ(r->spilled_registers, 0.0);
}

TEST(HeldTiles, ZeroSpillPerElementFallsBackToPerRegisterElement) {
  RegisterProfile prof = registers_for(default_family(), DType::float16);
  prof.spill_reserve = 0;
  prof.spill_per_element = 0;
  prof.per_narrow_c_accumulator = 0;  // the held rule alone
  prof.per_narrow_c_row = 0;
  prof.per_register_element = 2.0;
  Result<RegisterEstimate> a = estimate_registers(prof, h200(), TileConfig{128, 128, 32, 3, 128}, both_narrow());
  prof.spill_per_element = 2.0;
  prof.per_register_element = 1.0;  // the demand changes, the spill rule not
  Result<RegisterEstimate> b = estimate_registers(prof, h200(), TileConfig{128, 128, 32, 3, 128}, both_narrow());
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_DOUBLE_EQ(a->spilled_registers, 128 + 2.0 * 64 - 255);
  EXPECT_DOUBLE_EQ(b->spilled_registers, a->spilled_registers);
  EXPECT_NE(a->demand, b->demand);
}

TEST(HeldTiles, SpillPricedPerRegisterOnlyWhenTheConstantsSaySo) {
  // B K-major: no registers spill free (paired_b_mn_spill_free is for an
  // N-contiguous B).
  const TileConfig cfg{128, 128, 32, 3, 128};
  TimeConstants k = time_for(default_family(), DType::float16);
  ASSERT_GT(k.spill_access_cycles, 0.0);
  const TileCosts none = detail::tile_costs(h200(), cfg, both_narrow_rc(), 1, false, k, 0.0);
  const TileCosts ten = detail::tile_costs(h200(), cfg, both_narrow_rc(), 1, true, k, 10.0);
  const TileCosts twenty = detail::tile_costs(h200(), cfg, both_narrow_rc(), 1, true, k, 20.0);
  EXPECT_FALSE(ten.spills);  // no spill_factor
  // 10 registers x 4 warps x spill_access_cycles, in the issue path.
  EXPECT_NEAR(ten.spill_us, 10.0 * 4 * k.spill_access_cycles / h200().boost_clock_mhz, 1e-12);
  EXPECT_NEAR(ten.narrow_us - none.narrow_us, ten.spill_us, 1e-12);
  EXPECT_NEAR(twenty.spill_us, 2 * ten.spill_us, 1e-12);
  const double t0 = detail::predict_us(h200(), both_narrow_rc(), none, k, 8);
  const double t10 = detail::predict_us(h200(), both_narrow_rc(), ten, k, 8);
  const double t20 = detail::predict_us(h200(), both_narrow_rc(), twenty, k, 8);
  EXPECT_LT(t0, t10);
  EXPECT_LT(t10, t20);
  EXPECT_LT(t20, t0 * k.spill_factor);  // a light spill costs less than the binary factor
  // Without the constant, the same spill is priced by spill_factor.
  k.spill_access_cycles = 0;
  const TileCosts binary = detail::tile_costs(h200(), cfg, both_narrow_rc(), 1, true, k, 10.0);
  EXPECT_TRUE(binary.spills);
  EXPECT_EQ(binary.spill_us, 0.0);
}

TEST(HeldTiles, PricedSpillIsAWarningNotAFailure) {
  // 128x128x32 with 4 warps on B K-major, K = 1000 spills by the shipped rule
  // (128 accumulators + 64 held elements): C2 warns, the tile stays a candidate.
  const TileConfig cfg{128, 128, 32, 3, 128};
  Result<Verdict> v = diagnose(both_narrow_rc(), h200(), cfg, Model::calibrated, default_family());
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v->spills);
  EXPECT_GT(v->spilled_registers, 0.0);
  EXPECT_TRUE(v->feasible());
  bool warned = false;
  for (const Finding& f : v->warnings)
    if (f.kind == FindingKind::held_tiles_spill) {
      warned = true;
      EXPECT_EQ(message(f, cfg).rfind("C2 about ", 0), 0u) << message(f, cfg);
      EXPECT_EQ(f.value, static_cast<int64_t>(std::ceil(v->spilled_registers)));
    }
  EXPECT_TRUE(warned);
  // The seed model has no notion of spilling; an aligned accumulator spill
  // still fails C2.
  Result<Verdict> seed = diagnose(both_narrow_rc(), h200(), cfg, Model::seed, default_family());
  ASSERT_TRUE(seed.ok());
  EXPECT_FALSE(seed->spills);
  Result<Verdict> acc = diagnose(GemmProblem{.m = 4096, .n = 4096, .k = 4096}, h200(), TileConfig{256, 256, 64, 3, 128},
                                 Model::calibrated, default_family());
  ASSERT_TRUE(acc.ok());
  EXPECT_FALSE(acc->feasible());
}

TEST(HeldTiles, BothOperandsThroughRegistersArePricedApart) {
  const TimeConstants k = time_for(default_family(), DType::float16);
  ASSERT_GT(k.paired_b_mn_cycles, 0.0);
  const TileConfig cfg{128, 128, 64, 2, 256};
  const TileCosts rr = detail::tile_costs(h200(), cfg, both_narrow(), 1, false, k);
  const TileCosts rc = detail::tile_costs(h200(), cfg, both_narrow_rc(), 1, false, k);
  const TileCosts one = detail::tile_costs(h200(), cfg, a_narrow(), 1, false, k);
  EXPECT_TRUE(rr.paired_narrow);
  EXPECT_TRUE(rc.paired_narrow);
  EXPECT_FALSE(one.paired_narrow);
  // (128*64 + 64*128) 2-byte elements in 2-byte loads: 256 warp-wide loads
  // per operand; an N-contiguous B adds paired_b_mn_cycles to each of its own.
  const double clock = h200().boost_clock_mhz;
  EXPECT_NEAR(rc.narrow_us, 512 * k.paired_narrow_cycles / clock, 1e-12);
  EXPECT_NEAR(rr.narrow_us, (512 * k.paired_narrow_cycles + 256 * k.paired_b_mn_cycles) / clock, 1e-12);
  EXPECT_NEAR(one.narrow_us, 256 * k.narrow_access_cycles / clock, 1e-12);
  // The narrow loads and the MMAs sit in the program's path: a costlier B,
  // a longer time; and a program's MMAs wait for its loads.
  TimeConstants slow = k;
  slow.paired_b_mn_cycles *= 4;
  const TileCosts rr_slow = detail::tile_costs(h200(), cfg, both_narrow(), 1, false, slow);
  EXPECT_LT(detail::predict_us(h200(), both_narrow(), rr, k, 8),
            detail::predict_us(h200(), both_narrow(), rr_slow, slow, 8));
  // 1000x5001 in 128x128 tiles: 8*40 = 320 programs, 3 on the busiest SM,
  // one at a time (1 block/SM), 16 K steps each: every cycle added to an
  // iteration's MMAs lengthens the path 48 times.
  TimeConstants slow_mma = k;
  slow_mma.iteration_cycles += 2000;
  const TileCosts rr_mma = detail::tile_costs(h200(), cfg, both_narrow(), 1, false, slow_mma);
  const double delta = detail::predict_us(h200(), both_narrow(), rr_mma, slow_mma, 8) -
                       detail::predict_us(h200(), both_narrow(), rr, k, 8);
  EXPECT_GT(delta, 0.99 * 3 * 16 * 2000 / clock);
}

TEST(HeldTiles, AnNContiguousBSpillsItsFirstRegistersFree) {
  const TimeConstants k = time_for(default_family(), DType::float16);
  ASSERT_GT(k.paired_b_mn_spill_free, 1.0);
  ASSERT_GT(k.spill_access_cycles, 0.0);
  const TileConfig cfg{256, 64, 64, 2, 256};
  const double clock = h200().boost_clock_mhz;
  // Below the free registers: nothing priced with B N-contiguous, all of it with B K-major.
  const double few = k.paired_b_mn_spill_free - 1;
  const TileCosts rr = detail::tile_costs(h200(), cfg, both_narrow(), 1, true, k, few);
  const TileCosts rc = detail::tile_costs(h200(), cfg, both_narrow_rc(), 1, true, k, few);
  EXPECT_EQ(rr.spill_us, 0.0);
  EXPECT_NEAR(rc.spill_us, few * 8 * k.spill_access_cycles / clock, 1e-12);
  EXPECT_FALSE(rr.spills);  // priced per register (here: at nothing), not by spill_factor
  // Above them: only the rest is priced.
  const double many = k.paired_b_mn_spill_free + 10;
  const TileCosts rr_many = detail::tile_costs(h200(), cfg, both_narrow(), 1, true, k, many);
  EXPECT_NEAR(rr_many.spill_us, 10 * 8 * k.spill_access_cycles / clock, 1e-9);
  // One operand through registers: no free registers.
  const TileCosts one = detail::tile_costs(h200(), cfg, a_narrow(), 1, true, k, few);
  EXPECT_NEAR(one.spill_us, few * 8 * k.spill_access_cycles / clock, 1e-12);
}

TEST(HeldTiles, FamilyFilesWithoutTheNewConstantsStillLoad) {
  // Written before spill_per_element, paired_narrow_cycles,
  // spill_access_cycles, paired_b_mn_cycles and paired_b_mn_spill_free
  // existed: absent reads as 0 (the older pricing).
  std::string text = family_json(default_family());
  for (const std::string key : {"\"spill_per_element\"", "\"paired_narrow_cycles\"", "\"spill_access_cycles\"",
                                "\"paired_b_mn_cycles\"", "\"paired_b_mn_spill_free\""}) {
    for (std::size_t at = text.find(key); at != std::string::npos; at = text.find(key)) {
      const std::size_t end = text.find('}', at);
      std::size_t from = at;
      while (from > 0 && text[from - 1] != ',' && text[from - 1] != '{') --from;
      const bool comma_before = from > 0 && text[from - 1] == ',';
      text.erase(comma_before ? from - 1 : from, end + 1 - (comma_before ? from - 1 : from));
      if (!comma_before && text[from] == ',') text.erase(from, 1);
    }
  }
  Result<KernelFamily> f = parse_family(text, "test");
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(f->regs.spill_per_element, 0.0);
  EXPECT_EQ(f->time.paired_narrow_cycles, 0.0);
  EXPECT_EQ(f->time.spill_access_cycles, 0.0);
  EXPECT_EQ(f->time.paired_b_mn_cycles, 0.0);
  EXPECT_EQ(f->time.paired_b_mn_spill_free, 0.0);
  const TileCosts t = detail::tile_costs(h200(), TileConfig{128, 128, 64, 2, 256}, both_narrow_rc(), 1, false,
                                         time_for(*f, DType::float16));
  EXPECT_FALSE(t.paired_narrow);
}

}  // namespace
}  // namespace tileplan
