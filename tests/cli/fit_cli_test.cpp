// tileplan_fit: the shipped family's constants are reproduced by the commands
// their provenance names (registers and run time for tfloat32, whose fit was
// redone with the on-chip transpose of B), and bad input gets one line.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "run_cli.hpp"

namespace tileplan::test {
namespace {

using nlohmann::json;

json read_json(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return json::parse(ss.str());
}

std::string temp_path(const std::string& name) {
  return "/tmp/tileplan_fit_" + name + "_" + std::to_string(::getpid()) + ".json";
}

const json& shipped() {
  static const json j = read_json(source_path("data/families/triton.json"));
  return j;
}

TEST(FitCli, RegistersReproduceTheShippedTf32Profile) {
  const std::string out = temp_path("regs");
  const CliResult r = run_program(TILEPLAN_FIT_EXE, "--registers --device h200 --input-type tfloat32 " +
                                                        source_path("data/h200-triton-v5a") + " --output " + out);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("spill flag equal 100/104"), std::string::npos) << r.out;
  // The shipped family's held-out scores were of its constants: a fitted
  // family carries none (scripts/validation_record.py measures them again).
  ASSERT_TRUE(shipped().contains("validation"));
  EXPECT_FALSE(read_json(out).contains("validation"));
  const json fitted = read_json(out)["by_input_type"]["tfloat32"]["registers"];
  const json& want = shipped()["by_input_type"]["tfloat32"]["registers"];
  ASSERT_FALSE(want.empty());
  for (const auto& [name, c] : want.items()) {
    ASSERT_TRUE(fitted.contains(name)) << name;
    EXPECT_EQ(fitted[name]["value"].get<double>(), c["value"].get<double>()) << name;
  }
  std::remove(out.c_str());
}

// The objective a --time run reports for its starting constants, or for the
// constants it fitted; -1 when the output has neither.
double reported_objective(const std::string& out, const std::string& after) {
  const std::size_t at = out.find(after);
  if (at == std::string::npos) return -1;
  const std::size_t o = out.find("objective ", at);
  return o == std::string::npos ? -1 : std::stod(out.substr(o + 10));
}

TEST(FitCli, Tf32ConstantsBeatTheirRefitWithTheTransposesQueued) {
  // tfloat32's iteration_cycles and transpose_cycles were fitted (from the
  // fifth round's float16 constants, the provenance's command) before the
  // transposes and MMAs of the programs sharing an SM were queued one after
  // another (docs/model.md §3). Run again under that rule, from the shipped family with
  // the two overrides removed, the same command finds a worse objective than
  // the shipped constants score (0.1087 against 0.1025): they stay.
  const std::string fix =
      " --fix narrow_access_cycles --fix launch_us --fix tile_overhead_us --fix epilogue_factor"
      " --fix miss_latency_cycles --fix load_latency_cycles --fix mma_n_half --fix kmajor_wide_n --fix tail_sync"
      " --fix overlap_power"
      // Constants that came after the tf32 refit, fitted on other types'
      // cases, are not part of it: held, as in the refit the docs record.
      " --fix l2_request_bytes --fix one_row_a_extra --fix copy_bytes_per_cycle --fix mma_copy_bytes_per_cycle ";
  json start = shipped();
  start["by_input_type"]["tfloat32"]["time"].erase("iteration_cycles");
  start["by_input_type"]["tfloat32"]["time"].erase("transpose_cycles");
  const std::string in = temp_path("start"), out = temp_path("time");
  {
    std::ofstream f(in);
    f << start.dump(2);
  }
  const CliResult refit =
      run_program(TILEPLAN_FIT_EXE, "--time --device h200 --restarts 1 --input-type tfloat32 --family-file " + in + fix +
                                        "--set transpose_cycles=20 " + source_path("data/h200-triton-v5a") +
                                        " --output " + out,
                  600);
  ASSERT_EQ(refit.status, 0) << refit.err;
  // No tf32 calibration case moves both operands through registers: the
  // search holds that constant instead of wandering along it.
  const std::size_t held = refit.out.find("held (no calibration configuration's predicted time depends on them)");
  ASSERT_NE(held, std::string::npos) << refit.out;
  EXPECT_NE(refit.out.substr(held, refit.out.find('\n', held) - held).find("paired_narrow_cycles"), std::string::npos)
      << refit.out;
  const double fitted = reported_objective(refit.out, "fitted constants");
  // The shipped constants, every one held: the objective of the start.
  std::string all_fixed;
  for (const auto& [name, value] : shipped()["time"]["constants"].items()) all_fixed += " --fix " + name;
  const CliResult kept = run_program(TILEPLAN_FIT_EXE, "--time --device h200 --input-type tfloat32" + all_fixed + " " +
                                                           source_path("data/h200-triton-v5a") + " --output " + out,
                                     600);
  ASSERT_EQ(kept.status, 0) << kept.err;
  const double shipped_objective = reported_objective(kept.out, "constants of triton");
  ASSERT_GT(fitted, 0) << refit.out;
  ASSERT_GT(shipped_objective, 0) << kept.out;
  EXPECT_LT(shipped_objective, fitted);
  std::remove(in.c_str());
  std::remove(out.c_str());
}

TEST(FitCli, SpillRuleReproducesTheShippedRuleAndReportsTheFlagsOptimum) {
  // The shipped fp16 rule was chosen on the run-time fit's objective
  // (data/h200-triton-v9/README.md); --set writes it and reports its agreement
  // with the compiler's spill flags; without --set the grid's best is found.
  const std::string data = source_path("data/h200-triton-v5b") + " " + source_path("data/h200-triton-v9");
  const std::string out = temp_path("spill");
  const CliResult set = run_program(TILEPLAN_FIT_EXE, "--spill-rule --device h200 --set spill_per_element=2.8 "
                                                      "--set spill_reserve=0 " + data + " --output " + out);
  ASSERT_EQ(set.status, 0) << set.err;
  EXPECT_NE(set.out.find("2082/2190 with spill_per_element 2.80, spill_reserve 0 (as set)"), std::string::npos)
      << set.out;
  // Every register constant, value and provenance, as shipped (the section's
  // fitted_on names the datasets by the paths given, absolute here).
  EXPECT_EQ(read_json(out)["registers"]["constants"], shipped()["registers"]["constants"]);
  const CliResult grid = run_program(TILEPLAN_FIT_EXE, "--spill-rule --device h200 " + data);
  ASSERT_EQ(grid.status, 0) << grid.err;
  EXPECT_NE(grid.out.find("2090/2190 with spill_per_element 1.40, spill_reserve 80 (the grid's best)"),
            std::string::npos)
      << grid.out;
  std::remove(out.c_str());
}

TEST(FitCli, EpilogueRuleReproducesTheShippedConstant) {
  // per_narrow_c_accumulator and per_narrow_c_row: the grid's best for
  // blocks/SM and spill flags over the fp16 configurations with narrow stores
  // of C (v5b and v9: one or both operands through registers; v20: both with
  // 16-byte vectors); then per_narrow_c_row_accumulator, the grid's best for
  // the registers spilled.
  const std::string data = source_path("data/h200-triton-v5b") + " " + source_path("data/h200-triton-v9") + " " +
                           source_path("data/h200-triton-v20");
  const std::string out = temp_path("epilogue");
  // The 2-D grid takes about 45 s under ASan on one core: each call gets a
  // limit with room (run_program's default is 60 s).
  const CliResult r =
      run_program(TILEPLAN_FIT_EXE, "--epilogue-rule --device h200 " + data + " --output " + out, 300);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("1186 compiled configurations with narrow stores of C; blocks/SM and spill flags equal "
                       "2205 times with per_narrow_c_accumulator 0.00, per_narrow_c_row 2.40"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("2205 with 0.00, 2.40 and 0.90 (6.9; 0.650;"), std::string::npos) << r.out;
  EXPECT_EQ(read_json(out)["registers"]["constants"], shipped()["registers"]["constants"]);
  // Without the terms (absent reads as 0), the grids find them again.
  json start = shipped();
  start["registers"]["constants"].erase("per_narrow_c_accumulator");
  start["registers"]["constants"].erase("per_narrow_c_row");
  start["registers"]["constants"].erase("per_narrow_c_row_accumulator");
  const std::string in = temp_path("no_epilogue");
  {
    std::ofstream f(in);
    f << start.dump(2);
  }
  const CliResult again =
      run_program(TILEPLAN_FIT_EXE, "--epilogue-rule --device h200 --family-file " + in + " " + data + " --output " + out,
                  300);
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_NE(again.out.find("equal 2043 times with per_narrow_c_accumulator 0.00, per_narrow_c_row 0.00"),
            std::string::npos)
      << again.out;
  EXPECT_NE(again.out.find("2205 with 0.00, 2.40 and 0.90"), std::string::npos) << again.out;
  const json refound = read_json(out)["registers"]["constants"];
  EXPECT_EQ(refound["per_narrow_c_row"]["value"], 2.4);
  EXPECT_EQ(refound["per_narrow_c_row_accumulator"]["value"], 0.9);
  // The rule before the row term (2.40 per accumulator, 0.85), which the
  // grid also spans, agrees 18 times less, all of them v20's spill flags.
  json before = shipped();
  before["registers"]["constants"]["per_narrow_c_accumulator"]["value"] = 2.4;
  before["registers"]["constants"]["per_narrow_c_row"]["value"] = 0.0;
  before["registers"]["constants"]["per_narrow_c_row_accumulator"]["value"] = 0.85;
  {
    std::ofstream f(in);
    f << before.dump(2);
  }
  const CliResult old_rule =
      run_program(TILEPLAN_FIT_EXE, "--epilogue-rule --device h200 --family-file " + in + " " + data, 300);
  ASSERT_EQ(old_rule.status, 0) << old_rule.err;
  EXPECT_NE(old_rule.out.find("equal 2187 times with per_narrow_c_accumulator 2.40, per_narrow_c_row 0.00"),
            std::string::npos)
      << old_rule.out;
  // v20 alone, where the epilogue is the whole difference from the aligned
  // kernel: the same constants, and every blocks/SM and spill flag right.
  json none = start;
  {
    std::ofstream f(in);
    f << none.dump(2);
  }
  const CliResult v20 = run_program(TILEPLAN_FIT_EXE, "--epilogue-rule --device h200 --family-file " + in + " " +
                                                          source_path("data/h200-triton-v20"),
                                    300);
  ASSERT_EQ(v20.status, 0) << v20.err;
  EXPECT_NE(v20.out.find("0.00, 2.40, 0.90 on " + source_path("data/h200-triton-v20") +
                         ": blocks/SM equal 336/336, spill flag equal 336/336"),
            std::string::npos)
      << v20.out;
  std::remove(in.c_str());
  std::remove(out.c_str());
}

// The mma tiles' register override (block_M 16 and 32, which tl.dot compiles
// to mma.sync) is what its provenance's command fits.
TEST(FitCli, RegistersReproduceTheShippedMmaOverride) {
  const std::string out = temp_path("mma");
  std::string data;
  for (const char* d : {"one", "m", "m16"}) data += source_path(std::string("data/h200-triton-splitk-bm16/") + d) + " ";
  const CliResult r = run_program(TILEPLAN_FIT_EXE, "--registers --device h200 --instr mma " + data + "--output " + out);
  ASSERT_EQ(r.status, 0) << r.err;
  // The driver's blocks/SM, of the 292 mma kernels of each class: 88% with
  // the wgmma profile, 96-98% with the override.
  EXPECT_NE(r.out.find("data/h200-triton-splitk-bm16/one: blocks/SM equal 286/292"), std::string::npos) << r.out;
  const json fitted = read_json(out)["by_instr"]["mma"]["registers"];
  const json& want = shipped()["by_instr"]["mma"]["registers"];
  ASSERT_EQ(want.size(), 4u);
  for (const auto& [name, c] : want.items()) {
    ASSERT_TRUE(fitted.contains(name)) << name;
    EXPECT_EQ(fitted[name]["value"].get<double>(), c["value"].get<double>()) << name;
  }
  // The family's own (wgmma) profile is untouched.
  EXPECT_EQ(read_json(out)["registers"], shipped()["registers"]);
  std::remove(out.c_str());
}

TEST(FitCli, BadInputGetsOneLineAndExitTwo) {
  const std::string data = source_path("data/h200-triton-v5a");
  const std::vector<std::string> cases = {"--bogus", "--registers", "--registers /nonexistent",
                                          "--time --fix nope " + data, "--registers --input-type float7 " + data,
                                          "--spill-rule --set spill_reserve=3 " + data,
                                          "--spill-rule --set spill_per_element=-1 --set spill_reserve=3 " + data,
                                          "--spill-rule --set launch_us=3 " + data,
                                          "--time --set spill_reserve=3 " + data,
                                          // no float16 configuration with narrow stores of C in v5a
                                          "--epilogue-rule " + data,
                                          // the mma override: --registers, float16 only
                                          "--registers --instr simt " + data, "--time --instr mma " + data,
                                          "--registers --instr mma --input-type bfloat16 " + data};
  for (const std::string& args : cases) {
    const CliResult r = run_program(TILEPLAN_FIT_EXE, args);
    EXPECT_EQ(r.status, 2) << args << "\n" << r.err;
    EXPECT_EQ(count_lines(r.err), 1) << args << ": " << r.err;
    EXPECT_EQ(r.err.rfind("tileplan_fit: ", 0), 0u) << r.err;
  }
  // v5a holds no float16 configuration (bf16, fp8 and tf32 only): the fits of
  // the default type name it and the flag that picks another, instead of
  // fitting NaN or blaming split.json.
  for (const std::string mode : {"--registers ", "--time --iterations 1 --restarts 1 "}) {
    const CliResult r = run_program(TILEPLAN_FIT_EXE, mode + data);
    EXPECT_EQ(r.status, 2) << mode << r.err;
    EXPECT_EQ(count_lines(r.err), 1) << mode << r.err;
    EXPECT_NE(r.err.find("float16"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--input-type"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("nan"), std::string::npos) << r.err;
  }
  // A constant set out of its range is refused before any fitting, naming the rule.
  for (const auto& [set, rule] : std::vector<std::pair<std::string, std::string>>{
           {"tail_sync=5", "tail_sync 5 must be at most 1"},
           {"l2_request_bytes=-80", "l2_request_bytes -80 must be a finite number between 0 and 1e9"},
           {"l1_miss_cycles=-5", "l1_miss_cycles -5 must be a finite number between 0 and 1e9"},
           {"one_row_a_extra=-1", "one_row_a_extra -1 must be a finite number between 0 and 1e9"},
           {"kmajor_wide_unit_saving=1", "kmajor_wide_unit_saving 1 must be below 1"},
           {"kmajor_wide_unit_saving=-0.5", "kmajor_wide_unit_saving -0.5 must be a finite number between 0 and 1e9"},
           {"nmajor_wide_unit_cost=-0.1", "nmajor_wide_unit_cost -0.1 must be a finite number between 0 and 1e9"},
           {"copy_bytes_per_cycle=-40", "copy_bytes_per_cycle -40 must be a finite number between 0 and 1e9"},
           {"mma_copy_bytes_per_cycle=1e10", "mma_copy_bytes_per_cycle 10000000000 must be a finite number between 0 and 1e9"},
           {"overlap_power=0.5", "overlap_power 0.5 must be 0 (the plain maximum) or between 1 and 64"}}) {
    const CliResult r = run_program(TILEPLAN_FIT_EXE, "--time --set " + set + " " + source_path("data/h200-triton-v2"));
    EXPECT_EQ(r.status, 2) << set << r.err;
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("--set " + rule), std::string::npos) << r.err;
  }
  const CliResult help = run_program(TILEPLAN_FIT_EXE, "--help");
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("usage: tileplan_fit --registers"), std::string::npos) << help.out;
}

}  // namespace
// A dataset measured on another GPU than the preset describes (meta.json) is
// refused: a fit is of one device's data, with its preset.
TEST(FitCli, RefusesDataOfAnotherGpu) {
  const std::string h100 = source_path("data/h100-triton-pad1");
  const CliResult r = run_program(TILEPLAN_FIT_EXE, "--time --device h200 " + source_path("data/h200-triton-v4") + " " +
                                                        h100);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_EQ(r.err.rfind("tileplan_fit: " + h100 + " was measured on NVIDIA H100 80GB HBM3", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("the h100-sxm preset does: fit one device's data, with its preset (--device)"),
            std::string::npos)
      << r.err;
}

}  // namespace tileplan::test
