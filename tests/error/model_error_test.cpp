// Bad input to the calibrated model's flags and to `tileplan validate`: one
// line on stderr naming the flag (or file and line), exit status 2.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>

#include "bad_input.hpp"

namespace tileplan::test {
namespace {

class ModelBadInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(ModelBadInput, OneLineExitTwo) {
  expect_usage_error(run_cli(GetParam().args), GetParam().args, GetParam().mentions);
}

INSTANTIATE_TEST_SUITE_P(
    Flags, ModelBadInput,
    ::testing::Values(BadInput{"tile --family cutlass", "--family 'cutlass' is not one of"},
                      BadInput{"tile --model fancy", "--model 'fancy' is not one of: calibrated, seed"},
                      BadInput{"tile --emit cuda", "--emit 'cuda' is not one of"},
                      BadInput{"tile --emit triton --format json", "--emit and --format"},
                      BadInput{"tile --emit triton --shapes /dev/null", "the file holds no shapes"},
                      BadInput{"tile --emit tilelang --shapes /dev/null --format csv", "--emit and --format"},
                      BadInput{"tile --model seed --family triton", "--family triton needs --model calibrated"},
                      BadInput{"validate", "datasets"},
                      BadInput{"validate /nonexistent/dir", "/nonexistent/dir: not a dataset directory"},
                      BadInput{"validate " + source_path("data/h200-triton-v2") + " --split test", "--split 'test'"},
                      BadInput{"validate " + source_path("data/h200-triton-v2") + " --family x", "--family 'x'"},
                      BadInput{"validate " + source_path("data/h200-triton-v2") + " --max-top1-geomean abc",
                               "--max-top1-geomean 'abc' is not a number"},
                      BadInput{"validate " + source_path("data/h200-triton-v2") + " --max-top5-geomean 0.9",
                               "must be at least 1"},
                      BadInput{"validate " + source_path("data/h200-triton-v2") + " --format csv", "--format"},
                      BadInput{"validate " + source_path("data/h200-triton") + " --split heldout", "--split heldout"},
                      BadInput{"validate " + source_path("data/h200-triton") + " --device h300", "--device"},
                      BadInput{"validate " + source_path("data/h200-triton-v6") + " --class float7:rr:MNK",
                               "--class 'float7:rr:MNK' is not a class DTYPE:LL:MNK"},
                      BadInput{"validate " + source_path("data/h200-triton-v6") + " --class float16:rx:MNK",
                               "--class 'float16:rx:MNK'"},
                      BadInput{"validate " + source_path("data/h200-triton-v6") + " --class float16:rr:MN",
                               "--class 'float16:rr:MN'"},
                      BadInput{"validate " + source_path("data/h200-triton-v6") + " --class float16:rr:2NK",
                               "--class 'float16:rr:2NK' is not a class DTYPE:LL:MNK"},
                      BadInput{"validate " + source_path("data/h200-triton-v6") + " --class float16:rr:1NK",
                               "no shape of the given datasets is in that split and those classes"},
                      BadInput{"validate " + source_path("data/h200-triton-v6") + " --class float16:rr:MNK,",
                               "--class ''"},
                      BadInput{"validate " + source_path("data/h200-triton-v6") + " --class float16:rr:mnK",
                               "no shape of the given datasets is in that split and those classes"}),
    [](const ::testing::TestParamInfo<BadInput>& info) { return "Case" + std::to_string(info.index); });

// A temporary dataset directory: data/h200-triton's configs.jsonl and the
// given timings.jsonl lines.
std::filesystem::path temp_dataset(const std::string& name, std::initializer_list<const char*> timings) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / (name + "_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::copy_file(source_path("data/h200-triton/configs.jsonl"), dir / "configs.jsonl",
                fs::copy_options::overwrite_existing);
  std::ofstream f(dir / "timings.jsonl");
  for (const char* line : timings) f << line << "\n";
  return dir;
}

// A malformed line of a dataset is named by file and line.
TEST(ModelBadDataset, MalformedLineNamesFileAndLine) {
  const std::filesystem::path dir =
      temp_dataset("tileplan_bad_dataset", {R"({"M": 64, "N": 64, "K": 64, "key": "64x64x32_s2_w4", "ms": 0.01})",
                                            R"({"M": 64, "N": 64, "K": 64, "key": "64x64x32_s2_w4", "ms": })"});
  const CliResult r = run_cli("validate " + dir.string());
  std::filesystem::remove_all(dir);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("timings.jsonl:2: not a JSON object"), std::string::npos) << r.err;
}

// Rows of parts of a configuration (a reduction timed alone, `aux`; a split
// GEMM timed without its reduction, `gemm_alone`) are not configurations:
// validate reads past them, whatever their key, and scores the rest.
TEST(ModelDataset, PartialRowsAreNotConfigurations) {
  namespace fs = std::filesystem;
  const fs::path dir = temp_dataset(
      "tileplan_partial_rows",
      {R"({"M": 64, "N": 64, "K": 64, "key": "64x64x32_s2_w4", "ms": 0.01})",
       R"({"M": 64, "N": 64, "K": 64, "key": "64x64x32_s2_w4_k2_workspace_gemm", "variant": "gemm_alone", "split_k": 2, "ms": 0.005})",
       R"({"M": 64, "N": 64, "K": 64, "key": "aux_reduce_k2", "variant": "aux", "split_k": 2, "ms": 0.004})"});
  const CliResult ok = run_cli("validate " + dir.string());
  {
    // The same key without the variant is an unknown configuration.
    std::ofstream f(dir / "timings.jsonl", std::ios::app);
    f << R"({"M": 64, "N": 64, "K": 64, "key": "64x64x32_s2_w4_k2_workspace_gemm", "ms": 0.005})" << "\n";
  }
  const CliResult bad = run_cli("validate " + dir.string());
  fs::remove_all(dir);
  EXPECT_EQ(ok.status, 0) << ok.err;
  EXPECT_NE(ok.out.find("shapes 1:"), std::string::npos) << ok.out;
  EXPECT_EQ(bad.status, 2) << bad.err;
  EXPECT_EQ(count_lines(bad.err), 1) << bad.err;
  EXPECT_NE(bad.err.find("timings.jsonl:4: configuration '64x64x32_s2_w4_k2_workspace_gemm' is not in configs.jsonl"),
            std::string::npos)
      << bad.err;
}

}  // namespace
// A meta.json of the wrong shape is named, one line, exit 2.
TEST(ModelBadDataset, MalformedMetaNamesTheFileAndField) {
  const std::filesystem::path dir =
      temp_dataset("tileplan_bad_meta", {R"({"M": 64, "N": 64, "K": 64, "key": "64x64x32_s2_w4", "ms": 0.01})"});
  std::ofstream(dir / "meta.json") << R"({"gpu": "NVIDIA H200", "sm_count": "132"})";
  const CliResult r = run_cli("validate " + dir.string());
  std::filesystem::remove_all(dir);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("meta.json: 'sm_count' must be an integer from 1 to 1000000"), std::string::npos) << r.err;
}

}  // namespace tileplan::test
