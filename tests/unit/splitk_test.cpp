// Split-K: the split factor as a sweep dimension (C4 counts programs, a split
// beyond the K tiles fails C4), the run-time model's split terms, the family
// file's split_k section, and the errors for a model or family that cannot
// split.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>
#include <nlohmann/json.hpp>

#include "tileplan/family.hpp"
#include "tileplan/model.hpp"
#include "tileplan/planner.hpp"

namespace tileplan {
namespace {

const Device& h200() {
  static const Device d = *find_device("h200");
  return d;
}

KernelFamily without_split() {
  KernelFamily f = default_family();
  f.split_k.reset();
  return f;
}

TEST(SplitK, ShippedFamilyHasAWorkspaceModel) {
  const KernelFamily& f = default_family();
  ASSERT_TRUE(f.split_k.has_value());
  EXPECT_EQ(f.split_k->variant, "workspace");
  EXPECT_GT(f.split_k->constants.reduce_gbps, 0);
  EXPECT_GE(f.split_k->constants.reduce_launch_us, 0);
  EXPECT_NE(f.split_k->fitted_on.find("data/h200-triton-splitk-v1"), std::string::npos);
}

TEST(SplitK, FamilyFileRoundTripsTheSection) {
  const KernelFamily& f = default_family();
  Result<KernelFamily> back = parse_family(family_json(f), "round-trip");
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_TRUE(back->split_k.has_value());
  EXPECT_EQ(back->split_k->constants.reduce_gbps, f.split_k->constants.reduce_gbps);
  EXPECT_EQ(back->split_k->constants.reduce_launch_us, f.split_k->constants.reduce_launch_us);
  EXPECT_EQ(back->split_k->fitted_on, f.split_k->fitted_on);
}

TEST(SplitK, CheckFamilyRefusesBadConstantsAndVariants) {
  KernelFamily f = default_family();
  f.split_k->constants.reduce_gbps = 0;
  Status s = check_family(f);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().param, "reduce_gbps");
  f = default_family();
  f.split_k->constants.reduce_launch_us = std::nan("");
  EXPECT_FALSE(check_family(f).ok());
  f = default_family();
  f.split_k->variant = "atomic";
  s = check_family(f);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().param, "split_k");
}

TEST(SplitK, CheckConfigRefusesZeroAndNegative) {
  for (int64_t bad : {int64_t{0}, int64_t{-1}, kMaxTileValue + 1}) {
    TileConfig c;
    c.split_k = bad;
    const Status s = check_config(c);
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_EQ(s.error().param, "split_k");
  }
}

TEST(SplitK, UnsplitPredictionIsUnchangedByTheSplitModel) {
  // The split section adds terms only for split_k > 1.
  const GemmProblem p{.m = 512, .n = 512, .k = 16384};
  const TileConfig cfg{128, 128, 64, 4, 256};
  Result<Prediction> with = predict(h200(), p, cfg, 1, false, default_family());
  Result<Prediction> plain = predict(h200(), p, cfg, 1, false, without_split());
  ASSERT_TRUE(with.ok() && plain.ok());
  EXPECT_EQ(with->time_us, plain->time_us);
  EXPECT_EQ(with->reduce_us, 0.0);
}

TEST(SplitK, ReductionTermFollowsItsEquation) {
  const GemmProblem p{.m = 512, .n = 512, .k = 16384};
  TileConfig cfg{128, 128, 64, 4, 256};
  const SplitKConstants& c = default_family().split_k->constants;
  for (int64_t s : {2, 4, 8, 16}) {
    cfg.split_k = s;
    Result<Prediction> pr = predict(h200(), p, cfg, 1, false, default_family());
    ASSERT_TRUE(pr.ok()) << pr.error().message;
    const double bytes = static_cast<double>(s) * 512 * 512 * 4 + 512.0 * 512 * 2;
    EXPECT_NEAR(pr->reduce_us,
                c.reduce_launch_us + static_cast<double>(s) * c.reduce_split_us + bytes / (c.reduce_gbps * 1e3), 1e-9)
        << s;
    EXPECT_GT(pr->time_us, pr->reduce_us);
  }
}

// Where M*N is small, the reduction's time grows with the split factor
// beyond its bytes (data/h200-split-timing): the shipped family prices it,
// so at M = 2 each doubling of the split costs the reduction more than its
// bytes alone would, and a family without the term (reduce_split_us = 0)
// prices exactly the bytes.
TEST(SplitK, ReductionChargesEachPartialWhereTheShippedFamilyPricesIt) {
  const GemmProblem p{.m = 2, .n = 4096, .k = 4096};
  TileConfig cfg{64, 128, 128, 4, 128};
  const SplitKConstants& c = default_family().split_k->constants;
  ASSERT_GT(c.reduce_split_us, 0.0);
  KernelFamily flat = default_family();
  flat.split_k->constants.reduce_split_us = 0;
  for (int64_t s : {4, 8, 16}) {
    cfg.split_k = s;
    Result<Prediction> with = predict(h200(), p, cfg, 1, false, default_family());
    Result<Prediction> without = predict(h200(), p, cfg, 1, false, flat);
    ASSERT_TRUE(with.ok() && without.ok());
    EXPECT_NEAR(with->reduce_us - without->reduce_us, static_cast<double>(s) * c.reduce_split_us, 1e-9) << s;
    EXPECT_NEAR(with->time_us - without->time_us, static_cast<double>(s) * c.reduce_split_us, 1e-9) << s;
  }
}

// The split GEMM's partial stores and DRAM share (docs/model.md §3,
// "Split-K"; fitted by scripts/fit_split_overrun.py, both above 0 in the
// shipped family). From a family without them: with partial_store_share the
// time grows by exactly share * s*M*N*4 bytes at the device's DRAM
// bandwidth; with split_dram_share the GEMM's DRAM time grows, so the time
// does (never by more than the DRAM time's share); the unsplit kernel and the
// reduction are untouched by either.
TEST(SplitK, PartialStoresAndDramShareFollowTheirEquations) {
  const GemmProblem p{.m = 16, .n = 8192, .k = 8192};
  TileConfig cfg{64, 256, 64, 5, 128};
  const SplitKConstants& c = default_family().split_k->constants;
  EXPECT_GT(c.partial_store_share, 0.0);
  EXPECT_GT(c.split_dram_share, 0.0);
  KernelFamily none = default_family();
  none.split_k->constants.partial_store_share = 0;
  none.split_k->constants.split_dram_share = 0;
  none.split_k->constants.split_dram_growth = 0;  // the flat share here; the grown one below
  KernelFamily stores = none, dram = none;
  stores.split_k->constants.partial_store_share = 1.5;
  dram.split_k->constants.split_dram_share = 0.1;
  ASSERT_TRUE(check_family(stores).ok() && check_family(dram).ok());
  for (int64_t s : {1, 2, 4, 8}) {
    cfg.split_k = s;
    Result<Prediction> base = predict(h200(), p, cfg, 1, false, none);
    Result<Prediction> st = predict(h200(), p, cfg, 1, false, stores);
    Result<Prediction> dr = predict(h200(), p, cfg, 1, false, dram);
    ASSERT_TRUE(base.ok() && st.ok() && dr.ok());
    EXPECT_EQ(st->reduce_us, base->reduce_us);
    EXPECT_EQ(dr->reduce_us, base->reduce_us);
    if (s == 1) {
      EXPECT_EQ(st->time_us, base->time_us);
      EXPECT_EQ(dr->time_us, base->time_us);
      continue;
    }
    const double partial = static_cast<double>(s) * 16 * 8192 * 4;
    EXPECT_NEAR(st->time_us - base->time_us, 1.5 * partial / (h200().dram_bandwidth_gbps * 1e3), 1e-9) << s;
    EXPECT_GT(dr->terms.dram_us, base->terms.dram_us) << s;
    EXPECT_NEAR(dr->terms.dram_scale, base->terms.dram_scale + 0.1, 1e-12) << s;
    EXPECT_NEAR(dr->terms.dram_us / base->terms.dram_us, dr->terms.dram_scale / base->terms.dram_scale, 1e-12) << s;
    EXPECT_GT(dr->time_us, base->time_us) << s;
    EXPECT_LE(dr->time_us - base->time_us, dr->terms.dram_us - base->terms.dram_us + 1e-9) << s;
  }
  KernelFamily bad = default_family();
  bad.split_k->constants.split_dram_share = -0.1;
  Status e = check_family(bad);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().param, "split_dram_share");
  for (double v : {std::nan(""), 1e10, -1.0, std::numeric_limits<double>::infinity()}) {
    bad = default_family();
    bad.split_k->constants.partial_store_share = v;
    e = check_family(bad);
    ASSERT_FALSE(e.ok()) << v;
    EXPECT_EQ(e.error().param, "partial_store_share") << v;
  }
  // A family file round-trips them.
  Result<KernelFamily> back = parse_family(family_json(stores), "round-trip");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->split_k->constants.partial_store_share, 1.5);
  EXPECT_EQ(back->split_k->constants.split_dram_share, 0.0);
}

// split_dram_growth blends the flat share (0) with one that follows the
// share of B the other K slices stream, 2(1 - 1/s) (1): at s = 2 both are
// split_dram_share; past it the grown share is larger, 1.5x at 4 and 1.75x
// at 8, and half-way growth lies half-way. It is range-checked, and a file
// without it reads as 0 (the flat share).
TEST(SplitK, DramShareGrowsWithTheSplitFactorWhenAsked) {
  const GemmProblem p{.m = 8, .n = 4096, .k = 14336};
  TileConfig cfg{16, 128, 64, 5, 128};
  KernelFamily flat = default_family();
  flat.split_k->constants.split_dram_share = 0.08;
  flat.split_k->constants.split_dram_growth = 0;
  KernelFamily grown = flat, half = flat;
  grown.split_k->constants.split_dram_growth = 1;
  half.split_k->constants.split_dram_growth = 0.5;
  ASSERT_TRUE(check_family(grown).ok() && check_family(half).ok());
  for (int64_t s : {1, 2, 3, 4, 8}) {
    cfg.split_k = s;
    Result<Prediction> f = predict(h200(), p, cfg, 1, false, flat);
    Result<Prediction> g = predict(h200(), p, cfg, 1, false, grown);
    Result<Prediction> h = predict(h200(), p, cfg, 1, false, half);
    ASSERT_TRUE(f.ok() && g.ok() && h.ok());
    const double want = s == 1 ? 0.0 : 0.08 * 2.0 * (1.0 - 1.0 / static_cast<double>(s));
    EXPECT_DOUBLE_EQ(f->terms.split_dram_share, s == 1 ? 0.0 : 0.08) << s;
    EXPECT_DOUBLE_EQ(g->terms.split_dram_share, want) << s;
    EXPECT_DOUBLE_EQ(h->terms.split_dram_share, (f->terms.split_dram_share + want) / 2) << s;
    EXPECT_NEAR(g->terms.dram_scale - f->terms.dram_scale, want - f->terms.split_dram_share, 1e-12) << s;
    if (s <= 2)
      EXPECT_DOUBLE_EQ(g->time_us, f->time_us) << s;
    else
      EXPECT_GT(g->time_us, f->time_us) << s;
  }
  for (double v : {-0.1, 1.01, std::nan(""), std::numeric_limits<double>::infinity()}) {
    KernelFamily bad = default_family();
    bad.split_k->constants.split_dram_growth = v;
    Status e = check_family(bad);
    ASSERT_FALSE(e.ok()) << v;
    EXPECT_EQ(e.error().param, "split_dram_growth") << v;
  }
  Result<KernelFamily> back = parse_family(family_json(half), "round-trip");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->split_k->constants.split_dram_growth, 0.5);
  nlohmann::json without = nlohmann::json::parse(family_json(grown));
  without["split_k"]["constants"].erase("split_dram_growth");
  back = parse_family(without.dump(), "without growth");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->split_k->constants.split_dram_growth, 0.0);
}

TEST(SplitK, PredictRefusesASplitBeyondTheKTilesOrWithoutAModel) {
  const GemmProblem p{.m = 512, .n = 512, .k = 256};  // 4 K tiles of 64
  TileConfig cfg{128, 128, 64, 4, 256};
  cfg.split_k = 4;
  EXPECT_TRUE(predict(h200(), p, cfg, 1, false, default_family()).ok());
  cfg.split_k = 8;
  Result<Prediction> beyond = predict(h200(), p, cfg, 1, false, default_family());
  ASSERT_FALSE(beyond.ok());
  EXPECT_EQ(beyond.error().param, "split_k");
  EXPECT_NE(beyond.error().message.find("exceeds the 4 K tiles"), std::string::npos) << beyond.error().message;
  cfg.split_k = 2;
  Result<Prediction> no_model = predict(h200(), p, cfg, 1, false, without_split());
  ASSERT_FALSE(no_model.ok());
  EXPECT_EQ(no_model.error().param, "split_k");
}

TEST(SplitK, C4CountsProgramsAndFailsBeyondTheKTiles) {
  const GemmProblem p{.m = 512, .n = 512, .k = 512};  // 16 tiles of 128x128, 8 K tiles of 64
  TileConfig cfg{128, 128, 64, 4, 256};
  cfg.split_k = 4;
  Result<Verdict> v = diagnose(p, h200(), cfg, Model::calibrated);
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v->feasible());
  EXPECT_EQ(v->grid, 16 * 4);
  EXPECT_GT(v->reduce_us, 0);
  cfg.split_k = 16;
  v = diagnose(p, h200(), cfg, Model::calibrated);
  ASSERT_TRUE(v.ok());
  ASSERT_FALSE(v->feasible());
  EXPECT_EQ(v->failures.begin()->kind, FindingKind::split_exceeds_k_tiles);
  EXPECT_EQ(constraint_of(v->failures.begin()->kind), Constraint::C4);
  EXPECT_FALSE(v->predicted);
  EXPECT_EQ(v->grid, 16 * 8);  // counted as far as the K tiles go
}

TEST(SplitK, SeedModelAndSplitlessFamilyRefuseSplits) {
  SearchSpace space = calibrated_space();
  space.split_k = {1, 2};
  Result<Planner> seed = Planner::create(h200(), Instr::wgmma, space, Model::seed);
  ASSERT_FALSE(seed.ok());
  EXPECT_EQ(seed.error().param, "split_k");
  Result<Planner> plain = Planner::create(h200(), Instr::wgmma, space, Model::calibrated, without_split());
  ASSERT_FALSE(plain.ok());
  EXPECT_EQ(plain.error().param, "split_k");
  TileConfig cfg;
  cfg.split_k = 2;
  EXPECT_FALSE(diagnose(GemmProblem{}, h200(), cfg, Model::seed).ok());
  EXPECT_FALSE(rank_configs(GemmProblem{}, h200(), {cfg}, Model::calibrated, without_split()).ok());
}

TEST(SplitK, SweepWalksSplitsInnermostAndDropsThoseBeyondK) {
  SearchSpace space = calibrated_space();
  space.split_k = {1, 2, 4, 8, 16};
  Result<Planner> planner = Planner::create(h200(), Instr::wgmma, space, Model::calibrated);
  ASSERT_TRUE(planner.ok()) << planner.error().message;
  EXPECT_EQ(planner->space_size(), 800u * 5);
  // K = 256: block_K 64 has 4 K tiles, so split 8 and 16 are not candidates.
  Result<std::vector<Verdict>> all = planner->plan({.m = 64, .n = 64, .k = 256});
  ASSERT_TRUE(all.ok());
  ASSERT_FALSE(all->empty());
  bool saw_split = false;
  for (const Verdict& v : *all) {
    EXPECT_LE(v.config.split_k, (256 + v.config.block_k - 1) / v.config.block_k) << v.config.split_k;
    EXPECT_TRUE(v.feasible());
    saw_split = saw_split || v.config.split_k > 1;
  }
  EXPECT_TRUE(saw_split);
  // Ranked by predicted time, the reduction included.
  for (std::size_t i = 1; i < all->size(); ++i) EXPECT_LE((*all)[i - 1].predicted_us, (*all)[i].predicted_us);
}

TEST(SplitK, OnlySplitFactorOneMatchesTheUnsplitSweep) {
  // A space of split 1 alone gives exactly the plain sweep.
  SearchSpace one = calibrated_space();
  SearchSpace with = calibrated_space();
  with.split_k = {1, 2, 4};
  const GemmProblem p{.m = 4096, .n = 4096, .k = 4096};
  Result<std::vector<Verdict>> a = sweep(p, h200(), Instr::wgmma, one, 0, Model::calibrated);
  Result<std::vector<Verdict>> b = sweep(p, h200(), Instr::wgmma, with, 0, Model::calibrated);
  ASSERT_TRUE(a.ok() && b.ok());
  std::vector<Verdict> unsplit;
  for (const Verdict& v : *b)
    if (v.config.split_k == 1) unsplit.push_back(v);
  ASSERT_EQ(unsplit.size(), a->size());
  for (std::size_t i = 0; i < a->size(); ++i) EXPECT_EQ(unsplit[i].predicted_us, (*a)[i].predicted_us) << i;
}

TEST(SplitK, TileStarvedLongKSplitsAndLargeSquareDoesNot) {
  // The model's reason to exist: 512x512x16384 has 16 tiles of 128x128 for
  // 132 SMs (measured: the best split 1.76x faster than the best unsplit,
  // data/h200-triton-splitk-v1); 4096^3 has 1024 tiles and nothing to gain.
  SearchSpace space = calibrated_space();
  space.split_k = {1, 2, 4, 8, 16};
  Result<std::vector<Verdict>> starved = sweep({.m = 512, .n = 512, .k = 16384}, h200(), Instr::wgmma, space, 1,
                                               Model::calibrated);
  ASSERT_TRUE(starved.ok() && !starved->empty());
  EXPECT_GT(starved->front().config.split_k, 1);
  Result<std::vector<Verdict>> square = sweep({.m = 4096, .n = 4096, .k = 4096}, h200(), Instr::wgmma, space, 1,
                                              Model::calibrated);
  ASSERT_TRUE(square.ok() && !square->empty());
  EXPECT_EQ(square->front().config.split_k, 1);
}

TEST(SplitK, AdviceNamesTheBestFactorOfATile) {
  const TileConfig cfg{128, 128, 64, 4, 256};
  Result<std::optional<SplitAdvice>> starved = split_advice({.m = 512, .n = 512, .k = 16384}, h200(), cfg);
  ASSERT_TRUE(starved.ok());
  ASSERT_TRUE(starved->has_value());
  EXPECT_GT((*starved)->best_split, 1);
  EXPECT_LT((*starved)->best_us, (*starved)->unsplit_us);
  Result<std::optional<SplitAdvice>> square = split_advice({.m = 8192, .n = 8192, .k = 4096}, h200(), cfg);
  ASSERT_TRUE(square.ok() && square->has_value());
  EXPECT_EQ((*square)->best_split, 1);
  EXPECT_EQ((*square)->best_us, (*square)->unsplit_us);
  Result<std::optional<SplitAdvice>> none = split_advice({.m = 512, .n = 512, .k = 16384}, h200(), cfg, without_split());
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

}  // namespace
}  // namespace tileplan

