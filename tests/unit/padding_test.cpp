// Padding advice (planner.hpp): rounding M, N, K or the leading dimensions up
// to a multiple of 16 where that changes how an operand moves, each option
// planned and ranked by its first pick's predicted time.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "tileplan/device.hpp"
#include "tileplan/family.hpp"
#include "tileplan/gemm.hpp"
#include "tileplan/planner.hpp"
#include "tileplan/render/tile.hpp"

namespace tileplan {
namespace {

const Device& h200() {
  static const Device d = *find_device("h200");
  return d;
}

const Planner& calibrated() {
  static const Planner p =
      Planner::create(h200(), Instr::automatic, default_space(Model::calibrated, default_family()), Model::calibrated)
          .value();
  return p;
}

PaddingAdvice advice_of(const GemmProblem& p) {
  Result<std::optional<PaddingAdvice>> a = padding_advice(calibrated(), p);
  EXPECT_TRUE(a.ok());
  EXPECT_TRUE(a.ok() && a->has_value()) << p.m << "x" << p.n << "x" << p.k;
  return a.ok() && a->has_value() ? **a : PaddingAdvice{};
}

TEST(PaddedProblem, RoundsTheChosenDimensionsUpToSixteen) {
  const GemmProblem p{.m = 1000, .n = 11001, .k = 1001};
  const GemmProblem n = padded_problem(p, pad_n);
  EXPECT_EQ(n.m, 1000);
  EXPECT_EQ(n.n, 11008);
  EXPECT_EQ(n.k, 1001);
  const GemmProblem all = padded_problem(p, pad_m | pad_n | pad_k);
  EXPECT_EQ(all.m, 1008);
  EXPECT_EQ(all.n, 11008);
  EXPECT_EQ(all.k, 1008);
  // A multiple of 16 stays.
  EXPECT_EQ(padded_problem(GemmProblem{.m = 64, .n = 64, .k = 64}, pad_m | pad_n | pad_k).m, 64);
}

TEST(PaddedProblem, ALeadingDimensionFollowsItsPaddedExtentAndRoundsOnlyWhenAsked) {
  GemmProblem p{.m = 512, .n = 3000, .k = 1000};
  p.ldb = 3001;  // B row-major: strides N
  p.lda = 1000;  // A row-major: strides K
  const GemmProblem k = padded_problem(p, pad_k);
  EXPECT_EQ(k.lda, 1008) << "below the padded K it strides past: raised to it";
  EXPECT_EQ(k.ldb, 3001) << "not rounded without pad_leading";
  const GemmProblem l = padded_problem(p, pad_leading);
  EXPECT_EQ(l.lda, 1008);
  EXPECT_EQ(l.ldb, 3008);
  EXPECT_EQ(l.ldc, 0) << "packed stays packed";
  EXPECT_TRUE(check_problem(padded_problem(p, pad_m | pad_n | pad_k | pad_leading)).ok());
}

TEST(PaddedProblem, AtTheLargestDimensionTheOptionFailsTheProblemCheckAndIsLeftOut) {
  const GemmProblem p{.m = 16, .n = kMaxDim, .k = 16};
  ASSERT_TRUE(check_problem(p).ok());
  EXPECT_FALSE(check_problem(padded_problem(p, pad_n)).ok());
  Result<std::optional<PaddingAdvice>> a = padding_advice(calibrated(), p);
  ASSERT_TRUE(a.ok());
  if (a->has_value()) {
    for (const PaddingOption& o : (*a)->options) EXPECT_EQ(o.parts & pad_n, 0u);
  }
}

TEST(PaddingAdvice, NothingForAnAlignedProblemOrAMAloneThatIsOnlyALoopBound) {
  for (const GemmProblem& p : {GemmProblem{.m = 4096, .n = 4096, .k = 4096}, GemmProblem{.m = 1000, .n = 4096, .k = 4096},
                               GemmProblem{.m = 333, .n = 14336, .k = 4096}}) {
    Result<std::optional<PaddingAdvice>> a = padding_advice(calibrated(), p);
    ASSERT_TRUE(a.ok());
    EXPECT_FALSE(a->has_value()) << p.m << "x" << p.n << "x" << p.k;
  }
}

TEST(PaddingAdvice, NothingUnderTheSeedModel) {
  const Planner seed = Planner::create(h200(), Instr::wgmma, SearchSpace{}, Model::seed).value();
  Result<std::optional<PaddingAdvice>> a = padding_advice(seed, GemmProblem{.m = 4096, .n = 11001, .k = 4096});
  ASSERT_TRUE(a.ok());
  EXPECT_FALSE(a->has_value());
}

TEST(PaddingAdvice, AnInvalidProblemIsAnError) {
  Result<std::optional<PaddingAdvice>> a = padding_advice(calibrated(), GemmProblem{.m = 0, .n = 16, .k = 16});
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.error().param, "m");
}

// Measured: 4096x11001x4096 bf16 runs its best tile in 1.90 ms, 4096x11008x4096
// in 0.51 ms (data/h200-triton-v21, -v5a). The option pads N, restores B's and
// C's 16-byte vectors and is predicted much faster; its work grows by 7/11001.
TEST(PaddingAdvice, AnUnalignedNIsPaddedAndPredictedFaster) {
  GemmProblem p{.m = 4096, .n = 11001, .k = 4096};
  p.dtype = DType::bfloat16;
  const PaddingAdvice a = advice_of(p);
  ASSERT_EQ(a.options.size(), 1u);
  const PaddingOption& o = a.options.front();
  EXPECT_EQ(o.parts, pad_n);
  EXPECT_EQ(o.padded.n, 11008);
  EXPECT_TRUE(problem_access(o.padded).aligned);
  EXPECT_NEAR(o.extra_work, 7.0 / 11001.0, 1e-12);
  EXPECT_GT(a.unpadded.predicted_us / o.best.predicted_us, kPaddingPays);
  // The unpadded pick is the planner's own first pick.
  EXPECT_DOUBLE_EQ(a.unpadded.predicted_us, calibrated().plan(p, 1).value().front().predicted_us);
  EXPECT_DOUBLE_EQ(o.best.predicted_us, calibrated().plan(o.padded, 1).value().front().predicted_us);
}

TEST(PaddingAdvice, EachPartAloneAndAllTogetherFastestFirst) {
  const PaddingAdvice a = advice_of(GemmProblem{.m = 1024, .n = 11001, .k = 1000});
  ASSERT_EQ(a.options.size(), 3u);
  unsigned seen = 0;
  for (const PaddingOption& o : a.options) seen |= 1u << o.parts;
  EXPECT_EQ(seen, (1u << pad_n) | (1u << pad_k) | (1u << (pad_n | pad_k)));
  EXPECT_TRUE(std::is_sorted(a.options.begin(), a.options.end(), [](const PaddingOption& x, const PaddingOption& y) {
    return x.best.predicted_us < y.best.predicted_us;
  }));
  // M = 1024 is a multiple of 16 already: no option pads it.
  for (const PaddingOption& o : a.options) EXPECT_EQ(o.padded.m, 1024);
}

TEST(PaddingAdvice, ColumnMajorAWithAnUnalignedMIsPadded) {
  GemmProblem p{.m = 1000, .n = 4096, .k = 4096};
  p.a_layout = Layout::col;
  const PaddingAdvice a = advice_of(p);
  ASSERT_EQ(a.options.size(), 1u);
  EXPECT_EQ(a.options.front().parts, pad_m);
  EXPECT_EQ(a.options.front().padded.m, 1008);
}

TEST(PaddingAdvice, ADecodeStepOfFewRowsIsPaddedToSixteen) {
  const PaddingAdvice a = advice_of(GemmProblem{.m = 3, .n = 4096, .k = 4096});
  ASSERT_EQ(a.options.size(), 1u);
  EXPECT_EQ(a.options.front().padded.m, 16);
  EXPECT_FALSE(problem_access(a.options.front().padded).a.repeated_rows);
  EXPECT_NEAR(a.options.front().extra_work, 16.0 / 3.0 - 1.0, 1e-12);
}

TEST(PaddingAdvice, AnUnalignedLeadingDimensionAloneIsTheLeadingOption) {
  GemmProblem p{.m = 4096, .n = 2992, .k = 4096};
  p.ldb = 3001;  // N is a multiple of 16; B's rows are not
  const PaddingAdvice a = advice_of(p);
  ASSERT_EQ(a.options.size(), 1u);
  EXPECT_EQ(a.options.front().parts, pad_leading);
  EXPECT_EQ(a.options.front().padded.ldb, 3008);
  EXPECT_EQ(a.options.front().padded.n, 2992);
  EXPECT_DOUBLE_EQ(a.options.front().extra_work, 0.0);
}

TEST(PaddingAdvice, PaddingNRaisesALeadingDimensionBelowIt) {
  GemmProblem p{.m = 4096, .n = 3000, .k = 4096};
  p.ldb = 3001;
  const PaddingAdvice a = advice_of(p);
  // Rounding ldb alone leaves N unaligned (nothing changes); padding N
  // raises ldb to 3008, which aligns both.
  ASSERT_EQ(a.options.size(), 1u);
  EXPECT_EQ(a.options.front().parts, pad_n);
  EXPECT_EQ(a.options.front().padded.ldb, 3008);
  EXPECT_EQ(problem_access(a.options.front().padded).b.vector_bytes, kMaxVectorBytes);
}

TEST(PaddingAdvice, OneTileIsDiagnosedOnEachPaddedProblem) {
  const GemmProblem p{.m = 1024, .n = 11001, .k = 1000};
  const TileConfig cfg{128, 128, 64, 3, 256, Instr::wgmma};
  Result<std::optional<PaddingAdvice>> a = padding_advice(p, h200(), cfg);
  ASSERT_TRUE(a.ok() && a->has_value());
  const PaddingAdvice& advice = **a;
  EXPECT_DOUBLE_EQ(advice.unpadded.predicted_us, diagnose(p, h200(), cfg, Model::calibrated).value().predicted_us);
  ASSERT_EQ(advice.options.size(), 3u);
  for (const PaddingOption& o : advice.options) {
    EXPECT_EQ(o.best.config.block_m, 128);
    EXPECT_EQ(o.best.config.stages, 3);
    EXPECT_DOUBLE_EQ(o.best.predicted_us, diagnose(o.padded, h200(), cfg, Model::calibrated).value().predicted_us);
  }
  // The sweep's options plan the padded problems instead: never slower than this tile.
  const PaddingAdvice planned = advice_of(p);
  for (const PaddingOption& o : planned.options) {
    for (const PaddingOption& t : advice.options) {
      if (t.parts == o.parts) {
        EXPECT_LE(o.best.predicted_us, t.best.predicted_us + 1e-9);
      }
    }
  }
}

TEST(PaddingAdvice, OneTileThatDoesNotFitHasNoOptions) {
  const GemmProblem p{.m = 1024, .n = 11001, .k = 1000};
  Result<std::optional<PaddingAdvice>> a = padding_advice(p, h200(), TileConfig{256, 256, 128, 5, 256, Instr::wgmma});
  ASSERT_TRUE(a.ok());
  EXPECT_FALSE(a->has_value()) << "C1 fails: no prediction to compare";
  Result<std::optional<PaddingAdvice>> bad = padding_advice(p, h200(), TileConfig{0, 128, 64, 3, 256, Instr::wgmma});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().param, "block_m");
}

TEST(PaddingSummary, NamesEachChangeOnce) {
  GemmProblem p{.m = 1000, .n = 11001, .k = 1000};
  p.ldb = 11001;
  PaddingOption o;
  o.parts = pad_n | pad_k;
  o.padded = padded_problem(p, o.parts);
  EXPECT_EQ(render::padding_summary(p, o), "N 11001->11008, K 1000->1008, ldb 11001->11008");
  p.ldb = 0;
  o.padded = padded_problem(p, o.parts);
  EXPECT_EQ(render::padding_summary(p, o), "N 11001->11008, K 1000->1008");
}

}  // namespace
}  // namespace tileplan
