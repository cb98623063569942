// tileplan_fit: the shipped family's constants are reproduced by the commands
// their provenance names (registers and run time for tfloat32, whose fit was
// redone with the on-chip transpose of B), and bad input gets one line.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
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
  const json fitted = read_json(out)["by_input_type"]["tfloat32"]["registers"];
  const json& want = shipped()["by_input_type"]["tfloat32"]["registers"];
  ASSERT_FALSE(want.empty());
  for (const auto& [name, c] : want.items()) {
    ASSERT_TRUE(fitted.contains(name)) << name;
    EXPECT_EQ(fitted[name]["value"].get<double>(), c["value"].get<double>()) << name;
  }
  std::remove(out.c_str());
}

TEST(FitCli, TimeReproducesTheShippedTf32Constants) {
  // As the provenance says: from the family with tfloat32's run-time
  // overrides removed, free iteration_cycles and transpose_cycles.
  json start = shipped();
  start["by_input_type"]["tfloat32"].erase("time");
  const std::string in = temp_path("start"), out = temp_path("time");
  {
    std::ofstream f(in);
    f << start.dump(2);
  }
  const CliResult r = run_program(
      TILEPLAN_FIT_EXE,
      "--time --device h200 --input-type tfloat32 --family-file " + in +
          " --fix narrow_access_cycles --fix launch_us --fix tile_overhead_us --fix epilogue_factor"
          " --fix miss_latency_cycles --fix load_latency_cycles --fix mma_n_half --fix kmajor_wide_n"
          " --set transpose_cycles=20 " + source_path("data/h200-triton-v5a") + " --output " + out,
      600);
  ASSERT_EQ(r.status, 0) << r.err;
  const json fitted = read_json(out)["by_input_type"]["tfloat32"]["time"];
  const json& want = shipped()["by_input_type"]["tfloat32"]["time"];
  const double t = fitted["transpose_cycles"]["value"].get<double>();
  EXPECT_NEAR(t, want["transpose_cycles"]["value"].get<double>(), 1e-6 * t);
  EXPECT_LT(fitted["iteration_cycles"]["value"].get<double>(), 1e-3);
  std::remove(in.c_str());
  std::remove(out.c_str());
}

TEST(FitCli, BadInputGetsOneLineAndExitTwo) {
  const std::string data = source_path("data/h200-triton-v5a");
  const std::vector<std::string> cases = {"--bogus", "--registers", "--registers /nonexistent",
                                          "--time --fix nope " + data, "--registers --input-type float7 " + data};
  for (const std::string& args : cases) {
    const CliResult r = run_program(TILEPLAN_FIT_EXE, args);
    EXPECT_EQ(r.status, 2) << args << "\n" << r.err;
    EXPECT_EQ(count_lines(r.err), 1) << args << ": " << r.err;
    EXPECT_EQ(r.err.rfind("tileplan_fit: ", 0), 0u) << r.err;
  }
  const CliResult help = run_program(TILEPLAN_FIT_EXE, "--help");
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("usage: tileplan_fit --registers"), std::string::npos) << help.out;
}

}  // namespace
}  // namespace tileplan::test
