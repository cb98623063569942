#include <gtest/gtest.h>

#include <chrono>

#include <nlohmann/json.hpp>

#include "run_cli.hpp"

namespace tileplan::test {
namespace {

using nlohmann::json;

const char* kExample = "occupancy --device h200 --threads 256 --regs 168 --smem 73728";

// 256 threads, 168 registers, 72 KB on the H200: registers allow 1 block
// (3 warps of 5376 registers per 16384-register sub-partition, 12 warps, 8 per
// block); 2 blocks need 16384 / 4 = 4096 registers per warp = 128 per thread,
// and 233472 / 2 - 1024 = 115712 B = 113 KB of shared memory.
TEST(OccupancyCli, Example_TextNamesLimiterAndNextStep) {
  const CliResult r = run_cli(kExample);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_NE(r.out.find("1, limited by registers"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("8 of 64 (12.5% occupancy)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2 blocks/SM needs at most 128 registers per thread"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("113 KB"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("<- limiter"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("228 KB of shared memory per SM"), std::string::npos) << r.out;
}

TEST(OccupancyCli, SmemSuffix_SameAsBytes) {
  const CliResult bytes = run_cli(kExample);
  const CliResult kb = run_cli("occupancy --device h200 --threads 256 --regs 168 --smem 72K");
  ASSERT_EQ(kb.status, 0) << kb.err;
  EXPECT_EQ(kb.out, bytes.out);
}

TEST(OccupancyCli, Json_HasTheKeys) {
  const CliResult r = run_cli(std::string(kExample) + " --format json");
  ASSERT_EQ(r.status, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["blocks_per_sm"], 1);
  EXPECT_EQ(j["limiter"], "regs");
  EXPECT_EQ(j["active_warps"], 8);
  EXPECT_DOUBLE_EQ(j["occupancy"].get<double>(), 0.125);
  EXPECT_DOUBLE_EQ(j["occupancy_percent"].get<double>(), 12.5);
  EXPECT_EQ(j["blocks_by"]["smem"], 3);
  EXPECT_EQ(j["smem_per_block_bytes"], 74752);
  EXPECT_EQ(j["smem_config_bytes"], 233472);
  EXPECT_EQ(j["next_step"]["blocks_per_sm"], 2);
  EXPECT_EQ(j["next_step"]["max_regs_per_thread"], 128);
  EXPECT_EQ(j["next_step"]["max_smem_bytes"], 115712);
  EXPECT_TRUE(j["input"]["carveout_percent"].is_null());
}

// 16 KB + 1 KB = 17408 B per block. A 50% carveout: 116736 B, rounded up to the
// 132 KB step, holds 7; the default (228 KB) holds 13 and the 64 warp slots give 8.
TEST(OccupancyCli, Carveout_ChangesTheLimiter) {
  const json def = json::parse(run_cli("occupancy --threads 256 --regs 32 --smem 16K --format json").out);
  EXPECT_EQ(def["blocks_per_sm"], 8);
  EXPECT_EQ(def["limiter"], "warps");
  const json half = json::parse(run_cli("occupancy --threads 256 --regs 32 --smem 16K --carveout 50 --format json").out);
  EXPECT_EQ(half["blocks_per_sm"], 7);
  EXPECT_EQ(half["limiter"], "smem");
  EXPECT_EQ(half["smem_config_bytes"], 132 * 1024);
  EXPECT_EQ(half["input"]["carveout_percent"], 50);
}

TEST(OccupancyCli, StaticAndDynamic_Add) {
  const json j =
      json::parse(run_cli("occupancy --threads 256 --regs 168 --smem 40K --smem-static 32K --format json").out);
  EXPECT_EQ(j["smem_per_block_bytes"], 74752);
  EXPECT_EQ(j["input"]["smem_static_bytes"], 32768);
}

// sm_89: 24 blocks and 48 warp slots per SM.
TEST(OccupancyCli, L40S_BlockLimit) {
  const CliResult r = run_cli("occupancy --device l40s --threads 32 --regs 16");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("24, limited by blocks"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("24 of 48 (50% occupancy)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("none: the SM holds at most 24 blocks"), std::string::npos) << r.out;
}

// A block that cannot run is an answer, not an error: 1024 threads * 255
// registers need 262144 registers. 1 block needs 65536 / 32 warps = 2048 per warp = 64.
TEST(OccupancyCli, ZeroBlocks_SaysWhyAndWhatFits) {
  const CliResult r = run_cli("occupancy --threads 1024 --regs 255");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("0: one block cannot run"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 block/SM needs at most 64 registers per thread"), std::string::npos) << r.out;
  const json j = json::parse(run_cli("occupancy --threads 1024 --regs 255 --format json").out);
  EXPECT_EQ(j["blocks_per_sm"], 0);
  EXPECT_EQ(j["limiter"], "regs");
}

TEST(OccupancyCli, OptInNote_Over48K) {
  EXPECT_NE(run_cli(kExample).out.find("cudaFuncAttributeMaxDynamicSharedMemorySize"), std::string::npos);
  EXPECT_EQ(run_cli("occupancy --threads 256 --regs 32 --smem 48K").out.find("cudaFuncAttribute"), std::string::npos);
}

// An empty --carveout, --sm-count or --smem-kb is the default.
TEST(OccupancyCli, Help_ExitsZero) { EXPECT_EQ(run_cli("occupancy --help").status, 0); }

// An SM of 2^30 KB: the next step's bounds are solved, not searched 128 B at a
// time (which took 66 s). 8 blocks of 256 threads fill the 64 warp slots; 9
// need at most 64 / 9 = 7 warps = 224 threads, and an allocation of at most
// 2^40 / 9 = 122167958641.8 B, rounded down to the 128 B unit 122167958528,
// of which 1024 B are the reserve: 122167957504 B.
TEST(OccupancyCli, HugeSharedMemory_AnsweredAtOnce) {
  const auto start = std::chrono::steady_clock::now();
  const CliResult r = run_cli("occupancy --threads 256 --regs 32 --smem-kb 1073741824 --format json");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(r.status, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["blocks_per_sm"], 8);
  EXPECT_EQ(j["smem_config_bytes"], int64_t{1} << 40);
  EXPECT_EQ(j["next_step"]["max_threads_per_block"], 224);
  EXPECT_EQ(j["next_step"]["max_smem_bytes"], int64_t{122167957504});
  EXPECT_LT(seconds, 10.0);
  // The largest block the 2^30 KB SM takes, and one byte of it.
  for (const char* smem : {"1073741823K", "1"}) {
    const CliResult t = run_cli(std::string("occupancy --threads 1024 --regs 64 --smem-kb 1073741824 --smem ") + smem);
    ASSERT_EQ(t.status, 0) << t.err;
    EXPECT_NE(t.out.find("next step"), std::string::npos) << t.out;
  }
}

}  // namespace
}  // namespace tileplan::test
