// The occupancy the CUDA driver granted 168 Triton GEMM kernels on an H200
// (data/h200-triton/configs.jsonl: cuOccupancyMaxActiveBlocksPerMultiprocessor
// with the compiled kernel's registers and dynamic shared memory), reproduced
// from registers and shared memory alone.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tileplan/occupancy.hpp"

namespace tileplan {
namespace {

using nlohmann::json;

std::vector<json> configs() {
  std::ifstream f(std::string(TILEPLAN_SOURCE_DIR) + "/data/h200-triton/configs.jsonl");
  std::vector<json> out;
  for (std::string line; std::getline(f, line);)
    if (!line.empty()) out.push_back(json::parse(line));
  return out;
}

TEST(OccupancyDriver, H200Triton_AllCompiledKernelsMatch) {
  const Device h200 = *find_device("h200");
  const std::vector<json> all = configs();
  ASSERT_EQ(all.size(), 216u);
  int compiled = 0, matched = 0;
  for (const json& c : all) {
    if (!c.contains("occupancy")) continue;
    ++compiled;
    OccupancyInput in;
    in.threads_per_block = 32 * c["warps"].get<int64_t>();
    in.regs_per_thread = c["n_regs"].get<int64_t>();
    in.smem_dynamic_bytes = c["shared"].get<int64_t>();
    ASSERT_TRUE(check_occupancy_input(h200, in).ok()) << c["key"];
    const Occupancy o = occupancy(h200, in).value();
    EXPECT_EQ(o.blocks_per_sm, c["occupancy"].get<int64_t>())
        << c["key"] << ": " << in.threads_per_block << " threads, " << in.regs_per_thread << " regs, "
        << in.smem_dynamic_bytes << " B";
    matched += o.blocks_per_sm == c["occupancy"].get<int64_t>();
  }
  EXPECT_EQ(compiled, 168);
  EXPECT_EQ(matched, 168);
}

// The 48 configurations Triton refused for shared memory, stages * (BM*BK + BK*BN) * 2
// bytes, are exactly those over the opt-in maximum; the compiled ones are within it.
TEST(OccupancyDriver, H200Triton_RefusalsAreOverTheOptInMaximum) {
  const Device h200 = *find_device("h200");
  int refused = 0;
  const std::vector<json> all = configs();
  ASSERT_EQ(all.size(), 216u);
  for (const json& c : all) {
    OccupancyInput in;
    in.threads_per_block = 32 * c["warps"].get<int64_t>();
    in.regs_per_thread = 32;
    const int64_t bk = c["BK"].get<int64_t>();
    in.smem_dynamic_bytes = c["stages"].get<int64_t>() * (c["BM"].get<int64_t>() * bk + bk * c["BN"].get<int64_t>()) * 2;
    const bool over = !check_occupancy_input(h200, in).ok();
    EXPECT_EQ(over, c.contains("error")) << c["key"];
    if (c.contains("error")) {
      ++refused;
      EXPECT_EQ(occupancy(h200, in).value().blocks_per_sm, 0) << c["key"];
    }
  }
  EXPECT_EQ(refused, 48);
}

}  // namespace
}  // namespace tileplan
