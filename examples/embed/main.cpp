// Plans one GEMM (4096^3, fp16 in, fp32 accumulate, wgmma on an H200) and
// prints the first pick of the calibrated model.
#include <cstdio>

#include "tileplan/gemm.hpp"

int main() {
  const tileplan::GemmProblem problem{.m = 4096, .n = 4096, .k = 4096};
  const std::vector<tileplan::Verdict> picks = tileplan::sweep(
      problem, *tileplan::find_device("h200"), tileplan::Instr::wgmma, tileplan::SearchSpace{}, 1,
      tileplan::Model::calibrated);
  if (picks.empty()) {
    std::fprintf(stderr, "no feasible configuration\n");
    return 1;
  }
  const tileplan::TileConfig& c = picks.front().config;
  std::printf("block_m %lld block_n %lld block_k %lld stages %lld threads %lld predicted_us %.1f\n",
              static_cast<long long>(c.block_m), static_cast<long long>(c.block_n),
              static_cast<long long>(c.block_k), static_cast<long long>(c.stages),
              static_cast<long long>(c.threads), picks.front().predicted_us);
  return std::fflush(stdout) == 0 ? 0 : 1;
}
