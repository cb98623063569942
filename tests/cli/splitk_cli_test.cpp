// `tileplan tile --split-k` and `tileplan validate` on split-K data: the
// split column and fields, the reduction's share, the advice of --diagnose,
// SPLIT_K in the emitted configs, the C4 failure of a split beyond K, and the
// committed gate on the held-out split-K shapes.
#include <gtest/gtest.h>

#include <cmath>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "known_miss.hpp"
#include "run_cli.hpp"

namespace tileplan::test {
namespace {

using nlohmann::json;

json split_json(const std::string& args) {
  const CliResult r = run_cli(args + " --format json");
  EXPECT_EQ(r.status, 0) << args << "\n" << r.err;
  return json::parse(r.out);
}

// The dataset folders PREFIX + each of PARTS, as validate's arguments (each
// followed by a space).
std::string folders(const std::string& prefix, std::initializer_list<const char*> parts) {
  std::string out;
  for (const char* part : parts) out += source_path(prefix + part) + " ";
  return out;
}

// The family before the split's DRAM share grew with the split (the flat
// share, data/archive), as validate's flag.
std::string flat_share_flag() {
  return "--family-file " + source_path("data/archive/triton-before-split-growth.json") + " ";
}

// The family before kmajor_b_row_dram_share (the grown split share), as validate's flag.
std::string before_kmajor_rows_flag() {
  return "--family-file " + source_path("data/archive/triton-before-kmajor-b-rows.json") + " ";
}

TEST(SplitKCli, SweepCarriesSplitAndReduction) {
  const json j = split_json("tile --m 512 --n 512 --k 16384 --split-k 1,2,4,8,16 --topk 0");
  ASSERT_FALSE(j["candidates"].empty());
  EXPECT_EQ(j["space_size"], 360 * 5);  // the family's measured space, 5 split factors
  bool split = false, unsplit = false;
  for (const json& c : j["candidates"]) {
    const int64_t s = c["split_k"];
    const int64_t kt = (16384 + c["block_k"].get<int64_t>() - 1) / c["block_k"].get<int64_t>();
    EXPECT_LE(s, kt);
    const int64_t tiles = ((512 + c["block_m"].get<int64_t>() - 1) / c["block_m"].get<int64_t>()) *
                          ((512 + c["block_n"].get<int64_t>() - 1) / c["block_n"].get<int64_t>());
    EXPECT_EQ(c["grid"], tiles * s) << c.dump();
    if (s > 1) {
      split = true;
      EXPECT_GT(c["reduce_us"].get<double>(), 0.0);
      EXPECT_LT(c["reduce_us"].get<double>(), c["predicted_us"].get<double>());
    } else {
      unsplit = true;
      EXPECT_EQ(c["reduce_us"].get<double>(), 0.0);
    }
  }
  EXPECT_TRUE(split && unsplit);
  EXPECT_GT(j["candidates"][0]["split_k"].get<int64_t>(), 1);  // 16 tiles of 128x128 for 132 SMs: split
}

TEST(SplitKCli, DefaultSpaceDoesNotSplit) {
  const json j = split_json("tile --m 512 --n 512 --k 16384 --topk 0");
  for (const json& c : j["candidates"]) EXPECT_EQ(c["split_k"], 1);
  const CliResult text = run_cli("tile --m 512 --n 512 --k 16384 --topk 3");
  EXPECT_EQ(text.out.find(" split "), std::string::npos) << text.out;  // no split column
}

// --split-k auto is the list of the factors the family's split kernel was
// measured with; --diagnose refuses it (one factor; its advice weighs all).
TEST(SplitKCli, AutoSweepsTheMeasuredFactors) {
  const json autos = split_json("tile --m 256 --n 5120 --k 13824 --split-k auto --topk 0");
  const json listed = split_json("tile --m 256 --n 5120 --k 13824 --split-k 1,2,3,4,5,6,8,12,16 --topk 0");
  EXPECT_EQ(autos["candidates"], listed["candidates"]);
  ASSERT_FALSE(autos["candidates"].empty());
  EXPECT_EQ(autos["candidates"][0]["split_k"].get<int64_t>(), 3);
  const CliResult d = run_cli("tile --diagnose --m 256 --n 5120 --k 13824 --split-k auto");
  EXPECT_EQ(d.status, 2);
  EXPECT_EQ(count_lines(d.err), 1) << d.err;
  EXPECT_NE(d.err.find("--split-k auto"), std::string::npos) << d.err;
  const CliResult bad = run_cli("tile --m 256 --n 5120 --k 13824 --split-k automatic");
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(count_lines(bad.err), 1) << bad.err;
}

TEST(SplitKCli, TextShowsTheSplitColumnAndTheNextCommand) {
  const CliResult r = run_cli("tile --m 512 --n 512 --k 16384 --split-k 1,2,4,8 --topk 3");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find(" split "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--split-k "), std::string::npos) << r.out;  // the next: line reproduces the split
}

TEST(SplitKCli, DiagnoseSaysWhetherASplitPays) {
  const std::string tile = " --block-m 128 --block-n 128 --block-k 64 --stages 4 --threads 256";
  const CliResult starved = run_cli("tile --diagnose --m 512 --n 512 --k 16384" + tile);
  ASSERT_EQ(starved.status, 0) << starved.err;
  EXPECT_NE(starved.out.find("split-K                 pays: split_k "), std::string::npos) << starved.out;
  const CliResult square = run_cli("tile --diagnose --m 8192 --n 8192 --k 4096" + tile);
  ASSERT_EQ(square.status, 0) << square.err;
  EXPECT_NE(square.out.find("split-K                 does not pay"), std::string::npos) << square.out;
  const CliResult split = run_cli("tile --diagnose --m 512 --n 512 --k 16384 --split-k 4" + tile);
  ASSERT_EQ(split.status, 0) << split.err;
  EXPECT_NE(split.out.find("split_k 4"), std::string::npos) << split.out;
  EXPECT_NE(split.out.find("of which the reduction"), std::string::npos) << split.out;
  EXPECT_NE(split.out.find("programs (16 tiles x split_k 4)"), std::string::npos) << split.out;
  // The split GEMM's overrun terms: its DRAM share (0.08 grown by
  // 2(1 - 1/4) = 1.5 at split 4: 12%) and its partial stores (512*512*4
  // fp32 bytes x 4 = 4.19 MB at the H200's 4.8 TB/s: 0.87 us); a wgmma
  // tile's bytes in flight are not priced, so no such line.
  EXPECT_NE(split.out.find("   split's DRAM            its programs stream B from 4 K slices at once: DRAM's time +12%"),
            std::string::npos)
      << split.out;
  EXPECT_NE(split.out.find("   partial stores          0.87 us after the SMs and DRAM (split_k 4"), std::string::npos)
      << split.out;
  EXPECT_EQ(split.out.find("bytes in flight"), std::string::npos) << split.out;
  const json st = split_json("tile --diagnose --m 512 --n 512 --k 16384 --split-k 4" + tile)["candidates"][0]["time_terms"];
  EXPECT_DOUBLE_EQ(st["split_dram_share"].get<double>(), 0.12);
  EXPECT_NEAR(st["dram_scale"].get<double>(), 1.12, 1e-12);
  EXPECT_NEAR(st["partial_store_us"].get<double>(), 4.0 * 512 * 512 * 4 / 4.8e6, 1e-9);
  // Unsplit: neither term, nor its lines.
  const json un = split_json("tile --diagnose --m 512 --n 512 --k 16384" + tile)["candidates"][0]["time_terms"];
  EXPECT_EQ(un["split_dram_share"].get<double>(), 0.0);
  EXPECT_EQ(un["partial_store_us"].get<double>(), 0.0);
  EXPECT_EQ(starved.out.find("partial stores"), std::string::npos) << starved.out;
  EXPECT_EQ(starved.out.find("split's DRAM"), std::string::npos) << starved.out;
  // A factor other than a power of two: 128x256 tiles on 256x5120 are 40; 3
  // splits make 120 programs on 132 SMs, 4 make 160, a second wave
  // (data/h200-triton-splitk-any measured split 3 fastest there).
  const CliResult odd = run_cli("tile --diagnose --m 256 --n 5120 --k 13824 --instr wgmma --block-m 128 --block-n 256 "
                                "--block-k 64 --stages 4 --threads 256");
  ASSERT_EQ(odd.status, 0) << odd.err;
  EXPECT_NE(odd.out.find("pays: split_k 3 predicted"), std::string::npos) << odd.out;
}

// An mma tile whose copied rows are shorter than a line: fp8 16x256x64 (A's
// 16 and B's 256 K-major rows of 64 bytes) says so, in text and JSON; block_K
// 128 (full lines) does not.
TEST(SplitKCli, DiagnoseShowsAnMmaTilesRowsShorterThanALine) {
  const std::string fp8 = "tile --diagnose --m 1 --n 8192 --k 8192 --dtype float8_e4m3 --b-layout col --device h100-sxm "
                          "--block-m 16 --block-n 256 --stages 5 --threads 128 --split-k 4 --block-k ";
  const CliResult half = run_cli(fp8 + "64");
  ASSERT_EQ(half.status, 0) << half.err;
  EXPECT_NE(half.out.find("   rows under a line       an mma tile's copied rows shorter than a 128-byte line busy the SM "
                          "1.168 us a step (272 requests): the SM's busiest resource"),
            std::string::npos)
      << half.out;
  const json t = split_json(fp8 + "64")["candidates"][0]["time_terms"];
  EXPECT_EQ(t["short_row_requests"].get<double>(), 272.0);
  EXPECT_NEAR(t["short_row_us"].get<double>(), 272 * 8.5 / 1980.0, 1e-12);
  EXPECT_DOUBLE_EQ(t["busiest_us"].get<double>(), t["short_row_us"].get<double>());
  const CliResult full = run_cli(fp8 + "128");
  ASSERT_EQ(full.status, 0) << full.err;
  EXPECT_EQ(full.out.find("rows under a line"), std::string::npos) << full.out;
  EXPECT_EQ(split_json(fp8 + "128")["candidates"][0]["time_terms"]["short_row_us"].get<double>(), 0.0);
}

TEST(SplitKCli, SplitBeyondEveryKTileIsAC4FailureInASweep) {
  // K = 64: one K tile for block_K 64; split 16 fails C4 for every configuration.
  const CliResult r = run_cli("tile --m 64 --n 64 --k 64 --block-k 64 --split-k 16");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("the smallest split_k, 16, fails C4"), std::string::npos) << r.out;
  const json j = split_json("tile --m 64 --n 64 --k 64 --block-k 64 --split-k 16");
  EXPECT_TRUE(j["candidates"].empty());
}

TEST(SplitKCli, EmitCarriesSplitKOnlyWhenTheSpaceSplits) {
  const CliResult split = run_cli("tile --m 512 --n 512 --k 16384 --split-k 1,2,4,8 --emit triton --topk 2");
  ASSERT_EQ(split.status, 0) << split.err;
  EXPECT_NE(split.out.find("'SPLIT_K': "), std::string::npos) << split.out;
  const CliResult plain = run_cli("tile --m 512 --n 512 --k 16384 --emit triton --topk 2");
  EXPECT_EQ(plain.out.find("SPLIT_K"), std::string::npos) << plain.out;
  const CliResult tl = run_cli("tile --m 512 --n 512 --k 16384 --split-k 1,8 --emit tilelang --topk 2");
  EXPECT_NE(tl.out.find("\"split_k\": "), std::string::npos) << tl.out;
}

TEST(SplitKCli, ValidateScoresSplitsAndLeavesOutTheAtomicVariant) {
  const CliResult r = run_cli("validate " + source_path("data/h200-triton-splitk-v1") + " --format json");
  ASSERT_EQ(r.status, 0) << r.err;
  const json j = json::parse(r.out);
  ASSERT_EQ(j["shapes"].size(), 15u);
  int picks_split = 0;
  for (const json& s : j["shapes"]) {
    EXPECT_GT(s["unmodelled"].get<int64_t>(), 0) << s["shape"];  // the atomic kernels
    EXPECT_EQ(s["best_key"].get<std::string>().find("atomic"), std::string::npos);
    EXPECT_FALSE(s["best_unsplit_ms"].is_null());
    EXPECT_GE(s["best_unsplit_ms"].get<double>(), s["best_ms"].get<double>());
    picks_split += s["pick_split_k"].get<int64_t>() > 1;
  }
  EXPECT_GT(picks_split, 0);
  const CliResult text = run_cli("validate " + source_path("data/h200-triton-splitk-v1"));
  EXPECT_NE(text.out.find("split-K: the calibrated pick against cuBLAS"), std::string::npos) << text.out;
}

// The CI gate on split-K: every held-out tile-starved shape, picks split or
// not: v1's held-out shapes, v2 and v3's bf16 (measured after the split-K
// constants were frozen), and g1's M >= 16 shapes (fresh, timed with CUDA
// graphs after reduce_split_us was frozen: 1.011 / 1.027 / 1.007), overall
// and per class. 25 cases: 1.017 / 1.083 / 1.007; with copy_bytes_per_cycle
// 1.012 / 1.063 / 1.004.
TEST(SplitKCli, Validate_HeldOutSplitK_MeetsCommittedThresholds) {
  const CliResult r = run_cli("validate " + source_path("data/h200-triton-splitk-v1") + " " +
                              source_path("data/h200-triton-splitk-v2") + " " +
                              source_path("data/h200-triton-splitk-v3/bf16") + " " +
                              source_path("data/h200-triton-splitk-g1/big") +
                              " --split heldout --max-top1-geomean 1.03 --max-top1-worst 1.10 --max-top5-geomean 1.01");
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("shapes 25:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("met (overall and in every class)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("bfloat16:rr:MNK\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("split-K: the calibrated pick against cuBLAS"), std::string::npos) << r.out;
}

// The gate's 21 launch-timed held-out shapes (v1's four, v2, v3's bf16)
// timed again with CUDA graphs (data/h200-triton-splitk-retime/gate-fp16,
// gate-bf16). They missed the worst threshold (1.019 / 1.117 / 1.006:
// 768x768x12288, the same pick against a best that moved 2% between the two
// measurements) until copy_bytes_per_cycle (a program's stage arrives at
// most 39 bytes a cycle, fitted on data/h200-triton-v43): 1.012 / 1.080 /
// 1.004, the gate's thresholds met overall and in both classes.
TEST(SplitKCli, Validate_RetimedGateShapes_MeetCommittedThresholds) {
  const CliResult r = run_cli("validate " + source_path("data/h200-triton-splitk-retime/gate-fp16") + " " +
                              source_path("data/h200-triton-splitk-retime/gate-bf16") +
                              " --max-top1-geomean 1.03 --max-top1-worst 1.10 --max-top5-geomean 1.01");
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("shapes 21:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("met (overall and in every class)"), std::string::npos) << r.out;
}

// Split factors besides the powers of two (3, 5, 6, 12), nothing fitted:
// the fresh data/h200-triton-splitk-any (16 fp16 shapes chosen where the
// frozen model predicted that 3 or 5 fills the last wave, and controls),
// the 21 gate shapes above measured again with them
// (data/h200-triton-splitk-any-gate), and the fresh
// data/h200-triton-splitk-any-types (10 bf16, 7 fp8 e4m3 with B K-major).
// 54 cases: 1.007 / 1.053 / 1.003; cuBLAS over the pick 0.980, the best
// unsplit kernel over the pick 1.159. The same measurements with the powers
// of two alone: 1.034 / 1.256 / 1.008, 0.912 and 1.079 (256x5120x13824:
// split 4 puts 160 programs on 132 SMs, split 3 puts 120).
TEST(SplitKCli, Validate_AnySplitFactor_MeetsCommittedThresholds) {
  const std::string data = folders("data/h200-triton-splitk-", {"any", "any-gate/fp16", "any-gate/bf16",
                                    "any-types/bf16", "any-types/fp8"});
  const CliResult r =
      run_cli("validate " + data + "--split heldout --max-top1-geomean 1.03 --max-top1-worst 1.10 --max-top5-geomean 1.01");
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("shapes 54:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("met (overall and in every class)"), std::string::npos) << r.out;
  for (const char* c : {"float16:rr:MNK\n", "bfloat16:rr:MNK\n", "float8_e4m3:rc:MNK\n"})
    EXPECT_NE(r.out.find(c), std::string::npos) << c;

  // The picks use the new factors, and they beat the powers of two: cuBLAS's
  // time over the pick's and the best unsplit kernel's over the pick's, as
  // measured in one run per set, keep within 0.005 of their committed
  // figures (0.980 and 1.159; 0.912 and 1.079 with the powers of two alone).
  const json j = split_json("validate " + data + "--split heldout");
  double log_cublas = 0, log_unsplit = 0;
  int other_factor = 0;
  for (const json& s : j["shapes"]) {
    const double pick = s["pick_ms"].get<double>();
    log_cublas += std::log(s["cublas_ms"].get<double>() / pick);
    log_unsplit += std::log(s["best_unsplit_ms"].get<double>() / pick);
    const int64_t k = s["pick_split_k"].get<int64_t>();
    other_factor += k == 3 || k == 5 || k == 6 || k == 12;
  }
  const double n = static_cast<double>(j["shapes"].size());
  EXPECT_GE(std::exp(log_cublas / n), 0.975);
  EXPECT_GE(std::exp(log_unsplit / n), 1.154);
  EXPECT_GE(other_factor, 25);
}

// Decode below M = 16. The shapes of splitk-v3 (fp16 M = 1 and 8), m1b,
// m8b and m2 were first timed by the kernels' Python launches, which fall
// behind the GPU in episodes of a slow host (data/h200-split-timing); they
// scored 1.093 / 1.541 / 1.047 then (22 cases). Timed again with CUDA graphs
// (data/h200-triton-splitk-retime, the same shapes and kernels): 1.050 /
// 1.330 / 1.021 with reduce_split_us, 1.057 / 1.330 / 1.030 without. The
// fresh g1 decode steps (M = 1 to 12, measured after reduce_split_us was
// frozen: 1.068 / 1.244 / 1.016, without the term 1.058 / 1.244 / 1.021)
// miss the same way. 34 cases: 1.056 / 1.330 / 1.019 (by class at most
// 1.066 geomean, fp16 M = 1, and 1.042 best of top 5, bf16 M = 1). Left: unsplit
// kernels of 67 to 264 programs at M < 16 run 1.2-1.3x their predicted time
// where split kernels of as many programs run at theirs (2x6144x4096 picks
// the unsplit 64x128x128, 1.244), and bf16 1x8192x2048's unsplit tiles run
// 1.4-1.6x theirs (docs/model.md §6). Then the programs walking K in step
// (in_step_a_ns, fitted with one_row_a_extra on the calibration sets mstep
// and m1a; splitk-step, calibration too, checked the split kernels): the 34
// went to 1.040 / 1.330 / 1.010, and the fresh splitk-step-fresh and
// splitk-step-fresh2, measured after it was frozen, 24 cases, score 1.045 /
// 1.300 / 1.007 (the family before 1.058 / 1.300 / 1.008). 58 cases: 1.042
// / 1.330 / 1.009 (the family before 1.057 / 1.330 / 1.014; by class at
// most 1.054 geomean, bf16 M = 1, and 1.013 best of top 5). With the
// split-K overrun terms (the reduction at its marginal cost, partial_store_
// share, split_dram_share, short_row_request_cycles): 1.031 / 1.119 / 1.008
// (worst by class fp16 M = 1 1.119; bf16 M = 1 1.115). They must keep
// missing (a fix moves them into the gate above) and must not get worse
// than measured.
TEST(SplitKCli, Validate_DecodeMBelow16_KnownMissStaysBounded) {
  const std::string data = folders("data/h200-triton-splitk-", {"retime/m", "retime/one", "retime/one-bf16", "g1/m",
                                    "g1/one", "g1/one-bf16", "step-fresh/m", "step-fresh/m-bf16", "step-fresh/one",
                                    "step-fresh/one-bf16", "step-fresh2/m", "step-fresh2/m-bf16", "step-fresh2/one",
                                    "step-fresh2/one-bf16"});
  expect_known_miss(data, "--max-top1-geomean 1.04 --max-top1-worst 1.13 --max-top5-geomean 1.015", 58);
}

// fp8 (e4m3, B K-major) decode steps, the first split-K measurements in fp8
// (data/h200-triton-splitk-fp8, fresh: nothing of the split model was fitted
// on fp8): 1.063 / 1.310 / 1.014 over ten. Seven picks are within 0.4% of
// the best; 2x4096x4096 and 1x8192x2048 keep the unsplit tile where split 4
// wins by 29-31% (near the best, split kernels run 0.82-0.88x their
// predicted time, unsplit ones 1.08-1.15x). The pick is 1.264x faster than
// the best unsplit tile. Best of top 5: 1.003 at M = 2 to 12, 1.030 at
// M = 1. It was a known miss until the reduction was priced at its marginal
// cost with the split GEMM's overrun (partial_store_share, split_dram_share)
// and an mma tile's rows shorter than a line (short_row_request_cycles): 1.013
// / 1.057 / 1.004, the two split-4 shapes picked split. Now gated, in every
// class.
TEST(SplitKCli, Validate_Fp8Decode_MeetsCommittedThresholds) {
  const std::string data = source_path("data/h200-triton-splitk-fp8/m") + " " + source_path("data/h200-triton-splitk-fp8/one");
  expect_meets_thresholds(data, 10);
  // Every case is a fp8 B K-major class, scored with its split-K section.
  const CliResult r = run_cli("validate " + data);
  EXPECT_NE(r.out.find("float8_e4m3:rc:mNK\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("float8_e4m3:rc:1NK\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("split-K: the calibrated pick against cuBLAS"), std::string::npos) << r.out;
}

// Over the decode-tile datasets `data` (validate's JSON): the block_M of
// each shape's measured best, and the geomean of cuBLAS's time over the
// pick's for the shapes that `counts`.
struct DecodeTiles {
  std::vector<std::pair<json, int64_t>> best_block_m;  // (shape record, block_M of its best)
  double cublas_over_pick = 0;
  int counted = 0;
};
template <class Counts>
DecodeTiles decode_tiles(const std::string& data, Counts counts) {
  DecodeTiles out;
  const CliResult r = run_cli("validate " + data + "--format json");
  EXPECT_EQ(r.status, 0) << r.err;
  if (r.status != 0) return out;
  const json j = json::parse(r.out);
  double log_sum = 0;
  for (const json& s : j["shapes"]) {
    out.best_block_m.emplace_back(s, std::stoll(s["best_key"].get<std::string>()));
    if (!counts(s)) continue;
    log_sum += std::log(s["cublas_ms"].get<double>() / s["pick_ms"].get<double>());
    ++out.counted;
  }
  out.cublas_over_pick = out.counted ? std::exp(log_sum / out.counted) : 0.0;
  return out;
}

// block_M 16 and 32 (tl.dot compiles them to mma.sync), measured beside 64
// with every split factor, cuBLAS in the same runs: data/h200-triton-
// splitk-bm16 (6 shapes, M = 1 to 16; their kernels' registers fitted the
// mma override, their times nothing) and the fresh -bm16-fresh (7 decode
// shapes, and 5 at M = 48 to 512 with block_M up to 128 where 64 and 128
// are expected to win). No run-time constant was fitted on an mma tile;
// their stages take the copy-rate cap of the wgmma tiles
// (mma_copy_bytes_per_cycle, chosen on these sets, docs/model.md §5). Over
// the 13 decode shapes the pick runs at 0.989 of cuBLAS's speed (0.983
// without the cap; the family before block_M 16: 0.928); at M >= 48 no
// small tile is picked. Top-1 1.035 / 1.065, best of top 5 1.028 over the
// 13 (without the cap 1.041 / 1.087 / 1.028; 1.027 / 1.065 / 1.023 over the
// 18, 1.031 / 1.087 / 1.023 without). What misses: fp16 M = 1 picks
// 16x128x128 with 5 stages where 16x128x64 with 8 warps wins by 4-7%
// (docs/model.md §6). Then an mma tile's stages in flight went from
// stages - 2 to stages - 1 and mma_rate_share (0.527) was fitted on the
// guard set here (docs/model.md §3, "mma tiles"): over the 63 shapes of the
// four decode-tile sets the picks score the same (1.039 / 1.169 / 1.021 ->
// 1.039 / 1.140 / 1.017, rank correlation 0.820 -> 0.874), but these 18 went
// 1.027 / 1.065 / 1.023 -> 1.037 / 1.106 / 1.018 (3x18944x3584 picks
// 16x256x128 with 4 stages, where 3 with 8 warps wins by 9%) and the 13
// decode steps from 0.989 to 0.976 of cuBLAS's speed. Then these sets, with
// bm16-again, calibrated the bytes-in-flight term (mma_flight_knee_kb 64,
// mma_flight_dram_share 0.1: scripts/fit_mma_flight.py; docs/model.md §3,
// "Bytes in flight and DRAM"): 1.015 / 1.041 / 1.005, every class within
// the committed thresholds (M = 1: 1.022 / 1.032 / 1.001), and the 13
// decode steps at 1.006 of cuBLAS's speed. Calibration data, not a gate:
// the test keeps what the fit reached.
TEST(SplitKCli, Validate_DecodeTiles_Bm16_CalibrationMeetsThresholds) {
  const std::string data = folders("data/h200-triton-splitk-", {"bm16/one", "bm16/m", "bm16/m16", "bm16-fresh/one",
                                    "bm16-fresh/m", "bm16-fresh/guard"});
  const CliResult r =
      run_cli("validate " + data + "--max-top1-geomean 1.03 --max-top1-worst 1.10 --max-top5-geomean 1.01");
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("shapes 18:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("met (overall and in every class)"), std::string::npos) << r.out;
  const DecodeTiles d = decode_tiles(data, [](const json& s) { return s["m"].get<int64_t>() <= 16; });
  for (const auto& [s, bm] : d.best_block_m) {
    if (s["m"].get<int64_t>() <= 16)
      EXPECT_EQ(bm, 16) << s["shape"];  // the measured best is a 16-row tile at every decode step
    else
      EXPECT_GE(bm, 64) << s["shape"];
  }
  ASSERT_EQ(d.counted, 13);
  EXPECT_GE(d.cublas_over_pick, 1.0);  // measured 1.006 (0.976 without the bytes-in-flight term)
}

// The same tiles in bf16 (the shapes of splitk-bm16) and fp8 e4m3 with B
// K-major (fresh shapes), nothing fitted on them: data/h200-triton-splitk-
// bm16-types. The measured best of all eight is a 16-row tile; the pick runs
// at 0.997 (bf16) and 0.968 (fp8) of cuBLAS's speed, against 0.880 and
// 0.912 for the pick among block_M >= 64. Top-1 1.032 / 1.078, best of top
// 5 1.019 (bf16 1.029 / 1.078 / 1.027, fp8 1.034 / 1.055 / 1.012); without
// mma_copy_bytes_per_cycle 1.041 / 1.100 / 1.018 at 0.974 (bf16 0.993, fp8
// 0.955). With stages - 1 in flight and mma_rate_share: 1.037 / 1.059 /
// 1.016 at 0.977 (bf16 0.993, fp8 0.962). With the bytes-in-flight term
// (fitted on other sets): 1.025 / 1.055 / 1.007 at 0.988 (bf16 1.011, fp8
// 0.966); fp8 at M = 2 to 8 still misses (1.046 / 1.055 / 1.021). A known
// miss: it must keep missing and not get worse.
TEST(SplitKCli, Validate_DecodeTiles_Bf16AndFp8_KnownMissStaysBounded) {
  const std::string data = folders("data/h200-triton-splitk-bm16-types/", {"bf16-one", "bf16-m", "fp8-one", "fp8-m"});
  // The bounds hold in every class (fp8 M < 16: 1.046 / 1.055 / 1.021).
  expect_known_miss(data, "--max-top1-geomean 1.05 --max-top1-worst 1.06 --max-top5-geomean 1.025", 8);
  const DecodeTiles d = decode_tiles(data, [](const json&) { return true; });
  for (const auto& [s, bm] : d.best_block_m) EXPECT_EQ(bm, 16) << s["shape"];
  ASSERT_EQ(d.counted, 8);
  EXPECT_GE(d.cublas_over_pick, 0.985);  // measured 0.988 (0.977 without the bytes-in-flight term)
}

// The decode shapes the 64-row family missed cuBLAS on most (splitk-retime/
// one and splitk-g1/one in fp16, M = 1; splitk-fp8), measured again with
// block_M 16 and 32: data/h200-triton-splitk-bm16-again, nothing fitted on
// it. fp16 1.054 / 1.140 / 1.027 at 0.967 of cuBLAS (the same run's 64-row
// pick 0.878); fp8 1.034 / 1.083 / 1.008 at 0.916 (0.833). Without the
// mma tiles' copy-rate cap (mma_copy_bytes_per_cycle) fp16 scored 1.055 /
// 1.169 / 1.028 at 0.966 and fp8 1.072 / 1.323 / 1.011 at 0.884: a lone
// 16x256x128 program per SM was picked where 16x64x128 wins. With an mma
// tile's stages in flight stages - 1 and mma_rate_share: fp16 the same
// figures, fp8 1.029 / 1.083 / 1.011 at 0.921. Then it was one of the
// calibration sets of the bytes-in-flight term (scripts/fit_mma_flight.py):
// 1.034 / 1.140 / 1.008; fp16 1.032 / 1.140 / 1.005 at 0.988 of cuBLAS,
// fp8 1.036 / 1.107 / 1.011 at 0.914 (fp8 M = 2 to 12 1.022 -> 1.033:
// 8x5120x5120 takes 16x64x128 unsplit, 1.107, where split 4 wins). With
// the split-K overrun terms: 1.028 / 1.083 / 1.009, fp16 1.027 / 1.057 at
// 0.993 of cuBLAS, fp8 1.029 / 1.083 / 1.014 at 0.921 (8x5120x5120 splits
// 4, 1.021; 1x8192x2048 keeps an unsplit tile, 1.083). A known miss: it
// must keep missing and not get worse.
TEST(SplitKCli, Validate_DecodeTiles_Again_KnownMissStaysBounded) {
  const std::string data = folders("data/h200-triton-splitk-bm16-again/", {"one", "fp8-one", "fp8-m"});
  // The bounds hold in every class (fp8 M = 1: 1.040 / 1.083 / 1.006; fp8
  // M = 2 to 12: 1.033 / 1.107 / 1.015).
  expect_known_miss(data, "--max-top1-geomean 1.045 --max-top1-worst 1.09 --max-top5-geomean 1.02", 20);
  const DecodeTiles d = decode_tiles(data, [](const json& s) { return s["dtype"] == "float16"; });
  for (const auto& [s, bm] : d.best_block_m) EXPECT_EQ(bm, 16) << s["shape"];
  ASSERT_EQ(d.best_block_m.size(), 20u);
  ASSERT_EQ(d.counted, 10);
  EXPECT_GE(d.cublas_over_pick, 0.985);  // fp16, measured 0.988 (0.967 without the bytes-in-flight term)
  const DecodeTiles fp8 = decode_tiles(data, [](const json& s) { return s["dtype"] == "float8_e4m3"; });
  ASSERT_EQ(fp8.counted, 10);
  EXPECT_GE(fp8.cublas_over_pick, 0.91);  // measured 0.914 (0.921 without the bytes-in-flight term, 0.884 without the cap)
}

// 17 decode shapes never measured before in their type (fp16, bf16, fp8;
// M = 1 to 16), measured after the mma tiles' copy-rate cap was frozen:
// data/h200-triton-splitk-bm16-cap, nothing fitted on it. 1.048 / 1.169 /
// 1.024 at 0.939 of cuBLAS (the family's best 0.984); without the cap
// 1.066 / 1.370 / 1.024 at 0.923. The worst class is fp8 at M = 2 to 8
// (1.099 / 1.169: 64x128x128 unsplit picked at 2x8192x3584 where
// 16x64x128 wins). With an mma tile's stages in flight stages - 1 and
// mma_rate_share: 1.039 / 1.118 / 1.015 at 0.947 (2x8192x3584 1.169 ->
// 1.000; its worst class is now fp16 at M = 2 to 12, 1.061 / 1.118 / 1.022:
// 12x5120x27648 picks 16x256x128 split 4 where 16x128x128 split 2 wins).
// With the bytes-in-flight term (held out from its fit, with bm16-types):
// 1.022 / 1.067 / 1.007 at 0.962, within the committed thresholds overall
// but not in every class (fp16 M = 1, two shapes: 1.041 / 1.067 / 1.006;
// best of top 5 1.016 to 1.018 in three classes). A known miss: it must keep
// missing and not get worse.
TEST(SplitKCli, Validate_DecodeTiles_CapFresh_KnownMissStaysBounded) {
  const std::string data = folders("data/h200-triton-splitk-bm16-cap/", {"one", "m", "m16", "bf16-one", "bf16-m",
                                    "bf16-m16", "fp8-one", "fp8-m", "fp8-m16"});
  expect_known_miss(data, "--max-top1-geomean 1.045 --max-top1-worst 1.07 --max-top5-geomean 1.02", 17);
  const DecodeTiles d = decode_tiles(data, [](const json&) { return true; });
  ASSERT_EQ(d.counted, 17);
  for (const auto& [s, bm] : d.best_block_m) EXPECT_EQ(bm, 16) << s["shape"];  // every best is a 16-row tile
  EXPECT_GE(d.cublas_over_pick, 0.96);  // measured 0.962 (0.947 without the bytes-in-flight term)
  // Overall, the thresholds hold.
  const json j = split_json("validate " + data);
  const json& c = j["summary"]["calibrated"];
  EXPECT_LE(c["top1_geomean"].get<double>(), 1.03);
  EXPECT_LE(c["top1_worst"].get<double>(), 1.10);
  EXPECT_LE(c["top5_geomean"].get<double>(), 1.01);
}

// Fresh decode steps measured after the bytes-in-flight term was frozen
// (mma_flight_knee_kb, mma_flight_dram_share): data/h100-triton-splitk-
// bm16-flight, 15 shapes in fp16, bf16 and fp8 e4m3 (M = 1 to 14), on an
// H100 (the device the measuring call was given; scored with the h100-sxm
// preset its meta.json names), and the same run again on the same card
// (-flight-repeat). 1.026 / 1.072 / 1.002 at 0.977 of cuBLAS's speed, where
// the family without the term scores 1.041 / 1.092 / 1.014 at 0.963; the
// repeat 1.026 / 1.078 / 1.003. Within the committed thresholds overall,
// not in every class (bf16 and fp8 at M = 1, one shape each: 1.057 and
// 1.072). A second fresh set, -flight2 (14 more shapes, most in bf16 and
// fp8 at M = 1), 1.029 / 1.070 / 1.012 at 0.963 (before the term 1.048 /
// 1.100 / 1.022 at 0.945); the two together, 29 shapes, 1.027 / 1.072 /
// 1.007 at 0.970, and by class within the thresholds in fp16, not in bf16
// at M = 1 (1.0303 / 1.057 / 1.003) or fp8 (M = 1: 1.048 / 1.072 / 1.023).
// With mma_copy_warp_power (fitted later; these sets were scored while it
// was explored, not used to choose it): flight 1.019 / 1.057 / 1.003,
// the repeat 1.018 / 1.053 / 1.003, the 29 1.021 / 1.070 / 1.007 at 0.976
// of cuBLAS, and by class within the thresholds in fp16 and bf16; fp8
// misses (M = 1: 1.025 / 1.043 / 1.023; M > 1: 1.038 / 1.056 / 1.010).
// With a split's DRAM share grown by the split (split_dram_growth 1, judged
// fresh by data/h100-triton-splitk-growth): the 29 1.020 / 1.070 / 1.008 ->
// 1.022 / 1.070 / 1.007 at 0.976 of cuBLAS, and bf16 at M > 1 leaves the
// thresholds (1.019 -> 1.033 / 1.070 / 1.003): 8x2304x9216 takes 16x64x128
// at split 2, 1.057, where 16x128x128 at split 4 wins. A known miss since.
TEST(SplitKCli, Validate_DecodeTiles_FlightFresh_MeetsThresholdsOverall) {
  const auto parts = [](std::initializer_list<const char*> sets) {
    std::string data;
    for (const char* set : sets)
      for (const char* d : {"one", "m", "bf16-one", "bf16-m", "fp8-one", "fp8-m"})
        data += source_path(std::string("data/h100-triton-splitk-bm16-") + set + "/" + d) + " ";
    return data;
  };
  const struct {
    std::string data;
    int shapes;
  } sets[] = {{parts({"flight"}), 15}, {parts({"flight-repeat"}), 15}, {parts({"flight", "flight2"}), 29}};
  for (const auto& [data, shapes] : sets) {
    const json j = split_json("validate " + data);
    EXPECT_EQ(j["device"], "h100-sxm");
    const json& c = j["summary"]["calibrated"];
    const int set = shapes;  // names the set in a failure
    EXPECT_EQ(c["shapes"], shapes);
    EXPECT_LE(c["top1_geomean"].get<double>(), 1.03) << set;
    EXPECT_LE(c["top1_worst"].get<double>(), 1.10) << set;
    EXPECT_LE(c["top5_geomean"].get<double>(), 1.01) << set;
    const DecodeTiles d = decode_tiles(data, [](const json&) { return true; });
    EXPECT_GE(d.cublas_over_pick, 0.97) << set;  // measured 0.984, 0.985 and 0.976
  }
  // By class, fp16 and bf16 at M = 1 meet the thresholds over the 29; bf16
  // at M > 1 and fp8 do not.
  const std::string both = parts({"flight", "flight2"});
  expect_meets_thresholds(both + "--class float16:rr:1NK,float16:rr:mNK,bfloat16:rr:1NK", 16);
  expect_known_miss(both + "--class bfloat16:rr:mNK", "--max-top1-geomean 1.04 --max-top1-worst 1.08 --max-top5-geomean 1.01",
                    4);
  expect_known_miss(both + "--class float8_e4m3:rc:1NK,float8_e4m3:rc:mNK",
                    "--max-top1-geomean 1.045 --max-top1-worst 1.06 --max-top5-geomean 1.025", 9);
}

// Fresh decode steps measured after mma_copy_warp_power was frozen:
// data/h100-triton-splitk-bm16-warps (15 shapes) and -warps2 (14 more,
// measured after the first was scored), fp16, bf16 and fp8 e4m3, M = 1 to
// 13, on an H100. 1.032 / 1.103 / 1.013 and 1.020 / 1.051 / 1.009; the 29
// 1.026 / 1.103 / 1.011 at 0.959 of cuBLAS (1.027 / 1.103 / 1.009 at 0.958
// before the term). A known miss: its worst cases are small steps where the
// reduction of a split is priced 5.2 us and adds 1.8 behind its GEMM
// (data/h100-profile-lone-program); by class fp16 at M > 1 meets the
// thresholds (1.010 / 1.027 / 1.002 over 4). With the split-K overrun
// terms (the reduction at its marginal cost, fitted on other sets): 1.022
// / 1.067 / 1.009 at 0.962 (by class at most 1.034 geomean, fp8 M = 1, and
// 1.014 best of top 5, fp16 M = 1).
TEST(SplitKCli, Validate_DecodeTiles_WarpsFresh_KnownMiss) {
  std::string data;
  for (const char* set : {"warps", "warps2"})
    for (const char* d : {"one", "m", "bf16-one", "bf16-m", "fp8-one", "fp8-m"})
      data += source_path(std::string("data/h100-triton-splitk-bm16-") + set + "/" + d) + " ";
  const json j = split_json("validate " + data);
  EXPECT_EQ(j["device"], "h100-sxm");
  EXPECT_EQ(j["summary"]["calibrated"]["shapes"], 29);
  const DecodeTiles d = decode_tiles(data, [](const json&) { return true; });
  EXPECT_GE(d.cublas_over_pick, 0.95);  // measured 0.959
  // Bounds per class: fp16 at M = 1 1.039 / 1.103 / 1.015, fp8 at M = 1
  // 1.038 / 1.089 / 1.013, bf16 at M > 1 best of top 5 1.014.
  expect_known_miss(data, "--max-top1-geomean 1.04 --max-top1-worst 1.08 --max-top5-geomean 1.016", 29);
  const CliResult r = run_cli("validate " + data + "--class float16:rr:mNK " +
                              "--max-top1-geomean 1.03 --max-top1-worst 1.10 --max-top5-geomean 1.01");
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("shapes 4:"), std::string::npos) << r.out;
}

// Fresh tile-starved shapes measured after the split-K overrun terms were
// frozen (the reduction at its marginal cost, partial_store_share,
// split_dram_share, short_row_request_cycles): data/h100-triton-splitk-
// frozen, 19 decoder projections in fp16, bf16 and fp8 e4m3 (M = 1 to 128),
// thirteen where the family before and today's pick differently, on an
// H100. 1.031 / 1.107 / 1.005 (the family before 1.027 / 1.347 / 1.006).
// fp16 and bf16 meet the committed thresholds in every class (at most
// 1.025 / 1.046 / 1.003); fp8 is a known miss: steps at M <= 4 take
// 16x128x128 split 8 where 16x64x128 split 4 or 5 wins (4x2048x8192 1.107).
// With a split's DRAM share grown by the split (split_dram_growth, judged
// by the set below): 1.023 / 1.083 / 1.004, fp8 still a known miss.
TEST(SplitKCli, Validate_FrozenFresh_16BitMeetsThresholdsAndFp8IsAKnownMiss) {
  const std::string data = folders("data/h100-triton-splitk-frozen/", {"m", "m16", "m16b", "one", "bf16-m16",
                                    "bf16-m16b", "bf16-one", "fp8-one", "fp8-m", "fp8-mb", "fp8-m16", "fp8-m16b"});
  const json j = split_json("validate " + data);
  EXPECT_EQ(j["device"], "h100-sxm");
  EXPECT_EQ(j["summary"]["calibrated"]["shapes"], 19);
  expect_meets_thresholds(data + "--class float16:rr:mNK,float16:rr:MNK,float16:rr:1NK,bfloat16:rr:MNK,bfloat16:rr:1NK", 11);
  expect_known_miss(data + "--class float8_e4m3:rc:1NK,float8_e4m3:rc:mNK,float8_e4m3:rc:MNK",
                    "--max-top1-geomean 1.07 --max-top1-worst 1.11 --max-top5-geomean 1.02", 8);
}

// The fresh judge of a split's DRAM share grown by the split factor
// (split_dram_growth 1, split_dram_share 0.08, against the flat 0.1):
// data/h100-triton-splitk-growth, 20 decoder projections in fp16, bf16 and
// fp8 e4m3 (M = 1 to 64), seventeen where the two pick differently, on an
// H100. 1.012 / 1.030 / 1.004 at 0.988 of cuBLAS (the flat share 1.020 /
// 1.061 / 1.004 at 0.980); fp8 1.043 / 1.061 -> 1.015 / 1.030. Every class
// meets the committed thresholds but fp8 at M = 1 (one shape, 1x4544x18176:
// 1.029, best of top 5 1.016), a known miss.
TEST(SplitKCli, Validate_GrowthFresh_MeetsThresholdsButFp8AtOneRow) {
  const std::string data = folders("data/h100-triton-splitk-growth/", {"one", "m", "m16", "bf16-one", "bf16-m",
                                    "bf16-m16", "fp8-one", "fp8-m", "fp8-m16"});
  const json j = split_json("validate " + data);
  EXPECT_EQ(j["device"], "h100-sxm");
  const json& c = j["summary"]["calibrated"];
  EXPECT_EQ(c["shapes"], 20);
  EXPECT_LE(c["top1_geomean"].get<double>(), 1.03);
  EXPECT_LE(c["top1_worst"].get<double>(), 1.10);
  EXPECT_LE(c["top5_geomean"].get<double>(), 1.01);
  expect_meets_thresholds(data + "--class float16:rr:1NK,float16:rr:mNK,float16:rr:MNK,bfloat16:rr:1NK,"
                                 "bfloat16:rr:mNK,bfloat16:rr:MNK,float8_e4m3:rc:mNK,float8_e4m3:rc:MNK",
                          19);
  expect_known_miss(data + "--class float8_e4m3:rc:1NK", "--max-top1-geomean 1.035 --max-top1-worst 1.035 --max-top5-geomean 1.02",
                    1);
  // With the flat share the set misses overall in fp8 (1.043 / 1.061).
  const std::string flat = flat_share_flag();
  const CliResult r = run_cli("validate " + data + flat + "--class float8_e4m3:rc:mNK,float8_e4m3:rc:MNK" +
                              " --max-top1-geomean 1.03 --max-top1-worst 1.10 --max-top5-geomean 1.01");
  EXPECT_EQ(r.status, 1) << r.out << r.err;
}

// The second fresh judge of the grown share, measured after it shipped
// (docs/model.md §5, "splitk-growth2"): 22 shapes, 20 where the flat and the
// grown share pick differently. Overall within the thresholds; by class,
// fp8 at M = 1 (as in the first set) and fp16 with M, N and K multiples of
// 16 (one shape, 48x4096x16384) miss on the best of top 5.
TEST(SplitKCli, Validate_Growth2Fresh_MeetsThresholdsButTwoClassesTop5) {
  const std::string data = folders("data/h100-triton-splitk-growth2/", {"one", "m", "m16", "m24", "bf16-one",
                                    "bf16-m", "bf16-m16", "fp8-one", "fp8-m", "fp8-m16"});
  const json j = split_json("validate " + data);
  EXPECT_EQ(j["device"], "h100-sxm");
  const json& c = j["summary"]["calibrated"];
  EXPECT_EQ(c["shapes"], 22);
  EXPECT_LE(c["top1_geomean"].get<double>(), 1.03);
  EXPECT_LE(c["top1_worst"].get<double>(), 1.10);
  EXPECT_LE(c["top5_geomean"].get<double>(), 1.01);
  expect_meets_thresholds(data + "--class float16:rr:1NK,float16:rr:mNK,bfloat16:rr:1NK,bfloat16:rr:mNK,"
                                 "bfloat16:rr:MNK,float8_e4m3:rc:mNK,float8_e4m3:rc:MNK",
                          19);
  expect_known_miss(data + "--class float8_e4m3:rc:1NK", "--max-top1-geomean 1.03 --max-top1-worst 1.04 --max-top5-geomean 1.02",
                    2);
  expect_known_miss(data + "--class float16:rr:MNK", "--max-top1-geomean 1.025 --max-top1-worst 1.025 --max-top5-geomean 1.025",
                    1);
  // With the flat share fp8 misses in every class (1.044 / 1.055 over six).
  const std::string flat = flat_share_flag();
  const CliResult r = run_cli("validate " + data + flat + "--class float8_e4m3:rc:mNK,float8_e4m3:rc:MNK" +
                              " --max-top1-geomean 1.03 --max-top1-worst 1.10 --max-top5-geomean 1.01");
  EXPECT_EQ(r.status, 1) << r.out << r.err;
}

// Split-K decode steps in the nn.Linear layout (B K-major) in fp16 and
// bf16, the first 16-bit split-K set with that layout: data/h100-triton-
// splitk-linear, 14 fresh shapes (M = 1 to 48) chosen after the grown share
// shipped, on an H100, nothing fitted. With the family then (the grown
// share): 1.018 / 1.079, best of top 5 1.0104 (the flat share 1.035 /
// 1.079 / 1.016), the pick at 1.003 of cuBLAS's speed (flat 0.986); four of
// six classes within the committed thresholds. With kmajor_b_row_dram_share
// (fitted later on data/h200-triton-splitk-layout-pairs, never on this
// set): 1.011 / 1.035 / 1.004 at 1.009 of cuBLAS, five of six classes;
// fp16 at M = 1 still misses its best of top 5 (1.024 / 1.035 / 1.015).
TEST(SplitKCli, Validate_LinearFresh_FiveClassesMeetThresholds) {
  const std::string data = folders("data/h100-triton-splitk-linear/", {"one", "m", "m16", "bf16-one", "bf16-m",
                                    "bf16-m16"});
  const json j = split_json("validate " + data);
  EXPECT_EQ(j["device"], "h100-sxm");
  const json& c = j["summary"]["calibrated"];
  EXPECT_EQ(c["shapes"], 14);
  EXPECT_LE(c["top1_geomean"].get<double>(), 1.015);  // measured 1.0115
  EXPECT_LE(c["top1_worst"].get<double>(), 1.04);     // measured 1.035
  EXPECT_LE(c["top5_geomean"].get<double>(), 1.006);  // measured 1.0041
  for (const json& s : j["shapes"]) EXPECT_NE(s["group"].get<std::string>().find(":rc:"), std::string::npos) << s["shape"];
  const DecodeTiles d = decode_tiles(data, [](const json&) { return true; });
  EXPECT_EQ(d.counted, 14);
  EXPECT_GE(d.cublas_over_pick, 1.005);  // measured 1.009
  expect_meets_thresholds(data + "--class bfloat16:rc:1NK,bfloat16:rc:mNK,float16:rc:MNK,bfloat16:rc:MNK,float16:rc:mNK",
                          12);
  expect_known_miss(data + "--class float16:rc:1NK",
                    "--max-top1-geomean 1.03 --max-top1-worst 1.04 --max-top5-geomean 1.02", 2);
  // The family before the term: four classes, and over the set 1.018 / 1.079.
  const json g = split_json("validate " + data + before_kmajor_rows_flag());
  EXPECT_GT(g["summary"]["calibrated"]["top1_worst"].get<double>(), 1.07);
  expect_known_miss(data + before_kmajor_rows_flag() + "--class float16:rc:mNK,float16:rc:1NK",
                    "--max-top1-geomean 1.04 --max-top1-worst 1.09 --max-top5-geomean 1.035", 5);
  // The flat share misses the top-1 geomean over the set (1.035).
  const json f = split_json("validate " + data + flat_share_flag());
  EXPECT_GT(f["summary"]["calibrated"]["top1_geomean"].get<double>(), 1.03);
}

// The same 14 shapes on an H200 (data/h200-triton-splitk-linear), nothing
// fitted: the grown share 1.025 / 1.072 / 1.007 at 0.990 of cuBLAS, three
// classes out of the thresholds; with kmajor_b_row_dram_share 1.009 / 1.031
// / 1.002 at 1.006, every class within, every pick with block_K 128.
TEST(SplitKCli, Validate_LinearH200_MeetsThresholdsInEveryClass) {
  const std::string data = folders("data/h200-triton-splitk-linear/", {"one", "m", "m16", "m16-rest", "bf16-one",
                                    "bf16-m", "bf16-m16", "bf16-m16-rest"});
  const CliResult r = run_cli("validate " + data + kCommittedThresholds);
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("met (overall and in every class)"), std::string::npos) << r.out;
  const json j = split_json("validate " + data);
  EXPECT_EQ(j["device"], "h200");
  EXPECT_EQ(j["summary"]["calibrated"]["shapes"], 14);
  EXPECT_EQ(j["groups"].size(), 6u);
  for (const json& s : j["shapes"])
    EXPECT_NE(s["calibrated"]["top1_key"].get<std::string>().find("x128_s"), std::string::npos) << s["shape"];
  const DecodeTiles d = decode_tiles(data, [](const json&) { return true; });
  EXPECT_EQ(d.counted, 14);
  EXPECT_GE(d.cublas_over_pick, 1.002);  // measured 1.006 (0.990 before the term)
  const CliResult before = run_cli("validate " + data + before_kmajor_rows_flag() + kCommittedThresholds);
  EXPECT_EQ(before.status, 1) << before.out;
}

// The same nine 16-bit decode steps with B row-major and B K-major
// (data/h200-triton-splitk-layout-pairs). The term prices a K-major B
// alone: the B row-major half keeps every pick (1.011 / 1.030 / 1.002), the
// B K-major half, its calibration, goes 1.035 / 1.068 / 1.020 -> 1.002 /
// 1.010 / 1.000, every pick leaving block_K 64 for 128 where it moves.
TEST(SplitKCli, Validate_LayoutPairs_TheTermMovesOnlyKMajorPicks) {
  const std::string rr = folders("data/h200-triton-splitk-layout-pairs/", {"m-rr", "one-rr", "bf16-m-rr", "bf16-one-rr"});
  const std::string rc = folders("data/h200-triton-splitk-layout-pairs/", {"m-rc", "one-rc", "bf16-m-rc", "bf16-one-rc"});
  const json now = split_json("validate " + rr), then = split_json("validate " + rr + before_kmajor_rows_flag());
  ASSERT_EQ(now["shapes"].size(), 9u);
  for (std::size_t i = 0; i < 9; ++i)
    EXPECT_EQ(now["shapes"][i]["calibrated"]["top1_key"], then["shapes"][i]["calibrated"]["top1_key"]);
  const json k = split_json("validate " + rc), kb = split_json("validate " + rc + before_kmajor_rows_flag());
  ASSERT_EQ(k["shapes"].size(), 9u);
  EXPECT_LE(k["summary"]["calibrated"]["top1_geomean"].get<double>(), 1.005);  // measured 1.0017
  EXPECT_GE(kb["summary"]["calibrated"]["top1_geomean"].get<double>(), 1.03);  // measured 1.0353
  int moved = 0;
  for (std::size_t i = 0; i < 9; ++i) {
    const std::string a = kb["shapes"][i]["calibrated"]["top1_key"], b = k["shapes"][i]["calibrated"]["top1_key"];
    if (a == b) continue;
    ++moved;
    EXPECT_NE(a.find("x64_s"), std::string::npos) << a;
    EXPECT_NE(b.find("x128_s"), std::string::npos) << b;
  }
  EXPECT_GE(moved, 4);
}

// The term's judge, measured after it froze (data/h100-triton-splitk-
// kmajor-fresh, ten 16-bit decode steps with B K-major on an H100, nothing
// fitted): on the picks a draw, 1.014 / 1.023 / 1.006 before it and 1.015 /
// 1.040 / 1.007 with it, eight picks moved (four better, four worse), both
// within the thresholds over the set; the controls keep their picks. The
// effect it prices holds: the measured best has block_K 128 on nine shapes.
TEST(SplitKCli, Validate_KMajorFresh_TheTermIsADrawOnThePicks) {
  const std::string data = folders("data/h100-triton-splitk-kmajor-fresh/", {"m", "bf16-m", "one", "bf16-one"});
  const std::string gate = " --max-top1-geomean 1.03 --max-top1-worst 1.10";
  const json now = split_json("validate " + data), then = split_json("validate " + data + before_kmajor_rows_flag());
  EXPECT_EQ(now["device"], "h100-sxm");
  ASSERT_EQ(now["shapes"].size(), 10u);
  ASSERT_EQ(then["shapes"].size(), 10u);
  int moved = 0, better = 0, best_k128 = 0;
  for (std::size_t i = 0; i < 10; ++i) {
    const json &a = then["shapes"][i], &b = now["shapes"][i];
    ASSERT_EQ(a["shape"], b["shape"]);
    EXPECT_EQ(b["split"], "held-out") << b["shape"];
    if (b["best_key"].get<std::string>().find("x128_s") != std::string::npos) ++best_k128;
    if (a["calibrated"]["top1_key"] == b["calibrated"]["top1_key"]) continue;
    ++moved;
    if (b["calibrated"]["top1_regret"].get<double>() < a["calibrated"]["top1_regret"].get<double>()) ++better;
  }
  EXPECT_EQ(moved, 8);
  EXPECT_EQ(better, 4);
  EXPECT_EQ(best_k128, 9);
  int controls = 0;
  for (std::size_t i = 0; i < 10; ++i) {
    const std::string shape = now["shapes"][i]["shape"];
    if (shape != "8x2048x8192:float16:rc" && shape != "3x10240x2560:bfloat16:rc") continue;
    ++controls;
    EXPECT_EQ(now["shapes"][i]["calibrated"]["top1_key"], then["shapes"][i]["calibrated"]["top1_key"]) << shape;
  }
  EXPECT_EQ(controls, 2);
  const json& c = now["summary"]["calibrated"];
  EXPECT_LE(c["top1_geomean"].get<double>(), 1.02);  // measured 1.0151 (before 1.0140)
  EXPECT_LE(c["top1_worst"].get<double>(), 1.05);    // measured 1.040 (before 1.023)
  EXPECT_LE(c["top5_geomean"].get<double>(), 1.01);  // measured 1.0068 (before 1.0056)
  EXPECT_LT(std::abs(c["top1_geomean"].get<double>() - then["summary"]["calibrated"]["top1_geomean"].get<double>()),
            0.005);
  EXPECT_EQ(run_cli("validate " + data + gate).status, 0);
  EXPECT_EQ(run_cli("validate " + data + before_kmajor_rows_flag() + gate).status, 0);
  // Each family misses one class's best of top 5 by a hair: today fp16 at
  // M = 2-8 (1.0103), before it fp16 at M = 1 (1.0115).
  expect_known_miss(data + "--class float16:rc:mNK", "--max-top1-geomean 1.02 --max-top1-worst 1.04 --max-top5-geomean 1.012",
                    3);
  expect_meets_thresholds(data + "--class bfloat16:rc:mNK,float16:rc:1NK,bfloat16:rc:1NK", 7);
  // With the H100's nn.Linear set beside it (24 decode steps with B K-major,
  // 10 of them unseen when the term's form was chosen): every class within
  // the thresholds with the term (1.013 / 1.040 / 1.005, cuBLAS / pick
  // 0.999), not without it (1.016 / 1.079 / 1.008, fp16 at M = 1's best of
  // top 5 1.020).
  const std::string both =
      data + folders("data/h100-triton-splitk-linear/", {"one", "m", "m16", "bf16-one", "bf16-m", "bf16-m16"});
  expect_meets_thresholds(both, 24);
  EXPECT_EQ(run_cli("validate " + both + before_kmajor_rows_flag() + kCommittedThresholds).status, 1);
  EXPECT_GE(decode_tiles(both, [](const json&) { return true; }).cublas_over_pick, 0.995);  // measured 0.999
}

// --diagnose names kmajor_b_row_dram_share where it applies (docs/model.md
// §3, "Short rows of a K-major B"): 8x5120x13824 fp16 with B K-major,
// 16x128x64 at split 3, B 0.995 of the DRAM bytes: +9.9%, 46.1 us against
// 43.6 without it; not with block_K 128, not with B row-major.
TEST(SplitKCli, Diagnose_NamesTheShortRowsOfAKMajorB) {
  const std::string cfg = " --m 8 --n 5120 --k 13824 --block-m 16 --block-n 128 --stages 5 --threads 128 --split-k 3";
  const CliResult r = run_cli("tile --diagnose --b-layout col --block-k 64" + cfg);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("   short K-major rows      B is K-major and a stage's rows of B are 128 bytes, under 256: "
                       "DRAM's time +9.9%"),
            std::string::npos)
      << r.out;
  const json t = split_json("tile --diagnose --b-layout col --block-k 64" + cfg)["candidates"][0];
  EXPECT_NEAR(t["time_terms"]["kmajor_b_row_share"].get<double>(), 0.0995, 0.0005);
  const json before =
      split_json("tile --diagnose --b-layout col --block-k 64" + cfg + " " + before_kmajor_rows_flag())["candidates"][0];
  EXPECT_EQ(before["time_terms"]["kmajor_b_row_share"].get<double>(), 0.0);
  EXPECT_GT(t["predicted_us"].get<double>(), before["predicted_us"].get<double>() * 1.04);
  for (const std::string other : {" --b-layout col --block-k 128", " --b-layout row --block-k 64"}) {
    const CliResult o = run_cli("tile --diagnose" + other + cfg);
    ASSERT_EQ(o.status, 0) << o.err;
    EXPECT_EQ(o.out.find("short K-major rows"), std::string::npos) << other;
    EXPECT_EQ(split_json("tile --diagnose" + other + cfg)["candidates"][0]["time_terms"]["kmajor_b_row_share"], 0.0);
  }
}

TEST(SplitKCli, AutoInstr_PicksA16RowMmaTileAtOneToken) {
  const json j = split_json("tile --m 1 --n 14336 --k 3584 --split-k 1,2,4,8 --topk 3");
  EXPECT_EQ(j["problem"]["instr"], "auto");
  for (const json& c : j["candidates"]) {
    EXPECT_EQ(c["block_m"], 16);
    EXPECT_EQ(c["instr"], "mma");
  }
  // Asked for wgmma, the 16-row tiles fail C3 and a 64-row one is picked.
  const json w = split_json("tile --m 1 --n 14336 --k 3584 --split-k 1,2,4,8 --topk 1 --instr wgmma");
  EXPECT_EQ(w["candidates"][0]["block_m"], 64);
  // The text table says which rows compile to mma.
  const CliResult text = run_cli("tile --m 1 --n 14336 --k 3584 --topk 1");
  EXPECT_NE(text.out.find("  mma, C4 grid<SMs"), std::string::npos) << text.out;
  const json big = split_json("tile --topk 3");  // 4096^3: wgmma tiles only
  for (const json& c : big["candidates"]) EXPECT_EQ(c["instr"], "wgmma");
  // The seed model is the book's reference: its instruction is wgmma for every tile.
  const CliResult seed = run_cli("tile --model seed --topk 5");
  EXPECT_EQ(seed.out, run_cli("tile --model seed --topk 5 --instr wgmma").out);
  EXPECT_NE(seed.out.find("feasible 459 of 900"), std::string::npos) << seed.out;
  EXPECT_EQ(run_cli("tile --model seed --diagnose --block-m 16").out,
            run_cli("tile --model seed --diagnose --block-m 16 --instr wgmma").out);
  const CliResult bad = run_cli("tile --instr tensor");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--instr 'tensor' is not one of: auto, mma, wgmma, simt"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace tileplan::test
