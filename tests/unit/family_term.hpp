// Helpers for the tests of one run-time term of a kernel family (a fitted
// constant that prices one effect): the first pick over the harness's
// measured grid with a given family, and the shipped family's file read back
// without the term's constant.
#pragma once

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tileplan/device.hpp"
#include "tileplan/family.hpp"
#include "tileplan/gemm.hpp"
#include "tileplan/planner.hpp"

namespace tileplan::test {

// The calibrated model's first pick for `p` on the H200 over the measured
// grid (block_M 64-256 with wgmma), under `family`; a default config when
// the sweep fails (the failure is reported).
inline TileConfig first_pick_on_measured_grid(const GemmProblem& p, const KernelFamily& family) {
  static const Device dev = *find_device("h200");
  SearchSpace space = calibrated_space();
  space.block_m = {64, 128, 256};
  Result<std::vector<Verdict>> v = sweep(p, dev, Instr::wgmma, space, 1, Model::calibrated, family);
  EXPECT_TRUE(v.ok() && !v->empty());
  return v.ok() && !v->empty() ? v->front().config : TileConfig{};
}

// The shipped family as its file, with time.constants.<name> removed (or
// replaced by `replacement` when given), parsed again.
inline Result<KernelFamily> family_file_without(const std::string& name,
                                                const nlohmann::json& replacement = nullptr) {
  nlohmann::json j = nlohmann::json::parse(family_json(default_family()));
  EXPECT_TRUE(j["time"]["constants"].contains(name)) << name;
  if (replacement.is_null())
    j["time"]["constants"].erase(name);
  else
    j["time"]["constants"][name] = replacement;
  return parse_family(j.dump(), "test");
}

}  // namespace tileplan::test
