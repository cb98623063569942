// Plans one GEMM (4096^3, fp16 in, fp32 accumulate, wgmma on an H200) and
// prints the first pick of the calibrated model. Every library call that can
// refuse its input returns a Result: check it, then use the value.
#include <cstdio>

#include "tileplan/planner.hpp"

int main() {
  const std::optional<tileplan::Device> h200 = tileplan::find_device("h200");
  if (!h200) return 1;
  const tileplan::Result<tileplan::Planner> planner =
      tileplan::Planner::create(*h200, tileplan::Instr::wgmma, tileplan::SearchSpace{}, tileplan::Model::calibrated,
                                tileplan::default_family());
  if (!planner) {
    std::fprintf(stderr, "%s\n", planner.error().message.c_str());
    return 1;
  }
  const tileplan::Result<std::vector<tileplan::Verdict>> picks = planner->plan({.m = 4096, .n = 4096, .k = 4096}, 1);
  if (!picks || picks->empty()) {
    std::fprintf(stderr, "%s\n", picks ? "no feasible configuration" : picks.error().message.c_str());
    return 1;
  }
  const tileplan::Verdict& v = picks->front();
  std::printf("block_m %lld block_n %lld block_k %lld stages %lld threads %lld predicted_us %.1f family %s\n",
              static_cast<long long>(v.config.block_m), static_cast<long long>(v.config.block_n),
              static_cast<long long>(v.config.block_k), static_cast<long long>(v.config.stages),
              static_cast<long long>(v.config.threads), v.predicted_us, planner->family().name.c_str());
  return std::fflush(stdout) == 0 ? 0 : 1;
}
