// Kernel families as data: the shipped files, the file format's round trip,
// and every rule of the format as an error that names the key.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tileplan/device.hpp"
#include "tileplan/family.hpp"
#include "tileplan/planner.hpp"
#include "../../src/detail.hpp"

namespace tileplan {
namespace {

using nlohmann::json;

TEST(Family, ShippedFiles_ParseAndAreFoundByName) {
  const std::vector<KernelFamily>& shipped = shipped_families();
  ASSERT_EQ(shipped.size(), 2u);  // data/families/seed.json, triton.json
  for (const KernelFamily& f : shipped) {
    EXPECT_TRUE(check_family(f).ok()) << f.name;
    EXPECT_EQ(f.file, "data/families/" + f.name + ".json");
    EXPECT_FALSE(f.regs_fitted_on.empty());
    EXPECT_FALSE(f.time_fitted_on.empty());
    EXPECT_EQ(f.device, "h200");
    ASSERT_TRUE(find_family(f.name).ok());
    EXPECT_EQ(find_family(f.name)->name, f.name);
  }
  EXPECT_EQ(default_family().name, "triton");
  EXPECT_FALSE(default_family().regs.accumulators_only);
  EXPECT_TRUE(find_family("seed")->regs.accumulators_only);
  const Result<KernelFamily> missing = find_family("cutlass");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, ErrorKind::not_found);
  EXPECT_EQ(missing.error().message, "family 'cutlass' is not one of: seed, triton");
}

TEST(Family, ShippedFile_IsTheSourceTreesFile) {
  // The library embeds data/families/triton.json at build time: parse the
  // file on disk and compare every constant.
  const Result<KernelFamily> disk = load_family_file(std::string(TILEPLAN_SOURCE_DIR) + "/data/families/triton.json");
  ASSERT_TRUE(disk.ok()) << disk.error().message;
  EXPECT_EQ(to_array(disk->time), to_array(default_family().time));
  EXPECT_EQ(to_array(disk->regs), to_array(default_family().regs));
  EXPECT_EQ(disk->group_m, default_family().group_m);
}

TEST(Family, JsonRoundTrip_IsExact) {
  for (const KernelFamily& f : shipped_families()) {
    const Result<KernelFamily> back = parse_family(family_json(f), f.file);
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(to_array(back->time), to_array(f.time));
    EXPECT_EQ(to_array(back->regs), to_array(f.regs));
    EXPECT_EQ(back->regs.accumulators_only, f.regs.accumulators_only);
    EXPECT_EQ(back->time_sources, f.time_sources);
    EXPECT_EQ(back->regs_sources, f.regs_sources);
    EXPECT_EQ(back->space.block_m, f.space.block_m);
    EXPECT_EQ(back->data, f.data);
    EXPECT_EQ(back->input_types, f.input_types);
    EXPECT_EQ(family_json(*back), family_json(f));
  }
}

TEST(Family, Validation_RoundTripsAndNamesTheClassOfAProblem) {
  const KernelFamily& f = default_family();
  ASSERT_EQ(f.validation.size(), 2u);  // h100-sxm, h200
  const Result<KernelFamily> back = parse_family(family_json(f), f.file);
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back->validation.size(), f.validation.size());
  for (std::size_t r = 0; r < f.validation.size(); ++r) {
    const FamilyValidation &v = f.validation[r], &w = back->validation[r];
    EXPECT_EQ(v.device, w.device);
    EXPECT_EQ(v.datasets, w.datasets);
    EXPECT_FALSE(v.datasets.empty());
    ASSERT_EQ(v.classes.size(), w.classes.size());
    for (std::size_t i = 0; i < v.classes.size(); ++i) {
      const ClassScore &a = v.classes[i], &b = w.classes[i];
      EXPECT_EQ(a.problem_class, b.problem_class);
      EXPECT_EQ(a.cases, b.cases);
      EXPECT_EQ(a.top1_geomean, b.top1_geomean);
      EXPECT_EQ(a.top1_worst, b.top1_worst);
      EXPECT_EQ(a.top5_geomean, b.top5_geomean);
      EXPECT_EQ(a.worst_shape, b.worst_shape);
    }
  }
  // A problem finds its class's scores on a recorded device, and on no other.
  GemmProblem p;
  p.m = 4096, p.n = 4096, p.k = 4096;
  const ClassScore* aligned = validation_for(f, "h200", p);
  ASSERT_NE(aligned, nullptr);
  EXPECT_EQ(aligned->problem_class, "float16:rr:MNK");
  EXPECT_GE(aligned->cases, 1);
  const ClassScore* h100 = validation_for(f, "h100-sxm", p);
  ASSERT_NE(h100, nullptr);
  EXPECT_NE(h100->cases, aligned->cases);  // a record of its own
  EXPECT_EQ(validation_for(f, "a100-sxm", p), nullptr);
  p.a_layout = Layout::col, p.b_layout = Layout::col;  // a class never measured
  EXPECT_EQ(validation_for(f, "h200", p), nullptr);
  p.a_layout = Layout::row, p.b_layout = Layout::row, p.n = 4001;
  const ClassScore* unaligned = validation_for(f, "h200", p);
  ASSERT_NE(unaligned, nullptr);
  EXPECT_EQ(unaligned->problem_class, "float16:rr:MnK");
  // The record holds for its preset as shipped, not for one a flag changed.
  const Device h200 = *find_device("h200");
  EXPECT_EQ(validation_on(f, h200), &f.validation[1]);
  Device fewer = h200;
  fewer.sm_count = 100;
  fewer.source[static_cast<std::size_t>(DeviceField::sm_count)] = "--sm-count 100";
  EXPECT_EQ(validation_on(f, fewer), nullptr);
  // The seed family holds no scores; a family without the section reads as none.
  EXPECT_TRUE(find_family("seed")->validation.empty());
  json j = json::parse(family_json(f));
  j.erase("validation");
  const Result<KernelFamily> bare = parse_family(j.dump(), "bare");
  ASSERT_TRUE(bare.ok()) << bare.error().message;
  EXPECT_TRUE(bare->validation.empty());
  EXPECT_EQ(validation_on(*bare, h200), nullptr);
}

struct BadFamily {
  std::string pointer;  // JSON pointer to change
  json value;           // the new value (null with erase = remove the key)
  bool erase;
  std::string expect;   // a part of the message
};

TEST(Family, EveryRule_IsAnErrorNamingTheKey) {
  const json good = json::parse(family_json(default_family()));
  const BadFamily cases[] = {
      {"/format", "other", false, "'format' must be \"tileplan-family\""},
      {"/version", 2, false, "'version' must be between 1 and 1"},
      {"/name", "Bad Name", false, "'name' must be 1 to 64 characters"},
      {"/name", nullptr, true, "'name' is missing"},
      {"/group_m", 0, false, "'group_m' must be between 1 and 65536"},
      {"/group_m", "8", false, "'group_m' must be an integer, not a string"},
      {"/space/block_m", json::array(), false, "'space.block_m' must be a list of 1 to 1024 integers"},
      {"/space/stages", json::array({0}), false, "stages value 0 must be at least 1"},
      {"/registers/rule", "magic", false, "'registers.rule' must be \"fitted\" or \"accumulators_only\""},
      {"/registers/constants/base/value", "16", false, "'registers.constants.base.value' must be a number"},
      {"/registers/constants/base/value", 1e300, false, "base 1e+300 must be a finite number of magnitude"},
      {"/registers/constants/extra", json::object({{"value", 1}}), false, "'registers.constants.extra' is not a constant"},
      {"/time/constants/launch_us", nullptr, true, "'time.constants.launch_us' is missing"},
      {"/time/constants/spill_factor/value", 0.5, false, "spill_factor 0.5 must be at least 1"},
      {"/time/constants/mma_n_half/value", -1, false, "mma_n_half -1 must be a finite number between 0 and 1e9"},
      {"/input_types", json::array({1}), false, "'input_types' must be a list of strings"},
      {"/time/constants/narrow_access_cycles", nullptr, true, "'time.constants.narrow_access_cycles' is missing"},
      {"/registers/constants/per_register_element/value", "2", false,
       "'registers.constants.per_register_element.value' must be a number"},
      // Per input type: a section of the file like the others, every rule named.
      {"/by_input_type", json::array(), false, "'by_input_type' must be an object, not a list"},
      {"/by_input_type/float7", json::object({{"fitted_on", "x"}}), false,
       "'by_input_type.float7' is not an input type: one of float16, bfloat16"},
      {"/by_input_type/float32", json::object({{"fitted_on", "x"}}), false, "'by_input_type.float32' is not an input type"},
      {"/by_input_type/float8_e4m3", 5, false, "'by_input_type.float8_e4m3' must be an object, not an integer"},
      {"/by_input_type/float8_e4m3/fitted_on", nullptr, true, "'by_input_type.float8_e4m3.fitted_on' is missing"},
      {"/by_input_type/float8_e4m3/colour", "red", false,
       "'by_input_type.float8_e4m3.colour' is not one of fitted_on, registers, time"},
      {"/by_input_type/float8_e4m3/registers/extra", json::object({{"value", 1}}), false,
       "'by_input_type.float8_e4m3.registers.extra' is not a constant of this section"},
      {"/by_input_type/float8_e4m3/time/launch_us", json::object({{"value", "x"}}), false,
       "'by_input_type.float8_e4m3.time.launch_us.value' must be a number"},
      {"/by_input_type/float8_e4m3/time/launch_us", 3, false,
       "'by_input_type.float8_e4m3.time.launch_us' must be an object"},
      {"/by_input_type/float8_e4m3/time/spill_factor", json::object({{"value", 0.5}}), false,
       "spill_factor 0.5 must be at least 1: spilling never speeds a kernel up (for float8_e4m3)"},
      {"/by_input_type/tfloat32/registers/base", json::object({{"value", 1e300}}), false,
       "base 1e+300 must be a finite number of magnitude at most 1000000 (for tfloat32)"},
      // The split-K section: optional, but whole and valid when present.
      // The held-out scores: optional, every field named and in range when present.
      {"/validation", 5, false, "'validation' must be an object, not an integer"},
      {"/validation/h200", "x", false, "'validation.h200' must be an object, not a string"},
      {"/validation/h200/datasets", "data/x", false, "'validation.h200.datasets' must be a list"},
      {"/validation/h200/device", "h200", false, "'validation.h200.device' is not one of datasets, classes"},
      {"/validation/h200/classes", json::array(), false, "'validation.h200.classes' must be an object, not a list"},
      {"/validation/h200/classes", nullptr, true, "'validation.h200.classes' is missing"},
      {"/validation/h200/classes/float16:rr:MNK", 3, false,
       "'validation.h200.classes.float16:rr:MNK' must be an object, not an integer"},
      {"/validation/h200/classes/float16:rr:MNK/cases", 0, false,
       "'validation.h200.classes.float16:rr:MNK.cases' must be between 1 and"},
      {"/validation/h200/classes/float16:rr:MNK/cases", 2.5, false,
       "'validation.h200.classes.float16:rr:MNK.cases' must be an integer, not a number"},
      {"/validation/h200/classes/float16:rr:MNK/top1_geomean", 0.9, false,
       "validation class float16:rr:MNK: a regret of 0.9 is not a time over the best measured"},
      {"/validation/h200/classes/float16:rr:MNK/top1_worst", "bad", false,
       "'validation.h200.classes.float16:rr:MNK.top1_worst' must be a number, not a string"},
      {"/validation/h200/classes/float16:rr:MNK/top5_geomean", 1.5, false,
       "validation class float16:rr:MNK: top5_geomean <= top1_geomean <= top1_worst must hold"},
      {"/validation/h200/classes/float16:rr:MNK/worst_shape", nullptr, true,
       "'validation.h200.classes.float16:rr:MNK.worst_shape' is missing"},
      {"/validation/h200/classes/float16:rr:MNK/spearman", 1, false,
       "'validation.h200.classes.float16:rr:MNK.spearman' is not one of cases, top1_geomean, top1_worst, "
       "top5_geomean, worst_shape"},
      {"/validation/", json::object({{"datasets", json::array()}, {"classes", json::object()}}), false,
       "validation device must name a device preset"},
      {"/split_k", 5, false, "'split_k' must be an object, not an integer"},
      {"/split_k/variant", "atomic", false, "'split_k.variant' must be \"workspace\""},
      {"/split_k/variant", nullptr, true, "'split_k.variant' is missing"},
      {"/split_k/colour", "red", false, "'split_k.colour' is not one of variant, fitted_on, constants"},
      {"/split_k/constants/reduce_gbps", nullptr, true, "'split_k.constants.reduce_gbps' is missing"},
      {"/split_k/constants/reduce_gbps/value", 0, false, "reduce_gbps 0 must be above 0"},
      {"/split_k/constants/reduce_launch_us/value", -1, false,
       "reduce_launch_us -1 must be a finite number between 0 and 1e9"},
      {"/split_k/constants/extra", json::object({{"value", 1}}), false,
       "'split_k.constants.extra' is not a constant of this section"},
      {"/split_k/constants/reduce_split_us/value", -0.3, false,
       "reduce_split_us -0.3 must be a finite number between 0 and 1e9"},
      {"/split_k/constants/reduce_split_us/value", 1e300, false,
       "reduce_split_us 1e+300 must be a finite number between 0 and 1e9"},
      {"/split_k/constants/reduce_split_us/value", "slow", false, "must be a number"},
      {"/split_k/constants/split_dram_growth/value", 2, false,
       "split_dram_growth 2 must be at most 1: it blends the flat share (0) with the share of B the other K slices "
       "stream (1)"},
      {"/split_k/constants/split_dram_growth/value", -0.5, false,
       "split_dram_growth -0.5 must be a finite number between 0 and 1e9"},
      {"/split_k/constants/split_dram_growth/value", "grow", false, "must be a number"},
      {"/split_k/constants/split_dram_growth", 1, false, "'split_k.constants.split_dram_growth' must be an object"},
      {"/split_k/constants/reduce_split_us", 0.3, false, "'split_k.constants.reduce_split_us' must be an object"},
      {"/time/constants/transpose_cycles/value", -2, false,
       "transpose_cycles -2 must be a finite number between 0 and 1e9"},
      // The held-tile constants: optional, in range when present.
      {"/time/constants/paired_narrow_cycles/value", -0.5, false,
       "paired_narrow_cycles -0.5 must be a finite number between 0 and 1e9"},
      {"/time/constants/spill_access_cycles/value", 1e300, false,
       "spill_access_cycles 1e+300 must be a finite number between 0 and 1e9"},
      {"/time/constants/spill_access_cycles/value", "fast", false, "must be a number"},
      {"/registers/constants/spill_per_element/value", 2e6, false,
       "spill_per_element 2000000 must be a finite number of magnitude at most 1000000"},
      {"/by_input_type/tfloat32/time/spill_access_cycles", json::object({{"value", -1}}), false,
       "spill_access_cycles -1 must be a finite number between 0 and 1e9 (for tfloat32)"},
      {"/time/constants/paired_b_mn_cycles/value", -3, false,
       "paired_b_mn_cycles -3 must be a finite number between 0 and 1e9"},
      {"/time/constants/paired_b_mn_cycles/value", 2e9, false,
       "paired_b_mn_cycles 2000000000 must be a finite number between 0 and 1e9"},
      {"/time/constants/paired_b_mn_spill_free/value", -1, false,
       "paired_b_mn_spill_free -1 must be a finite number between 0 and 1e9"},
      {"/time/constants/paired_b_mn_spill_free/value", nullptr, false, "must be a number"},
      {"/time/constants/paired_b_mn_spill_free", "many", false,
       "'time.constants.paired_b_mn_spill_free' must be an object"},
      // tail_sync: optional, a share (0 to 1) when present.
      {"/time/constants/tail_sync/value", 1.5, false, "tail_sync 1.5 must be at most 1: it is a share of the last round"},
      {"/time/constants/tail_sync/value", -0.25, false,
       "tail_sync -0.25 must be a finite number between 0 and 1e9"},
      {"/time/constants/tail_sync/value", "half", false, "must be a number"},
      {"/by_input_type/float8_e4m3/time/tail_sync", json::object({{"value", 2}}), false,
       "tail_sync 2 must be at most 1: it is a share of the last round (for float8_e4m3)"},
      // B's reuse in L2 and the SMs' and DRAM's join: optional, in range when present.
      {"/time/constants/sm_overlap_power/value", 0.5, false,
       "sm_overlap_power 0.5 must be 0 (the Euclidean norm) or between 1 and 64: it is the order of a smooth maximum"},
      {"/time/constants/sm_overlap_power/value", 1e300, false,
       "sm_overlap_power 1e+300 must be a finite number between 0 and 1e9"},
      {"/time/constants/sm_overlap_power/value", "high", false, "must be a number"},
      {"/by_input_type/float8_e4m3/time/sm_overlap_power", json::object({{"value", 100}}), false,
       "sm_overlap_power 100 must be 0 (the Euclidean norm) or between 1 and 64: it is the order of a smooth maximum "
       "(for float8_e4m3)"},
      {"/time/constants/l2_reuse_far_share/value", 0.2, false,
       "l2_reuse_far_share 0.2 must exceed l2_reuse_near_share 0.36 and be at most 64 L2s"},
      {"/time/constants/l2_reuse_near_share/value", -0.1, false,
       "l2_reuse_near_share -0.1 must be a finite number between 0 and 1e9"},
      {"/time/constants/l2_reuse_far_share/value", 1e12, false,
       "l2_reuse_far_share 1000000000000 must be a finite number between 0 and 1e9"},
      {"/time/constants/l2_reuse_near_share/value", nullptr, false, "must be a number"},
      {"/time/constants/l2_reuse_near_share/value", 100, false, "l2_reuse_near_share 100 must be between 0 and 64 L2s"},
      // The epilogue rule: optional, in range when present.
      {"/registers/constants/per_narrow_c_accumulator/value", 2e6, false,
       "per_narrow_c_accumulator 2000000 must be a finite number of magnitude at most 1000000"},
      {"/registers/constants/per_narrow_c_accumulator/value", "two", false, "must be a number"},
      {"/by_input_type/float8_e4m3/registers/per_narrow_c_accumulator", json::object({{"value", -3e6}}), false,
       "per_narrow_c_accumulator -3000000 must be a finite number of magnitude at most 1000000 (for float8_e4m3)"},
      {"/time/constants/epilogue_spill_cycles/value", -1, false,
       "epilogue_spill_cycles -1 must be a finite number between 0 and 1e9"},
      {"/time/constants/epilogue_spill_cycles/value", 1e10, false,
       "epilogue_spill_cycles 10000000000 must be a finite number between 0 and 1e9"},
      {"/time/constants/epilogue_spill_cycles", 30, false, "'time.constants.epilogue_spill_cycles' must be an object"},
      // l1_miss_cycles: optional, in range when present.
      {"/time/constants/l1_miss_cycles/value", -1, false,
       "l1_miss_cycles -1 must be a finite number between 0 and 1e9"},
      {"/time/constants/l1_miss_cycles/value", 1e300, false,
       "l1_miss_cycles 1e+300 must be a finite number between 0 and 1e9"},
      {"/time/constants/l1_miss_cycles/value", "20", false, "'time.constants.l1_miss_cycles.value' must be a number"},
      {"/time/constants/l1_miss_cycles", 20, false, "'time.constants.l1_miss_cycles' must be an object"},
      {"/by_input_type/tfloat32/time/l1_miss_cycles", json::object({{"value", -2}}), false,
       "l1_miss_cycles -2 must be a finite number between 0 and 1e9 (for tfloat32)"},
      // kmajor_wide_unit_saving: optional, a share below 1 when present.
      {"/time/constants/kmajor_wide_unit_saving/value", -0.1, false,
       "kmajor_wide_unit_saving -0.1 must be a finite number between 0 and 1e9"},
      {"/time/constants/kmajor_wide_unit_saving/value", 1.0, false,
       "kmajor_wide_unit_saving 1 must be below 1: it is a share of a stage's L2 cost"},
      {"/time/constants/kmajor_wide_unit_saving/value", "0.1", false,
       "'time.constants.kmajor_wide_unit_saving.value' must be a number"},
      {"/by_input_type/float8_e4m3/time/kmajor_wide_unit_saving", json::object({{"value", 2.5}}), false,
       "kmajor_wide_unit_saving 2.5 must be below 1: it is a share of a stage's L2 cost (for float8_e4m3)"},
      // nmajor_wide_unit_cost and copy_bytes_per_cycle: optional, in range when present.
      {"/time/constants/nmajor_wide_unit_cost/value", -0.2, false,
       "nmajor_wide_unit_cost -0.2 must be a finite number between 0 and 1e9"},
      {"/time/constants/nmajor_wide_unit_cost/value", "0.2", false,
       "'time.constants.nmajor_wide_unit_cost.value' must be a number"},
      {"/time/constants/copy_bytes_per_cycle/value", -39, false,
       "copy_bytes_per_cycle -39 must be a finite number between 0 and 1e9"},
      {"/time/constants/copy_bytes_per_cycle/value", 1e12, false,
       "copy_bytes_per_cycle 1000000000000 must be a finite number between 0 and 1e9"},
      {"/time/constants/copy_bytes_per_cycle", 39, false, "'time.constants.copy_bytes_per_cycle' must be an object"},
      {"/by_input_type/float8_e4m3/time/copy_bytes_per_cycle", json::object({{"value", -1}}), false,
       "copy_bytes_per_cycle -1 must be a finite number between 0 and 1e9 (for float8_e4m3)"},
      // mma_copy_bytes_per_cycle: optional, in range when present.
      {"/time/constants/mma_copy_bytes_per_cycle/value", -39, false,
       "mma_copy_bytes_per_cycle -39 must be a finite number between 0 and 1e9"},
      {"/time/constants/mma_copy_bytes_per_cycle/value", 1e300, false,
       "mma_copy_bytes_per_cycle 1e+300 must be a finite number between 0 and 1e9"},
      {"/time/constants/mma_copy_bytes_per_cycle/value", "39", false,
       "'time.constants.mma_copy_bytes_per_cycle.value' must be a number"},
      {"/time/constants/mma_copy_bytes_per_cycle", json::array(), false,
       "'time.constants.mma_copy_bytes_per_cycle' must be an object"},
      {"/by_input_type/float8_e4m3/time/mma_copy_bytes_per_cycle", json::object({{"value", -1}}), false,
       "mma_copy_bytes_per_cycle -1 must be a finite number between 0 and 1e9 (for float8_e4m3)"},
      // l2_request_bytes: optional, in range when present.
      {"/time/constants/l2_request_bytes/value", -0.1, false,
       "l2_request_bytes -0.1 must be a finite number between 0 and 1e9"},
      {"/time/constants/l2_request_bytes/value", 2e9, false,
       "l2_request_bytes 2000000000 must be a finite number between 0 and 1e9"},
      {"/time/constants/l2_request_bytes/value", "80", false,
       "'time.constants.l2_request_bytes.value' must be a number"},
      {"/time/constants/l2_request_bytes", 80, false, "'time.constants.l2_request_bytes' must be an object"},
      {"/by_input_type/float8_e4m3/time/l2_request_bytes", json::object({{"value", 1e300}}), false,
       "l2_request_bytes 1e+300 must be a finite number between 0 and 1e9 (for float8_e4m3)"},
      // one_row_a_extra: optional, in range when present.
      {"/time/constants/one_row_a_extra/value", -1, false,
       "one_row_a_extra -1 must be a finite number between 0 and 1e9"},
      {"/time/constants/one_row_a_extra/value", 1e300, false,
       "one_row_a_extra 1e+300 must be a finite number between 0 and 1e9"},
      {"/time/constants/one_row_a_extra/value", "5", false,
       "'time.constants.one_row_a_extra.value' must be a number"},
      {"/time/constants/one_row_a_extra", 5, false, "'time.constants.one_row_a_extra' must be an object"},
      {"/by_input_type/tfloat32/time/one_row_a_extra", json::object({{"value", -0.5}}), false,
       "one_row_a_extra -0.5 must be a finite number between 0 and 1e9 (for tfloat32)"},
      // in_step_a_ns: optional, in range when present.
      {"/time/constants/in_step_a_ns/value", -0.01, false,
       "in_step_a_ns -0.01 must be a finite number between 0 and 1e9"},
      {"/time/constants/in_step_a_ns/value", 1e300, false,
       "in_step_a_ns 1e+300 must be a finite number between 0 and 1e9"},
      {"/time/constants/in_step_a_ns/value", "0.03", false, "'time.constants.in_step_a_ns.value' must be a number"},
      {"/time/constants/in_step_a_ns", 0.03, false, "'time.constants.in_step_a_ns' must be an object"},
      {"/by_input_type/float8_e4m3/time/in_step_a_ns", json::object({{"value", -1}}), false,
       "in_step_a_ns -1 must be a finite number between 0 and 1e9 (for float8_e4m3)"},
      // narrow_b_mn_step_share: optional, in range when present.
      {"/time/constants/narrow_b_mn_step_share/value", -0.5, false,
       "narrow_b_mn_step_share -0.5 must be a finite number between 0 and 1e9"},
      {"/time/constants/narrow_b_mn_step_share/value", 1e300, false,
       "narrow_b_mn_step_share 1e+300 must be a finite number between 0 and 1e9"},
      {"/time/constants/narrow_b_mn_step_share/value", nullptr, false,
       "'time.constants.narrow_b_mn_step_share.value' must be a number"},
      {"/time/constants/narrow_b_mn_step_share", "0.45", false,
       "'time.constants.narrow_b_mn_step_share' must be an object"},
      {"/by_input_type/float8_e5m2/time/narrow_b_mn_step_share", json::object({{"value", -1}}), false,
       "narrow_b_mn_step_share -1 must be a finite number between 0 and 1e9 (for float8_e5m2)"},
      // aligned_b_stage_share: optional, in range when present.
      {"/time/constants/aligned_b_stage_share/value", -0.12, false,
       "aligned_b_stage_share -0.12 must be a finite number between 0 and 1e9"},
      {"/time/constants/aligned_b_stage_share/value", "0.12", false,
       "'time.constants.aligned_b_stage_share.value' must be a number"},
      {"/time/constants/aligned_b_stage_share", json::array(), false,
       "'time.constants.aligned_b_stage_share' must be an object"},
      {"/by_input_type/float8_e4m3/time/aligned_b_stage_share", json::object({{"value", 1e300}}), false,
       "aligned_b_stage_share 1e+300 must be a finite number between 0 and 1e9 (for float8_e4m3)"},
      {"/space/block_m", json::array(), false, "space.block_m"},
      // The epilogue's row term: optional, in range when present.
      {"/registers/constants/per_narrow_c_row_accumulator/value", 2e6, false,
       "per_narrow_c_row_accumulator 2000000 must be a finite number of magnitude at most 1000000"},
      {"/registers/constants/per_narrow_c_row_accumulator/value", nullptr, false,
       "'registers.constants.per_narrow_c_row_accumulator.value' must be a number"},
      // The epilogue's address per row: optional, in range when present.
      {"/registers/constants/per_narrow_c_row/value", 2e6, false,
       "per_narrow_c_row 2000000 must be a finite number of magnitude at most 1000000"},
      {"/registers/constants/per_narrow_c_row/value", nullptr, false,
       "'registers.constants.per_narrow_c_row.value' must be a number"},
      {"/by_input_type/float8_e4m3/registers/per_narrow_c_row", json::object({{"value", -3e6}}), false,
       "per_narrow_c_row -3000000 must be a finite number of magnitude at most 1000000 (for float8_e4m3)"},
      // by_instr: an instruction (not auto), an object of fitted_on and registers.
      {"/by_instr/auto", json::object({{"fitted_on", "x"}}), false,
       "'by_instr.auto' is not an instruction: one of mma, wgmma, simt"},
      {"/by_instr/tensor", json::object({{"fitted_on", "x"}}), false,
       "'by_instr.tensor' is not an instruction: one of mma, wgmma, simt"},
      {"/by_instr/mma", 3, false, "'by_instr.mma' must be an object, not an integer"},
      {"/by_instr/mma/time", json::object(), false, "'by_instr.mma.time' is not one of fitted_on, registers"},
      {"/by_instr/mma/registers/base/value", 2e6, false,
       "base 2000000 must be a finite number of magnitude at most 1000000 (for mma)"},
      {"/by_instr/mma/registers/extra", json::object({{"value", 1}}), false,
       "'by_instr.mma.registers.extra' is not a constant of this section"},
      {"/by_instr/mma/fitted_on", nullptr, true, "'by_instr.mma.fitted_on' is missing"},
      // Provenance: a section's at most 16384 characters, a constant's 4096.
      {"/time/fitted_on", std::string(16385, 'x'), false, "'time.fitted_on' must be at most 16384 characters"},
      {"/registers/fitted_on", std::string(16385, 'x'), false,
       "'registers.fitted_on' must be at most 16384 characters"},
      {"/time/constants/launch_us/fitted_on", std::string(4097, 'x'), false,
       "'time.constants.launch_us.fitted_on' must be at most 4096 characters"},
  };
  for (const BadFamily& c : cases) {
    json j = good;
    if (c.erase)
      j.at(json::json_pointer(c.pointer).parent_pointer()).erase(json::json_pointer(c.pointer).back());
    else
      j[json::json_pointer(c.pointer)] = c.value;
    const Result<KernelFamily> f = parse_family(j.dump(), "case.json");
    ASSERT_FALSE(f.ok()) << c.pointer;
    EXPECT_EQ(f.error().kind, ErrorKind::parse_error);
    EXPECT_EQ(f.error().message.rfind("family case.json: ", 0), 0u) << f.error().message;
    EXPECT_NE(f.error().message.find(c.expect), std::string::npos) << c.pointer << ": " << f.error().message;
  }
}

TEST(Family, EpilogueConstants_AreOptionalAndAbsentReadsZero) {
  // Family files written before the epilogue rule still load: no epilogue
  // term, no price of its spill.
  json j = json::parse(family_json(default_family()));
  ASSERT_GT(default_family().regs.per_narrow_c_row, 0.0);
  ASSERT_GT(default_family().time.epilogue_spill_cycles, 0.0);
  ASSERT_GT(default_family().regs.per_narrow_c_row_accumulator, 0.0);
  j["registers"]["constants"].erase("per_narrow_c_accumulator");
  j["registers"]["constants"].erase("per_narrow_c_row");
  j["registers"]["constants"].erase("per_narrow_c_row_accumulator");
  j["time"]["constants"].erase("epilogue_spill_cycles");
  const Result<KernelFamily> f = parse_family(j.dump(), "older.json");
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(f->regs.per_narrow_c_accumulator, 0.0);
  EXPECT_EQ(f->regs.per_narrow_c_row, 0.0);
  EXPECT_EQ(f->regs.per_narrow_c_row_accumulator, 0.0);
  EXPECT_EQ(f->time.epilogue_spill_cycles, 0.0);
  EXPECT_EQ(f->regs.base, default_family().regs.base);
}

TEST(Family, ReductionPerSplitTerm_IsOptionalAndAbsentReadsZero) {
  // Family files written before the reduction's per-split term still load,
  // and price the reduction by its launch and bytes alone.
  json j = json::parse(family_json(default_family()));
  ASSERT_GT(default_family().split_k->constants.reduce_split_us, 0.0);
  j["split_k"]["constants"].erase("reduce_split_us");
  const Result<KernelFamily> f = parse_family(j.dump(), "older.json");
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(f->split_k->constants.reduce_split_us, 0.0);
  EXPECT_EQ(f->split_k->constants.reduce_gbps, default_family().split_k->constants.reduce_gbps);
}

TEST(Family, TypeOverrides_ReplaceOnlyTheirConstants) {
  const KernelFamily& f = default_family();
  ASSERT_FALSE(f.by_input_type.empty());
  // bfloat16 has no section: the family's own constants.
  EXPECT_EQ(to_array(time_for(f, DType::bfloat16)), to_array(f.time));
  EXPECT_EQ(to_array(registers_for(f, DType::bfloat16)), to_array(f.regs));
  for (const TypeConstants& c : f.by_input_type) {
    const auto base = to_array(f.time), typed = to_array(time_for(f, c.dtype));
    std::size_t overridden = 0;
    for (std::size_t i = 0; i < kTimeConstantCount; ++i) {
      if (c.time[i]) {
        EXPECT_EQ(typed[i], *c.time[i]) << to_string(c.dtype) << " " << time_constant_info()[i].name;
        ++overridden;
      } else {
        EXPECT_EQ(typed[i], base[i]) << to_string(c.dtype) << " " << time_constant_info()[i].name;
      }
    }
    EXPECT_GT(overridden, 0u) << to_string(c.dtype);
  }
  // A type twice is refused by the checker (a file cannot say it: JSON keys are unique).
  KernelFamily twice = f;
  twice.by_input_type.push_back(twice.by_input_type.front());
  const Status s = check_family(twice);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().param, "by_input_type");
  EXPECT_NE(s.error().message.find("twice"), std::string::npos) << s.error().message;
  // An enumerator outside DType is refused, not read.
  KernelFamily odd = f;
  odd.by_input_type.front().dtype = static_cast<DType>(99);
  ASSERT_FALSE(check_family(odd).ok());
}

TEST(Family, Files_UnreadableDirectoryAndTooLarge) {
  const Result<KernelFamily> none = load_family_file("/nonexistent/family.json");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().kind, ErrorKind::io_error);
  EXPECT_EQ(none.error().param, "family_file");

  const std::string dir = "/tmp/tileplan_family_" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  EXPECT_FALSE(load_family_file(dir).ok());
  const std::string big = dir + "/big.json";
  {
    std::ofstream f(big);
    f << std::string(kMaxFamilyFileBytes + 10, ' ');
  }
  const Result<KernelFamily> large = load_family_file(big);
  ASSERT_FALSE(large.ok());
  EXPECT_EQ(large.error().kind, ErrorKind::out_of_range);
  std::filesystem::remove_all(dir);
}

TEST(Family, AFittedFamily_ChangesThePlan) {
  // The planner takes a family value: a family whose MMAs are slow for narrow
  // warpgroup tiles (a large mma_n_half) prefers wider tiles.
  KernelFamily wide = default_family();
  wide.name = "wide";
  wide.time.mma_n_half = 5000;
  const Device d = *find_device("h200");
  const GemmProblem p{4096, 4096, 4096};
  const SearchSpace s;
  const Verdict a = sweep(p, d, Instr::wgmma, s, 1, Model::calibrated).value().front();
  const Verdict b = sweep(p, d, Instr::wgmma, s, 1, Model::calibrated, wide).value().front();
  EXPECT_GT(b.predicted_us, a.predicted_us);
  // 256-column warpgroup tiles: 128x256 with 256 threads has two warpgroups along M.
  EXPECT_EQ(b.config.block_n, 256);
  // A family that fails its checker is refused by the planner, not used.
  KernelFamily broken = default_family();
  broken.time.spill_factor = 0;
  const Result<Planner> refused = Planner::create(d, Instr::wgmma, s, Model::calibrated, broken);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().param, "spill_factor");
  // sweep() borrows its family: a broken one is refused there too.
  const auto swept = sweep(p, d, Instr::wgmma, s, 1, Model::calibrated, broken);
  ASSERT_FALSE(swept.ok());
  EXPECT_EQ(swept.error().param, "spill_factor");
}

// A planner skips check_family for the shipped families themselves (checked
// when parsed, immutable), never for a copy, however equal.
TEST(Family, ShippedFamilies_AreKnownByAddress) {
  for (const KernelFamily& f : shipped_families()) EXPECT_TRUE(detail::is_shipped_family(f)) << f.name;
  EXPECT_TRUE(detail::is_shipped_family(default_family()));
  const KernelFamily copy = default_family();
  EXPECT_FALSE(detail::is_shipped_family(copy));
}

}  // namespace
}  // namespace tileplan
