// One direction of dependency: every public header includes only headers of
// the layers below it. The order (README, "Layout"):
//   error, device -> gemm -> occupancy, loop_plan -> registers, loop_memory
//   -> constraints, family, loop -> model -> planner -> validate -> render/*
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>

namespace {

namespace fs = std::filesystem;

// Layer of each public header (relative to include/tileplan/); a header may
// include only headers of a strictly lower layer.
const std::map<std::string, int>& layers() {
  static const std::map<std::string, int> m = {
      {"error.hpp", 0},       {"device.hpp", 1},      {"gemm.hpp", 2},     {"occupancy.hpp", 3},
      {"loop.hpp", 5},        {"loop_plan.hpp", 3},   {"loop_memory.hpp", 4}, {"registers.hpp", 4},
      {"constraints.hpp", 5}, {"family.hpp", 5},      {"model.hpp", 6},    {"planner.hpp", 7},
      {"validate.hpp", 8},
  };
  return m;
}
int layer_of(const std::string& rel) {
  if (rel.rfind("render/", 0) == 0) return 9;
  const auto it = layers().find(rel);
  return it == layers().end() ? -1 : it->second;
}

TEST(Layering, EveryHeaderIncludesOnlyLowerLayers) {
  const fs::path root = fs::path(TILEPLAN_SOURCE_DIR) / "include" / "tileplan";
  const std::regex include_re(R"re(#include\s+"tileplan/([^"]+)")re");
  std::size_t headers = 0, edges = 0;
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(root)) {
    if (e.path().extension() != ".hpp") continue;
    const std::string rel = fs::relative(e.path(), root).generic_string();
    const int mine = layer_of(rel);
    ASSERT_GE(mine, 0) << rel << " has no layer: add it to tests/unit/layering_test.cpp and the README";
    ++headers;
    std::ifstream f(e.path());
    for (std::string line; std::getline(f, line);) {
      std::smatch m;
      if (!std::regex_search(line, m, include_re)) continue;
      const std::string dep = m[1];
      const int theirs = layer_of(dep);
      ASSERT_GE(theirs, 0) << rel << " includes " << dep << ", which has no layer";
      // render/ headers may include each other (one renderer builds on another's helpers).
      if (mine == 9 && theirs == 9) continue;
      EXPECT_LT(theirs, mine) << rel << " (layer " << mine << ") includes " << dep << " (layer " << theirs << ")";
      ++edges;
    }
  }
  EXPECT_GE(headers, 12u);
  EXPECT_GE(edges, 20u);
}

}  // namespace
