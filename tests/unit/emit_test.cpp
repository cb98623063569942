// The shortlist as autotuner code: exact lines for Triton and TileLang.
#include <gtest/gtest.h>

#include <vector>

#include "tileplan/render/emit.hpp"

namespace tileplan::render {
namespace {

TileReport report_with(const Device& dev, Model model) {
  TileReport r;
  r.device = &dev;
  r.problem = {4096, 4096, 4096};
  r.model = model;
  Verdict a;
  a.config = {128, 256, 64, 4, 256, Instr::wgmma};
  Verdict b;
  b.config = {64, 64, 128, 5, 128, Instr::wgmma};
  if (model == Model::calibrated) {
    a.predicted = b.predicted = true;
    a.predicted_us = 184.7361;
    b.predicted_us = 402.25;
  }
  r.candidates = {a, b};
  return r;
}

TEST(Emit, Triton_OneConfigPerLine) {
  const Device dev = *find_device("h200");
  const std::string s = emit(report_with(dev, Model::calibrated), Emit::triton);
  // 256 threads = 8 warps; GROUP_M = the triton family's grouped order, 8.
  EXPECT_EQ(s,
            "# tileplan: 4096x4096x4096 (MxNxK) float16 in, float16 out, on h200, model calibrated, family triton, 2 configuration(s)\n"
            "triton.Config({'BLOCK_M': 128, 'BLOCK_N': 256, 'BLOCK_K': 64, 'GROUP_M': 8}, num_stages=4, "
            "num_warps=8),  # rank 1, 184.7 us predicted\n"
            "triton.Config({'BLOCK_M': 64, 'BLOCK_N': 64, 'BLOCK_K': 128, 'GROUP_M': 8}, num_stages=5, "
            "num_warps=4),  # rank 2, 402.2 us predicted\n");
}

TEST(Emit, TileLang_ListOfDicts) {
  const Device dev = *find_device("h200");
  const std::string s = emit(report_with(dev, Model::seed), Emit::tilelang);
  EXPECT_EQ(s,
            "# tileplan: 4096x4096x4096 (MxNxK) float16 in, float16 out, on h200, model seed, 2 configuration(s)\n"
            "[\n"
            "    {\"block_M\": 128, \"block_N\": 256, \"block_K\": 64, \"num_stages\": 4, \"threads\": 256, "
            "\"in_dtype\": \"float16\", \"out_dtype\": \"float16\", \"accum_dtype\": \"float32\"},  # rank 1\n"
            "    {\"block_M\": 64, \"block_N\": 64, \"block_K\": 128, \"num_stages\": 5, \"threads\": 128, "
            "\"in_dtype\": \"float16\", \"out_dtype\": \"float16\", \"accum_dtype\": \"float32\"},  # rank 2\n"
            "]\n");
}

TEST(Emit, TileLang_TypesInTileLangNames) {
  const Device dev = *find_device("h200");
  TileReport r = report_with(dev, Model::seed);
  r.candidates.resize(1);
  // tf32 operands live in float32 arrays; the default output type of tf32 is float32.
  r.problem.dtype = DType::tfloat32;
  EXPECT_NE(emit(r, Emit::tilelang)
                .find("\"in_dtype\": \"float32\", \"out_dtype\": \"float32\", \"accum_dtype\": \"float32\"}"),
            std::string::npos);
  r.problem.dtype = DType::float8_e5m2;
  r.problem.out_dtype = DType::bfloat16;
  const std::string s = emit(r, Emit::tilelang);
  EXPECT_NE(s.find("\"in_dtype\": \"float8_e5m2\", \"out_dtype\": \"bfloat16\""), std::string::npos) << s;
  EXPECT_EQ(s.rfind("# tileplan: 4096x4096x4096 (MxNxK) float8_e5m2 in, bfloat16 out, on h200", 0), 0u) << s;
}

TEST(Emit, Header_LayoutsAndProblemWarnings) {
  const Device dev = *find_device("h200");
  TileReport r = report_with(dev, Model::seed);
  r.candidates.resize(1);
  r.problem.k = 1000;  // A row-major: K = 1000 is not a multiple of 16, so A moves 2-byte vectors
  r.problem.b_layout = Layout::col;
  r.problem.ldc = 4352;
  const std::string s = emit(r, Emit::triton);
  EXPECT_EQ(s.rfind("# tileplan: 4096x4096x1000 (MxNxK) float16 in, float16 out, A=row B=col ldc=4352, on h200, "
                    "model seed, 1 configuration(s)\n# C3 A moves 2-byte vectors",
                    0),
            0u)
      << s;
  // B col: K = 1000 is B's contiguous extent too.
  EXPECT_NE(s.find("\n# C3 B moves 2-byte vectors"), std::string::npos) << s;
  EXPECT_NE(s.find("\ntriton.Config("), std::string::npos) << s;
}

// A batch: shapes of one kernel share a list, a configuration appears once
// however many shapes rank it, the list is ordered by first picks, and a
// shape with no candidate is named with why.
TEST(BatchEmit, OneListPerKernelEachConfigurationOnce) {
  const Device dev = *find_device("h200");
  const TileConfig big{128, 256, 64, 4, 256, Instr::wgmma};
  const TileConfig mid{128, 128, 64, 3, 128, Instr::wgmma};
  const TileConfig small{64, 64, 128, 5, 128, Instr::wgmma};
  const auto shape = [&](int64_t m, std::vector<TileConfig> ranked, DType t = DType::float16) {
    TileReport r;
    r.device = &dev;
    r.model = Model::calibrated;
    r.problem = {m, 4096, 4096};
    r.problem.dtype = t;
    for (const TileConfig& c : ranked) {
      Verdict v;
      v.config = c;
      v.predicted = true;
      r.candidates.push_back(v);
    }
    return r;
  };
  BatchEmit b(Emit::triton);
  b.add(shape(64, {small, mid}));
  b.add(shape(4096, {big, mid}));
  b.add(shape(8192, {big, small}));
  b.add(shape(2048, {big, mid}, DType::bfloat16));
  TileReport none = shape(32, {});
  none.problem.k = 16;
  none.c1_c3_count = 5;
  b.add(none);
  TileReport base;
  base.device = &dev;
  base.model = Model::calibrated;
  EXPECT_EQ(b.finish(base, "f.txt", 2),
            "# tileplan: 5 shape(s) of f.txt, on h200, model calibrated, family triton\n"
            "# the first 2 configuration(s) of each shape, without repeats: 5 configuration(s) in 2 list(s), one per "
            "kernel (types and layouts)\n"
            "# use a list as @triton.autotune(configs=LIST, key=['M', 'N', 'K']): each shape's first pick is in its "
            "list\n"
            "# per shape, the first pick with its notes (predicted time, warnings, padding): the same command with "
            "--format text\n"
            "# no configuration for 32x4096x16 (float16 in, float16 out): no configuration has block_K <= K = 16: the "
            "5 that satisfy C1-C3 all have a larger block_K; give smaller --block-k values or diagnose one "
            "configuration\n"
            "\n"
            "# float16 in, float16 out, A row, B row: 3 shape(s), 3 configuration(s)\n"
            "configs_float16_float16_row_row = [\n"
            "    triton.Config({'BLOCK_M': 128, 'BLOCK_N': 256, 'BLOCK_K': 64, 'GROUP_M': 8}, num_stages=4, "
            "num_warps=8),  # first pick for 4096x4096x4096, 8192x4096x4096\n"
            "    triton.Config({'BLOCK_M': 64, 'BLOCK_N': 64, 'BLOCK_K': 128, 'GROUP_M': 8}, num_stages=5, "
            "num_warps=4),  # first pick for 64x4096x4096; ranked 2 for 1 more shape(s)\n"
            "    triton.Config({'BLOCK_M': 128, 'BLOCK_N': 128, 'BLOCK_K': 64, 'GROUP_M': 8}, num_stages=3, "
            "num_warps=4),  # ranked 2 for 2 shape(s)\n"
            "]\n"
            "\n"
            "# bfloat16 in, bfloat16 out, A row, B row: 1 shape(s), 2 configuration(s)\n"
            "configs_bfloat16_bfloat16_row_row = [\n"
            "    triton.Config({'BLOCK_M': 128, 'BLOCK_N': 256, 'BLOCK_K': 64, 'GROUP_M': 8}, num_stages=4, "
            "num_warps=8),  # first pick for 2048x4096x4096\n"
            "    triton.Config({'BLOCK_M': 128, 'BLOCK_N': 128, 'BLOCK_K': 64, 'GROUP_M': 8}, num_stages=3, "
            "num_warps=4),  # ranked 2 for 1 shape(s)\n"
            "]\n");
}

// More first picks than three are counted; a control character of the
// file's name cannot end the Python comment.
TEST(BatchEmit, NamesThreeShapesThenCountsAndKeepsTheHeaderOneLine) {
  const Device dev = *find_device("h200");
  BatchEmit b(Emit::tilelang);
  for (int64_t m : {16, 32, 48, 64, 80}) {
    TileReport r;
    r.device = &dev;
    r.problem = {m, 1024, 1024};
    Verdict v;
    v.config = {64, 64, 64, 3, 128, Instr::wgmma};
    r.candidates = {v};
    b.add(r);
  }
  TileReport base;
  base.device = &dev;
  const std::string s = b.finish(base, "a\nb.txt", 1);
  EXPECT_NE(s.find("# tileplan: 5 shape(s) of a?b.txt, on h200, model seed\n"), std::string::npos) << s;
  EXPECT_NE(s.find("    {\"block_M\": 64, \"block_N\": 64, \"block_K\": 64, \"num_stages\": 3, \"threads\": 128, "
                   "\"in_dtype\": \"float16\", \"out_dtype\": \"float16\", \"accum_dtype\": \"float32\"},  # first "
                   "pick for 16x1024x1024, 32x1024x1024, 48x1024x1024 and 2 more\n"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("# the first 1 configuration(s) of each shape"), std::string::npos) << s;
  EXPECT_NE(b.finish(base, "x", 0).find("# every feasible configuration of each shape"), std::string::npos);
}

TEST(Emit, ParseAndName) {
  for (Emit e : {Emit::triton, Emit::tilelang}) EXPECT_EQ(parse_emit(to_string(e)), e);
  EXPECT_FALSE(parse_emit("cutlass").has_value());
}

}  // namespace
}  // namespace tileplan::render
