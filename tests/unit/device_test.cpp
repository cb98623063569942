#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tileplan/device.hpp"

namespace tileplan {
namespace {

TEST(Device, Presets_HaveEveryFieldSourcedAndPositive) {
  ASSERT_GE(device_presets().size(), 6u);
  for (const Device& d : device_presets()) {
    for (const DeviceFieldView& f : describe(d)) {
      EXPECT_FALSE(f.source.empty()) << d.name << "." << f.name << " has no source";
      if (f.name == "tensor_fp8_tflops" && d.compute_capability < 89)
        EXPECT_EQ(f.value, 0) << d.name << ": no fp8 tensor cores before compute capability 8.9";
      else if (f.name == "power_budget_w" || f.name.starts_with("energy_per_"))
        // The power term: measured on the H100 SXM alone; 0 (no term) elsewhere, and says so.
        EXPECT_EQ(f.value > 0, d.name == "h100-sxm") << d.name << "." << f.name << ": " << f.source;
      else
        EXPECT_GT(f.value, 0) << d.name << "." << f.name;
    }
    EXPECT_FALSE(d.smem_carveout_kb.empty()) << d.name;
    EXPECT_EQ(d.smem_carveout_kb.back() * 1024, d.smem_per_sm_bytes) << d.name;
    EXPECT_LE(d.smem_per_block_max_bytes, d.smem_per_sm_bytes) << d.name;
  }
}

TEST(Device, PowerTerm_OnTheH100SxmAlone_Sourced) {
  const Device h100 = *find_device("h100-sxm");
  EXPECT_DOUBLE_EQ(h100.power_budget_w, 636);
  EXPECT_GT(h100.energy_per_l2_byte_pj / h100.energy_per_flop_pj, 100);  // a byte from L2 costs ~220 flops
  for (const DeviceFieldView& f : describe(h100)) {
    if (f.name == "power_budget_w" || f.name.starts_with("energy_per_")) {
      EXPECT_NE(f.source.find("data/h100-profile-power/power-1.jsonl"), std::string_view::npos) << f.name;
    }
  }
  const Device h200 = *find_device("h200");
  for (const DeviceFieldView& f : describe(h200)) {
    if (f.name == "power_budget_w") {
      EXPECT_NE(f.source.find("not measured on an H200"), std::string_view::npos);
    }
  }
  Device bad = h100;
  bad.power_budget_w = -1;
  EXPECT_FALSE(check_device(bad).ok());
}

// A budget overrides the preset's and names itself as the source; a budget
// above 0 on a preset without energy fields is refused (it would price
// nothing), 0 is not; out of range leaves the device unchanged.
TEST(Device, PowerBudgetOverride_OnlyWhereEnergyIsMeasured) {
  Device h100 = *find_device("h100-sxm");
  ASSERT_TRUE(override_power_budget(h100, 700).ok());
  EXPECT_DOUBLE_EQ(h100.power_budget_w, 700);
  for (const DeviceFieldView& f : describe(h100)) {
    if (f.name == "power_budget_w") {
      EXPECT_NE(f.source.find("overridden: 700 W"), std::string_view::npos) << f.source;
    }
  }
  for (double bad : {-1.0, 2e6, std::nan("")}) {
    const Status s = override_power_budget(h100, bad);
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_EQ(s.error().param, "power_budget");
    EXPECT_DOUBLE_EQ(h100.power_budget_w, 700);
  }
  Device h200 = *find_device("h200");
  const Status refused = override_power_budget(h200, 700);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().kind, ErrorKind::invalid_argument);
  EXPECT_NE(refused.error().message.find("no measured energy fields"), std::string::npos);
  EXPECT_DOUBLE_EQ(h200.power_budget_w, 0);
  EXPECT_TRUE(override_power_budget(h200, 0).ok());
}

TEST(Device, DefaultIsH200) { EXPECT_EQ(device_presets().front().name, "h200"); }

TEST(Device, Find_KnownAndUnknown) {
  for (const char* name : {"h100-sxm", "h100-pcie", "h200", "a100-sxm", "l40s", "rtx-4090"})
    EXPECT_TRUE(find_device(name).has_value()) << name;
  EXPECT_FALSE(find_device("h300").has_value());
}

TEST(Device, SmemOverride_MatchesReference) {
  Device d = *find_device("h200");
  ASSERT_TRUE(override_smem_kb(d, 100).ok());
  // The reference: shared/SM = kb*1024, shared/block = kb*1024 - 1024.
  EXPECT_EQ(d.smem_per_sm_bytes, 102400);
  EXPECT_EQ(d.smem_per_block_max_bytes, 101376);
  EXPECT_NE(d.source[static_cast<size_t>(DeviceField::smem_per_sm_bytes)].find("--smem-kb"), std::string::npos);
}

TEST(Device, Checker_RefusesEveryFieldOutOfBounds) {
  for (const Device& preset : device_presets()) EXPECT_TRUE(check_device(preset).ok()) << preset.name;
  Device d = *find_device("h200");
  d.warp_size = 0;  // a divisor of the register rounding: crashed the planner before it was checked
  ASSERT_FALSE(check_device(d).ok());
  EXPECT_EQ(check_device(d).error().param, "warp_size");
  d = *find_device("h200");
  d.boost_clock_mhz = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(check_device(d).error().param, "boost_clock_mhz");
  d = *find_device("h200");
  // 2^62 KB would overflow when turned into bytes: refused before it is multiplied.
  d.smem_carveout_kb.push_back(int64_t{1} << 62);
  ASSERT_FALSE(check_device(d).ok());
  EXPECT_EQ(check_device(d).error().param, "smem_carveout_kb");
  d = *find_device("h200");
  d.smem_carveout_kb = {228, 100};  // not ascending
  EXPECT_FALSE(check_device(d).ok());
}

}  // namespace
}  // namespace tileplan
