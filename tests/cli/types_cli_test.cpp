// `tileplan tile` with input types, output types, layouts and leading
// dimensions: --dtype, --out-dtype, --a-layout, --b-layout, --lda, --ldb,
// --ldc, and shapes files whose lines carry a type and layouts.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "json_lines.hpp"
#include "run_cli.hpp"

namespace tileplan::test {
namespace {

using nlohmann::json;

json run_json(const std::string& args) {
  const CliResult r = run_cli(args + " --format json");
  EXPECT_EQ(r.status, 0) << args << "\n" << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  return json::parse(r.out);
}

bool has_block_k(const json& report, int64_t block_k) {
  for (const json& c : report["candidates"])
    if (c["block_k"] == block_k) return true;
  return false;
}

std::string write_file(const std::string& name, const std::string& content) {
  const std::string path = "/tmp/tileplan_" + name + "_" + std::to_string(::getpid()) + ".txt";
  std::ofstream f(path, std::ios::binary);
  f << content;
  return path;
}

TEST(TypesCli, Fp8OnH200_BlockKMultipleOf32) {
  // wgmma's K is 32 bytes of the input type: 16 for fp16, 32 for fp8. Of a
  // space with block_K 16, fp16 keeps some, fp8 none.
  const json fp16 = run_json("tile --topk 0 --block-k 16,32,64,128");
  ASSERT_TRUE(has_block_k(fp16, 16));
  for (const char* type : {"float8_e4m3", "float8_e5m2"}) {
    const json j = run_json(std::string("tile --topk 0 --block-k 16,32,64,128 --dtype ") + type);
    EXPECT_EQ(j["problem"]["dtype"], type);
    EXPECT_EQ(j["problem"]["out_dtype"], "float16");  // fp8's default output type
    EXPECT_EQ(j["problem"]["elem_bytes"], 1);
    ASSERT_FALSE(j["candidates"].empty()) << type;
    EXPECT_EQ(j["candidates"].size(), j["feasible"].get<size_t>());
    for (const json& c : j["candidates"]) {
      EXPECT_EQ(c["block_k"].get<int64_t>() % 32, 0) << c.dump();
      // C1 with 1-byte elements: (block_M*block_K + block_K*block_N) * 1.
      const int64_t bm = c["block_m"], bn = c["block_n"], bk = c["block_k"];
      EXPECT_EQ(c["smem_per_stage_bytes"], bm * bk + bk * bn);
    }
  }
}

TEST(TypesCli, Tf32_BlockK8Allowed) {
  // tf32: K is 32 bytes / 4 = 8, so block_K 8 passes C3; fp16 needs 16.
  const std::string cfg = " --diagnose --block-m 128 --block-n 128 --block-k 8 --stages 3 --threads 256";
  const json tf32 = run_json("tile --dtype tfloat32" + cfg);
  const json& v = tf32["candidates"][0];
  for (const json& f : v["failures"]) EXPECT_NE(f.get<std::string>().rfind("C3 ", 0), 0u) << f;
  // 3 stages of (128*8 + 8*128) elements of 4 bytes = 3 * 8192 B.
  EXPECT_EQ(v["smem_per_stage_bytes"], 8192);
  EXPECT_EQ(v["smem_bytes"], 3 * 8192);
  EXPECT_EQ(tf32["problem"]["out_dtype"], "float32");  // tfloat32's default output type
  EXPECT_EQ(tf32["problem"]["elem_bytes"], 4);

  const json fp16 = run_json("tile" + cfg);
  bool c3 = false;
  for (const json& f : fp16["candidates"][0]["failures"])
    c3 |= f.get<std::string>() == "C3 block_K 8 must be a multiple of 16 for wgmma";
  EXPECT_TRUE(c3) << fp16["candidates"][0]["failures"];

  // In a sweep, tf32 keeps block_K 8 candidates and fp16 keeps none.
  EXPECT_TRUE(has_block_k(run_json("tile --topk 0 --block-k 8,16 --dtype tfloat32"), 8));
  EXPECT_FALSE(has_block_k(run_json("tile --topk 0 --block-k 8,16"), 8));
}

TEST(TypesCli, WgmmaBeforeHopper_C3FailsAndSaysWhy) {
  // wgmma is sm_90's: an A100 (8.0) or an L40S (8.9) has none, so asking
  // for it fails every tile of the calibrated model's sweep; auto resolves
  // those devices' tiles to mma.sync.
  const CliResult text = run_cli("tile --device a100-sxm --instr wgmma");
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("feasible 0 of 360"), std::string::npos) << text.out;
  const json d = run_json("tile --device l40s --instr wgmma --diagnose");
  bool says = false;
  for (const json& f : d["candidates"][0]["failures"])
    says |= f.get<std::string>() == "C3 wgmma does not exist on compute capability 8.9 (wgmma is sm_90's; use mma or auto)";
  EXPECT_TRUE(says) << d["candidates"][0]["failures"];
  const json a = run_json("tile --device a100-sxm");
  ASSERT_GT(a["feasible"].get<int>(), 0);
  for (const json& c : a["candidates"]) EXPECT_EQ(c["instr"], "mma") << c;
  // The seed model keeps the reference's one instruction table on every device.
  EXPECT_GT(run_json("tile --device a100-sxm --model seed --instr wgmma")["feasible"].get<int>(), 0);
}

TEST(TypesCli, Diagnose_C1SaysHowTheAllocationIsCounted) {
  // A buffer per stage (wgmma), one stage in registers (mma), or one buffer
  // for an operand loaded through registers (A column-major, 1000 rows): the
  // bytes shown are the product shown.
  const std::string shape = "tile --m 1 --n 5120 --k 13824 --diagnose --block-n 256 --block-k 128 --stages 4 ";
  const CliResult wg = run_cli(shape + "--block-m 64 --threads 128");
  EXPECT_NE(wg.out.find("C1 shared memory      FAIL  80.0 KB/stage x 4 stages = 320.0 KB"), std::string::npos) << wg.out;
  const CliResult mma = run_cli(shape + "--block-m 16 --threads 128");
  EXPECT_NE(mma.out.find("68.0 KB/stage x 3 buffers = 204.0 KB (block limit 227.0 KB): of 4 stages, mma holds one in "
                         "registers"),
            std::string::npos)
      << mma.out;
  const CliResult col = run_cli("tile --m 1000 --n 4096 --k 4096 --a-layout col --diagnose --block-m 128 --block-n 128 "
                                "--block-k 32 --stages 3 --threads 256");
  EXPECT_NE(col.out.find("16.0 KB/stage, 3 stages -> 32.0 KB allocated (block limit 227.0 KB): an operand through "
                         "registers has one buffer"),
            std::string::npos)
      << col.out;
}

TEST(TypesCli, Fp8OnA100_NothingFeasibleAndSaysWhy) {
  // The A100 is compute capability 8.0; fp8 tensor cores start at 8.9.
  const CliResult text = run_cli("tile --device a100-sxm --instr mma --dtype float8_e4m3");
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("feasible 0 of 360"), std::string::npos) << text.out;  // the calibrated default space
  EXPECT_NE(text.out.find("C3 float8_e4m3 has no tensor-core instruction on compute capability 8.0 "
                          "(fp8 needs 8.9 or later)"),
            std::string::npos)
      << text.out;

  const json j = run_json("tile --device a100-sxm --instr mma --dtype float8_e5m2");
  EXPECT_EQ(j["feasible"], 0);
  EXPECT_TRUE(j["candidates"].empty());

  const json d = run_json("tile --device a100-sxm --instr mma --dtype float8_e4m3 --diagnose --block-k 64");
  bool says = false;
  for (const json& f : d["candidates"][0]["failures"])
    says |= f.get<std::string>().find("fp8 needs 8.9") != std::string::npos;
  EXPECT_TRUE(says) << d["candidates"][0]["failures"];
  // No tensor-core rate, so no finite time: null in JSON (it once printed `inf`, which is not JSON).
  EXPECT_TRUE(d["candidates"][0]["predicted_us"].is_null());
  EXPECT_TRUE(d["candidates"][0]["time_bound"].is_null());
  const CliResult dt = run_cli("tile --device a100-sxm --instr mma --dtype float8_e4m3 --diagnose --block-k 64");
  EXPECT_EQ(dt.out.find("inf us"), std::string::npos) << dt.out;
  const CliResult csv =
      run_cli("tile --device a100-sxm --instr mma --dtype float8_e4m3 --diagnose --block-k 64 --format csv");
  EXPECT_EQ(csv.out.find(",inf,"), std::string::npos) << csv.out;

  // The same problem on the L40S (8.9) has candidates.
  EXPECT_GT(run_json("tile --device l40s --instr mma --dtype float8_e4m3")["feasible"], 0);
}

TEST(TypesCli, KNotMultipleOf16_NarrowLoadWarning) {
  // A row-major: K is A's contiguous extent; 1000 = 62*16 + 8, so A moves one
  // 2-byte fp16 element per load. B (row: N = 4096 contiguous) and C stay 16-byte.
  const CliResult text = run_cli("tile --k 1000");
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("\nwarning  C3 A moves 2-byte vectors: its leading dimension or contiguous extent is "
                          "not a multiple of 16 elements (no cp.async, loads through registers)\n"),
            std::string::npos)
      << text.out;
  EXPECT_EQ(text.out.find("C3 B moves"), std::string::npos) << text.out;
  // Once, under the header: before the "feasible" line.
  EXPECT_LT(text.out.find("warning  "), text.out.find("feasible "));
  EXPECT_EQ(text.out.find("warning  ", text.out.find("warning  ") + 1), std::string::npos);

  const json j = run_json("tile --k 1000 --topk 3");
  const json& p = j["problem"];
  EXPECT_EQ(p["vector_bytes_a"], 2);
  EXPECT_EQ(p["vector_bytes_b"], 16);
  EXPECT_EQ(p["aligned"], false);
  ASSERT_EQ(p["warnings"].size(), 1u);
  EXPECT_EQ(p["warnings"][0].get<std::string>().rfind("C3 A moves 2-byte vectors", 0), 0u);
  ASSERT_EQ(j["candidates"].size(), 3u);
  for (const json& c : j["candidates"]) {
    EXPECT_EQ(c["vector_bytes_a"], 2);
    EXPECT_EQ(c["vector_bytes_b"], 16);
    EXPECT_EQ(c["aligned"], false);
  }

  // --diagnose prints the same line, text and JSON.
  const CliResult diag = run_cli("tile --k 1000 --diagnose");
  EXPECT_NE(diag.out.find("\nwarning  C3 A moves 2-byte vectors"), std::string::npos) << diag.out;
  EXPECT_EQ(run_json("tile --k 1000 --diagnose")["problem"]["warnings"], p["warnings"]);
}

TEST(TypesCli, BothNarrow_OneConfigurationPerTile) {
  // A and B row-major, N and K not multiples of 16: neither operand can use
  // cp.async, so the stage count changes nothing and each tile appears once,
  // with the fewest stages of the space; the report says so.
  const json j = run_json("tile --m 1000 --n 5001 --k 1000 --stages 3,4,5 --topk 0");
  EXPECT_TRUE(j["stages_inert"].get<bool>());
  ASSERT_FALSE(j["candidates"].empty());
  std::set<std::string> tiles;
  for (const json& x : j["candidates"]) {
    EXPECT_EQ(x["stages"], 3);
    EXPECT_TRUE(tiles.insert(x["block_m"].dump() + "x" + x["block_n"].dump() + "x" + x["block_k"].dump() + "_" +
                             x["threads"].dump())
                    .second);
  }
  EXPECT_EQ(j["feasible"].get<std::size_t>(), j["candidates"].size());
  const CliResult text = run_cli("tile --m 1000 --n 5001 --k 1000 --topk 3");
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("(one per tile: neither A nor B can use cp.async"), std::string::npos) << text.out;
  // Only B narrow: every stage count stays, and the report says nothing.
  const json one = run_json("tile --m 4096 --n 5001 --k 4096 --stages 3,4,5 --topk 0");
  EXPECT_FALSE(one["stages_inert"].get<bool>());
  std::set<int64_t> stages;
  for (const json& x : one["candidates"]) stages.insert(x["stages"].get<int64_t>());
  EXPECT_EQ(stages.size(), 3u);
  // The seed model is the reference procedure: it keeps every stage count.
  const json seed = run_json("tile --m 1000 --n 5001 --k 1000 --stages 3,4,5 --topk 0 --model seed");
  EXPECT_FALSE(seed["stages_inert"].get<bool>());
}

TEST(TypesCli, NarrowStoresOfC_EpilogueSpillIsAPricedC2Warning) {
  // B K-major, N = 32001: A and B move 16-byte vectors, C 2-byte stores. The
  // epilogue of 256x128 with 8 warps needs 2.4 registers per accumulator
  // (128 per thread): 307, 52 beyond the limit, spilled once per tile.
  const std::string args = "tile --m 4096 --n 32001 --k 4096 --b-layout col --block-m 256 --block-n 128 "
                           "--block-k 64 --stages 3 --threads 256 --diagnose";
  const CliResult text = run_cli(args);
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("warn C2 about 53 registers per thread spill in the epilogue"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("verdict  feasible; C2, C4 warn"), std::string::npos) << text.out;
  const json j = run_json(args);
  const json& c = j["candidates"][0];
  EXPECT_TRUE(c["failures"].empty()) << c.dump();
  EXPECT_FALSE(c["spills"].get<bool>());
  EXPECT_EQ(c["spilled_registers"].get<double>(), 0.0);
  EXPECT_NEAR(c["epilogue_spilled_registers"].get<double>(), 2.4 * 128 - 255, 1e-9);
  EXPECT_EQ(c["regs_per_thread"], 255);
  // N a multiple of 16: vector stores of C, no epilogue term.
  const json aligned = run_json("tile --m 4096 --n 32000 --k 4096 --b-layout col --block-m 256 --block-n 128 "
                                "--block-k 64 --stages 3 --threads 256 --diagnose");
  EXPECT_EQ(aligned["candidates"][0]["epilogue_spilled_registers"].get<double>(), 0.0);
  EXPECT_LT(aligned["candidates"][0]["regs_per_thread"].get<int>(), 255);
  // The sweep's table notes it.
  const CliResult sweep = run_cli("tile --m 4096 --n 32001 --k 4096 --b-layout col --topk 0");
  ASSERT_EQ(sweep.status, 0) << sweep.err;
  EXPECT_NE(sweep.out.find("C2 epilogue spill"), std::string::npos) << sweep.out;
}

TEST(TypesCli, BothNarrow_HeldTileSpillIsAPricedC2Warning) {
  // B K-major with K = 1000: A and B both go through registers. 128x128x32
  // with 4 warps holds 64 elements beside 128 accumulators and spills by the
  // family's rule: a C2 warning (priced), not a failure; the verdict names C2.
  const std::string args = "tile --m 4096 --n 4096 --k 1000 --b-layout col --block-m 128 --block-n 128 "
                           "--block-k 32 --stages 3 --threads 128 --diagnose";
  const CliResult text = run_cli(args);
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("warn C2 about "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("verdict  feasible; C2 warns;"), std::string::npos) << text.out;
  const json j = run_json(args);
  const json& c = j["candidates"][0];
  EXPECT_TRUE(c["failures"].empty()) << c.dump();
  EXPECT_TRUE(c["spills"].get<bool>());
  // 128 + 2.8*64 + 0 - 255 registers over (docs/model.md §3's example).
  EXPECT_NEAR(c["spilled_registers"].get<double>(), 128 + 2.8 * 64 - 255, 1e-9);
  bool c2 = false;
  for (const json& w : c["warnings"]) c2 = c2 || w.get<std::string>().rfind("C2 about ", 0) == 0;
  EXPECT_TRUE(c2) << c.dump();
  // In a sweep it stays a candidate, ranked by its priced time (with the
  // fewest stages: the stage count changes nothing here).
  const json sweep = run_json("tile --m 4096 --n 4096 --k 1000 --b-layout col --topk 0");
  bool listed = false;
  for (const json& x : sweep["candidates"])
    listed = listed || (x["block_m"] == 128 && x["block_n"] == 128 && x["block_k"] == 32 && x["stages"] == 2 &&
                        x["threads"] == 128);
  EXPECT_TRUE(listed);
}

TEST(TypesCli, Layouts_SetTheContiguousExtent) {
  // A column-major: M = 4096 is contiguous, so K = 1000 no longer narrows A.
  const json a_col = run_json("tile --k 1000 --a-layout col --topk 1");
  EXPECT_EQ(a_col["problem"]["a_layout"], "col");
  EXPECT_EQ(a_col["problem"]["vector_bytes_a"], 16);
  EXPECT_EQ(a_col["problem"]["aligned"], true);
  EXPECT_TRUE(a_col["problem"]["warnings"].empty());
  EXPECT_EQ(a_col["candidates"][0]["aligned"], true);
  // B column-major (K-major): K = 1000 is B's contiguous extent now.
  const json b_col = run_json("tile --k 1000 --a-layout col --b-layout col --topk 1");
  EXPECT_EQ(b_col["problem"]["b_layout"], "col");
  EXPECT_EQ(b_col["problem"]["vector_bytes_b"], 2);
  EXPECT_EQ(b_col["candidates"][0]["vector_bytes_b"], 2);
  ASSERT_EQ(b_col["problem"]["warnings"].size(), 1u);
  EXPECT_EQ(b_col["problem"]["warnings"][0].get<std::string>().rfind("C3 B moves 2-byte vectors", 0), 0u);

  const CliResult text = run_cli("tile --k 1000 --a-layout col --b-layout col --topk 1");
  EXPECT_NE(text.out.find("A=col B=col"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("--a-layout col --b-layout col"), std::string::npos) << text.out;
}

TEST(TypesCli, Fp8BRowMajor_WarnsOnce) {
  // fp8 wgmma reads B K-major: the default B (row, N contiguous) is transposed on chip.
  const json row = run_json("tile --dtype float8_e4m3 --topk 1");
  ASSERT_EQ(row["problem"]["warnings"].size(), 1u);
  EXPECT_NE(row["problem"]["warnings"][0].get<std::string>().find("fp8 B is stored N-contiguous"), std::string::npos);
  EXPECT_TRUE(run_json("tile --dtype float8_e4m3 --b-layout col --topk 1")["problem"]["warnings"].empty());
}

TEST(TypesCli, LeadingDimensions_InEffectAndDivisibility) {
  // 4112 = 257*16: still 16-byte vectors; 4100 = 256*16 + 4: one element.
  const json padded = run_json("tile --lda 4112 --ldb 4160 --ldc 8192 --topk 1");
  EXPECT_EQ(padded["problem"]["lda"], 4112);
  EXPECT_EQ(padded["problem"]["ldb"], 4160);
  EXPECT_EQ(padded["problem"]["ldc"], 8192);
  EXPECT_EQ(padded["problem"]["aligned"], true);
  const json odd = run_json("tile --lda 4100 --topk 1");
  EXPECT_EQ(odd["problem"]["vector_bytes_a"], 2);
  EXPECT_EQ(odd["candidates"][0]["vector_bytes_a"], 2);
  EXPECT_EQ(odd["problem"]["aligned"], false);
  // Packed (the default) reports the contiguous extent in effect.
  EXPECT_EQ(run_json("tile --k 1000 --topk 1")["problem"]["lda"], 1000);

  const CliResult text = run_cli("tile --lda 4100 --topk 1");
  EXPECT_NE(text.out.find("A=row B=row lda=4100"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("--lda 4100"), std::string::npos) << text.out;  // the next: line reproduces it
}

TEST(TypesCli, Bf16AndOutDtype_InHeaderAndJson) {
  const CliResult text = run_cli("tile --dtype bfloat16 --out-dtype float32 --topk 2");
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_EQ(text.out.rfind("problem  4096x4096x4096 (MxNxK)  bfloat16 in, float32 out, fp32 accumulate  instr=auto", 0),
            0u)
      << text.out;
  EXPECT_NE(text.out.find("next: tileplan tile --diagnose --m 4096 --n 4096 --k 4096 --dtype bfloat16 --out-dtype "
                          "float32 --instr wgmma"),
            std::string::npos)
      << text.out;

  const json j = run_json("tile --dtype bfloat16 --topk 1");
  EXPECT_EQ(j["problem"]["dtype"], "bfloat16");
  EXPECT_EQ(j["problem"]["out_dtype"], "bfloat16");  // a 16-bit type's default output is itself
  EXPECT_EQ(j["problem"]["elem_bytes"], 2);
  // float32 C: 16 elements of 4 bytes exceed a 16-byte vector, so C still moves 16 bytes.
  EXPECT_EQ(run_json("tile --dtype bfloat16 --out-dtype float32 --topk 1")["problem"]["vector_bytes_c"], 16);
}

TEST(TypesCli, DefaultProblem_NoWarningsAndAligned) {
  const json j = run_json("tile --topk 2");
  EXPECT_TRUE(j["problem"]["warnings"].empty());
  EXPECT_EQ(j["problem"]["dtype"], "float16");
  for (const json& c : j["candidates"]) {
    EXPECT_EQ(c["vector_bytes_a"], 16);
    EXPECT_EQ(c["vector_bytes_b"], 16);
    EXPECT_EQ(c["aligned"], true);
  }
  const CliResult text = run_cli("tile --topk 2");
  EXPECT_EQ(text.out.rfind("problem  4096x4096x4096 (MxNxK)  fp16 in, fp32 accumulate  instr=auto", 0), 0u);
  EXPECT_EQ(text.out.find("warning"), std::string::npos);
  // Naming the defaults changes nothing.
  EXPECT_EQ(run_cli("tile --topk 2 --dtype float16 --out-dtype float16 --a-layout row --b-layout row --lda 0").out,
            text.out);
}

TEST(TypesCli, Diagnose_InstructionShapeOfTheType) {
  const CliResult r = run_cli("tile --diagnose --dtype float8_e4m3 --block-k 64");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("block a multiple of 64x8x32, threads of 128"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("float8_e4m3 in, float16 out"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("warning  C3 fp8 B is stored N-contiguous"), std::string::npos) << r.out;
}

TEST(TypesCli, EmitCarriesTheTypes) {
  const CliResult tl = run_cli("tile --dtype float8_e4m3 --b-layout col --emit tilelang --topk 2");
  ASSERT_EQ(tl.status, 0) << tl.err;
  // Two dicts, each with the TileLang dtype strings.
  std::size_t dicts = 0;
  for (std::size_t at = 0; (at = tl.out.find("\"in_dtype\": \"float8_e4m3\", \"out_dtype\": \"float16\", "
                                             "\"accum_dtype\": \"float32\"}",
                                             at)) != std::string::npos;
       ++at)
    ++dicts;
  EXPECT_EQ(dicts, 2u) << tl.out;
  EXPECT_NE(tl.out.find("float8_e4m3 in, float16 out, A=row B=col"), std::string::npos) << tl.out;

  // tf32 operands are float32 in memory: TileLang takes "float32" and multiplies in tf32.
  const CliResult tf = run_cli("tile --dtype tfloat32 --emit tilelang --topk 1");
  EXPECT_NE(tf.out.find("\"in_dtype\": \"float32\", \"out_dtype\": \"float32\", \"accum_dtype\": \"float32\""),
            std::string::npos)
      << tf.out;

  const CliResult tr = run_cli("tile --dtype bfloat16 --emit triton --topk 1");
  ASSERT_EQ(tr.status, 0) << tr.err;
  EXPECT_EQ(tr.out.rfind("# tileplan: 4096x4096x4096 (MxNxK) bfloat16 in, bfloat16 out, on h200", 0), 0u) << tr.out;
  // Problem warnings come along as comments.
  const CliResult warned = run_cli("tile --k 1000 --emit triton --topk 1");
  EXPECT_NE(warned.out.find("\n# C3 A moves 2-byte vectors"), std::string::npos) << warned.out;
}

TEST(TypesCli, Shapes_MixedTypesOneLineEach) {
  const std::string path = write_file("mixed_shapes",
                                      "# a model's GEMMs\n"
                                      "4096 4096 4096\n"
                                      "4096,4096,4096,bfloat16\n"
                                      "4096 4096 4096 float8_e4m3 row col  # K-major B\n"
                                      "1024 1024 1000 tfloat32 col\n"
                                      "128 4096 1000 float16 row row\n");
  const CliResult r = run_cli("tile --shapes " + path + " --topk 3");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<json> objs = json_lines(r.out);
  ASSERT_EQ(objs.size(), 5u);
  const char* types[] = {"float16", "bfloat16", "float8_e4m3", "tfloat32", "float16"};
  const char* outs[] = {"float16", "bfloat16", "float16", "float32", "float16"};
  for (std::size_t i = 0; i < objs.size(); ++i) {
    EXPECT_EQ(objs[i]["problem"]["dtype"], types[i]) << i;
    EXPECT_EQ(objs[i]["problem"]["out_dtype"], outs[i]) << i;
    EXPECT_FALSE(objs[i]["candidates"].empty()) << i;
  }
  EXPECT_EQ(objs[2]["problem"]["b_layout"], "col");
  EXPECT_TRUE(objs[2]["problem"]["warnings"].empty());  // K-major fp8 B: nothing to warn
  for (const json& c : objs[2]["candidates"]) EXPECT_EQ(c["block_k"].get<int64_t>() % 32, 0);
  EXPECT_EQ(objs[3]["problem"]["a_layout"], "col");
  EXPECT_EQ(objs[3]["problem"]["b_layout"], "row");
  // A col: M = 1024 contiguous, aligned; B row: N = 1024; so K = 1000 narrows nothing.
  EXPECT_EQ(objs[3]["problem"]["aligned"], true);
  // A row, K = 1000: 2-byte loads.
  EXPECT_EQ(objs[4]["problem"]["vector_bytes_a"], 2);
  EXPECT_EQ(objs[4]["candidates"][0]["vector_bytes_a"], 2);
  std::remove(path.c_str());
}

TEST(TypesCli, Shapes_FlagsAreTheLinesDefaults) {
  const std::string path = write_file("default_shapes", "4096 4096 4096\n4096 4096 4096 float8_e5m2\n");
  const CliResult r =
      run_cli("tile --shapes " + path + " --topk 1 --dtype bfloat16 --out-dtype float32 --b-layout col --ldc 4224");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<json> objs = json_lines(r.out);
  ASSERT_EQ(objs.size(), 2u);
  EXPECT_EQ(objs[0]["problem"]["dtype"], "bfloat16");
  EXPECT_EQ(objs[1]["problem"]["dtype"], "float8_e5m2");
  for (const json& o : objs) {
    EXPECT_EQ(o["problem"]["out_dtype"], "float32");
    EXPECT_EQ(o["problem"]["b_layout"], "col");
    EXPECT_EQ(o["problem"]["ldc"], 4224);
  }
  std::remove(path.c_str());
}

// An operand through registers: the L1 its loads see, in JSON and in the
// diagnosis; with every operand copied asynchronously, nothing (null).
// B K-major and a 256-column tile over two warpgroups: the assembler
// serializes the wgmma where C is stored with 16-byte vectors
// (data/h200-profile-wgmma-serial); the calibrated model warns and prices it,
// and not with narrow stores of C, with B N-major, with a 128-column tile or
// with one warpgroup.
TEST(TypesCli, Diagnose_KMajorWideTileOfTwoWarpgroups_WarnsOfTheSerializedWgmma) {
  const std::string tile = " --block-m 128 --block-n 256 --block-k 64 --stages 3 --threads 256 --diagnose";
  const auto warned = [&](const std::string& problem) {
    const CliResult r = run_cli("tile " + problem + tile);
    EXPECT_EQ(r.status, 0) << r.err;
    return r.out.find("the assembler serializes this kernel's wgmma") != std::string::npos;
  };
  EXPECT_TRUE(warned("--m 4096 --n 4096 --k 4096 --b-layout col"));
  EXPECT_TRUE(warned("--m 4096 --n 4096 --k 4096 --dtype float8_e4m3 --b-layout col"));
  EXPECT_FALSE(warned("--m 4096 --n 4001 --k 4096 --b-layout col"));
  EXPECT_FALSE(warned("--m 4096 --n 4096 --k 4096 --b-layout col --ldc 4104"));
  EXPECT_FALSE(warned("--m 4096 --n 4096 --k 4096"));
  EXPECT_FALSE(warned("--m 4096 --n 4096 --k 4096 --b-layout col --model seed"));
  const CliResult wide128 = run_cli("tile --m 4096 --n 4096 --k 4096 --b-layout col --block-m 256 --block-n 128 "
                                    "--block-k 64 --stages 3 --threads 256 --diagnose");
  EXPECT_EQ(wide128.out.find("serializes"), std::string::npos) << wide128.out;
  const std::string n256 = "tile --m 4096 --n 4096 --k 4096 --b-layout col --block-m 64 --block-n 256 "
                           "--block-k 64 --stages 4 --diagnose --threads ";
  const CliResult one_group = run_cli(n256 + "128");
  EXPECT_EQ(one_group.status, 0) << one_group.err;
  EXPECT_EQ(one_group.out.find("serializes"), std::string::npos) << one_group.out;
  const CliResult two_groups = run_cli(n256 + "256");
  EXPECT_NE(two_groups.out.find("a tile 256 columns wide (more than 128) over two or more warpgroups"),
            std::string::npos)
      << two_groups.out;
  // In JSON the warning is one of the candidate's warnings.
  const json j = run_json("tile --m 4096 --n 4096 --k 4096 --b-layout col" + tile);
  bool found = false;
  for (const json& w : j["candidates"][0]["warnings"]) found |= w.get<std::string>().rfind("C3 B K-major", 0) == 0;
  EXPECT_TRUE(found) << j.dump();
}

// An fp8 tile of 16 or 32 rows compiles to fp16 mma.sync after converting
// its operands (data/h100-profile-fp8-wide-mma): --diagnose and the sweep say
// so on sm_90, where a 64-row tile takes fp8 wgmma; not for a 64-row fp8 tile,
// a 16-row fp16 one, an sm_89 device, the seed model, or an explicit --instr
// mma of 64 rows (a kernel Triton would not compile that way).
TEST(TypesCli, Fp8MmaTile_WarnsThatItRunsFp16Mmas) {
  const std::string fp8 = "tile --m 1 --n 8192 --k 8192 --dtype float8_e4m3 --b-layout col ";
  const auto warned = [&](const std::string& args) {
    const CliResult r = run_cli(args + " --stages 4 --threads 128 --diagnose");
    EXPECT_EQ(r.status, 0) << args << r.err;
    return r.out.find("Triton compiles it to fp16 mma.sync after converting both operands") != std::string::npos;
  };
  EXPECT_TRUE(warned(fp8 + "--block-m 16 --block-n 128 --block-k 128"));
  EXPECT_TRUE(warned(fp8 + "--block-m 32 --block-n 64 --block-k 128 --device h100-sxm"));
  EXPECT_FALSE(warned(fp8 + "--block-m 64 --block-n 128 --block-k 128"));
  EXPECT_FALSE(warned(fp8 + "--block-m 16 --block-n 128 --block-k 128 --device l40s"));
  EXPECT_FALSE(warned(fp8 + "--block-m 16 --block-n 128 --block-k 128 --model seed"));
  EXPECT_FALSE(warned(fp8 + "--block-m 64 --block-n 128 --block-k 128 --instr mma"));
  EXPECT_FALSE(warned("tile --m 1 --n 8192 --k 8192 --block-m 16 --block-n 128 --block-k 128"));
  // The sweep's notes and JSON carry it for every fp8 mma tile, no other.
  const CliResult text = run_cli(fp8 + "--topk 0");
  EXPECT_EQ(text.status, 0) << text.err;
  const json j = run_json(fp8 + "--topk 0");
  int mma = 0, warned_mma = 0;
  for (const json& c : j["candidates"]) {
    bool w = false;
    for (const json& m : c["warnings"]) w |= m.get<std::string>().rfind("C3 fp8 in a tile of", 0) == 0;
    EXPECT_EQ(w, c["instr"] == "mma") << c.dump();
    mma += c["instr"] == "mma";
    warned_mma += w;
  }
  EXPECT_GT(mma, 0);
  EXPECT_EQ(warned_mma, mma);
  EXPECT_NE(text.out.find("mma, C4 grid<SMs, C3 fp8 as f16"), std::string::npos) << text.out;
}

// Operand rows shorter than a cache line take more L2 read requests per byte:
// --diagnose says how many and what a stage is priced as, only where that
// happens; JSON carries l2_requests and l2_stage_bytes.
TEST(TypesCli, Diagnose_RowsShorterThanALine_SaysWhatTheStageCostsL2) {
  const auto line = [&](const std::string& args) {
    const CliResult r = run_cli("tile --m 555 --n 10240 --k 8192 --diagnose --stages 4 --threads 128 " + args);
    EXPECT_EQ(r.status, 0) << r.err;
    const std::size_t at = r.out.find("L2 per stage");
    return at == std::string::npos ? std::string() : r.out.substr(at, r.out.find('\n', at) - at);
  };
  // bf16, B K-major, block_K 32: 64 + 256 rows of 64 bytes, 20 KB a stage.
  const std::string short_rows = line("--dtype bfloat16 --b-layout col --block-m 64 --block-n 256 --block-k 32");
  EXPECT_NE(short_rows.find("320 read requests for 20.0 KB of copied rows (rows shorter than a 128-byte line: "
                            "2.0 sectors a request): priced as "),
            std::string::npos)
      << short_rows;
  // Only A's rows short (B N-major): 192 requests, 3.3 sectors each.
  EXPECT_NE(line("--dtype bfloat16 --block-m 64 --block-n 256 --block-k 32").find("192 read requests"),
            std::string::npos);
  // block_K 64 fills the lines; fp8 block_K 128 too.
  EXPECT_EQ(line("--dtype bfloat16 --b-layout col --block-m 64 --block-n 256 --block-k 64"), "");
  EXPECT_EQ(line("--dtype float8_e4m3 --b-layout col --block-m 64 --block-n 256 --block-k 128"), "");
  EXPECT_NE(line("--dtype float8_e4m3 --b-layout col --block-m 64 --block-n 256 --block-k 64"), "");
  // The seed model prices no time.
  EXPECT_EQ(line("--dtype bfloat16 --b-layout col --block-m 64 --block-n 256 --block-k 32 --model seed"), "");
  // JSON: 320 requests either way; with short rows the requests (at the
  // family's l2_request_bytes) bind and the stage costs more than its bytes,
  // with whole lines it costs its bytes within 2%; both less the share a
  // lone 256-column warpgroup saves with B K-major (kmajor_wide_unit_saving).
  const std::string sweep = "tile --m 555 --n 10240 --k 8192 --dtype bfloat16 --b-layout col --block-m 64 "
                            "--block-n 256 --stages 4 --threads 128 --topk 0 --block-k ";
  std::ifstream family_file(source_path("data/families/triton.json"));
  const json constants = json::parse(family_file)["time"]["constants"];
  const double per_request = constants["l2_request_bytes"]["value"].get<double>();
  const double kept = 1.0 - constants["kmajor_wide_unit_saving"]["value"].get<double>();
  ASSERT_GT(per_request, 64.0);
  ASSERT_GT(kept, 0.5);
  ASSERT_LT(kept, 1.0);
  const json k32 = run_json(sweep + "32")["candidates"][0];
  EXPECT_EQ(k32["l2_requests"].get<double>(), 320.0) << k32.dump();
  EXPECT_GE(k32["l2_stage_bytes"].get<double>(), 320.0 * per_request * kept) << k32.dump();
  const json k64 = run_json(sweep + "64")["candidates"][0];
  EXPECT_EQ(k64["l2_requests"].get<double>(), 320.0) << k64.dump();
  EXPECT_GE(k64["l2_stage_bytes"].get<double>(), 40960.0 * kept) << k64.dump();
  EXPECT_LT(k64["l2_stage_bytes"].get<double>(), 40960.0 * kept * 1.02) << k64.dump();
  const json seed = run_json(sweep + "32 --model seed")["candidates"][0];
  EXPECT_TRUE(seed["l2_stage_bytes"].is_null());
  EXPECT_TRUE(seed["l2_requests"].is_null());
}

TEST(TypesCli, Diagnose_AOfFewRows_SaysWhatItsStageCostsL2) {
  const auto line = [&](const std::string& args) {
    const CliResult r = run_cli("tile --n 4096 --k 14336 --diagnose --block-m 64 --block-n 128 --block-k 128 "
                                "--stages 4 --threads 128 " + args);
    EXPECT_EQ(r.status, 0) << r.err;
    const std::size_t at = r.out.find("A of few rows");
    return at == std::string::npos ? std::string() : r.out.substr(at, r.out.find('\n', at) - at);
  };
  std::ifstream family_file(source_path("data/families/triton.json"));
  const double extra = json::parse(family_file)["time"]["constants"]["one_row_a_extra"]["value"].get<double>();
  ASSERT_GT(extra, 1.0);
  // fp16, A's 64x128 tile: 16 KB a stage, extra times that more at M = 1, half at M = 2.
  const auto kb = [](double x) {
    char s[32];
    std::snprintf(s, sizeof s, "%.1f", x);
    return std::string(s);
  };
  const std::string one = line("--m 1");
  EXPECT_NE(one.find("M = 1: A's 64x128 tile repeats its 1 row 64 times, and each copy requests the same lines: its "
                     "16.0 KB a stage cost L2 " + kb(16.0 * extra) + " KB more"),
            std::string::npos)
      << one;
  const std::string two = line("--m 2");
  EXPECT_NE(two.find("M = 2: A's 64x128 tile repeats its 2 rows 32 times each, and each copy requests the same "
                     "lines: its 16.0 KB a stage cost L2 " + kb(16.0 * extra / 2) + " KB more"),
            std::string::npos)
      << two;
  EXPECT_EQ(line("--m 16"), "");
  EXPECT_EQ(line("--m 1 --a-layout col"), "");  // M contiguous, one element: a narrow operand instead
  EXPECT_EQ(line("--m 1 --model seed"), "");
  // JSON: the problem says so, the candidate carries the bytes (null under seed).
  const json j = run_json("tile --m 4 --n 4096 --k 14336 --block-m 64 --block-n 128 --block-k 128 --stages 4 "
                          "--threads 128 --topk 0");
  EXPECT_TRUE(j["problem"]["a_repeated_rows"].get<bool>());
  EXPECT_DOUBLE_EQ(j["candidates"][0]["repeated_rows_a_bytes"].get<double>(), extra / 4 * 64 * 128 * 2);
  EXPECT_FALSE(run_json("tile --m 16 --topk 1")["problem"]["a_repeated_rows"].get<bool>());
  EXPECT_TRUE(run_json("tile --m 1 --topk 1 --model seed")["candidates"][0]["repeated_rows_a_bytes"].is_null());
}

// Programs walking K in step (M < 16): the candidate carries what they add
// to a program's path, in_step_a_ns x programs in step x block_M / M a K
// step (docs/model.md §3), and --diagnose says it.
TEST(TypesCli, AOfFewRows_ProgramsInStep_InJsonAndDiagnose) {
  std::ifstream family_file(source_path("data/families/triton.json"));
  const double ns = json::parse(family_file)["time"]["constants"]["in_step_a_ns"]["value"].get<double>();
  ASSERT_GT(ns, 0.0);
  const std::string tile = "tile --n 6144 --k 4096 --block-m 64 --block-n 128 --block-k 128 --stages 4 --threads 128 ";
  // 48 programs, 32 K steps, 32 copies of each of A's two rows.
  const json two = run_json(tile + "--m 2 --topk 0")["candidates"][0];
  EXPECT_NEAR(two["in_step_us"].get<double>(), 32 * ns * 1e-3 * 48 * 32, 1e-9) << two.dump();
  // Split 4: 192 programs, 132 resident, a quarter of them per K slice, over
  // a quarter of the steps.
  const json split = run_json(tile + "--m 2 --split-k 4 --topk 0")["candidates"][0];
  EXPECT_NEAR(split["in_step_us"].get<double>(), 8 * ns * 1e-3 * 33 * 32, 1e-9) << split.dump();
  EXPECT_EQ(run_json(tile + "--m 16 --topk 0")["candidates"][0]["in_step_us"].get<double>(), 0.0);
  EXPECT_TRUE(run_json(tile + "--m 2 --topk 0 --model seed")["candidates"][0]["in_step_us"].is_null());
  const CliResult d = run_cli(tile + "--m 2 --diagnose");
  EXPECT_EQ(d.status, 0) << d.err;
  char want[160];
  std::snprintf(want, sizeof want, "programs in step        their K loops request A's same lines at once (32 copies each): %.1f us",
                32 * ns * 1e-3 * 48 * 32);
  EXPECT_NE(d.out.find(want), std::string::npos) << d.out;
  EXPECT_EQ(run_cli(tile + "--m 16 --diagnose").out.find("programs in step"), std::string::npos);
}

TEST(TypesCli, Diagnose_NarrowB_ReportsTheL1ItsLoadsSee) {
  const std::string args = "tile --m 128 --n 50257 --k 4096 --block-m 128 --block-n 64 --block-k 128 --stages 3 "
                           "--threads 128 --diagnose";
  const json j = run_json(args);
  const json& c = j["candidates"][0];
  ASSERT_EQ(c["blocks_per_sm"], 2) << c.dump();
  EXPECT_EQ(c["carveout_bytes"], 228 * 1024);
  EXPECT_EQ(c["l1_bytes_per_block"].get<double>(), 14.0 * 1024);
  EXPECT_EQ(c["narrow_lines_bytes"].get<double>(), 32.0 * 1024);
  EXPECT_DOUBLE_EQ(c["l1_short"].get<double>(), 1.0 - 14.0 / 32.0);
  const CliResult text = run_cli(args);
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("L1 for narrow loads     14.0 KB per block (256 KB less a 228 KB carveout, over 2 block(s)) "
                          "against 32.0 KB of their tiles' lines: 56% do not fit, +"),
            std::string::npos)
      << text.out;
  const json aligned = run_json("tile --m 128 --n 50176 --k 4096 --block-m 128 --block-n 64 --block-k 128 --stages 3 "
                                "--threads 128 --diagnose");
  EXPECT_TRUE(aligned["candidates"][0]["l1_short"].is_null()) << aligned.dump();
  EXPECT_TRUE(aligned["candidates"][0]["carveout_bytes"].is_null());
  EXPECT_EQ(run_cli("tile --m 128 --n 50176 --k 4096 --block-m 128 --block-n 64 --block-k 128 --stages 3 "
                    "--threads 128 --diagnose").out.find("L1 for narrow loads"),
            std::string::npos);
  // The seed model predicts no time: null.
  EXPECT_TRUE(run_json(args + " --model seed")["candidates"][0]["l1_short"].is_null());
}

}  // namespace
}  // namespace tileplan::test
