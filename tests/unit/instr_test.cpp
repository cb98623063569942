// The instruction each tile compiles to (resolve_instr, `--instr auto`) and
// the register constants the mma tiles override (by_instr): Triton's tl.dot
// takes wgmma on sm_90 for blocks of whole warpgroups and at least 64 rows,
// mma.sync below (data/h200-triton-splitk-bm16, docs/model.md §1).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "../../src/detail.hpp"
#include "family_term.hpp"
#include "tileplan/device.hpp"
#include "tileplan/family.hpp"
#include "tileplan/model.hpp"
#include "tileplan/planner.hpp"

namespace tileplan {
namespace {

TEST(Instr, Automatic_ResolvesAsTritonsDot) {
  EXPECT_EQ(resolve_instr(Instr::automatic, 90, 64, 128), Instr::wgmma);
  EXPECT_EQ(resolve_instr(Instr::automatic, 90, 256, 256), Instr::wgmma);
  EXPECT_EQ(resolve_instr(Instr::automatic, 90, 32, 128), Instr::mma);
  EXPECT_EQ(resolve_instr(Instr::automatic, 90, 16, 256), Instr::mma);
  EXPECT_EQ(resolve_instr(Instr::automatic, 90, 64, 96), Instr::mma);   // not whole warpgroups
  EXPECT_EQ(resolve_instr(Instr::automatic, 80, 128, 256), Instr::mma);  // no wgmma before sm_90
  EXPECT_EQ(resolve_instr(Instr::automatic, 100, 128, 256), Instr::mma);
  // An explicit request is kept, whatever the tile.
  EXPECT_EQ(resolve_instr(Instr::wgmma, 90, 16, 128), Instr::wgmma);
  EXPECT_EQ(resolve_instr(Instr::simt, 90, 128, 128), Instr::simt);
  EXPECT_EQ(parse_instr("auto"), Instr::automatic);
  EXPECT_EQ(to_string(Instr::automatic), "auto");
}

TEST(Instr, Automatic_IsNotAConfigurationsInstruction) {
  TileConfig c;
  c.instr = Instr::automatic;
  const Status s = check_config(c);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().param, "instr");
  EXPECT_NE(s.error().message.find("sweep's request"), std::string::npos) << s.error().message;
}

TEST(Instr, MmaRegisters_OverrideOnlyTheirConstants) {
  const KernelFamily& f = default_family();
  const auto it = std::find_if(f.by_instr.begin(), f.by_instr.end(),
                               [](const InstrConstants& c) { return c.instr == Instr::mma; });
  ASSERT_NE(it, f.by_instr.end());
  const auto base = to_array(registers_for(f, DType::float16));
  const auto mma = to_array(registers_for(f, DType::float16, Instr::mma));
  std::size_t overridden = 0;
  for (std::size_t i = 0; i < kRegisterConstantCount; ++i) {
    if (it->regs[i]) {
      EXPECT_EQ(mma[i], *it->regs[i]) << register_constant_info()[i].name;
      ++overridden;
    } else {
      EXPECT_EQ(mma[i], base[i]) << register_constant_info()[i].name;
    }
  }
  EXPECT_EQ(overridden, 4u);  // base, per_accumulator, per_a_vector, per_b_vector
  EXPECT_EQ(to_array(registers_for(f, DType::float16, Instr::wgmma)), base);
  // An instruction twice is refused by the checker.
  KernelFamily twice = f;
  twice.by_instr.push_back(twice.by_instr.front());
  const Status s = check_family(twice);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().param, "by_instr");
  EXPECT_NE(s.error().message.find("twice"), std::string::npos);
}

// An automatic sweep holds mma tiles (block_M 16, 32) beside wgmma ones, and
// prices each with its own register constants; a wgmma sweep refuses the
// small tiles (C3).
TEST(Instr, AutomaticSweep_MixesInstructions) {
  SearchSpace space;
  space.block_m = {16, 32, 64, 128};
  space.block_n = {128};
  space.block_k = {64};
  space.stages = {4};
  space.threads = {128};
  const GemmProblem p{.m = 1, .n = 14336, .k = 3584};
  const Device dev = *find_device("h200");
  Result<std::vector<Verdict>> all = sweep(p, dev, Instr::automatic, space, 0, Model::calibrated, default_family());
  ASSERT_TRUE(all.ok()) << all.error().message;
  ASSERT_EQ(all->size(), 4u);
  for (const Verdict& v : *all) {
    EXPECT_EQ(v.config.instr, v.config.block_m >= 64 ? Instr::wgmma : Instr::mma) << v.config.block_m;
    Result<Verdict> one = diagnose(p, dev, v.config, Model::calibrated, default_family());
    ASSERT_TRUE(one.ok());
    EXPECT_EQ(one->regs_per_thread, v.regs_per_thread);  // the same profile either way
    EXPECT_EQ(one->predicted_us, v.predicted_us);
  }
  // At one token the 16-row tile is the fastest (it repeats A's row 16
  // times, not 64; measured: data/h200-triton-splitk-bm16).
  EXPECT_EQ(all->front().config.block_m, 16);
  Result<std::vector<Verdict>> wg = sweep(p, dev, Instr::wgmma, space, 0, Model::calibrated, default_family());
  ASSERT_TRUE(wg.ok());
  EXPECT_EQ(wg->size(), 2u);  // block_M 64 and 128
  // The mma profile holds more registers than the wgmma one for the same tile.
  TileConfig small{16, 128, 64, 4, 128, Instr::mma};
  TileConfig as_wgmma = small;
  as_wgmma.instr = Instr::wgmma;
  Result<Verdict> a = diagnose(p, dev, small, Model::calibrated, default_family());
  Result<Verdict> b = diagnose(p, dev, as_wgmma, Model::calibrated, default_family());
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_GT(a->regs_per_thread, b->regs_per_thread);
}

// An mma tile keeps one stage in registers: stages - 1 buffers of shared
// memory, as every compiled mma kernel of the decode-tile sets allocates
// (2872 of 2872); a wgmma tile one per stage.
TEST(Instr, MmaTiles_AllocateOneBufferFewerThanStages) {
  const GemmProblem p{.m = 1, .n = 10240, .k = 8192};
  const Device dev = *find_device("h200");
  const TileConfig mma{16, 128, 128, 4, 128, Instr::mma};
  Result<Verdict> v = diagnose(p, dev, mma, Model::calibrated, default_family());
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->smem_bytes, 3 * (16 + 128) * 128 * 2);  // 110592: the driver's for 16x128x128_s4_w4
  EXPECT_EQ(v->blocks_per_sm, 2);                       // the driver's occupancy of that kernel
  TileConfig wg{64, 128, 128, 4, 128, Instr::wgmma};
  Result<Verdict> w = diagnose(p, dev, wg, Model::calibrated, default_family());
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->smem_bytes, 4 * (64 + 128) * 128 * 2);
  // 16x256x128 with 4 stages: 278 KB as four buffers, 209 KB as three: it fits.
  const TileConfig big{16, 256, 128, 4, 128, Instr::mma};
  Result<Verdict> b = diagnose(p, dev, big, Model::calibrated, default_family());
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(b->feasible());
  // The seed model keeps the reference's rule: stages x stage bytes.
  Result<Verdict> s = diagnose(p, dev, mma, Model::seed);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->smem_bytes, 4 * (16 + 128) * 128 * 2);
}

// One buffer fewer is not one stage fewer in flight: Triton issues the load
// of iteration i + S - 1 in iteration i for either instruction, and an mma
// tile reads its stage into registers before its MMAs, so the buffer is free
// by then. Measured over the decode-tile sets (data/h200-triton-splitk-bm16*,
// unsplit 16-row tiles near the best, fp16 and bf16): 4 stages over 3 of the
// same tile 0.86-0.98, which stages - 2 in flight priced 0.64-0.71 and
// stages - 1 prices 0.85-0.91 (docs/model.md §3, "mma tiles").
TEST(Instr, MmaTiles_KeepStagesLessOneInFlight) {
  const GemmProblem p{.m = 1, .n = 15360, .k = 5120};
  const Device dev = *find_device("h200");
  const auto terms = [&](const TileConfig& cfg) {
    Result<Verdict> v = diagnose(p, dev, cfg, Model::calibrated, default_family());
    EXPECT_TRUE(v.ok() && v->feasible());
    Result<Prediction> t = predict(dev, p, cfg, v.ok() ? std::max<int64_t>(v->blocks_per_sm, 1) : 1, false,
                                   default_family());
    EXPECT_TRUE(t.ok());
    return t.ok() ? t->terms : TimeTerms{};
  };
  for (int64_t stages : {3, 4, 5}) {
    const TileConfig mma{16, 256, 64, stages, 128, Instr::mma};
    const TileConfig wg{64, 256, 64, stages, 128, Instr::wgmma};
    const TimeTerms m = terms(mma), w = terms(wg);
    // The same tile one stage shorter exposes its round trip over one stage more:
    const TimeTerms m1 = terms(TileConfig{16, 256, 64, stages - 1, 128, Instr::mma});
    ASSERT_GT(m.round_trip_us, 0.0);
    EXPECT_NEAR(m1.round_trip_us / m.round_trip_us, static_cast<double>(stages - 1) / static_cast<double>(stages - 2),
                1e-9)
        << stages;
    // and at equal stages an mma tile's round trip is over as many stages as a wgmma tile's
    // (their stages differ in bytes: 16 rows of A against 64).
    const double mma_stage = (16.0 + 256.0) * 64.0 * 2.0, wg_stage = (64.0 + 256.0) * 64.0 * 2.0;
    EXPECT_LT(m.round_trip_us, w.round_trip_us) << stages;
    EXPECT_GT(m.round_trip_us, w.round_trip_us * 0.5 * mma_stage / wg_stage) << stages;
  }
}

// A tile that compiles to mma.sync reaches mma_rate_share of the tensor rate
// the device states for wgmma (fitted: python3 scripts/fit_mma_rate.py on
// the guard set of data/h200-triton-splitk-bm16-fresh, M = 48 to 512).
TEST(Instr, MmaTiles_ReachAShareOfTheTensorRate) {
  const KernelFamily& f = default_family();
  const double share = f.time.mma_rate_share;
  EXPECT_GT(share, 0.3);
  EXPECT_LT(share, 1.0);
  const Device dev = *find_device("h200");
  const GemmProblem p{.m = 512, .n = 8192, .k = 2048};
  const TimeConstants k = time_for(f, DType::float16);
  KernelFamily full = f;
  full.time.mma_rate_share = 0;  // 0: the full rate
  for (const TileConfig& cfg : {TileConfig{32, 128, 64, 4, 128, Instr::mma}, TileConfig{64, 128, 64, 4, 128, Instr::wgmma}}) {
    const TileCosts with = detail::tile_costs(dev, cfg, p, 1, false, k, 0.0, 0.0);
    const TileCosts without = detail::tile_costs(dev, cfg, p, 1, false, full.time, 0.0, 0.0);
    const double iteration = k.iteration_cycles / dev.boost_clock_mhz;
    if (cfg.instr == Instr::mma)
      EXPECT_NEAR((with.mma_us - iteration) / (without.mma_us - iteration), 1.0 / share, 1e-9);
    else
      EXPECT_DOUBLE_EQ(with.mma_us, without.mma_us);  // wgmma tiles keep the full rate
  }
  // Every input type takes it (no type overrides it).
  for (DType t : {DType::bfloat16, DType::float8_e4m3, DType::tfloat32})
    EXPECT_EQ(time_for(f, t).mma_rate_share, share) << to_string(t);
  // A family file without it reads 0, the full rate; one above 1 is refused.
  Result<KernelFamily> without = test::family_file_without("mma_rate_share");
  ASSERT_TRUE(without.ok()) << without.error().message;
  EXPECT_EQ(without.value().time.mma_rate_share, 0.0);
  Result<KernelFamily> above = test::family_file_without("mma_rate_share", {{"value", 1.5}, {"fitted_on", "x"}});
  ASSERT_FALSE(above.ok());
  EXPECT_NE(above.error().message.find("mma_rate_share 1.5 must be at most 1"), std::string::npos)
      << above.error().message;
}

// An mma tile whose copied rows are shorter than a cache line (a K-major
// operand with block_K x element size < 128 bytes): each such row is a
// request a step that busies the SM short_row_request_cycles (read off
// data/h100-profile-short-rows: 64-byte rows at about 7.5 bytes a cycle an
// SM). Rows of a full line, and wgmma tiles, are not priced by it.
TEST(Instr, MmaTiles_RowsShorterThanALine_BusyTheSm) {
  const KernelFamily& f = default_family();
  const TimeConstants k = time_for(f, DType::float8_e4m3);
  EXPECT_EQ(k.short_row_request_cycles, 8.5);
  const Device dev = *find_device("h100-sxm");
  const GemmProblem fp8{.m = 1, .n = 8192, .k = 8192, .dtype = DType::float8_e4m3, .b_layout = Layout::col};
  const auto terms = [&](const GemmProblem& p, const TileConfig& cfg) {
    const Verdict v = diagnose(p, dev, cfg, Model::calibrated).value();
    EXPECT_TRUE(v.predicted);
    return v;
  };
  // 16x256x64 fp8: A's 16 rows and B's 256 K-major rows are 64 bytes each.
  const Verdict half = terms(fp8, {16, 256, 64, 5, 128, Instr::mma, 4});
  EXPECT_EQ(half.time_terms.short_row_requests, 16.0 + 256.0);
  EXPECT_NEAR(half.time_terms.short_row_us, 272.0 * 8.5 / dev.boost_clock_mhz, 1e-12);
  // It is that tile's busiest resource: the step runs at its pace.
  EXPECT_GT(half.time_terms.short_row_us, std::max(half.time_terms.mma_us, half.time_terms.load_us));
  EXPECT_DOUBLE_EQ(half.time_terms.busiest_us, half.time_terms.short_row_us);
  // block_K 128: every row is a full line.
  const Verdict full = terms(fp8, {16, 256, 128, 5, 128, Instr::mma, 4});
  EXPECT_EQ(full.time_terms.short_row_requests, 0.0);
  EXPECT_EQ(full.time_terms.short_row_us, 0.0);
  // fp16 with B N-major: only A's rows (32 x 2 bytes) are short; B's rows are 512 bytes.
  const GemmProblem fp16{.m = 1, .n = 8192, .k = 8192};
  EXPECT_EQ(terms(fp16, {16, 256, 32, 5, 128, Instr::mma, 4}).time_terms.short_row_requests, 16.0);
  // With B K-major the same tile has B's 256 rows of 64 bytes too.
  GemmProblem kmajor = fp16;
  kmajor.b_layout = Layout::col;
  EXPECT_EQ(terms(kmajor, {16, 256, 32, 5, 128, Instr::mma, 4}).time_terms.short_row_requests, 272.0);
  // A wgmma tile with the same rows is not priced by it.
  EXPECT_EQ(terms(fp8, {64, 256, 64, 4, 128, Instr::wgmma, 4}).time_terms.short_row_requests, 0.0);
  // Without the constant (a family file that lacks it reads 0) the half-line
  // tile is faster; the full-line one is priced the same.
  Result<KernelFamily> without = test::family_file_without("short_row_request_cycles");
  ASSERT_TRUE(without.ok()) << without.error().message;
  EXPECT_EQ(without.value().time.short_row_request_cycles, 0.0);
  const Result<Prediction> h0 = predict(dev, fp8, {16, 256, 64, 5, 128, Instr::mma, 4}, 1, false, without.value());
  const Result<Prediction> f0 = predict(dev, fp8, {16, 256, 128, 5, 128, Instr::mma, 4}, 1, false, without.value());
  ASSERT_TRUE(h0.ok() && f0.ok());
  EXPECT_EQ(h0->terms.short_row_us, 0.0);
  EXPECT_LT(h0->time_us, half.predicted_us);
  EXPECT_NEAR(f0->time_us, full.predicted_us, 1e-9);
  // Hostile values are refused, naming the constant.
  for (double bad : {-1.0, std::nan(""), std::numeric_limits<double>::infinity(), 1e10}) {
    KernelFamily b = default_family();
    b.time.short_row_request_cycles = bad;
    const Status e = check_family(b);
    ASSERT_FALSE(e.ok()) << bad;
    EXPECT_EQ(e.error().param, "short_row_request_cycles") << bad;
  }
}

// An mma tile's kernel whose busiest SM holds more bytes in flight than
// mma_flight_knee_kb draws DRAM less efficiently: DRAM's time grows by
// mma_flight_dram_share per knee past it (fitted: python3
// scripts/fit_mma_flight.py on the decode-tile calibration sets). Below the
// knee, and for a wgmma tile however many bytes it holds, DRAM's time is
// its bytes over the bandwidth.
TEST(Instr, MmaTiles_BytesInFlightPastTheKnee_SlowDram) {
  const KernelFamily& f = default_family();
  const TimeConstants k = time_for(f, DType::float16);
  EXPECT_GT(k.mma_flight_knee_kb, 0.0);
  EXPECT_GT(k.mma_flight_dram_share, 0.0);
  const Device dev = *find_device("h200");
  const GemmProblem p{.m = 1, .n = 5120, .k = 13824};  // a decode step
  const auto terms = [&](const TileConfig& cfg) {
    const Verdict v = diagnose(p, dev, cfg, Model::calibrated).value();
    EXPECT_TRUE(v.predicted);
    return v.time_terms;
  };
  const double knee = k.mma_flight_knee_kb * 1024.0;
  // A split's own share of DRAM's time (split_dram_share) comes on top.
  const double split = f.split_k->constants.split_dram_share;
  // 16x128x64 split 2 (80 programs, 18 KB a stage): 2 stages in flight are
  // below the knee, 4 past it.
  const TimeTerms below = terms({16, 128, 64, 3, 128, Instr::mma, 2});
  const TimeTerms past = terms({16, 128, 64, 5, 128, Instr::mma, 2});
  EXPECT_EQ(below.round_programs, 1);
  EXPECT_EQ(below.stages_in_flight, 2);
  EXPECT_DOUBLE_EQ(below.flight_bytes, 2.0 * 144 * 64 * 2);
  EXPECT_LT(below.flight_bytes, knee);
  EXPECT_EQ(below.dram_scale, 1.0 + split);
  EXPECT_EQ(below.split_dram_share, split);
  EXPECT_DOUBLE_EQ(past.flight_bytes, 4.0 * 144 * 64 * 2);
  EXPECT_NEAR(past.dram_scale, 1.0 + split + k.mma_flight_dram_share * (past.flight_bytes - knee) / knee, 1e-12);
  EXPECT_GT(past.dram_scale, 1.0 + split);
  EXPECT_NEAR(past.dram_us / below.dram_us, past.dram_scale / below.dram_scale, 1e-9);  // the same bytes
  // A wgmma tile with more bytes in flight keeps DRAM's plain time.
  const TimeTerms wgmma = terms({64, 256, 64, 5, 128, Instr::wgmma, 2});
  EXPECT_GT(wgmma.flight_bytes, knee);
  EXPECT_EQ(wgmma.dram_scale, 1.0 + split);
  // A family file without the two constants reads 0: not priced.
  for (const char* name : {"mma_flight_knee_kb", "mma_flight_dram_share"}) {
    Result<KernelFamily> without = test::family_file_without(name);
    ASSERT_TRUE(without.ok()) << without.error().message;
    const TimeConstants w = time_for(without.value(), DType::float16);
    EXPECT_EQ(std::string_view(name) == "mma_flight_knee_kb" ? w.mma_flight_knee_kb : w.mma_flight_dram_share, 0.0);
    const GemmProblem q = p;
    const TileConfig cfg{16, 128, 64, 5, 128, Instr::mma, 2};
    const Result<Prediction> r = predict(dev, q, cfg, 1, false, without.value());
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r.value().terms.dram_scale, 1.0 + split) << name;
  }
}

// An mma tile's copy-rate cap grows with its warps: (warps / 4) to the power
// mma_copy_warp_power (fitted: python3 scripts/fit_mma_copy_warps.py on the
// decode-tile calibration sets; the form from data/h200-profile-sm-copy).
// A lone 16-row program with 8 warps takes its stages faster than with 4;
// a wgmma tile's cap is the same for every warp count.
TEST(Instr, MmaTiles_CopyCapGrowsWithWarps) {
  const KernelFamily& f = default_family();
  const TimeConstants k = time_for(f, DType::float16);
  EXPECT_GT(k.mma_copy_warp_power, 0.0);
  EXPECT_LE(k.mma_copy_warp_power, 4.0);
  const Device dev = *find_device("h200");
  const GemmProblem p{.m = 1, .n = 20480, .k = 7168};  // a decode step: 80 programs of 16x256, one an SM
  const auto costs = [&](const TileConfig& cfg, const TimeConstants& c) {
    return detail::tile_costs(dev, cfg, p, 1, false, c, 0.0, 0.0);
  };
  const double cap = k.mma_copy_bytes_per_cycle * dev.boost_clock_mhz;
  const TileCosts four = costs({16, 256, 64, 4, 128, Instr::mma}, k);
  const TileCosts eight = costs({16, 256, 64, 4, 256, Instr::mma}, k);
  EXPECT_DOUBLE_EQ(four.copy_bytes_per_us, cap);
  EXPECT_NEAR(eight.copy_bytes_per_us / cap, std::pow(2.0, k.mma_copy_warp_power), 1e-12);
  // The lone program's round trip is shorter with 8 warps, and so is the kernel.
  const auto predicted = [&](int64_t threads) {
    return predict(dev, p, TileConfig{16, 256, 64, 4, threads, Instr::mma}, 1, false, f).value();
  };
  const Prediction p4 = predicted(128), p8 = predicted(256);
  EXPECT_EQ(p4.terms.round_programs, 1);
  EXPECT_LT(p8.terms.round_trip_us, p4.terms.round_trip_us);
  EXPECT_LT(p8.time_us, p4.time_us);
  // Power 0: the same cap, and the same round trip, for both.
  TimeConstants flat = k;
  flat.mma_copy_warp_power = 0;
  EXPECT_DOUBLE_EQ(costs({16, 256, 64, 4, 256, Instr::mma}, flat).copy_bytes_per_us, cap);
  // wgmma tiles keep copy_bytes_per_cycle whatever their warps.
  EXPECT_DOUBLE_EQ(costs({64, 128, 64, 4, 256, Instr::wgmma}, k).copy_bytes_per_us,
                   costs({64, 128, 64, 4, 128, Instr::wgmma}, k).copy_bytes_per_us);
  // A family file without it reads 0; one above 4 is refused with the rule.
  Result<KernelFamily> without = test::family_file_without("mma_copy_warp_power");
  ASSERT_TRUE(without.ok()) << without.error().message;
  EXPECT_EQ(without.value().time.mma_copy_warp_power, 0.0);
  Result<KernelFamily> above = test::family_file_without("mma_copy_warp_power", {{"value", 1e9}, {"fitted_on", "x"}});
  ASSERT_FALSE(above.ok());
  EXPECT_NE(above.error().message.find("mma_copy_warp_power 1000000000 must be at most 4"), std::string::npos)
      << above.error().message;
}

}  // namespace
}  // namespace tileplan
