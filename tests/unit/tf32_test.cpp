// tf32 with B stored N-contiguous: Hopper's wgmma reads tf32 B K-major only,
// so the kernel transposes each B tile on chip (ProblemAccess::b.transposed):
// a run-time cost per B element (transpose_cycles) and registers that count
// toward spilling.
#include <gtest/gtest.h>

#include <string>

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

}  // namespace
}  // namespace tileplan
// ---- tf32 B transposed on chip ------------------------------------------------------
namespace tileplan {
namespace {

TEST(Tf32Transpose, OnlyTf32BStoredNContiguousIsTransposed) {
  GemmProblem p{.m = 4096, .n = 4096, .k = 4096, .dtype = DType::tfloat32};
  EXPECT_TRUE(problem_access(p).b.transposed);
  EXPECT_FALSE(problem_access(p).b.through_registers);  // still pipelined through shared memory
  p.b_layout = Layout::col;
  EXPECT_FALSE(problem_access(p).b.transposed);
  for (DType t : {DType::float16, DType::bfloat16, DType::float8_e4m3}) {
    GemmProblem q{.m = 4096, .n = 4096, .k = 4096, .dtype = t};
    EXPECT_FALSE(problem_access(q).b.transposed) << to_string(t);
  }
}

TEST(Tf32Transpose, TransposeCostAddsToThePredictedTime) {
  const GemmProblem p{.m = 4096, .n = 4096, .k = 4096, .dtype = DType::tfloat32};
  KernelFamily f = default_family();
  KernelFamily off = f;
  for (TypeConstants& c : off.by_input_type)
    if (c.dtype == DType::tfloat32) c.time[10] = 0.0;  // transpose_cycles
  ASSERT_EQ(time_constant_info()[10].name, "transpose_cycles");
  const TileConfig cfg{256, 128, 32, 4, 256};
  Result<Prediction> on = predict(h200(), p, cfg, 1, false, f);
  Result<Prediction> none = predict(h200(), p, cfg, 1, false, off);
  ASSERT_TRUE(on.ok() && none.ok());
  EXPECT_GT(on->time_us, none->time_us);
}

TEST(Tf32Transpose, ASecondBlockPerSmDoesNotOverlapTheTransposeWithMmas) {
  // The transpose writes shared memory, which the wgmma reads: two programs
  // on an SM share that pipe. Measured (data/h200-triton-v5a calibration
  // shapes, 256x64x32 with 4 warps): two blocks per SM with 2 stages run
  // 0.98-1.00x the time of one block with 4; the rule that let one
  // program's transpose overlap another's MMAs predicted 0.66x.
  const GemmProblem p{.m = 4096, .n = 4096, .k = 4096, .dtype = DType::tfloat32};
  const KernelFamily& f = default_family();
  Result<Prediction> one = predict(h200(), p, TileConfig{256, 64, 32, 4, 128}, 1, false, f);
  Result<Prediction> two = predict(h200(), p, TileConfig{256, 64, 32, 2, 128}, 2, false, f);
  ASSERT_TRUE(one.ok() && two.ok());
  EXPECT_GT(two->time_us / one->time_us, 0.95);
}

TEST(Tf32Transpose, TransposedBCountsTowardSpilling) {
  // The compiler's spill flags (data/h200-triton-v5a, tfloat32): 128x128x64,
  // 3 stages, 4 warps spills (62 spills; 64 transposed B elements per thread
  // beside 128 accumulators); 256x64x32, 4 stages, 4 warps does not.
  const GemmProblem p{.m = 4096, .n = 4096, .k = 4096, .dtype = DType::tfloat32};
  const RegisterProfile regs = registers_for(default_family(), DType::tfloat32);
  Result<RegisterEstimate> spills = estimate_registers(regs, h200(), TileConfig{128, 128, 64, 3, 128}, p);
  Result<RegisterEstimate> fits = estimate_registers(regs, h200(), TileConfig{256, 64, 32, 4, 128}, p);
  ASSERT_TRUE(spills.ok() && fits.ok());
  EXPECT_TRUE(spills->spills);
  EXPECT_FALSE(fits->spills);
}

TEST(Tf32Transpose, FamilyFileWithoutTheConstantReadsZero) {
  // Files written before transpose_cycles existed still load.
  std::string text = family_json(default_family());
  const std::string key = "\"transpose_cycles\"";
  // Drop the base section's entry (the first occurrence after "time").
  const std::size_t time = text.find("\"time\": {\n    \"constants\"");
  ASSERT_NE(time, std::string::npos);
  const std::size_t at = text.find(key, time);
  ASSERT_NE(at, std::string::npos);
  const std::size_t open = text.rfind(',', at);
  const std::size_t close = text.find('}', at);
  text.erase(open, close + 1 - open);
  Result<KernelFamily> f = parse_family(text, "old-file");
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(f->time.transpose_cycles, 0.0);
}

}  // namespace
}  // namespace tileplan
