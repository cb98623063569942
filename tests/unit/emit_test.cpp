// The shortlist as autotuner code: exact lines for Triton and TileLang.
#include <gtest/gtest.h>

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
            "# tileplan: 4096x4096x4096 (MxNxK) on h200, model calibrated, family triton, 2 configuration(s)\n"
            "triton.Config({'BLOCK_M': 128, 'BLOCK_N': 256, 'BLOCK_K': 64, 'GROUP_M': 8}, num_stages=4, "
            "num_warps=8),  # rank 1, 184.7 us predicted\n"
            "triton.Config({'BLOCK_M': 64, 'BLOCK_N': 64, 'BLOCK_K': 128, 'GROUP_M': 8}, num_stages=5, "
            "num_warps=4),  # rank 2, 402.2 us predicted\n");
}

TEST(Emit, TileLang_ListOfDicts) {
  const Device dev = *find_device("h200");
  const std::string s = emit(report_with(dev, Model::seed), Emit::tilelang);
  EXPECT_EQ(s,
            "# tileplan: 4096x4096x4096 (MxNxK) on h200, model seed, 2 configuration(s)\n"
            "[\n"
            "    {\"block_M\": 128, \"block_N\": 256, \"block_K\": 64, \"num_stages\": 4, \"threads\": 256},  # rank 1\n"
            "    {\"block_M\": 64, \"block_N\": 64, \"block_K\": 128, \"num_stages\": 5, \"threads\": 128},  # rank 2\n"
            "]\n");
}

TEST(Emit, ParseAndName) {
  for (Emit e : {Emit::triton, Emit::tilelang}) EXPECT_EQ(parse_emit(to_string(e)), e);
  EXPECT_FALSE(parse_emit("cutlass").has_value());
}

}  // namespace
}  // namespace tileplan::render
