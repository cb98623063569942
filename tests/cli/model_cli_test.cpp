// The calibrated model through the command line: predicted times in every
// output, the user's own search space, --emit, and `tileplan validate`.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "known_miss.hpp"
#include "run_cli.hpp"

namespace tileplan::test {
namespace {

using nlohmann::json;

TEST(ModelCli, DefaultIsCalibrated_RankedByPredictedTime) {
  const CliResult r = run_cli("tile --format json --topk 0");
  ASSERT_EQ(r.status, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["model"], "calibrated");
  EXPECT_EQ(j["family"], "triton");
  double last = 0;
  for (const json& c : j["candidates"]) {
    ASSERT_TRUE(c["predicted_us"].is_number());
    EXPECT_GE(c["predicted_us"].get<double>(), last);
    last = c["predicted_us"].get<double>();
    EXPECT_TRUE(c["time_bound"].is_string());
    EXPECT_TRUE(c["occupancy_limiter"].is_string());
    EXPECT_FALSE(c["spills"].get<bool>());  // spilling tiles fail C2 and are not candidates
  }
}

// Rows that carry the clock they ran at (data/h100-profile-power: the
// harness's whole grid on an H100, three shapes): validate says how many ran
// power-capped and at what clocks, in both formats; a dataset without clocks
// gets no such line.
TEST(ModelCli, Validate_ReportsTheClocksTheRowsRanAt) {
  const std::string grid = source_path("data/h100-profile-power/harness-grid");
  const CliResult r = run_cli("validate " + grid);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("clocks      504 of 504 timed configuration rows carry the SM clock they ran at: 411 "
                       "power-capped, 1365 to 1980 MHz (median 1935); cuBLAS: 0 of 3 rows power-capped"),
            std::string::npos)
      << r.out;
  const json j = json::parse(run_cli("validate " + grid + " --format json").out);
  EXPECT_EQ(j["clocks"]["rows"], 504);
  EXPECT_EQ(j["clocks"]["capped_rows"], 411);
  EXPECT_EQ(j["clocks"]["cublas_rows"], 3);
  for (const json& s : j["shapes"]) {
    EXPECT_EQ(s["clock"]["rows"], 168) << s["shape"];
    EXPECT_FALSE(s["clock"]["cublas"]["power_capped"].get<bool>()) << s["shape"];
    EXPECT_TRUE(s["clock"]["pick"]["mhz"].is_number()) << s["shape"];
    if (s["shape"] == "4096x4096x4096") {
      EXPECT_EQ(s["clock"]["capped_rows"], 159);
      EXPECT_EQ(s["clock"]["median_mhz"], 1830);
    }
  }
  const CliResult old = run_cli("validate " + source_path("data/h200-triton-v47"));
  ASSERT_EQ(old.status, 0) << old.err;
  EXPECT_EQ(old.out.find("clocks "), std::string::npos);
  const json none = json::parse(run_cli("validate " + source_path("data/h200-triton-v47") + " --format json").out);
  EXPECT_TRUE(none["clocks"]["min_mhz"].is_null());
  EXPECT_EQ(none["clocks"]["rows"], 0);
}

TEST(ModelCli, Seed_HasNoPrediction) {
  const json j = json::parse(run_cli("tile --model seed --format json --topk 3").out);
  EXPECT_EQ(j["model"], "seed");
  EXPECT_EQ(j["family"], "seed");
  for (const json& c : j["candidates"]) {
    EXPECT_TRUE(c["predicted_us"].is_null());
    EXPECT_TRUE(c["time_bound"].is_null());
  }
}

TEST(ModelCli, UsersSearchSpace_TheIssueCommand) {
  const CliResult r = run_cli(
      "tile --m 4096 --n 4096 --k 4096 --block-m 64,128,256 --block-n 64,128,256 --block-k 32,64,128 "
      "--stages 2,3,4,5 --threads 128,256 --format json");
  ASSERT_EQ(r.status, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["space_size"], 3 * 3 * 3 * 4 * 2);
  ASSERT_EQ(j["candidates"].size(), 15u);
  for (const json& c : j["candidates"]) {
    EXPECT_TRUE(c["block_k"] == 32 || c["block_k"] == 64 || c["block_k"] == 128);
    EXPECT_TRUE(c["threads"] == 128 || c["threads"] == 256);
  }
  // The measured best of this grid on an H200 is 128x256x64 with 8 warps;
  // the model's first pick is that tile.
  EXPECT_EQ(j["candidates"][0]["block_m"], 128);
  EXPECT_EQ(j["candidates"][0]["block_n"], 256);
  EXPECT_EQ(j["candidates"][0]["threads"], 256);
}

TEST(ModelCli, OtherInstrAndDevice_StillRank) {
  for (const char* args : {"tile --instr mma --device a100-sxm --format json --topk 5",
                           "tile --device l40s --m 512 --n 512 --k 512 --format json --topk 5",
                           "tile --family seed --format json --topk 5"}) {
    const CliResult r = run_cli(args);
    ASSERT_EQ(r.status, 0) << args << "\n" << r.err;
    const json j = json::parse(r.out);
    ASSERT_EQ(j["candidates"].size(), 5u) << args;
    EXPECT_LE(j["candidates"][0]["predicted_us"].get<double>(), j["candidates"][4]["predicted_us"].get<double>());
  }
}

TEST(ModelCli, Text_ShowsPredictedTime) {
  const CliResult r = run_cli("tile --topk 3");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("model=calibrated family=triton"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("pred us"), std::string::npos);
  EXPECT_NE(r.out.find("by predicted time"), std::string::npos);
  const CliResult d = run_cli("tile --diagnose --block-m 128 --block-n 256 --block-k 64 --stages 4 --threads 256");
  ASSERT_EQ(d.status, 0) << d.err;
  EXPECT_NE(d.out.find("predicted time          186.6 us"), std::string::npos) << d.out;  // docs/model.md §4
  EXPECT_NE(d.out.find("(triton profile)"), std::string::npos) << d.out;
}

// --diagnose shows what the predicted time is made of, in text and in JSON
// (null under the seed model); a sweep's candidates leave them out.
TEST(ModelCli, Diagnose_ShowsTheTimeTerms) {
  const std::string cfg = "tile --diagnose --block-m 128 --block-n 256 --block-k 64 --stages 4 --threads 256";
  const CliResult d = run_cli(cfg);
  ASSERT_EQ(d.status, 0) << d.err;
  EXPECT_NE(d.out.find("one K step              1 program at a time on an SM: MMA "), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("us a step, 64 steps"), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("SMs and DRAM            busiest SM "), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("(4 programs, epilogue "), std::string::npos) << d.out;
  const json c = json::parse(run_cli(cfg + " --format json").out)["candidates"][0];
  const json& t = c["time_terms"];
  ASSERT_TRUE(t.is_object()) << c.dump();
  EXPECT_EQ(t["k_steps"].get<int64_t>(), 64);
  EXPECT_EQ(t["programs_per_sm"].get<int64_t>(), 4);  // 512 tiles on 132 SMs
  EXPECT_EQ(t["round_programs"].get<int64_t>(), 1);
  // The SMs bind in four waves: joined at order q > 2 (sm_overlap_power), and the line says so.
  const double q = t["overlap_order"].get<double>();
  EXPECT_GT(q, 2.0);
  EXPECT_NEAR(c["predicted_us"].get<double>(),
              t["launch_us"].get<double>() + std::pow(std::pow(t["sm_us"].get<double>(), q) +
                                                          std::pow(t["dram_us"].get<double>(), q),
                                                      1.0 / q),
              1e-6 * c["predicted_us"].get<double>());  // the join is tabulated, within 1e-6
  EXPECT_NE(d.out.find(fmt::format("(joined at order {:.2f}: the SMs bind in a grid of a wave or more)", q)),
            std::string::npos)
      << d.out;
  EXPECT_EQ(t["stages_in_flight"].get<int64_t>(), 3);  // 4 stages
  EXPECT_EQ(t["mma_rate"].get<double>(), 1.0);         // wgmma: the full rate
  EXPECT_EQ(t["dram_scale"].get<double>(), 1.0);       // and DRAM's plain time
  EXPECT_EQ(d.out.find("bytes in flight"), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("round trip 0.441 (3 stages in flight) -> "), std::string::npos) << d.out;
  EXPECT_EQ(d.out.find("mma.sync at"), std::string::npos) << d.out;
  // An mma tile (32 rows) keeps stages - 1 in flight too, and its MMAs run
  // at mma_rate_share of the tensor rate; both are shown.
  const std::string mma = "tile --diagnose --m 96 --n 5120 --k 5120 --block-m 32 --block-n 128 --block-k 128 --stages 5 "
                          "--threads 128";
  const CliResult md = run_cli(mma);
  ASSERT_EQ(md.status, 0) << md.err;
  EXPECT_NE(md.out.find("(mma.sync at 55% of the tensor rate)"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("(4 stages in flight)"), std::string::npos) << md.out;
  const json mt = json::parse(run_cli(mma + " --format json").out)["candidates"][0]["time_terms"];
  EXPECT_EQ(mt["stages_in_flight"].get<int64_t>(), 4);
  EXPECT_NEAR(mt["mma_rate"].get<double>(), 0.552, 1e-12);
  // Its 4 stages of 40 KB in flight pass the knee (64 KB): DRAM's time grows
  // by mma_flight_dram_share (0.1) per knee past it, and the diagnosis says so.
  EXPECT_DOUBLE_EQ(mt["flight_bytes"].get<double>(), 4.0 * 160 * 128 * 2);
  EXPECT_NEAR(mt["dram_scale"].get<double>(), 1.0 + 0.1 * (160.0 - 64.0) / 64.0, 1e-12);
  EXPECT_NE(md.out.find("   bytes in flight         160.0 KB per SM (1 program x 4 stages x 40.0 KB): DRAM's time x1.150"),
            std::string::npos)
      << md.out;
  // The stage's copy rate: shown where the cap binds, and for an mma tile
  // whose warps scale it ((warps / 4)^mma_copy_warp_power), with JSON's
  // copy_us, copy_bytes_per_cycle and copy_warp_scale.
  const std::string lone = "tile --diagnose --m 1 --n 20480 --k 7168 --instr mma --block-m 16 --block-n 256 --block-k 64 "
                           "--stages 4 --threads ";
  const CliResult c4 = run_cli(lone + "128"), c8 = run_cli(lone + "256");
  EXPECT_NE(c4.out.find("   copy rate               a stage arrives at one program at 39.2 B a cycle at most: 0.448 us, "
                        "where its L2 share gives 0.288"),
            std::string::npos)
      << c4.out;
  EXPECT_NE(c8.out.find("at 66.0 B a cycle at most (39.2 x 1.68 for 8 warps): 0.266 us, within its L2 share's 0.288"),
            std::string::npos)
      << c8.out;
  const json ct = json::parse(run_cli(lone + "256 --format json").out)["candidates"][0]["time_terms"];
  EXPECT_NEAR(ct["copy_warp_scale"].get<double>(), std::pow(2.0, 0.75), 1e-12);
  EXPECT_NEAR(ct["copy_bytes_per_cycle"].get<double>() / ct["copy_warp_scale"].get<double>(), 39.2366239, 1e-6);
  EXPECT_NEAR(ct["copy_us"].get<double>(), (16.0 + 256.0) * 64 * 2 / (ct["copy_bytes_per_cycle"].get<double>() * 1980),
              1e-12);
  // A wgmma tile's cap shows where it binds, without a warp factor; not where the L2 share binds.
  const CliResult wg = run_cli("tile --diagnose --m 640 --n 2048 --k 8192 --block-m 128 --block-n 128 --block-k 128 "
                               "--stages 3 --threads 256");
  EXPECT_NE(wg.out.find("at 39.2 B a cycle at most: 0.844 us, where its L2 share gives 0.443"), std::string::npos) << wg.out;
  // The worked example of docs/model.md §4 (4096^3, 128x256x64): t_copy 0.633 us over the L2's 0.548.
  EXPECT_NE(d.out.find("at 39.2 B a cycle at most: 0.633 us, where its L2 share gives 0.548"), std::string::npos)
      << d.out;
  // fp8's wgmma tiles have no cap (their latency constants were fitted without it).
  const CliResult f8 = run_cli("tile --diagnose --dtype float8_e4m3 --b-layout col --block-m 128 --block-n 256 "
                               "--block-k 128 --stages 4 --threads 256");
  ASSERT_EQ(f8.status, 0) << f8.err;
  EXPECT_EQ(f8.out.find("   copy rate"), std::string::npos) << f8.out;
  // A short K caps the stages in flight at its K steps.
  const json kt = json::parse(run_cli("tile --diagnose --m 96 --n 5120 --k 256 --block-m 32 --block-n 128 --block-k 128 "
                                      "--stages 5 --threads 128 --format json")
                                  .out)["candidates"][0]["time_terms"];
  EXPECT_EQ(kt["k_steps"].get<int64_t>(), 2);
  EXPECT_EQ(kt["stages_in_flight"].get<int64_t>(), 2);
  // Narrow loads appear where an operand goes through registers.
  const CliResult n = run_cli("tile --diagnose --m 4096 --n 3000 --k 2048 --instr wgmma --block-m 256 --block-n 64 "
                              "--block-k 64 --stages 3 --threads 128");
  ASSERT_EQ(n.status, 0) << n.err;
  EXPECT_NE(n.out.find(", narrow loads "), std::string::npos) << n.out;
  EXPECT_EQ(d.out.find(", narrow loads "), std::string::npos) << d.out;
  // A sweep's candidates leave the terms out (a diagnosis shows them).
  const json sweep = json::parse(run_cli("tile --format json --topk 3").out);
  for (const json& s : sweep["candidates"]) EXPECT_FALSE(s.contains("time_terms")) << s.dump();
  EXPECT_TRUE(json::parse(run_cli(cfg + " --format json --model seed").out)["candidates"][0]["time_terms"].is_null());
  EXPECT_EQ(run_cli(cfg + " --model seed").out.find("one K step"), std::string::npos);
}

TEST(ModelCli, Csv_HasPredictionColumns) {
  const CliResult r = run_cli("tile --format csv --topk 2");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find(",predicted_us,time_bound,occupancy_limiter,spills,split_k,reduce_us\n"), std::string::npos);
  EXPECT_EQ(count_lines(r.out), 3);
}

TEST(ModelCli, EmitTriton_PasteReadyLines) {
  const CliResult r = run_cli("tile --emit triton --topk 4");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(count_lines(r.out), 5);  // a comment, then one line per configuration
  std::size_t at = r.out.find('\n') + 1;
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(r.out.compare(at, 23, "triton.Config({'BLOCK_M"), 0) << r.out;
    EXPECT_NE(r.out.find("'GROUP_M': 8}, num_stages=", at), std::string::npos);
    at = r.out.find('\n', at) + 1;
  }
}

TEST(ModelCli, EmitTileLang_ListOfDicts) {
  const CliResult r = run_cli("tile --emit tilelang --topk 2 --m 1024 --n 1024 --k 1024");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\n[\n    {\"block_M\": "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"num_stages\": "), std::string::npos);
  EXPECT_NE(r.out.find("\"threads\": "), std::string::npos);
  EXPECT_EQ(r.out.substr(r.out.size() - 2), "]\n");
}

// The gate CI runs: the committed thresholds on the held-out shapes.
// The CI gate: every held-out shape (v2's 12, and v4's 10 measured after the
// model was frozen) must meet the thresholds the project commits to.
TEST(ModelCli, Validate_HeldOutMeetsCommittedThresholds) {
  const CliResult r = run_cli("validate " + source_path("data/h200-triton-v2") + " " +
                              source_path("data/h200-triton-v4") +
                              " --split heldout --max-top1-geomean 1.03 --max-top1-worst 1.10 --max-top5-geomean 1.01");
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("thresholds"), std::string::npos);
  EXPECT_NE(r.out.find(": met"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("shapes 22:"), std::string::npos) << r.out;  // 12 + 10 held-out shapes
  EXPECT_EQ(count_lines(r.out), 22 + 10) << r.out;  // 22 shapes, headings, summaries, the time ratio
}

// The CI gate for input types, layouts and divisibility classes: every
// held-out case of v5a/v5b and v9 (never fitted on), v6, v10, v12, v14 and
// v16 (measured after the constants were frozen), v8 (fp8 e5m2, never
// fitted on), v17 (a survey of classes never measured before, the model
// frozen), v18 (measured after tail_sync was frozen), v19 (after the paired
// constants were refitted), v21 and v22 (after the epilogue rule was frozen),
// v23 (after async_share was frozen) in the classes where the model meets the
// committed thresholds, overall and class by class.
constexpr const char* kGatedClasses =
    "float16:rr:MNK,bfloat16:rr:MNK,float8_e4m3:rc:MNK,float8_e5m2:rc:MNK,float16:rr:MNk,"
    "float16:cr:mNK,float16:cr:MNK,float16:rc:MNk,float16:rc:mnk,float16:rr:Mnk,"
    "bfloat16:rr:MNk,float8_e4m3:rc:MNk,tfloat32:rr:mNK,bfloat16:rr:mNK,"
    "bfloat16:rr:mnk,bfloat16:rr:Mnk,float16:rc:mnK,float16:rr:mnK,"
    "bfloat16:rr:MnK,float8_e4m3:rc:mnK,float16:rc:MnK,tfloat32:rr:MNK,"
    "float16:rc:MNK,bfloat16:rc:mnK,float16:rc:mNK,bfloat16:rc:mNK,"
    "float16:rr:1NK,float16:rc:1NK,bfloat16:rr:1NK,bfloat16:rc:1NK,float8_e4m3:rc:1NK,float8_e4m3:rc:MnK,"
    "float16:rr:MnK,bfloat16:rc:MnK,float8_e4m3:rc:mNK";
TEST(ModelCli, Validate_TypesAndClasses_HeldOutMeetCommittedThresholds) {
  std::string data;
  for (const char* v :
       {"v5a", "v5b", "v6", "v7", "v8", "v9", "v10", "v12", "v14", "v16", "v17", "v18", "v19", "v21", "v22", "v23",
        "v24", "v25", "v26", "v28", "v29", "v30", "v31", "v32", "v33", "v34", "v35", "v36", "v37", "v38", "v40",
        "v41", "v42", "v44", "v46", "v47", "pad1", "nbits1", "m1b", "m23", "m24", "mfew", "mfew-fp8-again",
        "mstep-fresh", "mstep-fresh2", "mfp8-fresh"})
    data += source_path(std::string("data/h200-triton-") + v) + " ";
  const CliResult r = run_cli("validate " + data + "--split heldout --class " + kGatedClasses +
                              " --max-top1-geomean 1.03 --max-top1-worst 1.10 --max-top5-geomean 1.01");
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("met (overall and in every class)"), std::string::npos) << r.out;
  // 93 cases before the epilogue rule, less fp8 B K-major with N unaligned
  // (2 of v17, now a known miss below), plus bf16 A and B row-major with N
  // and K unaligned (3 of v17 and v19, M unaligned; 1 of v21, M aligned)
  // and v21's and v22's cases of gated classes (3 fp16 rr:Mnk, 1 fp16 rc:mnK),
  // plus v23's two fp16 rr:MNk and fp16 rr:mnK with its four cases (one of
  // v17, one of v21, two of v23), which joined with async_share: 105 cases.
  // The smooth maximum (overlap_power, the time constants refitted) brought
  // three more classes, 34 cases: fp16 rr:mnk (26: 1.024 / 1.134 -> 1.005 /
  // 1.028), bf16 rr:MnK (5: 1.043 / 1.096 -> 1.000) and fp8 rc:mnK (3: 1.045
  // / 1.056 -> 1.018 / 1.056); the 105 went from 1.009 / 1.078 to 1.008 /
  // 1.071. Then the fresh v24, measured after the constants were frozen:
  // 7 cases of those three classes (1.005, 1.026 / 1.053, 1.042 / 1.087).
  // 146 cases: 1.008 / 1.087, best of top 5 1.002. Then the fresh v25, of
  // the classes gated before the smooth maximum: fp16 rr:MNK (aligned; its
  // six cases of these datasets and v25's four, 1.003 / 1.011, joined this
  // gate beside the v2 and v4 one above) stays in, fp16 rr:mNK leaves it
  // (333x4096x14336: 1.122, the 64x256-against-128x128 miss of
  // docs/model.md §6, the same pick before the smooth maximum). 150 cases:
  // 1.008 / 1.087, best of top 5 1.002 (the family before the smooth
  // maximum: 1.014 / 1.134 on the same cases).
  // Then l1_miss_cycles (the L1 a block keeps against its narrow loads'
  // lines, fitted on the calibration cases alone) and the fresh v26, measured
  // after it was frozen: its seven cases of gated classes (bf16 rr:MnK 5, fp16
  // rr:mnK 1, bf16 rr:mnK 1) and bf16 rr:mnK back from the known misses (5:
  // 1.015 / 1.046, best of top 5 1.009). 161 cases: 1.008 / 1.087, best of
  // top 5 1.002 (the family before the term: 1.016 / 1.908).
  // Then kmajor_wide_n limited to kernels that store C with 16-byte vectors
  // (the assembler serializes their wgmma) and the fresh v28, measured after
  // it was frozen: fp16 B K-major with N alone unaligned joined (its v22 case
  // 1.074 -> 1.000, v28's three 1.019 / 1.034; 4 cases 1.014 / 1.034), and
  // v28's three fp16 rc:mnK cases (1.035 / 1.068; the family before 1.006 /
  // 1.011). 168 cases: 1.009 / 1.087, best of top 5 1.002.
  // Then tf32's on-chip transpose of B made to share the MMAs' shared-memory
  // pipe across the programs on an SM (no constant fitted) and the fresh
  // v29 (10 tf32 cases, 1.022 / 1.075; the rule before 1.075 / 1.335): tf32
  // A and B row-major joined with every held-out case (v5a, v6, v7, v29:
  // 23 cases, 1.027 / 1.096, best of top 5 1.001; before the rule the 15
  // of v5a, v6 and v7 scored 1.058 / 1.337), and tf32 with M unaligned
  // gained v29's two (4 cases, 1.017 / 1.035). 193 cases: 1.011 / 1.096,
  // best of top 5 1.002.
  // Then the epilogue's row term (a narrow-store epilogue spills more when M
  // is not a multiple of 16; fitted on spill counts) and epilogue_spill_cycles
  // refitted alone, and the fresh v30 (12 cases with C stored narrow, 1.011 /
  // 1.062; the family before 1.029 / 1.135): bf16 B K-major with N alone
  // unaligned joined (its four earlier cases 1.073 / 1.108 -> 1.032 / 1.087,
  // v30's two 1.002 / 1.005; 6 cases 1.022 / 1.087 / 1.001). 206 cases:
  // 1.011 / 1.096, best of top 5 1.002 (the family at the start of these two
  // changes 1.017 / 1.337 / 1.003 on the same cases).
  // Then the fresh v31, the nn.Linear layout (A row-major, B K-major, all
  // aligned; 18 projections of real models, nothing fitted): fp16 joined
  // with its v6 case (2048^3, 1.036; 11 cases 1.026 / 1.099 / 1.010), bf16
  // (8 cases, 1.013 / 1.101) is a known miss below. 217 cases: 1.012 /
  // 1.099, best of top 5 1.002.
  // Then the fresh v32: two or three cases for each of the five gated
  // classes that held one or two (fp16 A column-major, aligned or M
  // unaligned; bf16 A and B row-major with K or N and K unaligned; fp8 B
  // K-major with K unaligned): 11 cases, 1.007 / 1.022, nothing fitted.
  // 228 cases: 1.012 / 1.099, best of top 5 1.002.
  // Then the serialized-wgmma rule moved from a warpgroup's width to block_N
  // over two or more warpgroups (the compiled kernels' SASS; no constant
  // fitted; the 228 unchanged at top 1) and the fresh v34, measured after it
  // (B K-major, 9 cases: 1.010 / 1.050 / 1.000; the rule before 1.010 / 1.050
  // / 1.002): its fp16 and fp8 cases joined their gated classes (fp16 rc:MNK
  // 14 cases 1.020 / 1.099 / 1.008, fp8 rc:MNK 17 cases 1.014 / 1.050 /
  // 1.000). 234 cases: 1.012 / 1.099, best of top 5 1.002.
  // Then the L2's read requests (l2_request_bytes: rows shorter than a cache
  // line take more requests per byte; fitted alone on the calibration cases,
  // the 234 keep their picks) and v35 (13 cases, 1.019 / 1.093 / 1.005; the
  // family before 1.211 / 1.632 / 1.005; measured after an additive share of
  // the lines' unused bytes, which the requests replaced: data/h200-triton-v35):
  // fp16 rc:MnK gained 64x50257x5120 (1.002; 1.632 before), bf16 rr:mNK
  // v35's two (700x6144x4096 1.000, where the additive share gave 1.128).
  // 237 cases: 1.012 / 1.099, best of top 5 1.002 (the family before 1.014 /
  // 1.632 / 1.002 on the same cases). Then the fresh v36, measured after the
  // requests were frozen (14 cases, 1.032 / 1.118 / 1.002; the family before
  // the term 1.232 / 1.796 / 1.001): its cases of gated classes joined them,
  // and fp8 rc:mnK left the gate on 3000x32001x1536 (1.118: 64x128x128 where
  // 128x128x128 with 8 warps wins; the family before the term 1.257 there).
  // 236 cases: 1.011 / 1.099, best of top 5 1.002 (the family before 1.018 /
  // 1.796 / 1.002).
  // Then the narrow-store queue (a program's narrow stores of C wait behind
  // those of the other programs on its SM; no constant fitted) and the fresh
  // v37, measured after it (18 cases, 1.043 / 1.217 / 1.020; the family
  // before 1.072 / 1.344 / 1.016): fp8 with M and N unaligned came back to
  // the gate (12 cases with v37's five, 1.027 / 1.087 / 1.005), bf16 A and B
  // row-major with M and N unaligned left it on v37's 555x7001x1024 (1.217,
  // a separate known miss below). 245 cases: 1.012 / 1.099, best of top 5
  // 1.003 (the family before 1.014 / 1.275 / 1.003). Then the fresh v38
  // (the nn.Linear layout with M and N unaligned, nothing fitted; 10 cases,
  // 1.012 / 1.053 / 1.000): bf16 joined with v37's two (8 cases, 1.018 /
  // 1.062 / 1.000), fp16 gained four (11 cases, 1.013 / 1.087 / 1.004).
  // 257 cases: 1.012 / 1.099, best of top 5 1.002.
  // Then A of one row (M = 1, which Triton compiles apart: every copy of A's
  // row in the tile requests the same lines; one_row_a_extra fitted alone on
  // data/h200-triton-m1a) and the fresh m1b, measured after it was frozen:
  // 12 decode steps in fp16, bf16 and fp8, five classes of their own (1.006
  // / 1.054 / 1.000; the family before the term 1.097 / 1.834 / 1.000).
  // 269 cases: 1.012 / 1.099, best of top 5 1.002. Then A's repeated rows
  // priced at one_row_a_extra / M below M = 16 and the fresh mfew (decode
  // steps of 2 to 12 tokens; its one case of a gated class, bf16 rr:mNK,
  // 1.000): 270 cases, the same figures. Then the programs walking K in
  // step below M = 16 (in_step_a_ns, with one_row_a_extra 5 -> 4, fitted on
  // mstep and m1a) and two fresh sets measured after it was frozen,
  // mstep-fresh and mstep-fresh2: their nine cases of gated classes 1.003 /
  // 1.019 (the family before, the same). 279 cases: 1.012 / 1.099, best of
  // top 5 1.002. Then fp8's launch_us and miss_latency_cycles, refitted with
  // the fp8 decode steps of mfp8 (calibration): fp8 with N alone unaligned
  // (13 cases, 1.026 / 1.110 / 1.008 before) came in at 1.020 / 1.082 /
  // 1.008, fp8 M = 1 went 1.003 / 1.014 to 1.016 / 1.083 (m1b's
  // 1x6144x4096), fp8 aligned 1.014 to 1.012. 292 cases: 1.012 / 1.099,
  // best of top 5 1.003. Then the fresh mfp8-fresh, measured after that
  // refit was frozen: its five cases of gated classes (fp8 M = 1, aligned,
  // N alone and M and N unaligned) 1.010 / 1.035 / 1.004 (the family before
  // the refit 1.027 / 1.089). 297 cases: 1.012 / 1.099, best of top 5 1.003.
  // Then kmajor_wide_unit_saving (a lone warpgroup 256 columns wide with B
  // K-major and C stored with vectors costs L2 10% less; fitted alone on
  // the nn.Linear calibration cases of v39) and the fresh v40, measured
  // after it was frozen (12 cases of the nn.Linear layout: 1.013 / 1.084 /
  // 1.002; the family before 1.013 / 1.084 / 1.008): fp16 and bf16 with B
  // K-major and M alone unaligned joined the gate (v33's, m23's and m24's
  // cases of those classes came with them; one bf16 rr:mNK case of m23 too):
  // fp16 22 cases 1.017 / 1.093 / 1.003 (before 1.022 / 1.108 / 1.007 on
  // the 19 earlier ones), bf16 28 cases 1.009 / 1.090 / 1.000 (before 1.015
  // / 1.107 / 1.000 on 26). 351 cases: 1.012 / 1.099, best of top 5 1.002.
  // Then the fresh v41: 16 nn.Linear cases, 14 whose pick the term moves and
  // two controls (1.006 / 1.050 / 1.000; the family before 1.040 / 1.147 /
  // 1.008); its 14 cases of gated classes came in. 365 cases: 1.011 /
  // 1.099, best of top 5 1.002. Then nmajor_wide_unit_cost (64x256 with 4
  // warps and B N-major: 22% more MMA time) and the fresh v42 (19 cases
  // whose pick it moves, and controls: 1.070 / 1.250 against 1.079 / 1.129
  // before, its misses 128x128x128 with 3 stages), then copy_bytes_per_cycle
  // (a program's stage arrives at most 39 bytes a cycle, fitted with the
  // latency constants on the calibration cases with v43) and the fresh v44
  // (18 cases: 1.010 / 1.042 / 1.000; the family before 1.105 / 1.240, the
  // family before both terms 1.067 / 1.128): v42 went to 1.006 / 1.023, and
  // their cases of fp16 and bf16 A and B row-major with N and K aligned (33)
  // came in, which without the two terms would miss (fp16 rr:MNK 1.042 /
  // 1.128, bf16 rr:MNK 1.036 / 1.129, bf16 rr:mNK 1.031 / 1.128). Two near
  // ties flipped out: bf16 B K-major with N unaligned (6144x7001x4096 1.108,
  // 588.3 against 588.9 us predicted) and fp16 with M, N and K unaligned
  // (333x5001x4001 1.113), now known misses below. 355 cases: 1.012 /
  // 1.099, best of top 5 1.002.
  // Then mfew's two fp8 rows, superseded by their re-measurement
  // (mfew-fp8-again: mfew's memory-bound kernels had run slowed), and fp8's
  // own tail_sync (1.0: the lone program of a partial last round runs on its
  // own; fitted on the two-block-against-one pairs of fp8's calibration cases
  // with v45), then the fresh v46, measured after it was frozen (16 fp8
  // cases, eleven whose pick it moves: 1.019 / 1.100 / 1.006; the family
  // before 1.078 / 1.199 / 1.006): its five cases of gated classes came in
  // (fp8 aligned 480x12288x4096 1.109 -> 1.002). 360 cases: 1.011 / 1.099,
  // best of top 5 1.002 (the family before 1.012 / 1.109 / 1.002).
  // Then three fresh H200 sets, nothing fitted: v47 (the epilogue's row term
  // and narrow_b_mn_step_share, 17 cases), pad1 (eight padding pairs) and
  // nbits1 (N's low bits and the stage count): their 27 cases of gated
  // classes came in. 387 cases: 1.012 / 1.099, best of top 5 1.002.
  // Then aligned_b_stage_share (a stage beyond two costs a spilling kernel
  // with a narrow B more where B's rows are 16-byte aligned; fitted on a
  // sweep of B's row stride alone, docs/model.md §3): fp16 A and B
  // row-major with N alone unaligned came in from the known misses (32
  // cases, 1.019 / 1.104 / 1.004 -> 1.008 / 1.087 / 1.004: every moved pick
  // went to 2 stages of 256x64x64 and the measured best). 419 cases:
  // 1.011 / 1.099, best of top 5 1.002.
  // Then B's reuse in L2 between program groups as measured on an H100 (the
  // device's l2_reuse shares) with sm_overlap_power (the SMs' time and
  // DRAM's joined nearer a plain maximum where the SMs bind in a grid of a
  // wave or more; fitted alone on the calibration cases): bf16 with B
  // K-major and N alone unaligned (8 cases, 1.031 / 1.108 -> 1.018 / 1.087:
  // 6144x7001x4096 1.108 -> 1.000) and fp8 with M alone unaligned (36 cases,
  // 1.016 / 1.1003 -> 1.014 / 1.071: 600x7168x7168 1.1003 -> 1.000) came in
  // from the known misses. The 419 went to 1.011 / 1.099 / 1.002 (no pick
  // of them worse than 1.099); with the reuse alone and the Euclidean norm
  // fp16 rc:mNK's 700x28672x8192 goes to 1.108 (below). 463 cases: 1.012 /
  // 1.099, best of top 5 1.002.
  EXPECT_NE(r.out.find("shapes 463:"), std::string::npos) << r.out;
  for (const char* c : {"float16:rr:MNK\n", "bfloat16:rr:MNK\n", "float8_e4m3:rc:MNK\n", "float8_e5m2:rc:MNK\n", "float16:rr:MNk\n",
                        "float16:rc:MNk\n", "float16:rc:mnk\n", "float16:rr:Mnk\n", "bfloat16:rr:MNk\n",
                        "float8_e4m3:rc:MNk\n", "tfloat32:rr:mNK\n", "bfloat16:rr:mNK\n",
                        "bfloat16:rr:mnk\n", "bfloat16:rr:Mnk\n", "float16:rc:mnK\n", "float16:rr:mnK\n",
                        "bfloat16:rr:MnK\n", "float8_e4m3:rc:mnK\n",
                        "float16:rc:MnK\n", "tfloat32:rr:MNK\n", "float16:rc:MNK\n",
                        "bfloat16:rc:mnK\n", "float16:rr:1NK\n", "float16:rc:1NK\n", "bfloat16:rr:1NK\n",
                        "bfloat16:rc:1NK\n", "float8_e4m3:rc:1NK\n", "float8_e4m3:rc:MnK\n", "float16:rc:mNK\n",
                        "bfloat16:rc:mNK\n", "float16:rr:MnK\n", "bfloat16:rc:MnK\n", "float8_e4m3:rc:mNK\n"})
    EXPECT_NE(r.out.find(c), std::string::npos) << c;
  // The family before the two terms misses on both classes they brought in:
  // 6144x7001x4096 bf16 (1.108) and 600x7168x7168 fp8 (1.1003).
  const std::string before = " --family-file " + source_path("data/archive/triton-before-l2-reuse.json");
  const CliResult b = run_cli("validate " + data + "--split heldout --class bfloat16:rc:MnK,float8_e4m3:rc:mNK" + before +
                              " --max-top1-geomean 1.03 --max-top1-worst 1.10 --max-top5-geomean 1.01");
  EXPECT_EQ(b.status, 1) << b.out << b.err;
  EXPECT_NE(b.out.find("worst 1.108 (6144x7001x4096:bfloat16:rc)"), std::string::npos) << b.out;
  EXPECT_NE(b.out.find("worst 1.100 (600x7168x7168:float8_e4m3:rc)"), std::string::npos) << b.out;
  // B's reuse alone, with the Euclidean norm everywhere (sm_overlap_power
  // 0): the gated fp16 B K-major class with M alone unaligned misses on
  // 700x28672x8192 (1.108: 128x128x64 with 3 stages over 64x256x64 with 5,
  // the measured best, by 0.4% predicted).
  json fam = json::parse(slurp(source_path("data/families/triton.json")));
  fam["time"]["constants"].erase("sm_overlap_power");
  const std::string reuse_alone = "/tmp/tileplan_reuse_alone_" + std::to_string(::getpid()) + ".json";
  std::ofstream(reuse_alone) << fam.dump();
  const CliResult a = run_cli("validate " + data + "--split heldout --class " + kGatedClasses + " --family-file " +
                              reuse_alone + " --max-top1-geomean 1.03 --max-top1-worst 1.10 --max-top5-geomean 1.01");
  std::remove(reuse_alone.c_str());
  EXPECT_EQ(a.status, 1) << a.out << a.err;
  EXPECT_NE(a.out.find("worst 1.108 (700x28672x8192:float16:rc)"), std::string::npos) << a.out;
}

// The classes where the frozen model misses the thresholds (docs/model.md §6):
// fp16 with M alone unaligned (555x14336x12288: 64x256x64 with
// 5 stages where the same tile with block_K 32 and 4 stages wins by 12%);
// fp16 with M, N and K unaligned (a near tie that copy_bytes_per_cycle
// flipped); bf16 with B K-major, all aligned (4096x18944x3584 picks 4 stages of
// 256x128x64 where 256x128x32 with 5 takes 9% less time: 1.101, 1.055 when
// measured again). fp8 with N alone unaligned (C stored with
// narrow stores) left for the gate with fp8's refit of launch_us and
// miss_latency_cycles; bf16 with B K-major and N unaligned (6144x7001x4096,
// a near tie) and fp8 with M alone unaligned (v46's 600x7168x7168, 1.1003:
// 64x128x128 with 3 stages where 128x128x128 with 5 wins) with B's reuse in
// L2 and sm_overlap_power.
// They must keep missing the committed thresholds (a fix moves them into the
// gate above) and must not get worse than measured when the constants were
// frozen.
constexpr const char* kKnownMisses = "bfloat16:rc:MNK,float16:rr:mNK,float16:rr:mnk";
TEST(ModelCli, Validate_KnownMisses_StayBounded) {
  std::string data;
  for (const char* v :
       {"v5a", "v5b", "v6", "v7", "v8", "v9", "v10", "v12", "v14", "v16", "v17", "v18", "v19", "v21", "v22", "v23",
        "v24", "v25", "v26", "v28", "v29", "v30", "v31", "v32", "v33", "v34", "v35", "v36", "v37", "v38", "v40",
        "v41", "v42", "v44", "v46", "v47", "pad1", "nbits1", "m24", "m23", "mfew", "mfew-fp8-again", "mstep-fresh",
        "mstep-fresh2", "mfp8-fresh"})
    data += source_path(std::string("data/h200-triton-") + v) + " ";
  // 6 tf32 + 1 fp16 rc:MNK + 14 fp16 rr:MnK (3 of v24) + 4 bf16 rr:mnK (2 of
  // v24) + 5 fp8 rc:mNK + 4 fp8 rc:MnK +
  // 1 fp16 and 1 bf16 rc:MnK. The smooth maximum moved three classes into
  // the gate for good and fp16 rr:MnK from 1.035 / 1.132 to 1.079 / 1.791: seven of its
  // cases went to the measured best (3 stages of 256x64x64), two to the
  // 3-stage variant where 2 stages win (2048x1500x2048 1.079, 4096x3000x2048
  // 1.104), and 128x50257x4096 to 128x64x128 with 3 stages, 1.791, which runs
  // two 255-register blocks per SM and is measured about 1.8x its predicted
  // time in every B-narrow case (docs/model.md §6). fp8 rc:MnK 1.057 / 1.097
  // -> 1.065 / 1.148. bf16 rr:mnK went 1.048 / 1.063 -> 1.000 on its two
  // cases and joined the gate, then left it on the fresh v24 (1.038 / 1.046,
  // best of top 5 1.023; four cases 1.019 / 1.046 / 1.011). v24's fp16
  // rr:MnK cases, a skinny M among them, 1.006 / 1.018. fp16 rr:mNK (13:
  // eleven earlier cases and v25's two) left the gate on v25's
  // 333x4096x14336, 1.122: 1.015 / 1.122, best of top 5 1.001. Overall
  // 49 cases, 1.048 / 1.791, best of top 5 1.006. Then l1_miss_cycles (the
  // narrow loads' L1 per block, fitted on calibration cases alone) took
  // 128x50257x4096 to 128x64x64 with 5 stages (1.791 -> 1.046) and fp16
  // rr:MnK to 1.023 / 1.104 / 1.008 (its worst is 4096x3000x2048, whose
  // stage count the term does not touch); overall 1.037 / 1.337 (tf32's
  // 6144x1024x2048), best of top 5 1.006. The fresh v26 added five fp16
  // rr:MnK cases (1.034 / 1.092; the family before the term 1.467 / 1.907)
  // and bf16 rr:mnK went back to the gate: 50 cases, 1.038 / 1.337, best of
  // top 5 1.006 (before the term 1.087 / 1.907). fp16 rr:MnK, 19 cases:
  // 1.026 / 1.104, best of top 5 1.009. The bounds hold in every class
  // (tf32's geomean is 1.081, fp16 rc:MnK's best of top 5 1.036).
  // Then kmajor_wide_n limited to kernels that store C with 16-byte vectors
  // and the fresh v28: fp16 rc:MnK joined the gate; v28 added three bf16
  // rc:MnK (1.072 / 1.108, the same picks as before) and three fp8 rc:MnK
  // (1.125 / 1.150 before, 1.074 / 1.115 after). 55 cases: 1.040 / 1.337,
  // best of top 5 1.006 (the family before 1.044 / 1.337).
  // Then tf32 (its six cases here) joined the gate above with the transpose
  // rule: 49 cases, 1.035 / 1.152, best of top 5 1.006 (by class at most
  // 1.073 geomean, bf16 rc:MnK, and 1.014 best of top 5, fp8 rc:mNK).
  // Then the epilogue's row term and the fresh v30: bf16 B K-major with N
  // alone unaligned joined the gate above; fp8 rc:MnK went 1.055 / 1.148 to
  // 1.021 / 1.115 (9 cases with v30's two) and fp16 rr:MnK 1.026 to 1.020
  // (20). 48 cases: 1.023 / 1.152, best of top 5 1.005 (by class at most
  // 1.059 geomean and 1.014 best of top 5, fp8 rc:mNK).
  // Then the fresh v31 (the nn.Linear layout, nothing fitted): fp16 B K-major
  // aligned (2048^3 here, 1.036) joined the gate with v31's ten; bf16 B
  // K-major aligned, v31's eight (1.013 / 1.101, best of top 5 1.000), is a
  // known miss. 55 cases: 1.021 / 1.152, best of top 5 1.005.
  // Then the fresh v33 (the nn.Linear layout with M unaligned, nothing
  // fitted), measured after the serialized-wgmma rule moved to block_N over
  // two or more warpgroups: fp16 (7 cases, 1.029 / 1.108 / 1.013) is a known
  // miss here; bf16, further off, below. 62 cases: 1.022 / 1.152, best of top
  // 5 1.006.
  // Then the L2's read requests (l2_request_bytes) and v35: bf16 with B
  // K-major and M alone unaligned, a separate test before (10 cases, 1.066 /
  // 1.444), came into this one: 555x10240x8192 went to 64x256x64 (1.444 ->
  // 1.000), v35's two are the best (1.000); 12 cases 1.023 / 1.107
  // (3000x3584x18944 picks 256x128x64 where 64x256x64 wins by 11%). fp16
  // rc:mNK 1.032 / 1.108 / 1.013 (11 with v35's four: 77x18944x4096 picks
  // 128x128x64, 1.061), fp8 rc:mNK 1.041 / 1.152 (8 with v35's three). 82
  // cases: 1.023 / 1.152, best of top 5 1.005 (the family before 1.049 /
  // 1.444 / 1.005). Then the fresh v36: fp8 with M and N unaligned left the
  // gate (7 cases, 1.040 / 1.118 / 1.001: 3000x32001x1536), and v36's cases
  // of these classes came in (fp16 rr:mNK 555x14336x12288 1.117). 97 cases:
  // 1.025 / 1.152, best of top 5 1.004 (the family before 1.064 / 1.444 /
  // 1.004). Then the narrow-store queue and the fresh v37: fp8 with M and N
  // unaligned went back to the gate, fp8 with N alone unaligned gained v37's
  // four (13 cases, 1.021 / 1.115 -> 1.026 / 1.110: 8192x50257x1024 1.344
  // before the queue, 1.082 with it; 128x32001x1536 1.052 -> 1.110), and
  // bf16 with B K-major and M and N unaligned, first measured there (2 cases,
  // 1.032 / 1.062 / 1.000: 3000x1000x2048 picks 128x64x64 where 64x128x64
  // wins by 6%). 98 cases: 1.025 / 1.152, best of top 5 1.005 (the family
  // before 1.027 / 1.344 / 1.006). The fresh v38 took that bf16 class to
  // the gate (8 cases, 1.018 / 1.062 / 1.000): 96 cases, 1.025 / 1.152,
  // best of top 5 1.005. Then the fresh m24, speculative-decoding sizes
  // (M = 2 and 4, nothing fitted): three fp16 rr:mNK and two bf16 rc:mNK
  // cases, 1.022 / 1.057 / 1.011. 101 cases: 1.024 / 1.152, best of top 5
  // 1.006. Then A's repeated rows: one_row_a_extra at M = 2 (frozen, then
  // judged on the fresh m23: 1.037 / 1.124 against 1.040 / 1.346 without),
  // then one_row_a_extra / M below M = 16 (chosen on m23 and m24, whose M = 2
  // misses went to 1.000; judged on the fresh mfew: 1.036 / 1.247 / 1.020
  // against 1.049 / 1.247 / 1.020 without, its two fp8 misses untouched by
  // the term: 4x8192x8192 1.153 and 6x4096x14336 1.247, where 64x128x128 is
  // picked and 64x64x64 or 64x256x128 wins). 123 cases: 1.023 / 1.247, best
  // of top 5 1.006. Then the programs walking K in step (in_step_a_ns, with
  // one_row_a_extra 5 -> 4, fitted on mstep and m1a) and the fresh
  // mstep-fresh and mstep-fresh2 (19 cases of these classes, 1.010 / 1.101 /
  // 1.000; the family before 1.013 / 1.101 / 1.000): the 123 earlier cases
  // went to 1.024 / 1.306 / 1.006, three picks moving. mfew's
  // fp8 4x8192x8192 went from 64x128x128 (1.153) to 64x256x128 (1.306): every
  // one of its fast tiles is measured 1.6-2.0x its predicted time, the term
  // or not, and the measured best (64x64x64, the most programs) is what the
  // term prices highest. 142 cases: 1.022 / 1.306, best of top 5 1.005 (fp8
  // rc:mNK, 19 cases, 1.046 -> 1.052 / 1.306 / 1.015). Then fp8's
  // launch_us and miss_latency_cycles, refitted with the fp8 decode steps
  // of mfp8 (calibration; the fp8 decode steps ran 0.7x their predicted
  // time at long K and 1.1-1.4x at short K): fp8 rc:mNK 1.033 / 1.153 /
  // 1.017 (4x8192x8192 1.306 -> 1.153, 6x4096x14336 1.247 -> 1.090), and
  // fp8 with N alone unaligned (1.020 / 1.082 / 1.008) went to the gate.
  // 129 cases: 1.019 / 1.153, best of top 5 1.005. Then the fresh
  // mfp8-fresh, measured after that refit was frozen: its five fp8 decode
  // steps with M unaligned 1.010 / 1.019 / 1.004 (the family before the
  // refit 1.018 / 1.053 / 1.000); fp8 rc:mNK 24 cases 1.028 / 1.153 /
  // 1.015. 134 cases: 1.019 / 1.153, best of top 5 1.005. Then
  // kmajor_wide_unit_saving and the fresh v40: fp16 and bf16 with B K-major
  // and M alone unaligned went to the gate (45 cases), v40 added four bf16
  // B K-major aligned (1.004 / 1.016; the class 14 cases, 1.011 / 1.101 /
  // 1.001). 93 cases: 1.019 / 1.153, best of top 5 1.006. The fresh v41
  // added two bf16 aligned (384x5120x5120 1.050, 2000x14336x4096 1.000): 95
  // cases, the same figures (the class 16 cases, 1.013 / 1.101 / 1.001).
  // Then nmajor_wide_unit_cost, copy_bytes_per_cycle and the fresh v42 and
  // v44 (their cases of fp16 rr:mNK and bf16 rc:MNK), and the two classes
  // whose near ties flipped (bf16 rc:MnK 7 cases 1.034 / 1.108 / 1.001,
  // fp16 rr:mnk 29 cases 1.008 / 1.113 / 1.003): 142 cases, 1.016 / 1.153 /
  // 1.004 (the family before both terms 1.020 / 1.153 / 1.005).
  // Then mfew's two fp8 rows, superseded by their re-measurement, fp8's own
  // tail_sync and the fresh v46 (its eleven cases of fp8 with M alone
  // unaligned): that class 35 cases, 1.016 / 1.100 / 1.006, a hair over the
  // worst threshold on v46's 600x7168x7168 (1.1003; the family before 1.040 /
  // 1.199 / 1.006). 153 cases: 1.014 / 1.117 / 1.003 (the family before
  // 1.019 / 1.199 / 1.003; by class at most 1.034 geomean, bf16 rc:MnK, and
  // 1.006 best of top 5, fp8 rc:mNK).
  // Then the fresh v47, pad1 and nbits1 (nothing fitted): fp16 rr:MnK gained
  // ten (32 cases, 1.019 / 1.104 / 1.004; nbits1's N a multiple of 8 run 2
  // stages of 256x64x64 best, as docs/model.md §6 said before they ran),
  // fp16 rr:mNK two, fp8 rc:mNK, bf16 rc:MnK and bf16 rc:MNK one each. 168
  // cases: 1.014 / 1.117 / 1.003. Then aligned_b_stage_share took fp16
  // rr:MnK to the gate (its 32 cases 1.019 / 1.104 -> 1.008 / 1.087): 136
  // cases, 1.013 / 1.117 / 1.003. Then B's reuse in L2 and sm_overlap_power
  // took bf16 rc:MnK and fp8 rc:mNK to the gate: 92 cases, 1.010 / 1.117 /
  // 1.001.
  expect_known_miss(data + "--split heldout --class " + kKnownMisses,
                    "--max-top1-geomean 1.04 --max-top1-worst 1.12 --max-top5-geomean 1.02", 92);
}

// bf16 with A and B row-major and M and N unaligned (B through registers, C
// stored narrow): in the gate since v26, out on the fresh v37's 555x7001x1024
// (1.217: 128x64x64 with two blocks per SM, 62.2 us predicted against 62.9
// for 128x64x32 with three and 72.9 for 256x64x64 with 8 warps, the measured
// best; the class's times are predicted 1.4-2.0x fast, docs/model.md §6).
// The family before the narrow-store queue scored 1.026 / 1.053 / 1.011 on
// these 8 cases; with it 1.031 / 1.217 / 1.021; with copy_bytes_per_cycle
// 1.012 / 1.053 / 1.011 (555x7001x1024 picks 128x64x32 with 5 stages): the
// top-1 thresholds met, the best of top 5 0.001 over its own. With
// narrow_b_mn_step_share (every step of these kernels 1.45x, the class's
// times 1.68x -> 1.29x their prediction) 1.016 / 1.087 / 1.011: the same
// case tips to 256x64x64 with 4 warps and two blocks (1.087), still under
// the worst threshold; fp16's class of the same layout goes from 1.007 /
// 1.046 to 1.001 / 1.004 (docs/model.md §3).
TEST(ModelCli, Validate_KnownMiss_Bf16RowMajorMAndNUnaligned_StaysBounded) {
  std::string data;
  for (const char* v : {"v23", "v24", "v26", "v30", "v37"})
    data += source_path(std::string("data/h200-triton-") + v) + " ";
  expect_known_miss(data + "--split heldout --class bfloat16:rr:mnK",
                    "--max-top1-geomean 1.02 --max-top1-worst 1.09 --max-top5-geomean 1.015", 8);
}

// mfew's two fp8 rows were replaced by a later measurement: validate scores
// neither, and says so in both formats (a class filter keeps only the
// superseded cases of its classes).
TEST(ModelCli, Validate_SupersededCasesAreNamedNotScored) {
  const std::string mfew = source_path("data/h200-triton-mfew");
  const CliResult text = run_cli("validate " + mfew);
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("validate  9 shape(s)"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("4x8192x8192:float8_e4m3:rc  "), std::string::npos) << text.out;  // no table row
  EXPECT_NE(text.out.find("superseded  2 case(s) not scored"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("4x8192x8192:float8_e4m3:rc (by data/h200-triton-mfew-fp8-again)"), std::string::npos)
      << text.out;
  const CliResult js = run_cli("validate " + mfew + " --format json");
  ASSERT_EQ(js.status, 0) << js.err;
  const json j = json::parse(js.out);
  ASSERT_EQ(j["superseded"].size(), 2u);
  EXPECT_EQ(j["superseded"][1]["shape"], "6x4096x14336:float8_e4m3:rc");
  EXPECT_EQ(j["superseded"][1]["by"], "data/h200-triton-mfew-fp8-again");
  EXPECT_EQ(j["shapes"].size(), 9u);
  const CliResult other = run_cli("validate " + mfew + " --class float16:rr:mNK --format json");
  ASSERT_EQ(other.status, 0) << other.err;
  EXPECT_TRUE(json::parse(other.out)["superseded"].empty());
  // A dataset without the entry lists none.
  EXPECT_TRUE(json::parse(run_cli("validate " + source_path("data/h200-triton-v2") + " --format json").out)["superseded"]
                  .empty());
}

TEST(ModelCli, Validate_MissedThresholdExitsOne) {
  const CliResult r = run_cli("validate " + source_path("data/h200-triton-v2") + " --split heldout --max-top1-worst 1.0");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("--max-top1-worst 1"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("MISSED"), std::string::npos);
}

TEST(ModelCli, Validate_Json) {
  const CliResult r = run_cli("validate " + source_path("data/h200-triton-v2") + " " + source_path("data/h200-triton") +
                              " --split calibration --format json");
  ASSERT_EQ(r.status, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["datasets"].size(), 2u);
  EXPECT_EQ(j["shapes"].size(), 26u);  // 20 + the 6 of v1, all calibration
  for (const json& s : j["shapes"]) {
    EXPECT_EQ(s["split"], "calibration");
    EXPECT_GE(s["calibrated"]["top1_regret"].get<double>(), 1.0);
    EXPECT_GE(s["seed"]["top5_regret"].get<double>(), 1.0);
    EXPECT_TRUE(s["cublas_ms"].is_number());
  }
  EXPECT_LT(j["summary"]["calibrated"]["top1_geomean"].get<double>(),
            j["summary"]["seed"]["top1_geomean"].get<double>());
  EXPECT_TRUE(j["pass"].get<bool>());
  // The pick's measured over predicted time: per shape, and summarized for
  // the calibrated model (the seed model predicts no time).
  std::vector<double> ratios;
  for (const json& s : j["shapes"]) {
    ASSERT_TRUE(s["pick_predicted_ms"].is_number()) << s["shape"];
    ratios.push_back(s["pick_ms"].get<double>() / s["pick_predicted_ms"].get<double>());
  }
  const json& t = j["summary"]["calibrated"]["time_ratio"];
  ASSERT_TRUE(t.is_object()) << j["summary"];
  EXPECT_EQ(t["shapes"], ratios.size());
  EXPECT_DOUBLE_EQ(t["min"].get<double>(), *std::min_element(ratios.begin(), ratios.end()));
  EXPECT_DOUBLE_EQ(t["max"].get<double>(), *std::max_element(ratios.begin(), ratios.end()));
  // The aligned fp16 calibration shapes: within a few percent on average.
  EXPECT_GT(t["geomean"].get<double>(), 0.9);
  EXPECT_LT(t["geomean"].get<double>(), 1.1);
  EXPECT_TRUE(j["summary"]["seed"]["time_ratio"].is_null());
  for (const json& g : j["groups"]) EXPECT_TRUE(g["calibrated"]["time_ratio"].is_object()) << g["group"];
}

TEST(ModelCli, Validate_TextNamesThePicksTimeRatio) {
  const CliResult r = run_cli("validate " + source_path("data/h200-triton-v6") + " --split heldout");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("time = the calibrated pick's measured time / its predicted time"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\ntime        the pick's measured / predicted time: geomean "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n  time      the pick's measured / predicted time: geomean "), std::string::npos) << r.out;
}

}  // namespace
// Without --device, validate plans for the preset that describes the GPU the
// datasets were measured on (meta.json: SM count, L2 size, compute
// capability); a dataset measured on a GPU the preset does not describe gets
// a warning naming the preset that does.
TEST(ModelCli, Validate_DevicePresetFollowsTheDatasetsGpu) {
  const std::string h100 = source_path("data/h100-triton-pad1"), h200 = source_path("data/h200-triton-v4");
  const CliResult matched = run_cli("validate " + h100 + " --format json");
  ASSERT_EQ(matched.status, 0) << matched.err;
  const json m = json::parse(matched.out);
  EXPECT_EQ(m["device"], "h100-sxm");
  EXPECT_EQ(m["device_from"], "matched to meta.json's GPU: NVIDIA H100 80GB HBM3");
  EXPECT_TRUE(m["warnings"].empty());
  const json given = json::parse(run_cli("validate " + h100 + " --device h100-sxm --format json").out);
  EXPECT_TRUE(given["device_from"].is_null());
  EXPECT_EQ(m["summary"], given["summary"]);  // the same plans as --device h100-sxm

  const CliResult text = run_cli("validate " + h100);
  EXPECT_NE(text.out.find("device h100-sxm (matched to meta.json's GPU: NVIDIA H100 80GB HBM3)"), std::string::npos)
      << text.out;
  EXPECT_EQ(text.out.find("warning"), std::string::npos) << text.out;

  // --device overrides the match, with a warning.
  const CliResult other = run_cli("validate " + h100 + " --device h200");
  ASSERT_EQ(other.status, 0) << other.err;
  EXPECT_NE(other.out.find("warning  " + h100 + " was measured on NVIDIA H100 80GB HBM3 (132 SMs, 50 MiB of L2, "
                                              "sm_90), which the h200 preset does not describe (132 SMs, 60 MiB of L2, "
                                              "sm_90); the h100-sxm preset does\n"),
            std::string::npos)
      << other.out;
  // Two GPUs: the default preset, and a warning for the dataset it does not describe.
  const json mixed = json::parse(run_cli("validate " + h100 + " " + h200 + " --format json").out);
  EXPECT_EQ(mixed["device"], "h200");
  EXPECT_TRUE(mixed["device_from"].is_null());
  ASSERT_EQ(mixed["warnings"].size(), 1u);
  EXPECT_EQ(mixed["warnings"][0].get<std::string>().rfind(h100 + " was measured on NVIDIA H100 80GB HBM3", 0), 0u);
  // No meta.json (the first dataset): the default, no warning.
  const json none = json::parse(run_cli("validate " + source_path("data/h200-triton") + " --format json").out);
  EXPECT_EQ(none["device"], "h200");
  EXPECT_TRUE(none["device_from"].is_null());
  EXPECT_TRUE(none["warnings"].empty());
}

// B's rows 16-byte aligned in a spilling kernel (aligned_b_stage_share,
// docs/model.md §3): the diagnosis says what the stages beyond two add to a
// step, and its JSON carries the step's factor; odd rows and two stages add
// nothing and print no such line.
TEST(ModelCli, Diagnose_NamesTheAlignedRowsStageCost) {
  const std::string tile = "tile --k 2048 --block-m 256 --block-n 64 --block-k 64 --threads 128 --diagnose ";
  const CliResult aligned = run_cli(tile + "--m 4096 --n 3000 --stages 3");
  ASSERT_EQ(aligned.status, 0) << aligned.err;
  EXPECT_NE(aligned.out.find("   B's aligned rows        B's rows start 16-byte aligned and the kernel spills: its 3 "
                             "stages add 0.12 to every step's factor (1.572 in all)"),
            std::string::npos)
      << aligned.out;
  for (const std::string& other : {std::string("--m 4096 --n 3001 --stages 3"), std::string("--m 4096 --n 3000 --stages 2")}) {
    const CliResult r = run_cli(tile + other);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out.find("B's aligned rows"), std::string::npos) << other << "\n" << r.out;
  }
  const auto terms = [&](const std::string& args) {
    const CliResult r = run_cli(tile + args + " --format json");
    EXPECT_EQ(r.status, 0) << r.err;
    return json::parse(r.out)["candidates"][0]["time_terms"];
  };
  const json a3 = terms("--m 4096 --n 3000 --stages 3"), a4 = terms("--m 4096 --n 3000 --stages 4");
  const json o3 = terms("--m 4096 --n 3001 --stages 3"), a2 = terms("--m 4096 --n 3000 --stages 2");
  EXPECT_NEAR(a3["aligned_rows_share"].get<double>(), 0.12, 1e-12);
  EXPECT_NEAR(a4["aligned_rows_share"].get<double>(), 0.24, 1e-12);
  EXPECT_EQ(o3["aligned_rows_share"].get<double>(), 0.0);
  EXPECT_EQ(a2["aligned_rows_share"].get<double>(), 0.0);
  EXPECT_NEAR(a3["step_scale"].get<double>() - o3["step_scale"].get<double>(), 0.12, 1e-12);
  const json aligned_c = terms("--m 4096 --n 4096 --stages 3");
  EXPECT_EQ(aligned_c["step_scale"].get<double>(), 1.0) << "B copied asynchronously: no step factor";
}

// The power cap (docs/model.md §3): on the h100-sxm preset the diagnosis of a
// sustained fp16 GEMM names the floor and whether it binds, its JSON carries
// power_us and cycles_us, and the H100's held-out large GEMMs are picked as
// docs/model.md reports (v47: 1.023 / 1.128 without the term).
TEST(ModelCli, PowerCap_DiagnosisJsonAndTheH100Sets) {
  const std::string tile =
      "tile --device h100-sxm --m 555 --n 3000 --k 8192 --b-layout col --instr wgmma --block-k 64 --stages 5 --diagnose ";
  const CliResult wide = run_cli(tile + "--block-m 64 --block-n 256 --threads 128");
  ASSERT_EQ(wide.status, 0) << wide.err;
  EXPECT_NE(wide.out.find("bound by power"), std::string::npos) << wide.out;
  EXPECT_NE(wide.out.find("   power cap               at 636 W the flops, L2 bytes and cycles take "), std::string::npos)
      << wide.out;
  EXPECT_NE(wide.out.find("the cap binds (the SMs' time x1.1"), std::string::npos) << wide.out;
  const json j = json::parse(run_cli(tile + "--block-m 64 --block-n 256 --threads 128 --format json").out);
  const json& t = j["candidates"][0]["time_terms"];
  EXPECT_GT(t["power_us"].get<double>(), t["cycles_us"].get<double>());
  EXPECT_DOUBLE_EQ(t["sm_us"].get<double>(), t["power_us"].get<double>());
  EXPECT_EQ(j["candidates"][0]["time_bound"], "power");
  // The H200 preset has no budget: no line, power_us 0.
  const CliResult h200 = run_cli("tile --m 555 --n 3000 --k 8192 --b-layout col --block-m 64 --block-n 256 "
                                 "--block-k 64 --stages 5 --threads 128 --diagnose");
  EXPECT_EQ(h200.out.find("power cap"), std::string::npos) << h200.out;
  // The first pick of that shape on the H100 preset: 128x128, the measured best.
  const json pick = json::parse(
      run_cli("tile --device h100-sxm --m 555 --n 3000 --k 8192 --b-layout col --topk 1 --format json").out);
  EXPECT_EQ(pick["candidates"][0]["block_m"], 128);
  EXPECT_EQ(pick["candidates"][0]["block_n"], 128);
  const json v47 = json::parse(run_cli("validate " + source_path("data/h100-triton-v47") + " --format json").out);
  EXPECT_EQ(v47["device"], "h100-sxm");
  EXPECT_LT(v47["summary"]["calibrated"]["top1_geomean"].get<double>(), 1.015);
  EXPECT_LT(v47["summary"]["calibrated"]["top1_worst"].get<double>(), 1.085);
}

// validate's --power-budget applies to the preset matched from meta.json, not
// to the default device: a budget on the H100's data is priced there, and on
// an H200 dataset (no energy fields) it is refused in one line.
TEST(ModelCli, PowerCap_ValidateBudgetFollowsTheMatchedPreset) {
  const std::string v47 = "validate " + source_path("data/h100-triton-v47") + " --split all --format json ";
  const json at636 = json::parse(run_cli(v47).out);
  const CliResult at900 = run_cli(v47 + "--power-budget 900");
  ASSERT_EQ(at900.status, 0) << at900.err;
  const json j900 = json::parse(at900.out);
  EXPECT_EQ(j900["device"], "h100-sxm");
  // A higher budget lowers the floor: the picks' predicted times can only fall.
  double sum636 = 0, sum900 = 0;
  for (const json& s : at636["shapes"]) sum636 += s["pick_predicted_ms"].get<double>();
  for (const json& s : j900["shapes"]) sum900 += s["pick_predicted_ms"].get<double>();
  EXPECT_LT(sum900, sum636);
  const CliResult h200 = run_cli("validate " + source_path("data/h200-triton-v47") + " --power-budget 700");
  EXPECT_EQ(h200.status, 2);
  EXPECT_NE(h200.err.find("device 'h200' has no measured energy fields"), std::string::npos) << h200.err;
  EXPECT_EQ(std::count(h200.err.begin(), h200.err.end(), '\n'), 1) << h200.err;
}

}  // namespace tileplan::test

