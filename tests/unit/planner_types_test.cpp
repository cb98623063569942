// A Planner serves problems of every input type and layout, whichever class
// it built first; sweep() builds only its problem's class and agrees with it.
#include <gtest/gtest.h>

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
