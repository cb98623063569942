// A Planner serves problems of every input type and layout, whichever class
// it built first; sweep() builds only its problem's class and agrees with it.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <thread>
#include <tuple>
#include <vector>

#include "tileplan/planner.hpp"
#include "tileplan/render/tile.hpp"

namespace tileplan {
namespace {

const Device& h200() {
  static const Device d = *find_device("h200");
  return d;
}

// Problems of distinct classes: type, and A or B loads narrow or not.
std::vector<GemmProblem> mixed_problems() {
  std::vector<GemmProblem> out;
  for (DType t : {DType::float16, DType::bfloat16, DType::float8_e4m3, DType::float8_e5m2, DType::tfloat32})
    for (int64_t k : {4096, 1000})
      for (Layout b : {Layout::row, Layout::col}) {
        GemmProblem p{.m = 2048, .n = 4096, .k = k, .dtype = t};
        p.b_layout = b;
        out.push_back(p);
        p.out_dtype = DType::float32;  // C's type changes the epilogue's bytes
        out.push_back(p);
      }
  return out;
}

void expect_same(const std::vector<Verdict>& a, const std::vector<Verdict>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].config.block_m, b[i].config.block_m) << i;
    EXPECT_EQ(a[i].config.block_n, b[i].config.block_n) << i;
    EXPECT_EQ(a[i].config.block_k, b[i].config.block_k) << i;
    EXPECT_EQ(a[i].config.stages, b[i].config.stages) << i;
    EXPECT_EQ(a[i].config.threads, b[i].config.threads) << i;
    EXPECT_EQ(a[i].predicted_us, b[i].predicted_us) << i;
    EXPECT_EQ(a[i].dram_bytes, b[i].dram_bytes) << i;
  }
}

// Problems whose shape-independent costs differ in what the class key must
// hold beside the types: A's layout (its rows' L2 requests, its narrow
// footprint), M's alignment where C is stored narrow (the epilogue's row
// term), a narrow operand's leading dimension divisible by 16 or not (its
// rows' cache lines), B's rows 16-byte aligned or not. Pairs that once
// shared a table, so that a batch's answers depended on its order.
std::vector<GemmProblem> colliding_problems() {
  std::vector<GemmProblem> out;
  const auto add = [&](GemmProblem p) { out.push_back(p); };
  add({.m = 918, .n = 9880, .k = 722});                                // A and B narrow, A row-major
  add({.m = 7308, .n = 376, .k = 4805, .a_layout = Layout::col});      // the same, A column-major
  add({.m = 2048, .n = 4096, .k = 4096});                              // aligned, A row-major
  add({.m = 2048, .n = 4096, .k = 4096, .a_layout = Layout::col});     // aligned, A column-major
  add({.m = 2048, .n = 5001, .k = 4096, .b_layout = Layout::col});     // C narrow, M aligned
  add({.m = 2047, .n = 5001, .k = 4096, .b_layout = Layout::col});     // C narrow, M not
  add({.m = 4096, .n = 4096, .k = 1000});                              // A narrow, lda = K
  add({.m = 4096, .n = 4096, .k = 1000, .lda = 1024});                 // A narrow, lda divisible by 16
  add({.m = 4096, .n = 5000, .k = 4096});                              // B narrow, rows 16-byte aligned
  add({.m = 4096, .n = 5001, .k = 4096});                              // B narrow, rows not
  return out;
}

TEST(PlannerTypes, OnePlannerAnswersLikeAFreshOneInEitherOrder) {
  std::vector<GemmProblem> problems = colliding_problems();
  for (int pass = 0; pass < 2; ++pass) {
    const Planner shared =
        Planner::create(h200(), Instr::automatic, SearchSpace{}, Model::calibrated, default_family()).value();
    for (const GemmProblem& p : problems) {
      const Planner fresh =
          Planner::create(h200(), Instr::automatic, SearchSpace{}, Model::calibrated, default_family(), p).value();
      SCOPED_TRACE(testing::Message() << p.m << "x" << p.n << "x" << p.k << " A " << to_string(p.a_layout) << " B "
                                      << to_string(p.b_layout) << " lda " << p.lda << " pass " << pass);
      expect_same(shared.plan(p, 0).value(), fresh.plan(p, 0).value());
    }
    std::reverse(problems.begin(), problems.end());
  }
}

// One planner shared by threads that plan at once (tile --shapes does), over
// more classes than the lock-free table array holds (the rest go to the map
// read under the lock): every answer is a fresh planner's. Under
// ThreadSanitizer (scripts/test.sh's tsan build) this is the race check of
// the tables' publication.
TEST(PlannerTypes, ThreadsSharingOnePlannerAnswerLikeFreshOnes) {
  std::vector<GemmProblem> problems = mixed_problems();
  for (const GemmProblem& p : colliding_problems()) problems.push_back(p);
  ASSERT_GT(problems.size(), 16u);  // Planner::kFastTables
  std::vector<std::vector<Verdict>> want;
  for (const GemmProblem& p : problems)
    want.push_back(Planner::create(h200(), Instr::automatic, SearchSpace{}, Model::calibrated, default_family(), p)
                       .value()
                       .plan(p, 5)
                       .value());
  const Planner shared =
      Planner::create(h200(), Instr::automatic, SearchSpace{}, Model::calibrated, default_family()).value();
  constexpr std::size_t kThreads = 6;
  std::vector<std::vector<std::vector<Verdict>>> got(kThreads, std::vector<std::vector<Verdict>>(problems.size()));
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      // Each thread in its own order, so that every class is built by
      // whichever thread gets there first while others read.
      for (std::size_t i = 0; i < problems.size(); ++i) {
        const std::size_t rotated = (i + 5 * t) % problems.size();
        const std::size_t j = t % 2 == 0 ? rotated : problems.size() - 1 - rotated;
        got[t][j] = shared.plan(problems[j], 5).value();
      }
    });
  for (std::thread& th : threads) th.join();
  for (std::size_t t = 0; t < kThreads; ++t)
    for (std::size_t j = 0; j < problems.size(); ++j) {
      SCOPED_TRACE(testing::Message() << "thread " << t << " problem " << j);
      expect_same(got[t][j], want[j]);
    }
}

TEST(PlannerTypes, FirstClass_ChangesNoPlan) {
  for (Model model : {Model::seed, Model::calibrated}) {
    const Planner common = Planner::create(h200(), Instr::wgmma, SearchSpace{}, model, default_family()).value();
    for (const GemmProblem& p : mixed_problems()) {
      const Planner first =
          Planner::create(h200(), Instr::wgmma, SearchSpace{}, model, default_family(), p).value();
      const std::vector<Verdict> want = common.plan(p, 0).value();
      expect_same(first.plan(p, 0).value(), want);
      expect_same(sweep(p, h200(), Instr::wgmma, SearchSpace{}, 0, model).value(), want);
      // And the first class does not spoil the others.
      expect_same(first.plan(GemmProblem{}, 5).value(), common.plan(GemmProblem{}, 5).value());
    }
  }
}

TEST(PlannerTypes, FirstProblem_IsChecked) {
  GemmProblem p;
  p.lda = 100;  // below K = 4096, the extent a row-major A's lda strides past
  const Result<Planner> r = Planner::create(h200(), Instr::wgmma, SearchSpace{}, Model::calibrated, default_family(), p);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().param, "lda");
}

TEST(PlannerTypes, Fp8_EveryCandidateKMultipleOf32) {
  // wgmma's K is 32 bytes: 32 fp8 elements, 16 fp16 ones, 8 tf32 ones.
  for (const auto& [type, multiple] : {std::pair{DType::float8_e4m3, 32}, {DType::float16, 16}, {DType::tfloat32, 8}}) {
    GemmProblem p;
    p.dtype = type;
    SearchSpace space;
    space.block_k = {8, 16, 32, 64};
    const std::vector<Verdict> all =
        Planner::create(h200(), Instr::wgmma, space, Model::calibrated).value().plan(p, 0).value();
    ASSERT_FALSE(all.empty());
    bool smallest = false;
    for (const Verdict& v : all) {
      EXPECT_EQ(v.config.block_k % multiple, 0) << to_string(type);
      smallest |= v.config.block_k == multiple;
    }
    EXPECT_TRUE(smallest) << to_string(type) << ": block_K " << multiple << " is allowed";
  }
}

// With no space named, the calibrated model searches its family's measured
// space (where its constants were fitted and judged), the seed model the
// reference's.
TEST(PlannerTypes, DefaultSpace_IsTheFamilysMeasuredOne) {
  const KernelFamily& f = default_family();
  const SearchSpace cal = default_space(Model::calibrated, f);
  EXPECT_EQ(cal.block_m, f.space.block_m);
  EXPECT_EQ(cal.block_n, f.space.block_n);
  EXPECT_EQ(cal.block_k, f.space.block_k);
  EXPECT_EQ(cal.stages, f.space.stages);
  EXPECT_EQ(cal.threads, f.space.threads);
  EXPECT_EQ(cal.split_k, std::vector<int64_t>{1});
  EXPECT_EQ(space_size(cal).value(), 360u);
  EXPECT_EQ(space_size(default_space(Model::seed, f)).value(), space_size(SearchSpace{}).value());
  // Another family's space is its own default.
  KernelFamily mine = f;
  mine.space.block_m = {64};
  mine.space.stages = {3};
  EXPECT_EQ(space_size(default_space(Model::calibrated, mine)).value(), 1u * 3 * 3 * 1 * 2);
}

// Neither operand can use cp.async (A and B row-major, N and K not
// multiples of 16): the stage count changes nothing, so the calibrated sweep
// keeps one configuration per tile, the fewest stages of the space.
TEST(PlannerTypes, StagesWithoutEffect_OnePerTile) {
  const GemmProblem both{.m = 1000, .n = 5001, .k = 1000};
  const GemmProblem one{.m = 4096, .n = 5001, .k = 4096};  // only B narrow: stages still matter
  EXPECT_TRUE(stages_have_no_effect(both, Model::calibrated));
  EXPECT_FALSE(stages_have_no_effect(both, Model::seed));
  EXPECT_FALSE(stages_have_no_effect(one, Model::calibrated));
  SearchSpace space;
  space.stages = {5, 3, 2, 4};
  Result<Planner> pl = Planner::create(h200(), Instr::wgmma, space, Model::calibrated, default_family(), both);
  ASSERT_TRUE(pl.ok());
  Result<std::vector<Verdict>> all = pl->plan(both, 0);
  ASSERT_TRUE(all.ok());
  ASSERT_FALSE(all->empty());
  std::set<std::tuple<int64_t, int64_t, int64_t, int64_t>> tiles;
  for (const Verdict& v : *all) {
    EXPECT_EQ(v.config.stages, 2);
    EXPECT_TRUE(tiles.insert({v.config.block_m, v.config.block_n, v.config.block_k, v.config.threads}).second);
  }
  // Every stage count of a tile has the same resources and predicted time.
  for (int64_t st : {3, 4, 5}) {
    TileConfig c = all->front().config;
    const Result<Verdict> a = diagnose(both, h200(), c, Model::calibrated, default_family());
    c.stages = st;
    const Result<Verdict> b = diagnose(both, h200(), c, Model::calibrated, default_family());
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(a->smem_bytes, b->smem_bytes);
    EXPECT_EQ(a->regs_per_thread, b->regs_per_thread);
    EXPECT_DOUBLE_EQ(a->predicted_us, b->predicted_us);
  }
  // Where stages matter, the sweep keeps all four of a tile.
  Result<std::vector<Verdict>> kept = sweep(one, h200(), Instr::wgmma, space, 0, Model::calibrated);
  ASSERT_TRUE(kept.ok());
  std::set<int64_t> stages;
  for (const Verdict& v : *kept) stages.insert(v.config.stages);
  EXPECT_EQ(stages.size(), 4u);
}

// A caller's list: distinct tiles first, the stage repeats after them, the
// configurations that are not candidates last.
TEST(PlannerTypes, StagesWithoutEffect_ShortlistsDistinctTilesFirst) {
  const GemmProblem both{.m = 1000, .n = 5001, .k = 1000};
  std::vector<TileConfig> configs;
  for (int64_t st : {2, 3, 4, 5}) {
    configs.push_back(TileConfig{128, 64, 32, st, 128});
    configs.push_back(TileConfig{256, 64, 64, st, 256});
    configs.push_back(TileConfig{128, 128, 64, st, 256});
  }
  configs.push_back(TileConfig{64, 64, 2048, 2, 128});  // block_K > K: not a candidate
  std::vector<Verdict> verdicts;
  Result<std::vector<std::size_t>> order = rank_configs(both, h200(), configs, Model::calibrated, default_family(),
                                                        &verdicts);
  ASSERT_TRUE(order.ok());
  const std::vector<std::size_t> list =
      distinct_tiles_first(both, Model::calibrated, configs, verdicts, *order);
  ASSERT_EQ(list.size(), configs.size());
  std::set<std::tuple<int64_t, int64_t, int64_t>> first3;
  for (std::size_t r = 0; r < 3; ++r)
    first3.insert({configs[list[r]].block_m, configs[list[r]].block_n, configs[list[r]].block_k});
  EXPECT_EQ(first3.size(), 3u);
  EXPECT_EQ(list.back(), configs.size() - 1);
  // The three distinct tiles keep the model's order among themselves.
  std::vector<std::size_t> distinct_in_model_order;
  for (std::size_t i : *order)
    if (std::none_of(distinct_in_model_order.begin(), distinct_in_model_order.end(), [&](std::size_t j) {
          return configs[j].block_m == configs[i].block_m && configs[j].block_n == configs[i].block_n;
        }) && i != configs.size() - 1)
      distinct_in_model_order.push_back(i);
  EXPECT_EQ(std::vector<std::size_t>(list.begin(), list.begin() + 3), distinct_in_model_order);
  // Stages that matter, or the seed model: the order is the model's.
  const GemmProblem one{.m = 4096, .n = 5001, .k = 4096};
  Result<std::vector<std::size_t>> o2 = rank_configs(one, h200(), configs, Model::calibrated, default_family(),
                                                     &verdicts);
  ASSERT_TRUE(o2.ok());
  EXPECT_EQ(distinct_tiles_first(one, Model::calibrated, configs, verdicts, *o2), *o2);
}

TEST(TileRender, ProblemFlags_ReproduceTheProblem) {
  EXPECT_EQ(render::problem_flags(GemmProblem{}), "");
  EXPECT_EQ(render::layout_summary(GemmProblem{}), "");
  GemmProblem p;
  p.dtype = DType::float8_e4m3;
  p.out_dtype = DType::float16;  // fp8's default: not repeated
  p.b_layout = Layout::col;
  p.ldc = 4352;
  EXPECT_EQ(render::problem_flags(p), " --dtype float8_e4m3 --b-layout col --ldc 4352");
  EXPECT_EQ(render::layout_summary(p), "A=row B=col ldc=4352");
  EXPECT_EQ(render::types_summary(p), "float8_e4m3 in, float16 out");
  p.out_dtype = DType::bfloat16;
  EXPECT_EQ(render::problem_flags(p), " --dtype float8_e4m3 --out-dtype bfloat16 --b-layout col --ldc 4352");
}

}  // namespace
}  // namespace tileplan
