// Scoring a model on recorded data: Spearman, geometric mean, regrets, and
// dataset loading, on tiny datasets written by hand.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "tileplan/validate.hpp"

namespace tileplan {
namespace {

namespace fs = std::filesystem;

// A temporary dataset directory, removed at the end of the test.
struct TempDataset {
  fs::path dir;
  explicit TempDataset(const std::string& name) {
    dir = fs::temp_directory_path() / ("tileplan_validate_" + std::to_string(::getpid()) + "_" + name);
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~TempDataset() { fs::remove_all(dir); }
  void write(const char* file, const std::string& text) const { std::ofstream(dir / file) << text; }
  std::string path() const { return dir.string(); }
};

// Three configurations, one refused; one shape with three timings and cuBLAS.
const char* kConfigs =
    R"({"BM": 128, "BN": 256, "BK": 64, "stages": 4, "warps": 8, "key": "128x256x64_s4_w8", "n_regs": 216, "n_spills": 0, "shared": 196608, "occupancy": 1}
{"BM": 64, "BN": 64, "BK": 32, "stages": 2, "warps": 4, "key": "64x64x32_s2_w4", "n_regs": 64, "n_spills": 0, "shared": 16384, "occupancy": 8}
{"BM": 256, "BN": 256, "BK": 128, "stages": 4, "warps": 8, "key": "256x256x128_s4_w8", "error": "OutOfResources"}
{"BM": 128, "BN": 128, "BK": 64, "stages": 3, "warps": 4, "key": "128x128x64_s3_w4", "n_regs": 206, "n_spills": 0, "shared": 98304, "occupancy": 2}
)";
const char* kTimings =
    R"({"M": 4096, "N": 4096, "K": 4096, "key": "cublas", "ms": 0.18}
{"M": 4096, "N": 4096, "K": 4096, "key": "64x64x32_s2_w4", "ms": 0.42}
{"M": 4096, "N": 4096, "K": 4096, "key": "128x256x64_s4_w8", "ms": 0.19}

{"M": 4096, "N": 4096, "K": 4096, "key": "128x128x64_s3_w4", "ms": 0.24}
)";

// The tiny dataset above, 4096^3 a calibration shape, read back.
Dataset tiny_dataset(const std::string& name) {
  TempDataset t(name);
  t.write("configs.jsonl", kConfigs);
  t.write("timings.jsonl", kTimings);
  t.write("split.json", R"({"calibration": ["4096x4096x4096"]})");
  Result<Dataset> loaded = load_dataset(t.path());
  EXPECT_TRUE(loaded.ok()) << loaded.error().message;
  return loaded.ok() ? *loaded : Dataset{};
}

// meta.json's GPU: read when all four fields are there, matched to the
// preset with the same SM count, L2 size and compute capability.
Result<Dataset> with_meta(const std::string& name, const std::string& meta) {
  TempDataset t(name);
  t.write("configs.jsonl", kConfigs);
  t.write("timings.jsonl", kTimings);
  t.write("meta.json", meta);
  return load_dataset(t.path());
}

TEST(DatasetMeta, GpuReadAndMatchedToItsPreset) {
  const char* h100 =
      R"({"gpu": "NVIDIA H100 80GB HBM3", "sm_count": 132, "l2_bytes": 52428800, "compute_capability": "9.0", "x": [1]})";
  Result<Dataset> d = with_meta("meta_h100", h100);
  ASSERT_TRUE(d.ok()) << d.error().message;
  ASSERT_TRUE(d->gpu.has_value());
  EXPECT_EQ(d->gpu->name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(d->gpu->sm_count, 132);
  EXPECT_EQ(d->gpu->l2_bytes, 52428800);
  EXPECT_EQ(d->gpu->compute_capability, 90);
  EXPECT_TRUE(describes(*find_device("h100-sxm"), *d->gpu));
  EXPECT_FALSE(describes(*find_device("h200"), *d->gpu));   // 60 MiB of L2
  EXPECT_FALSE(describes(*find_device("h100-pcie"), *d->gpu));  // 114 SMs
  ASSERT_TRUE(preset_for({*d}).has_value());
  EXPECT_EQ(preset_for({*d})->name, "h100-sxm");

  Result<Dataset> h200 = with_meta(
      "meta_h200", R"({"gpu": "NVIDIA H200", "sm_count": 132, "l2_bytes": 62914560, "compute_capability": "9.0"})");
  ASSERT_TRUE(h200.ok()) << h200.error().message;
  EXPECT_EQ(preset_for({*h200})->name, "h200");
  // Two GPUs, one dataset without a record, or a GPU no preset describes: no match.
  EXPECT_FALSE(preset_for({*d, *h200}).has_value());
  EXPECT_FALSE(preset_for({*d, tiny_dataset("meta_none")}).has_value());
  EXPECT_FALSE(preset_for({}).has_value());
  Result<Dataset> odd = with_meta(
      "meta_odd", R"({"gpu": "Some GPU", "sm_count": 100, "l2_bytes": 52428800, "compute_capability": "9.0"})");
  ASSERT_TRUE(odd.ok());
  EXPECT_FALSE(preset_for({*odd}).has_value());
  // A record without all four fields is no record; no meta.json likewise.
  Result<Dataset> part = with_meta("meta_part", R"({"gpu": "NVIDIA H200", "sm_count": 132})");
  ASSERT_TRUE(part.ok());
  EXPECT_FALSE(part->gpu.has_value());
  EXPECT_FALSE(tiny_dataset("meta_absent").gpu.has_value());
}

TEST(DatasetMeta, FieldsOfTheWrongKindAreRefusedNamingTheFileAndField) {
  const std::pair<const char*, const char*> bad[] = {
      {"[1, 2]", "meta.json: not a JSON object"},
      {"{not json", "meta.json: not a JSON object"},
      {R"({"gpu": 7})", "'gpu' must be the GPU's name"},
      {R"({"gpu": ""})", "'gpu' must be the GPU's name"},
      {R"({"gpu": "a\nb"})", "'gpu' must be the GPU's name"},
      {R"({"sm_count": 0})", "'sm_count' must be an integer from 1 to 1000000"},
      {R"({"sm_count": 13.5})", "'sm_count' must be an integer"},
      {R"({"l2_bytes": -1})", "'l2_bytes' must be an integer from 1 to"},
      {R"({"l2_bytes": 18446744073709551615})", "'l2_bytes' must be an integer from 1 to"},
      {R"({"compute_capability": 9.0})", "'compute_capability' must be \"MAJOR.MINOR\""},
      {R"({"compute_capability": "9"})", "'compute_capability' must be \"MAJOR.MINOR\""},
      {R"({"compute_capability": "x.0"})", "'compute_capability' must be \"MAJOR.MINOR\""},
      {R"({"compute_capability": "999.0"})", "'compute_capability' must be \"MAJOR.MINOR\""},
  };
  for (const auto& [meta, says] : bad) {
    Result<Dataset> d = with_meta("meta_bad", meta);
    ASSERT_FALSE(d.ok()) << meta;
    EXPECT_EQ(d.error().kind, ErrorKind::parse_error) << meta;
    EXPECT_NE(d.error().message.find(says), std::string::npos) << meta << ": " << d.error().message;
    EXPECT_NE(d.error().message.find("meta.json"), std::string::npos) << d.error().message;
  }
}

TEST(Spearman, PerfectReversedAndTied) {
  EXPECT_DOUBLE_EQ(spearman({1, 2, 3, 4}, {10, 20, 30, 40}), 1.0);
  EXPECT_DOUBLE_EQ(spearman({1, 2, 3, 4}, {4, 3, 2, 1}), -1.0);
  // Ranks of y with a tie: (1, 2.5, 2.5, 4). Pearson of (1,2,3,4) with them:
  // deviations (-1.5,-.5,.5,1.5) and (-1.5,0,0,1.5): 4.5 / sqrt(5 * 4.5) = 0.9487.
  EXPECT_NEAR(spearman({1, 2, 3, 4}, {1, 5, 5, 9}), 4.5 / std::sqrt(5.0 * 4.5), 1e-12);
  EXPECT_DOUBLE_EQ(spearman({1, 1, 1}, {1, 2, 3}), 0.0);  // no spread
}

TEST(Geomean, HandValues) {
  EXPECT_DOUBLE_EQ(geomean({}), 1.0);
  EXPECT_NEAR(geomean({1.0, 4.0}), 2.0, 1e-12);
  EXPECT_NEAR(geomean({1.1, 1.1, 1.1}), 1.1, 1e-12);
}

TEST(ScoreRanking, RegretsOfTheOrder) {
  const std::vector<double> ms = {2.0, 1.0, 4.0, 1.5, 3.0, 2.5, 5.0};
  // Order picks candidate 2 (4.0) first: top-1 regret 4.0 / 1.0 = 4; the first
  // five (2, 6, 4, 0, 3) include 1.5 at best: top-5 regret 1.5.
  const RankingScore s = score_ranking({2, 6, 4, 0, 3, 1, 5}, ms).value();
  EXPECT_EQ(s.top1, 2u);
  EXPECT_DOUBLE_EQ(s.top1_regret, 4.0);
  EXPECT_DOUBLE_EQ(s.top5_regret, 1.5);
  // The measured order itself: regrets 1 and rho 1.
  const RankingScore best = score_ranking({1, 3, 0, 5, 4, 2, 6}, ms).value();
  EXPECT_DOUBLE_EQ(best.top1_regret, 1.0);
  EXPECT_DOUBLE_EQ(best.top5_regret, 1.0);
  EXPECT_DOUBLE_EQ(best.spearman, 1.0);
  // Fewer than five candidates: top-5 is over all of them.
  EXPECT_DOUBLE_EQ(score_ranking({0, 1}, {3.0, 1.5}).value().top5_regret, 1.0);
  // Not a permutation, empty, or a time that is not positive: an error, never a read out of bounds.
  EXPECT_FALSE(score_ranking({0, 5}, {3.0, 1.5}).ok());
  EXPECT_FALSE(score_ranking({0, 0}, {3.0, 1.5}).ok());
  EXPECT_FALSE(score_ranking({}, {}).ok());
  EXPECT_FALSE(score_ranking({0}, {3.0, 1.5}).ok());
  EXPECT_EQ(score_ranking({1, 0}, {3.0, 0.0}).error().param, "measured_ms");
}

TEST(ParseShape, GoodAndBad) {
  const auto p = parse_shape("1040x4112x2064");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->m, 1040);
  EXPECT_EQ(p->n, 4112);
  EXPECT_EQ(p->k, 2064);
  EXPECT_EQ(shape_name(*p), "1040x4112x2064");
  for (const char* bad : {"", "1x2", "1x2x", "ax2x3", "1x2x3x4", "0x1x1", "1 x2x3", "-1x2x3", "1x2x3:", "1x2x3:float16",
                          "1x2x3:float16:r", "1x2x3:float16:rrr", "1x2x3:float16:rx", "1x2x3:float32:rr",
                          "1x2x3:fp16:rr", "1x2x3::rr"})
    EXPECT_FALSE(parse_shape(bad).has_value()) << bad;
}

TEST(ParseShape, CasesWithTypeAndLayouts_RoundTrip) {
  const auto p = parse_shape("4096x1000x4096:float8_e4m3:rc");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->dtype, DType::float8_e4m3);
  EXPECT_EQ(p->a_layout, Layout::row);
  EXPECT_EQ(p->b_layout, Layout::col);
  EXPECT_EQ(shape_name(*p), "4096x1000x4096:float8_e4m3:rc");
  EXPECT_EQ(problem_class(*p), "float8_e4m3:rc:MnK");  // 1000 is not a multiple of 16
  // float16 with both operands row-major keeps the short name, with or without the suffix.
  const auto q = parse_shape("1000x4096x1500:float16:rr");
  ASSERT_TRUE(q);
  EXPECT_EQ(shape_name(*q), "1000x4096x1500");
  EXPECT_EQ(problem_class(*q), "float16:rr:mNk");
  EXPECT_EQ(problem_class(*parse_shape("16x32x48")), "float16:rr:MNK");
  // Triton specializes an integer argument equal to 1 apart from the others.
  EXPECT_EQ(problem_class(*parse_shape("1x4096x14336")), "float16:rr:1NK");
  EXPECT_EQ(problem_class(*parse_shape("17x1x1:bfloat16:rc")), "bfloat16:rc:m11");
}

TEST(LoadDataset, ClassesKeepTheirOwnConfigurations) {
  // One key measured in two classes with different registers; each timing
  // line finds its own class's row, and the same shape in two types is two cases.
  TempDataset t("classes");
  t.write("configs.jsonl",
          R"({"BM": 64, "BN": 64, "BK": 32, "stages": 2, "warps": 4, "key": "64x64x32_s2_w4", "class": "float16:rr:MNK", "n_regs": 64, "n_spills": 0, "shared": 16384, "occupancy": 8}
{"BM": 64, "BN": 64, "BK": 32, "stages": 2, "warps": 4, "key": "64x64x32_s2_w4", "class": "bfloat16:rr:MNK", "n_regs": 90, "n_spills": 0, "shared": 16384, "occupancy": 7}
)");
  t.write("timings.jsonl",
          R"({"M": 64, "N": 64, "K": 64, "key": "64x64x32_s2_w4", "ms": 0.01, "class": "float16:rr:MNK"}
{"M": 64, "N": 64, "K": 64, "key": "64x64x32_s2_w4", "ms": 0.02, "dtype": "bfloat16", "class": "bfloat16:rr:MNK"}
)");
  t.write("split.json", R"({"calibration": ["64x64x64"], "held_out": ["64x64x64:bfloat16:rr"]})");
  Result<Dataset> loaded = load_dataset(t.path());
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  ASSERT_EQ(loaded->shapes.size(), 2u);
  ASSERT_EQ(loaded->configs.size(), 2u);
  const MeasuredShape& bf = loaded->shapes[1];
  EXPECT_EQ(bf.problem.dtype, DType::bfloat16);
  ASSERT_EQ(bf.times_ms.size(), 1u);
  EXPECT_EQ(loaded->configs[bf.times_ms[0].first].klass, "bfloat16:rr:MNK");
  EXPECT_EQ(loaded->configs[bf.times_ms[0].first].regs_per_thread, 90);
  EXPECT_EQ(split_of({*loaded}, loaded->shapes[0].problem), Split::calibration);
  EXPECT_EQ(split_of({*loaded}, bf.problem), Split::held_out);
  // A class the configurations do not hold is named.
  t.write("timings.jsonl", R"({"M": 64, "N": 64, "K": 64, "key": "64x64x32_s2_w4", "ms": 0.01, "class": "tfloat32:rr:MNK"})");
  const Result<Dataset> bad = load_dataset(t.path());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("configuration '64x64x32_s2_w4' of class 'tfloat32:rr:MNK' is not in configs.jsonl"),
            std::string::npos)
      << bad.error().message;
}

TEST(LoadDataset, ReadsConfigsTimingsAndSplit) {
  TempDataset t("good");
  t.write("configs.jsonl", kConfigs);
  t.write("timings.jsonl", kTimings);
  t.write("split.json", R"({"calibration": ["4096x4096x4096"], "held_out": ["32x8192x8192"]})");
  Result<Dataset> loaded = load_dataset(t.path());
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  const Dataset& d = *loaded;
  ASSERT_EQ(d.configs.size(), 4u);
  // Sweep order: block_M, then block_N, ...: 64x64, 128x128, 128x256, 256x256.
  EXPECT_EQ(d.configs[0].key, "64x64x32_s2_w4");
  EXPECT_EQ(d.configs[1].key, "128x128x64_s3_w4");
  EXPECT_EQ(d.configs[2].key, "128x256x64_s4_w8");
  EXPECT_EQ(d.configs[2].config.threads, 256);  // 8 warps * 32
  EXPECT_EQ(d.configs[2].regs_per_thread, 216);
  EXPECT_FALSE(d.configs[3].compiled);
  ASSERT_EQ(d.shapes.size(), 1u);
  EXPECT_EQ(d.shapes[0].times_ms.size(), 3u);
  ASSERT_TRUE(d.shapes[0].cublas_ms);
  EXPECT_DOUBLE_EQ(*d.shapes[0].cublas_ms, 0.18);
  EXPECT_TRUE(d.has_split);
  EXPECT_EQ(split_of({d}, {4096, 4096, 4096}), Split::calibration);
  EXPECT_EQ(split_of({d}, {32, 8192, 8192}), Split::held_out);
  EXPECT_EQ(split_of({d}, {1, 2, 3}), Split::unlabelled);
}

TEST(LoadDataset, SupersededCasesAreDroppedAsTheDatasetIsRead) {
  // Two cases; the second's rows were replaced by a later measurement. It is
  // gone from the shapes (so neither validate nor the fitter sees it) even
  // where another list of the file still names it, and it is remembered.
  TempDataset t("superseded");
  t.write("configs.jsonl", kConfigs);
  t.write("timings.jsonl", std::string(kTimings) + R"({"M": 32, "N": 8192, "K": 8192, "key": "64x64x32_s2_w4", "ms": 0.05}
)");
  t.write("split.json", R"({"held_out": ["4096x4096x4096", "32x8192x8192"],
    "superseded": {"shapes": ["32x8192x8192"], "by": "elsewhere", "why": "a slowed run"}})");
  Result<Dataset> loaded = load_dataset(t.path());
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  ASSERT_EQ(loaded->shapes.size(), 1u);
  EXPECT_EQ(loaded->shapes[0].problem.m, 4096);
  ASSERT_EQ(loaded->superseded.size(), 1u);
  EXPECT_EQ(loaded->superseded[0].m, 32);
  EXPECT_EQ(loaded->superseded_by, "elsewhere");
  // Without the entry both cases are read.
  t.write("split.json", R"({"held_out": ["4096x4096x4096", "32x8192x8192"]})");
  Result<Dataset> both = load_dataset(t.path());
  ASSERT_TRUE(both.ok()) << both.error().message;
  EXPECT_EQ(both->shapes.size(), 2u);
  EXPECT_TRUE(both->superseded.empty());
}

TEST(LoadDataset, SplitIsOptional) {
  TempDataset t("nosplit");
  t.write("configs.jsonl", kConfigs);
  t.write("timings.jsonl", kTimings);
  Result<Dataset> loaded = load_dataset(t.path());
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  const Dataset& d = *loaded;
  EXPECT_FALSE(d.has_split);
}

struct BadFile {
  const char* file;
  std::string text;
  std::string expect;  // a part of the error
};

TEST(LoadDataset, ErrorsNameFileAndLine) {
  const BadFile cases[] = {
      {"configs.jsonl", "{\"BM\": 64}\nnot json\n", "configs.jsonl:1: missing field 'BN'"},
      {"configs.jsonl", std::string(kConfigs) + "{oops\n", "configs.jsonl:5: not a JSON object"},
      {"configs.jsonl", std::string(kConfigs) + "[1, 2]\n", "configs.jsonl:5: not a JSON object"},
      {"configs.jsonl",
       R"({"BM": 64, "BN": 64, "BK": 32, "stages": 2, "warps": 4, "key": "a", "n_regs": 64, "n_spills": 0, "shared": 1})",
       "configs.jsonl:1: missing field 'occupancy'"},
      {"configs.jsonl",
       R"({"BM": 0, "BN": 64, "BK": 32, "stages": 2, "warps": 4, "key": "a", "error": "x"})",
       "configs.jsonl:1: configuration 'a': BM value 0"},
      {"configs.jsonl",
       R"({"BM": 64, "BN": 64, "BK": 32, "stages": 2, "warps": 288230376151711744, "key": "a", "error": "x"})",
       "configs.jsonl:1: configuration 'a': warps 288230376151711744 must be between 1 and 2048"},
      {"configs.jsonl", std::string(70000, ' ') + "{}\n", "configs.jsonl:1: the line is longer than 65536 bytes"},
      {"configs.jsonl", std::string(kConfigs) + kConfigs, "configs.jsonl:5: configuration '128x256x64_s4_w8' repeats line 1"},
      {"configs.jsonl", "", "holds no configurations"},
      {"timings.jsonl", std::string(kTimings) + "{\"M\": 1, \"N\": 1, \"K\": 1, \"key\": \"nope\", \"ms\": 1}\n",
       "timings.jsonl:6: configuration 'nope' is not in configs.jsonl"},
      {"timings.jsonl", std::string(kTimings) + "{\"M\": 1, \"N\": 1, \"K\": 1, \"key\": \"256x256x128_s4_w8\", \"ms\": 1}\n",
       "timings.jsonl:6: configuration '256x256x128_s4_w8' has a time but configs.jsonl records it as refused"},
      {"timings.jsonl", "{\"M\": 1, \"N\": 1, \"K\": 1, \"key\": \"64x64x32_s2_w4\", \"ms\": -1}\n",
       "timings.jsonl:1: field 'ms' must be a number between 1e-06 and 1000000"},
      {"timings.jsonl", "{\"M\": 1, \"N\": 1, \"K\": 1, \"key\": \"64x64x32_s2_w4\", \"ms\": 1e-300}\n",
       "timings.jsonl:1: field 'ms' must be a number between"},
      {"timings.jsonl", std::string(kTimings) + "{\"M\": 4096, \"N\": 4096, \"K\": 4096, \"key\": \"64x64x32_s2_w4\", \"ms\": 9}\n",
       "timings.jsonl:6: case 4096x4096x4096 configuration '64x64x32_s2_w4' repeats line 2"},
      {"timings.jsonl", "{\"M\": 1, \"N\": 1, \"K\": 1.5, \"key\": \"64x64x32_s2_w4\", \"ms\": 1}\n",
       "timings.jsonl:1: field 'K' must be an integer"},
      {"timings.jsonl", "{\"M\": 0, \"N\": 1, \"K\": 1, \"key\": \"64x64x32_s2_w4\", \"ms\": 1}\n",
       "timings.jsonl:1: M is 0"},
      {"timings.jsonl", "{\"M\": 1, \"N\": 1, \"K\": 1, \"key\": \"cublas\", \"ms\": 1}\n", "has only a cuBLAS time"},
      {"split.json", "{\"calibration\": [\"4096x4096\"]}", "split.json: 'calibration' item 1 is not a case"},
      // Nested 100,000 deep: named by position, never dumped (a recursive dump overflowed the stack).
      {"split.json", "{\"held_out\": [\"1x1x1\", " + std::string(100000, '[') + std::string(100000, ']') + "]}",
       "split.json: 'held_out' item 2 is not a case"},
      {"split.json", "[]", "split.json: not a JSON object"},
      {"split.json", "{\"held_out\": [\"1x1x1:float7:rr\"]}", "split.json: 'held_out' item 1 is not a case"},
      {"split.json", "{\"superseded\": [\"1x1x1\"]}", "split.json: 'superseded' must be an object whose 'shapes'"},
      {"split.json", "{\"superseded\": {\"by\": \"v2\"}}", "split.json: 'superseded' must be an object whose 'shapes'"},
      {"split.json", "{\"superseded\": {\"shapes\": [\"1x1\"]}}", "split.json: 'superseded' item 1 is not a case"},
      {"split.json", "{\"superseded\": {\"shapes\": [], \"why\": 3}}", "split.json: 'superseded' field 'why' must be a string"},
      {"split.json", "{\"superseded\": {\"shapes\": [], \"by\": \"a\\nb\"}}", "'superseded' field 'by' must be at most 512"},
      {"split.json", "{\"superseded\": {\"shapes\": [], \"by\": \"" + std::string(513, 'x') + "\"}}",
       "'superseded' field 'by' must be at most 512"},
      {"timings.jsonl", "{\"M\": 1, \"N\": 1, \"K\": 1, \"key\": \"64x64x32_s2_w4\", \"ms\": 1, \"dtype\": \"float7\"}\n",
       "timings.jsonl:1: field 'dtype' must be one of float16, bfloat16"},
      {"timings.jsonl", "{\"M\": 1, \"N\": 1, \"K\": 1, \"key\": \"64x64x32_s2_w4\", \"ms\": 1, \"dtype\": \"float32\"}\n",
       "timings.jsonl:1: field 'dtype' must be one of"},
      {"timings.jsonl", "{\"M\": 1, \"N\": 1, \"K\": 1, \"key\": \"64x64x32_s2_w4\", \"ms\": 1, \"b_layout\": \"diag\"}\n",
       "timings.jsonl:1: field 'b_layout' must be row or col"},
      {"timings.jsonl", "{\"M\": 1, \"N\": 1, \"K\": 1, \"key\": \"64x64x32_s2_w4\", \"ms\": 1, \"class\": 7}\n",
       "timings.jsonl:1: field 'class' must be a string"},
      // The clock a row ran at (the harnesses since data/h100-profile-power).
      {"timings.jsonl", "{\"M\": 1, \"N\": 1, \"K\": 1, \"key\": \"64x64x32_s2_w4\", \"ms\": 1, \"sm_clock_mhz\": \"fast\"}\n",
       "timings.jsonl:1: field 'sm_clock_mhz' must be a number between 1 and 10000 (MHz)"},
      {"timings.jsonl", "{\"M\": 1, \"N\": 1, \"K\": 1, \"key\": \"64x64x32_s2_w4\", \"ms\": 1, \"sm_clock_mhz\": 0}\n",
       "timings.jsonl:1: field 'sm_clock_mhz' must be a number between 1 and 10000 (MHz)"},
      {"timings.jsonl", "{\"M\": 1, \"N\": 1, \"K\": 1, \"key\": \"64x64x32_s2_w4\", \"ms\": 1, \"sm_clock_mhz\": -1980}\n",
       "timings.jsonl:1: field 'sm_clock_mhz' must be a number between 1 and 10000 (MHz)"},
      {"timings.jsonl", "{\"M\": 1, \"N\": 1, \"K\": 1, \"key\": \"cublas\", \"ms\": 1, \"sm_clock_mhz\": 1e300}\n",
       "timings.jsonl:1: field 'sm_clock_mhz' must be a number between 1 and 10000 (MHz)"},
      {"timings.jsonl", "{\"M\": 1, \"N\": 1, \"K\": 1, \"key\": \"64x64x32_s2_w4\", \"ms\": 1, \"sm_clock_mhz\": null}\n",
       "timings.jsonl:1: field 'sm_clock_mhz' must be a number"},
      {"timings.jsonl", "{\"M\": 1, \"N\": 1, \"K\": 1, \"key\": \"64x64x32_s2_w4\", \"ms\": 1, \"clock_reasons\": 4}\n",
       "timings.jsonl:1: field 'clock_reasons' must be a list of at most 32 strings"},
      {"timings.jsonl", "{\"M\": 1, \"N\": 1, \"K\": 1, \"key\": \"64x64x32_s2_w4\", \"ms\": 1, \"clock_reasons\": [\"sw_power_cap\", 4]}\n",
       "timings.jsonl:1: field 'clock_reasons' must be a list of at most 32 strings"},
      {"timings.jsonl", "{\"M\": 1, \"N\": 1, \"K\": 1, \"key\": \"64x64x32_s2_w4\", \"ms\": 1, \"clock_reasons\": [" +
       [] {
         std::string list;
         for (int i = 0; i < 33; ++i) list += (i ? ",\"a\"" : "\"a\"");
         return list;
       }() + "]}\n",
       "timings.jsonl:1: field 'clock_reasons' must be a list of at most 32 strings"},
      // Split-K fields of a configuration: through the one checker.
      {"configs.jsonl",
       R"({"BM": 64, "BN": 64, "BK": 32, "stages": 2, "warps": 4, "key": "a", "split_k": 0, "error": "x"})",
       "configs.jsonl:1: configuration 'a': split_k value 0 must be at least 1"},
      {"configs.jsonl",
       R"({"BM": 64, "BN": 64, "BK": 32, "stages": 2, "warps": 4, "key": "a", "split_k": -8, "error": "x"})",
       "configs.jsonl:1: configuration 'a': split_k value -8 must be at least 1"},
      {"configs.jsonl",
       R"({"BM": 64, "BN": 64, "BK": 32, "stages": 2, "warps": 4, "key": "a", "split_k": 1e30, "error": "x"})",
       "configs.jsonl:1: field 'split_k' must be an integer"},
      {"configs.jsonl",
       R"({"BM": 64, "BN": 64, "BK": 32, "stages": 2, "warps": 4, "key": "a", "split_k": 99999999999, "error": "x"})",
       "configs.jsonl:1: configuration 'a': split_k value 99999999999 must be at most 65536"},
      {"configs.jsonl",
       R"({"BM": 64, "BN": 64, "BK": 32, "stages": 2, "warps": 4, "key": "a", "variant": 3, "error": "x"})",
       "configs.jsonl:1: field 'variant' must be a string"},
  };
  for (const BadFile& c : cases) {
    TempDataset t("bad");
    t.write("configs.jsonl", kConfigs);
    t.write("timings.jsonl", kTimings);
    t.write(c.file, c.text);
    const Result<Dataset> d = load_dataset(t.path());
    ASSERT_FALSE(d.ok()) << c.expect;
    const std::string& err = d.error().message;
    EXPECT_EQ(d.error().kind, ErrorKind::parse_error) << err;
    EXPECT_NE(err.find(c.expect), std::string::npos) << err;
    EXPECT_EQ(err.find('\n'), std::string::npos) << err;
  }
}

TEST(LoadDataset, MissingDirectory) {
  const Result<Dataset> d = load_dataset("/nonexistent/dataset");
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().kind, ErrorKind::io_error);
  EXPECT_EQ(d.error().message, "/nonexistent/dataset: not a dataset directory");
}

TEST(LoadDataset, SplitThatIsADirectory_IsAnError) {
  TempDataset t("splitdir");
  t.write("configs.jsonl", kConfigs);
  t.write("timings.jsonl", kTimings);
  std::filesystem::create_directory(t.path() + "/split.json");
  const Result<Dataset> d = load_dataset(t.path());
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error().message.find("split.json: not a regular file"), std::string::npos) << d.error().message;
}

TEST(Validate, ScoresBothModelsOnATinyDataset) {
  const Dataset d = tiny_dataset("score");
  const Device dev = *find_device("h200");
  const ValidationReport r = validate(dev, {d}, SplitFilter::all).value();
  ASSERT_EQ(r.shapes.size(), 1u);
  const ShapeScore& s = r.shapes[0];
  EXPECT_EQ(s.candidates, 3u);
  EXPECT_EQ(s.best_key, "128x256x64_s4_w8");
  EXPECT_DOUBLE_EQ(s.best_ms, 0.19);
  // The calibrated model picks the big tile for 4096^3 (the fastest here).
  EXPECT_EQ(s.calibrated_top1_key, "128x256x64_s4_w8");
  EXPECT_DOUBLE_EQ(s.calibrated.top1_regret, 1.0);
  // The seed model ranks by least traffic first: 128x256 (1/256 + 1/128) beats
  // 128x128 (2/128) beats 64x64: the same pick here.
  EXPECT_EQ(s.seed_top1_key, "128x256x64_s4_w8");
  EXPECT_DOUBLE_EQ(s.seed.top5_regret, 1.0);
  EXPECT_EQ(r.calibrated.shapes, 1u);
  EXPECT_DOUBLE_EQ(r.calibrated.top1_geomean, 1.0);
  // Filters: the shape is calibration, so held-out selects nothing.
  EXPECT_TRUE(validate(dev, {d}, SplitFilter::held_out).value().shapes.empty());
  EXPECT_EQ(validate(dev, {d}, SplitFilter::calibration).value().shapes.size(), 1u);
}

// The clock each row ran at: read where a row carries sm_clock_mhz (capped
// where clock_reasons names the power cap), summarized per shape (least,
// median, most; the pick's, the best's, cuBLAS's) and over the report.
TEST(Validate, TheRowsClocksAreReadAndSummarized) {
  TempDataset t("clocks");
  t.write("configs.jsonl", kConfigs);
  t.write("timings.jsonl",
          R"({"M": 4096, "N": 4096, "K": 4096, "key": "cublas", "ms": 0.18, "sm_clock_mhz": 1980, "clock_reasons": []}
{"M": 4096, "N": 4096, "K": 4096, "key": "64x64x32_s2_w4", "ms": 0.42, "sm_clock_mhz": 1700, "clock_reasons": ["sw_power_cap"]}
{"M": 4096, "N": 4096, "K": 4096, "key": "128x256x64_s4_w8", "ms": 0.19, "sm_clock_mhz": 1830, "clock_reasons": ["hw_power_brake", "sw_thermal"]}
{"M": 4096, "N": 4096, "K": 4096, "key": "128x128x64_s3_w4", "ms": 0.24, "clock_reasons": ["sw_power_cap"]}
)");
  Result<Dataset> loaded = load_dataset(t.path());
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  const MeasuredShape& m = loaded->shapes.at(0);
  ASSERT_TRUE(m.cublas_clock.has_value());
  EXPECT_DOUBLE_EQ(m.cublas_clock->mhz, 1980);
  EXPECT_FALSE(m.cublas_clock->power_capped);
  ASSERT_EQ(m.clocks.size(), 2u);  // the row without sm_clock_mhz carries none
  const ValidationReport r = validate(*find_device("h200"), {*loaded}, SplitFilter::all).value();
  ASSERT_EQ(r.shapes.size(), 1u);
  const ShapeScore& s = r.shapes[0];
  EXPECT_EQ(s.clock.rows, 2u);
  EXPECT_EQ(s.clock.capped, 2u);
  EXPECT_DOUBLE_EQ(s.clock.min_mhz, 1700);
  EXPECT_DOUBLE_EQ(s.clock.max_mhz, 1830);
  EXPECT_DOUBLE_EQ(s.clock.median_mhz, 1830);  // the upper of two
  ASSERT_EQ(s.calibrated_top1_key, "128x256x64_s4_w8");
  ASSERT_TRUE(s.pick_clock && s.best_clock && s.cublas_clock);
  EXPECT_DOUBLE_EQ(s.pick_clock->mhz, 1830);
  EXPECT_TRUE(s.pick_clock->power_capped);
  EXPECT_DOUBLE_EQ(s.best_clock->mhz, 1830);
  EXPECT_EQ(r.clocks.candidates.rows, 2u);
  EXPECT_EQ(r.clocks.candidates.capped, 2u);
  EXPECT_EQ(r.clocks.cublas_rows, 1u);
  EXPECT_EQ(r.clocks.cublas_capped, 0u);
  EXPECT_DOUBLE_EQ(r.clocks.candidates.min_mhz, 1700);
  // Datasets without clocks: nothing.
  const ValidationReport none = validate(*find_device("h200"), {tiny_dataset("no_clocks")}, SplitFilter::all).value();
  EXPECT_EQ(none.clocks.candidates.rows, 0u);
  EXPECT_EQ(none.clocks.cublas_rows, 0u);
  EXPECT_FALSE(none.shapes.at(0).pick_clock.has_value());
  // A hand-built dataset whose clock names a configuration it does not have: an error, not a read past the end.
  Dataset bad = *loaded;
  bad.shapes[0].clocks.emplace_back(99, RowClock{1500, false});
  EXPECT_FALSE(validate(*find_device("h200"), {bad}, SplitFilter::all).ok());
}

// How far the model's microseconds are: the calibrated pick's measured time
// over its predicted one, per shape and summarized (geomean, range); the seed
// model predicts no time and has none.
TEST(Validate, ThePicksMeasuredOverPredictedTime) {
  const Device dev = *find_device("h200");
  const ValidationReport r = validate(dev, {tiny_dataset("time_ratio")}, SplitFilter::all).value();
  ASSERT_EQ(r.shapes.size(), 1u);
  const ShapeScore& s = r.shapes[0];
  const GemmProblem p{.m = 4096, .n = 4096, .k = 4096};
  const Result<Verdict> v =
      diagnose(p, dev, TileConfig{128, 256, 64, 4, 256}, Model::calibrated, default_family());
  ASSERT_TRUE(v.ok() && v->predicted);
  EXPECT_DOUBLE_EQ(s.pick_predicted_ms, v->predicted_us * 1e-3);
  EXPECT_EQ(r.calibrated.time_ratio_shapes, 1u);
  EXPECT_DOUBLE_EQ(r.calibrated.time_ratio_geomean, s.pick_ms / s.pick_predicted_ms);
  EXPECT_DOUBLE_EQ(r.calibrated.time_ratio_min, r.calibrated.time_ratio_max);
  EXPECT_EQ(r.seed.time_ratio_shapes, 0u);

  // Over several shapes: the geometric mean and the range of the ratios.
  std::vector<ShapeScore> shapes(3, s);
  shapes[0].pick_ms = 2.0, shapes[0].pick_predicted_ms = 1.0;
  shapes[1].pick_ms = 1.0, shapes[1].pick_predicted_ms = 2.0;
  shapes[2].pick_ms = 4.0, shapes[2].pick_predicted_ms = 0.0;  // no prediction: left out
  const ScoreSummary x = summarize(shapes, true);
  EXPECT_EQ(x.time_ratio_shapes, 2u);
  EXPECT_NEAR(x.time_ratio_geomean, 1.0, 1e-12);
  EXPECT_DOUBLE_EQ(x.time_ratio_min, 0.5);
  EXPECT_DOUBLE_EQ(x.time_ratio_max, 2.0);
  EXPECT_EQ(summarize(shapes, false).time_ratio_shapes, 0u);
}

TEST(Validate, CommittedHeldOutShapesAreNotCalibration) {
  Result<Dataset> loaded = load_dataset(std::string(TILEPLAN_SOURCE_DIR) + "/data/h200-triton-v2");
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  const Dataset& d = *loaded;
  EXPECT_EQ(d.calibration.size(), 20u);
  EXPECT_EQ(d.held_out.size(), 12u);
  for (const GemmProblem& h : d.held_out)
    for (const GemmProblem& c : d.calibration) EXPECT_FALSE(h.m == c.m && h.n == c.n && h.k == c.k);
  EXPECT_EQ(d.shapes.size(), 32u);
  for (const MeasuredShape& s : d.shapes) EXPECT_EQ(s.times_ms.size(), 168u) << shape_name(s.problem);
}

}  // namespace
}  // namespace tileplan
