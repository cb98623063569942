// The memory model against the counters measured on an H200
// (data/loop_gpu.json, docs/loop-gpu.md): each kernel copies a matrix tile by
// tile with the plan's thread-to-element assignment; Nsight Compute counted
// one launch of each.
#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "tileplan/loop.hpp"

namespace tileplan {
namespace {

using nlohmann::json;

struct Prediction {
  int64_t access_elems = 0, instructions = 0, sectors = 0, wavefronts = 0, ideal_wavefronts = 0, ways = 0;
};

// The whole matrix: one analysis per distinct tile origin (rows are a multiple
// of 128 B apart, so a tile's column decides its pattern), times its tiles.
Prediction predict(const json& v, const Device& dev) {
  LoopNest nest;
  nest.extents = v["extents"].get<std::vector<int64_t>>();
  nest.threads = v["threads"];
  nest.vector = v["vector"];
  const LoopPlan n = make_plan(nest).value();
  const auto perm = v["access"].get<std::vector<int64_t>>();
  const auto matrix = v["matrix"].get<std::vector<int64_t>>();
  const int64_t elem_bytes = v["elem_bytes"];
  const bool shared = v["scope"] == "shared";
  const int64_t box_rows = n.extents()[static_cast<std::size_t>(perm[0])];
  const int64_t box_cols = n.extents()[static_cast<std::size_t>(perm[1])];
  Access a = tile_access(n, elem_bytes, shared ? MemoryScope::shared : MemoryScope::global);
  a.perm = perm;
  a.buffer_shape = shared ? v["shared_buffer"].get<std::vector<int64_t>>() : matrix;
  std::map<int64_t, std::pair<int64_t, int64_t>> classes;  // column bytes mod 128 -> (a column, tiles)
  if (shared) {
    classes[0] = {0, (matrix[0] / box_rows) * (matrix[1] / box_cols)};
  } else {
    for (int64_t c = 0; c < matrix[1]; c += box_cols) {
      auto& [column, tiles] = classes[c * elem_bytes % 128];
      if (tiles == 0) column = c;
      tiles += matrix[0] / box_rows;
    }
  }
  Prediction p;
  EXPECT_FALSE(classes.empty());
  for (const auto& [key, entry] : classes) {
    a.origin = {0, entry.first};
    EXPECT_TRUE(check_access(n, a).ok());
    const MemoryReport m = analyze_memory(n, a, dev).value();
    p.access_elems = m.access_elems;
    p.instructions += m.instructions * entry.second;
    p.sectors += m.sectors * entry.second;
    p.wavefronts += m.wavefronts * entry.second;
    p.ideal_wavefronts += m.ideal_wavefronts * entry.second;
    p.ways = std::max(p.ways, m.conflict_ways);
  }
  return p;
}

TEST(LoopGpuData, PredictedCountersMatchH200) {
  std::ifstream f(std::string(TILEPLAN_SOURCE_DIR) + "/data/loop_gpu.json");
  ASSERT_TRUE(f.good());
  const json data = json::parse(f);
  EXPECT_EQ(data["gpu"], "NVIDIA H200");
  const Device dev = *find_device("h200");
  ASSERT_GE(data["variants"].size(), 10u);
  int shared_variants = 0;
  for (const json& v : data["variants"]) {
    SCOPED_TRACE(v["name"].get<std::string>());
    const json& meas = v["measured"];
    EXPECT_EQ(meas["check"], "ok");
    const Prediction p = predict(v, dev);
    // The kernel issues the access width the model assumes...
    EXPECT_EQ(p.access_elems, v["width"].get<int64_t>());
    // ...and the recorded prediction is what the library computes now.
    EXPECT_EQ(p.instructions, v["predicted"]["instructions"].get<int64_t>());
    EXPECT_EQ(p.sectors, v["predicted"]["sectors"].get<int64_t>());
    if (v["scope"] == "global") {
      // Global loads and stores follow the plan: sectors and requests exactly.
      EXPECT_EQ(meas["ld_sectors"].get<int64_t>(), p.sectors);
      EXPECT_EQ(meas["ld_requests"].get<int64_t>(), p.instructions);
      EXPECT_EQ(meas["st_sectors"].get<int64_t>(), p.sectors);
      EXPECT_EQ(meas["st_requests"].get<int64_t>(), p.instructions);
    } else {
      ++shared_variants;
      // Shared loads: the instruction count exactly; wavefronts from the
      // model's phases and bank degrees, never fewer than predicted and at
      // most 7% more (docs/loop-gpu.md: bank traffic of other warps).
      EXPECT_EQ(meas["lds_inst"].get<int64_t>(), p.instructions);
      const auto wavefronts = meas["lds_wavefronts"].get<int64_t>();
      EXPECT_GE(wavefronts, p.wavefronts);
      EXPECT_LE(static_cast<double>(wavefronts), 1.07 * static_cast<double>(p.wavefronts));
      const auto conflicts = meas["lds_conflicts"].get<int64_t>();
      if (p.ways > 1)
        EXPECT_GE(static_cast<double>(conflicts), 0.97 * static_cast<double>(p.wavefronts - p.ideal_wavefronts));
      else
        EXPECT_LT(static_cast<double>(conflicts), 0.07 * static_cast<double>(p.wavefronts));
      EXPECT_EQ(p.ways, v["predicted"]["bank_conflict_ways"].get<int64_t>());
    }
  }
  EXPECT_GE(shared_variants, 4);
}

}  // namespace
}  // namespace tileplan
