// The power cap (docs/model.md §3): on a device with a power budget, the
// busiest SM's time is at least the energy of the padded tiles' flops, the
// bytes copied from the L2 and the cycles over that budget; 16-bit tensor
// types only, and only where the SMs bind. Only the h100-sxm preset has one.
#include <gtest/gtest.h>

#include <cmath>

#include "tileplan/device.hpp"
#include "tileplan/family.hpp"
#include "tileplan/gemm.hpp"
#include "tileplan/model.hpp"
#include "tileplan/planner.hpp"

namespace tileplan {
namespace {

const Device& h100() {
  static const Device d = *find_device("h100-sxm");
  return d;
}

// 555x3000x8192 fp16, B K-major (data/h100-triton-v47): one wave of SM-bound programs.
GemmProblem linear(DType t = DType::float16) {
  GemmProblem p{.m = 555, .n = 3000, .k = 8192};
  p.dtype = t;
  p.b_layout = Layout::col;
  return p;
}

Prediction at(const Device& d, const GemmProblem& p, const TileConfig& cfg) {
  const Verdict v = diagnose(p, d, cfg, Model::calibrated, default_family()).value();
  return predict(d, p, cfg, v.blocks_per_sm, v.spills, default_family()).value();
}

const TileConfig kWide{64, 256, 64, 5, 128};
const TileConfig kSquare{128, 128, 64, 5, 256};

TEST(PowerCap, FloorIsTheEnergyOverTheBudget) {
  const Prediction r = at(h100(), linear(), kWide);
  const TimeTerms& t = r.terms;
  // 9 x 12 tiles of 64x256, 128 K steps of (64 + 256) x 64 x 2 bytes.
  const double flops = 2.0 * 576 * 3072 * 8192, bytes = 108.0 * 128 * 40960;
  const Device& d = h100();
  const double expect = (d.energy_per_flop_pj * flops + d.energy_per_l2_byte_pj * bytes) * 1e-12 / d.power_budget_w * 1e6 +
                        d.energy_per_cycle_nj * 1e-9 * d.boost_clock_mhz * 1e6 / d.power_budget_w * t.cycles_us;
  EXPECT_NEAR(t.power_us, expect, 1e-9 * expect);
  EXPECT_GT(t.power_us, t.cycles_us);  // the cap binds here
  EXPECT_DOUBLE_EQ(t.sm_us, t.power_us);
  EXPECT_EQ(r.bound, TimeBound::power);
  EXPECT_EQ(to_string(r.bound), "power");
}

TEST(PowerCap, TheTileWithFewerL2BytesAFlopWinsUnderIt) {
  // 64x256 copies 0.0195 bytes a flop, 128x128 0.0156: fewer cycles for the
  // first, less energy for the second (measured on the H100: 128x128 the best).
  const Prediction wide = at(h100(), linear(), kWide), square = at(h100(), linear(), kSquare);
  EXPECT_LT(wide.terms.cycles_us, square.terms.cycles_us);
  EXPECT_GT(wide.terms.power_us, square.terms.power_us);
  EXPECT_GT(wide.time_us, square.time_us);
}

TEST(PowerCap, NoTermWithoutABudgetForOtherTypesOrWhereDramBinds) {
  // The H200 preset has no budget: the same configuration, no floor.
  const Prediction h200 = at(*find_device("h200"), linear(), kWide);
  EXPECT_EQ(h200.terms.power_us, 0.0);
  EXPECT_DOUBLE_EQ(h200.terms.sm_us, h200.terms.cycles_us);
  EXPECT_NE(h200.bound, TimeBound::power);
  // A budget of 0 on the H100 is the same model without the term.
  Device off = h100();
  off.power_budget_w = 0;
  const Prediction none = at(off, linear(), kWide), with = at(h100(), linear(), kWide);
  EXPECT_EQ(none.terms.power_us, 0.0);
  EXPECT_DOUBLE_EQ(none.terms.cycles_us, with.terms.cycles_us);
  EXPECT_LT(none.time_us, with.time_us);
  // fp8 and tf32: not measured.
  for (DType t : {DType::float8_e4m3, DType::tfloat32}) {
    const TileConfig cfg{64, 256, t == DType::tfloat32 ? 32 : 128, 3, 128};
    EXPECT_EQ(at(h100(), linear(t), cfg).terms.power_us, 0.0) << to_string(t);
  }
  // A decode step: DRAM binds, the SMs wait.
  GemmProblem step{.m = 16, .n = 14336, .k = 4096};
  const Prediction dec = at(h100(), step, TileConfig{16, 128, 128, 4, 128});
  EXPECT_GE(dec.terms.dram_us, dec.terms.cycles_us);
  EXPECT_EQ(dec.terms.power_us, 0.0);
  // A budget no kernel reaches leaves every time as it was.
  Device ample = h100();
  ample.power_budget_w = 1e6;
  const Prediction free = at(ample, linear(), kWide);
  EXPECT_DOUBLE_EQ(free.time_us, none.time_us);
  EXPECT_GT(free.terms.power_us, 0.0);
  EXPECT_NE(free.bound, TimeBound::power);
}

}  // namespace
}  // namespace tileplan
