#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "json_lines.hpp"
#include "run_cli.hpp"

namespace tileplan::test {
namespace {

using nlohmann::json;

TEST(TileCli, Defaults_PrintRankedTable) {
  const CliResult r = run_cli("tile");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("rank"), std::string::npos);
  EXPECT_NE(r.out.find("binding"), std::string::npos);
  EXPECT_TRUE(r.err.empty()) << r.err;
}

TEST(TileCli, Json_HasStableSchema) {
  const CliResult r = run_cli("tile --format json --topk 5");
  ASSERT_EQ(r.status, 0) << r.err;
  const json j = json::parse(r.out);
  ASSERT_TRUE(j.contains("device"));
  ASSERT_TRUE(j.contains("problem"));
  ASSERT_EQ(j["candidates"].size(), 5u);
  for (const char* key : {"block_m", "block_n", "block_k", "stages", "threads", "instr", "smem_per_stage_bytes",
                          "smem_bytes", "accum_per_thread", "regs_per_thread", "regs_per_block", "blocks_by_regs",
                          "blocks_by_smem", "blocks_by_threads", "blocks_per_sm", "binding", "grid", "waves",
                          "last_wave_fill", "dram_bytes", "failures", "warnings"})
    EXPECT_TRUE(j["candidates"][0].contains(key)) << key;
}

// The family's held-out scores for the problem's class, beside the plan:
// the record's numbers, on the device preset it was measured on only.
TEST(TileCli, HeldOutScores_OfTheProblemsClass) {
  const json family = json::parse(std::ifstream(source_path("data/families/triton.json")));
  const json& rec = family.at("validation").at("h200").at("classes").at("float16:rr:mNK");
  const CliResult text = run_cli("tile --m 555 --n 14336 --k 12288 --topk 3");
  ASSERT_EQ(text.status, 0) << text.err;
  const std::string want =
      fmt::format("held out float16:rr:mNK: {} shapes measured on h200, never fitted on: the first pick ran {:.3f}x "
                  "the best (geomean; worst {:.3f}x, {}), the best of the first five {:.3f}x\n",
                  rec.at("cases").get<int>(), rec.at("top1_geomean").get<double>(), rec.at("top1_worst").get<double>(),
                  rec.at("worst_shape").get<std::string>(), rec.at("top5_geomean").get<double>());
  EXPECT_NE(text.out.find(want), std::string::npos) << text.out;
  // Its worst case is past the gate's 1.10: the advice to time the first five.
  ASSERT_GT(rec.at("top1_worst").get<double>(), 1.10);
  EXPECT_NE(text.out.find("time the first five before taking the first"), std::string::npos) << text.out;

  const CliResult j = run_cli("tile --m 555 --n 14336 --k 12288 --topk 1 --format json");
  ASSERT_EQ(j.status, 0) << j.err;
  const json v = json::parse(j.out).at("validation");
  EXPECT_EQ(v.at("class"), "float16:rr:mNK");
  EXPECT_EQ(v.at("device"), "h200");
  EXPECT_EQ(v.at("cases"), rec.at("cases"));
  EXPECT_EQ(v.at("top1_worst"), rec.at("top1_worst"));
  EXPECT_EQ(v.at("worst_shape"), rec.at("worst_shape"));

  // A class within the gate's thresholds: no advice.
  const json& aligned = family.at("validation").at("h200").at("classes").at("float16:rr:MNK");
  ASSERT_LE(aligned.at("top1_worst").get<double>(), 1.10);
  const CliResult a = run_cli("tile --topk 1");
  EXPECT_NE(a.out.find("held out float16:rr:MNK: "), std::string::npos) << a.out;
  EXPECT_EQ(a.out.find("time the first five"), std::string::npos) << a.out;

  // A class never measured: said, and zero cases in JSON.
  const CliResult never = run_cli("tile --topk 1 --a-layout col --b-layout col");
  EXPECT_NE(never.out.find("held out float16:cc:MNK: no held-out shape of this class was measured on h200: this "
                           "ranking is not validated"),
            std::string::npos)
      << never.out;
  const json nj = json::parse(run_cli("tile --topk 1 --a-layout col --b-layout col --format json").out);
  EXPECT_EQ(nj.at("validation"), json({{"class", "float16:cc:MNK"}, {"device", "h200"}, {"cases", 0}}));

  // The H100's own record, on its preset.
  const json& h100 = family.at("validation").at("h100-sxm").at("classes").at("float16:rr:MNK");
  const json hj = json::parse(run_cli("tile --topk 1 --device h100-sxm --format json").out).at("validation");
  EXPECT_EQ(hj.at("device"), "h100-sxm");
  EXPECT_EQ(hj.at("cases"), h100.at("cases"));
  EXPECT_EQ(hj.at("top1_worst"), h100.at("top1_worst"));

  // A device never measured, a preset changed by a flag, the seed model, a
  // sweep of split factors (the scores are of unsplit picks): none hold.
  for (const char* flags : {"--device a100-sxm", "--sm-count 100", "--smem-kb 100", "--model seed",
                            "--device h100-sxm --power-budget 500", "--split-k 1,2"}) {
    const CliResult other = run_cli(std::string("tile --topk 1 ") + flags);
    ASSERT_EQ(other.status, 0) << flags << other.err;
    EXPECT_EQ(other.out.find("held out"), std::string::npos) << flags << other.out;
    const CliResult oj = run_cli(std::string("tile --topk 1 --format json ") + flags);
    EXPECT_TRUE(json::parse(oj.out).at("validation").is_null()) << flags;
  }
}

TEST(TileCli, TopkZero_KeepsAllFeasible) {
  const json j = json::parse(run_cli("tile --format json --topk 0").out);
  EXPECT_EQ(j["candidates"].size(), j["feasible"].get<size_t>());
  EXPECT_GT(j["candidates"].size(), 15u);
}

TEST(TileCli, Lists_RestrictTheSweep) {
  const CliResult r =
      run_cli("tile --format json --topk 0 --block-m 64,128 --block-n 128 --block-k 64 --stages 3 --threads 128,256");
  ASSERT_EQ(r.status, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["space_size"], 4);
  for (const json& c : j["candidates"]) {
    EXPECT_TRUE(c["block_m"] == 64 || c["block_m"] == 128);
    EXPECT_EQ(c["block_n"], 128);
  }
}

TEST(TileCli, Diagnose_NamesEachConstraint) {
  const CliResult r = run_cli("tile --diagnose --block-m 256 --block-n 256 --block-k 128 --stages 4 --threads 128");
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* id : {"C1", "C2", "C3", "C4", "verdict"}) EXPECT_NE(r.out.find(id), std::string::npos) << id;
  EXPECT_NE(r.out.find("INFEASIBLE"), std::string::npos);
}

TEST(TileCli, DiagnoseJson_OneCandidateWithFailures) {
  const json j = json::parse(
      run_cli("tile --diagnose --format json --block-m 256 --block-n 256 --block-k 128 --stages 4 --threads 128").out);
  ASSERT_EQ(j["candidates"].size(), 1u);
  const json& c = j["candidates"][0];
  // 256*256/128 = 512 accumulators/thread > 255: C2 fails; 4*(256*128*2)*2 = 512 KB > 227 KB: C1 fails.
  EXPECT_EQ(c["accum_per_thread"], 512);
  bool c1 = false, c2 = false;
  for (const json& f : c["failures"]) {
    c1 |= f.get<std::string>().rfind("C1 ", 0) == 0;
    c2 |= f.get<std::string>().rfind("C2 ", 0) == 0;
  }
  EXPECT_TRUE(c1);
  EXPECT_TRUE(c2);
}

TEST(TileCli, Csv_HasHeaderAndRows) {
  const CliResult r = run_cli("tile --format csv --topk 3");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(count_lines(r.out), 4);
  EXPECT_EQ(r.out.rfind("rank,block_m,block_n", 0), 0u);
}

TEST(TileCli, Shapes_WritesOneJsonLinePerShape) {
  const std::string path = "/tmp/tileplan_shapes_ok.txt";
  {
    std::ofstream f(path);
    f << "# a model's GEMMs\n4096 4096 4096\n\n128,4096,4096  # decode\n 16 8192 1024\n";
  }
  const CliResult r = run_cli("tile --shapes " + path + " --topk 2");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<json> objs = json_lines(r.out);
  ASSERT_EQ(objs.size(), 3u);
  EXPECT_EQ(objs[1]["problem"]["m"], 128);
  EXPECT_EQ(objs[2]["problem"]["n"], 8192);
  EXPECT_EQ(objs[0]["candidates"].size(), 2u);
}

// Shapes are planned on several threads in blocks of 256 and written in the
// file's order: a file of three blocks comes out line for line as planned
// one shape at a time.
TEST(TileCli, Shapes_ManyBlocksComeOutInTheFilesOrder) {
  const std::string path = ::testing::TempDir() + "tileplan_shapes_order.txt";
  std::vector<std::string> lines;
  {
    std::ofstream f(path);
    for (int i = 0; i < 600; ++i) {
      lines.push_back(fmt::format("{} {} {}{}", 16 + 7 * i, 4096 + (i % 5) * 1000, 512 + (i % 7) * 333,
                                  i % 3 == 0 ? " bfloat16 row col" : ""));
      f << lines.back() << "\n";
    }
  }
  const CliResult r = run_cli("tile --shapes " + path + " --topk 1");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<json> objs = json_lines(r.out);
  ASSERT_EQ(objs.size(), 600u);
  for (std::size_t i = 0; i < objs.size(); ++i)
    ASSERT_EQ(objs[i]["problem"]["m"], 16 + 7 * static_cast<int>(i)) << i;
  std::istringstream out(r.out);
  std::vector<std::string> got;
  for (std::string line; std::getline(out, line);) got.push_back(line);
  for (std::size_t i : {std::size_t{0}, std::size_t{255}, std::size_t{256}, std::size_t{431}, std::size_t{599}}) {
    const std::string one = ::testing::TempDir() + "tileplan_shapes_one.txt";
    std::ofstream(one) << lines[i] << "\n";
    const CliResult single = run_cli("tile --shapes " + one + " --topk 1");
    ASSERT_EQ(single.status, 0) << single.err;
    EXPECT_EQ(single.out, got[i] + "\n") << "shape " << i << ": " << lines[i];
  }
}

// The same shapes file as a table (--format text) and as CSV: one row per
// shape and rank, each the JSON Lines' candidate of the same rank, the
// table's total the sum of the first picks' predicted times.
// Each test writes its own file: ctest runs the tests that share this one
// in parallel processes, and one rewriting the file while another reads it
// leaves the reader an empty file.
std::string write_plan_shapes() {
  const std::string path = ::testing::TempDir() + "tileplan_shapes_plan_" +
                           ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".txt";
  std::ofstream f(path);
  f << "# a plan\n4096 4096 4096\n1000 4096 1000\n4096 14336 4096 bfloat16 row col\n4096 4096 16\n";
  return path;
}

// The lines of a plan table between its column titles and its total.
std::vector<std::string> plan_rows(const std::string& out) {
  std::vector<std::string> rows;
  std::istringstream lines(out);
  bool in_table = false;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("shape (MxNxK)", 0) == 0) {
      in_table = true;
      continue;
    }
    if (in_table && line.empty()) break;
    if (in_table) rows.push_back(line);
  }
  return rows;
}

std::vector<std::string> split_ws(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

TEST(TileCli, Shapes_TextHasOneRowPerShapeTheJsonPicks) {
  const std::string path = write_plan_shapes();
  const CliResult t = run_cli("tile --shapes " + path + " --format text");
  ASSERT_EQ(t.status, 0) << t.err;
  const std::vector<json> objs = json_lines(run_cli("tile --shapes " + path + " --topk 1").out);
  ASSERT_EQ(objs.size(), 4u);
  const std::vector<std::string> rows = plan_rows(t.out);
  ASSERT_EQ(rows.size(), 4u) << t.out;  // --topk left out: each shape's first pick
  double total_us = 0;
  for (std::size_t i = 0; i < 3; ++i) {
    const json& c = objs[i]["candidates"][0];
    const std::vector<std::string> w = split_ws(rows[i]);
    ASSERT_GE(w.size(), 13u) << rows[i];
    EXPECT_EQ(w[0], fmt::format("{}x{}x{}", objs[i]["problem"]["m"].get<int>(), objs[i]["problem"]["n"].get<int>(),
                                objs[i]["problem"]["k"].get<int>()));
    EXPECT_EQ(w[5], "1") << rows[i];
    EXPECT_EQ(w[6], fmt::format("{}x{}x{}", c["block_m"].get<int>(), c["block_n"].get<int>(), c["block_k"].get<int>()));
    EXPECT_EQ(w[7], std::to_string(c["stages"].get<int>()));
    EXPECT_EQ(w[8], std::to_string(c["threads"].get<int>()));
    EXPECT_EQ(w[9], fmt::format("{:.1f}", c["predicted_us"].get<double>()));
    total_us += c["predicted_us"].get<double>();
  }
  EXPECT_EQ(split_ws(rows[2])[1], "bfloat16");
  EXPECT_EQ(split_ws(rows[2])[4], "col");
  // K = 1000 narrows A's loads; the row says what padding K buys.
  EXPECT_NE(rows[1].find("padding K 1000->1008 pays"), std::string::npos) << rows[1];
  // K = 16 is below every block_K of the space: the row says so, the run goes on.
  EXPECT_TRUE(objs[3]["candidates"].empty());
  EXPECT_NE(rows[3].find("no configuration has block_K <= K = 16"), std::string::npos) << rows[3];
  EXPECT_NE(t.out.find(fmt::format("total    4 shape(s), 3 planned: the first picks {:.1f} us predicted", total_us)),
            std::string::npos)
      << t.out;
}

// --emit with --shapes: one autotune list per kernel (types and layouts),
// the union of every shape's first 3 (JSON Lines, --topk 3) without
// repeats; each line's comment names the shapes it is the first pick for.
struct EmittedList {
  std::vector<std::string> configs;        // "bm bn bk stages warps", in order
  std::vector<std::string> first_named;    // per line: the named shapes, comma-joined
  std::size_t first_total = 0;             // first picks counted by the comments
};

std::map<std::string, EmittedList> emitted_lists(const std::string& out) {
  static const std::regex config(
      R"(^    triton\.Config\(\{'BLOCK_M': (\d+), 'BLOCK_N': (\d+), 'BLOCK_K': (\d+), 'GROUP_M': 8\}, )"
      R"(num_stages=(\d+), num_warps=(\d+)\),  #(.*)$)");
  static const std::regex firsts(R"( first pick for ([0-9x, ]+?)(?: and (\d+) more)?(;|$))");
  std::map<std::string, EmittedList> lists;
  std::string current;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("configs_", 0) == 0) {
      current = line.substr(0, line.find(" = ["));
      lists[current];
      continue;
    }
    std::smatch m;
    if (!std::regex_match(line, m, config)) continue;
    EmittedList& l = lists[current];
    l.configs.push_back(fmt::format("{} {} {} {} {}", m[1].str(), m[2].str(), m[3].str(), m[4].str(), m[5].str()));
    const std::string comment = m[6].str();
    std::smatch f;
    if (std::regex_search(comment, f, firsts)) {
      const std::string named_shapes = f[1].str();
      l.first_named.push_back(named_shapes);
      const std::size_t named =
          1 + static_cast<std::size_t>(std::count(named_shapes.begin(), named_shapes.end(), ','));
      l.first_total += named + (f[2].matched ? std::stoul(f[2].str()) : 0);
    } else {
      l.first_named.emplace_back();
    }
  }
  return lists;
}

std::string config_key(const json& c) {
  return fmt::format("{} {} {} {} {}", c["block_m"].get<int>(), c["block_n"].get<int>(), c["block_k"].get<int>(),
                     c["stages"].get<int>(), c["threads"].get<int>() / 32);
}

TEST(TileCli, Shapes_EmitJoinsEveryShapesTopThreeIntoOneListPerKernel) {
  const std::string path = ::testing::TempDir() + "tileplan_shapes_emit.txt";
  {
    std::ofstream f(path);
    f << "4096 4096 4096\n1000 4096 1000\n2048 2048 2048\n4096 4096 4096\n4096 4096 16\n"
         "4096 14336 4096 bfloat16 row col\n16 4096 4096 bfloat16 row col\n1000 128256 4096 bfloat16 row col\n"
         "512 8192 8192 float8_e4m3 row col\n";
  }
  const CliResult e = run_cli("tile --shapes " + path + " --emit triton");
  ASSERT_EQ(e.status, 0) << e.err;
  const std::vector<json> objs = json_lines(run_cli("tile --shapes " + path + " --topk 3").out);
  ASSERT_EQ(objs.size(), 9u);
  std::map<std::string, std::set<std::string>> want;
  std::map<std::string, std::size_t> planned;
  std::map<std::string, std::pair<std::string, std::string>> first_of;  // MxNxK -> (list, config)
  for (const json& o : objs) {
    const json& p = o["problem"];
    if (o["candidates"].empty()) continue;
    const std::string list = fmt::format("configs_{}_{}_{}_{}", p["dtype"].get<std::string>(),
                                         p["out_dtype"].get<std::string>(), p["a_layout"].get<std::string>(),
                                         p["b_layout"].get<std::string>());
    ++planned[list];
    for (const json& c : o["candidates"]) want[list].insert(config_key(c));
    first_of[fmt::format("{}x{}x{}", p["m"].get<int>(), p["n"].get<int>(), p["k"].get<int>())] = {
        list, config_key(o["candidates"][0])};
  }
  const std::map<std::string, EmittedList> got = emitted_lists(e.out);
  ASSERT_EQ(got.size(), 3u) << e.out;  // fp16 row/row, bf16 row/col, fp8 row/col
  for (const auto& [name, l] : got) {
    ASSERT_TRUE(want.count(name)) << name;
    const std::set<std::string> unique(l.configs.begin(), l.configs.end());
    EXPECT_EQ(unique.size(), l.configs.size()) << name << ": a configuration listed twice";
    EXPECT_EQ(unique, want[name]) << name;
    EXPECT_EQ(l.first_total, planned[name]) << name;
    // A line that names a shape is that shape's first pick.
    for (std::size_t i = 0; i < l.configs.size(); ++i) {
      std::istringstream shapes(l.first_named[i]);
      for (std::string s; std::getline(shapes, s, ',');) {
        s.erase(0, s.find_first_not_of(' '));
        ASSERT_TRUE(first_of.count(s)) << s;
        EXPECT_EQ(first_of[s], std::make_pair(name, l.configs[i])) << s;
      }
    }
    // The first line is the first pick of the most shapes.
    EXPECT_FALSE(l.first_named.front().empty()) << name;
  }
  // 4096x4096x4096 twice: counted twice, listed once.
  EXPECT_TRUE(std::regex_search(e.out, std::regex("first pick for 4096x4096x4096, [0-9x, ]*4096x4096x4096"))) << e.out;
  EXPECT_NE(e.out.find("# no configuration for 4096x4096x16 (float16 in, float16 out): no configuration has block_K "
                       "<= K = 16"),
            std::string::npos)
      << e.out;
  EXPECT_NE(e.out.find("# the first 3 configuration(s) of each shape"), std::string::npos);
  // --topk 1: the first picks alone.
  const std::map<std::string, EmittedList> ones =
      emitted_lists(run_cli("tile --shapes " + path + " --emit triton --topk 1").out);
  for (const auto& [name, l] : ones)
    for (const std::string& named : l.first_named) EXPECT_FALSE(named.empty()) << name;
}

TEST(TileCli, Shapes_EmitTileLangCarriesEachListsTypesAndTheSplit) {
  const std::string path = ::testing::TempDir() + "tileplan_shapes_emit_tl.txt";
  std::ofstream(path) << "16 4096 14336 bfloat16 row col\n64 7168 7168 float8_e4m3 row col\n128 4096 4096 tfloat32\n";
  const CliResult e = run_cli("tile --shapes " + path + " --emit tilelang --split-k auto --topk 2");
  ASSERT_EQ(e.status, 0) << e.err;
  std::map<std::string, std::pair<std::string, std::string>> types = {
      {"configs_bfloat16_bfloat16_row_col", {"bfloat16", "bfloat16"}},
      {"configs_float8_e4m3_float16_row_col", {"float8_e4m3", "float16"}},
      {"configs_tfloat32_float32_row_row", {"float32", "float32"}}};
  std::string current;
  std::size_t dicts = 0;
  std::istringstream lines(e.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("configs_", 0) == 0) {
      current = line.substr(0, line.find(" = ["));
      ASSERT_TRUE(types.count(current)) << line;
      continue;
    }
    if (line.rfind("    {", 0) != 0) continue;
    const json d = json::parse(line.substr(4, line.find("},  #") - 3));
    EXPECT_EQ(d["in_dtype"], types[current].first) << line;
    EXPECT_EQ(d["out_dtype"], types[current].second) << line;
    EXPECT_TRUE(d.contains("split_k")) << line;
    ++dicts;
  }
  EXPECT_GE(dicts, 3u);
  EXPECT_LE(dicts, 6u);
  // A decode step with a long K splits: 16x4096x14336's first pick does in the JSON too.
  const std::vector<json> objs = json_lines(run_cli("tile --shapes " + path + " --split-k auto --topk 1").out);
  EXPECT_NE(e.out.find(fmt::format("\"split_k\": {}", objs[0]["candidates"][0]["split_k"].get<int>())),
            std::string::npos);
}

TEST(TileCli, Shapes_TopkGivesEachShapeItsRanks) {
  const std::string path = write_plan_shapes();
  const CliResult t = run_cli("tile --shapes " + path + " --format text --topk 3");
  ASSERT_EQ(t.status, 0) << t.err;
  const std::vector<std::string> rows = plan_rows(t.out);
  ASSERT_EQ(rows.size(), 3u * 3u + 1u) << t.out;
  // The shape is named on its first rank only.
  EXPECT_EQ(split_ws(rows[1])[0], "2");
  EXPECT_EQ(split_ws(rows[2])[0], "3");
  EXPECT_EQ(split_ws(rows[3])[0], "1000x4096x1000");
}

TEST(TileCli, Shapes_SplitSpaceAddsTheSplitColumn) {
  const std::string path = write_plan_shapes();
  const CliResult t = run_cli("tile --shapes " + path + " --format text --split-k 1,2");
  ASSERT_EQ(t.status, 0) << t.err;
  EXPECT_NE(t.out.find(" threads split   pred us"), std::string::npos) << t.out;
  const std::vector<std::string> rows = plan_rows(t.out);
  ASSERT_EQ(rows.size(), 4u) << t.out;
  // Every row, the one without a candidate too, keeps the columns in place.
  for (const std::string& row : rows) EXPECT_GE(split_ws(row).size(), 14u) << row;  // 14 columns before the notes
  EXPECT_EQ(split_ws(rows[3])[9], "-") << rows[3];
}

TEST(TileCli, Shapes_CsvHasARowPerShapeAndRank) {
  const std::string path = write_plan_shapes();
  const CliResult c = run_cli("tile --shapes " + path + " --format csv --topk 2");
  ASSERT_EQ(c.status, 0) << c.err;
  const std::vector<json> objs = json_lines(run_cli("tile --shapes " + path + " --topk 2").out);
  std::istringstream lines(c.out);
  std::string header;
  std::getline(lines, header);
  EXPECT_EQ(header.rfind("m,n,k,dtype,out_dtype,a_layout,b_layout,lda,ldb,ldc,rank,block_m,", 0), 0u) << header;
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (char ch : line) {
      if (ch == '"') quoted = !quoted;
      else if (ch == ',' && !quoted) fields.emplace_back();
      else fields.back() += ch;
    }
    rows.push_back(fields);
  }
  ASSERT_EQ(rows.size(), 3u * 2u + 1u) << c.out;
  for (const auto& r : rows) EXPECT_EQ(r.size(), 26u) << c.out;
  for (std::size_t i = 0; i < 6; ++i) {
    const json& cand = objs[i / 2]["candidates"][i % 2];
    EXPECT_EQ(rows[i][10], std::to_string(i % 2 + 1));
    EXPECT_EQ(rows[i][11], std::to_string(cand["block_m"].get<int>()));
    EXPECT_EQ(rows[i][15], std::to_string(cand["threads"].get<int>()));
    EXPECT_NEAR(std::stod(rows[i][20]), cand["predicted_us"].get<double>(), 1e-6 * cand["predicted_us"].get<double>());
  }
  EXPECT_EQ(rows[2][3], "float16");
  EXPECT_NE(rows[2][25].find("padding K 1000->1008 pays"), std::string::npos);
  EXPECT_EQ(rows[6][2], "16");
  EXPECT_EQ(rows[6][10], "");
  EXPECT_NE(rows[6][24].find("no configuration has block_K <= K = 16"), std::string::npos);
}

TEST(TileCli, Shapes_SeedModelTableRanksByTraffic) {
  const std::string path = write_plan_shapes();
  const CliResult t = run_cli("tile --shapes " + path + " --format text --model seed");
  ASSERT_EQ(t.status, 0) << t.err;
  EXPECT_NE(t.out.find("traffic MB"), std::string::npos) << t.out;
  EXPECT_EQ(t.out.find("pred us"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("total    4 shape(s), 4 planned\n"), std::string::npos) << t.out;
}

// Padding advice (docs/model.md §3, "Padding"): a problem whose N, K, M or
// leading dimension is not a multiple of 16 where rounding it up changes how
// an operand moves gets its options; an aligned one, or one where M is only
// a loop bound, gets none.
TEST(TileCli, Padding_ListsTheOptionsOfAnUnalignedProblem) {
  const CliResult r = run_cli("tile --m 1024 --n 11001 --k 1000 --topk 2");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\npadding  up to multiples of 16"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  N 11001->11008, K 1000->1008 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  K 1000->1008 "), std::string::npos) << r.out;
  EXPECT_LT(r.out.find("padding"), r.out.find("next:"));
  for (const char* cmd : {"tile --topk 2", "tile --m 1000 --topk 2", "tile --m 1024 --n 11001 --k 1000 --model seed"})
    EXPECT_EQ(run_cli(cmd).out.find("\npadding"), std::string::npos) << cmd;
}

TEST(TileCli, Padding_JsonAgreesWithPlanningThePaddedProblem) {
  const json j = json::parse(run_cli("tile --m 1024 --n 11001 --k 1000 --topk 1 --format json").out);
  const json& pad = j["padding"];
  ASSERT_TRUE(pad.is_object()) << j.dump();
  EXPECT_DOUBLE_EQ(pad["unpadded_us"].get<double>(), j["candidates"][0]["predicted_us"].get<double>());
  ASSERT_EQ(pad["options"].size(), 3u);
  double previous = 0;
  for (const json& o : pad["options"]) {
    EXPECT_GE(o["predicted_us"].get<double>(), previous);
    previous = o["predicted_us"].get<double>();
    EXPECT_DOUBLE_EQ(o["speedup"].get<double>(), pad["unpadded_us"].get<double>() / previous);
    const json padded = json::parse(run_cli("tile --topk 1 --format json --m " + std::to_string(o["m"].get<int>()) +
                                            " --n " + std::to_string(o["n"].get<int>()) + " --k " +
                                            std::to_string(o["k"].get<int>()))
                                        .out);
    EXPECT_DOUBLE_EQ(padded["candidates"][0]["predicted_us"].get<double>(), previous);
    EXPECT_EQ(padded["candidates"][0]["block_m"], o["config"]["block_m"]);
    EXPECT_EQ(padded["candidates"][0]["block_n"], o["config"]["block_n"]);
  }
  EXPECT_EQ(pad["options"][0]["pad"], json::array({"n", "k"}));
  EXPECT_EQ(pad["options"][0]["vector_bytes_b"], 16);
  EXPECT_TRUE(json::parse(run_cli("tile --topk 1 --format json").out)["padding"].is_null());
  EXPECT_TRUE(json::parse(run_cli("tile --topk 1 --format json --n 11001 --model seed").out)["padding"].is_null());
}

TEST(TileCli, Padding_DiagnoseShowsTheTileOnEachPaddedProblem) {
  const std::string flags = "tile --diagnose --m 1024 --n 11001 --k 1000 --block-m 128 --block-n 128 --block-k 64 "
                            "--stages 3 --threads 256";
  const CliResult r = run_cli(flags);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("   padding                 pays: N 11001->11008, K 1000->1008 (+0.86% work): this tile"),
            std::string::npos)
      << r.out;
  const json j = json::parse(run_cli(flags + " --format json").out);
  ASSERT_EQ(j["padding"]["options"].size(), 3u);
  EXPECT_DOUBLE_EQ(j["padding"]["unpadded_us"].get<double>(), j["candidates"][0]["predicted_us"].get<double>());
  for (const json& o : j["padding"]["options"]) EXPECT_EQ(o["config"]["block_n"], 128);
  EXPECT_TRUE(json::parse(run_cli("tile --diagnose --format json")
                              .out)["padding"]
                  .is_null());
}

TEST(TileCli, Padding_EmitSaysWhenItPaysInAComment) {
  const CliResult r = run_cli("tile --m 2048 --n 50257 --k 4096 --topk 2 --emit triton");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::size_t at = r.out.find("\n# padding N 50257->50272 (A and B zero-filled");
  ASSERT_NE(at, std::string::npos) << r.out;
  EXPECT_LT(at, r.out.find("triton.Config(")) << "a header comment, before the configurations";
  EXPECT_EQ(run_cli("tile --topk 2 --emit triton").out.find("# padding"), std::string::npos);
  // M only a loop bound: nothing to pad, no comment.
  EXPECT_EQ(run_cli("tile --m 1000 --topk 2 --emit tilelang").out.find("# padding"), std::string::npos);
}

TEST(TileCli, Padding_EveryLineOfAShapesFileCarriesIt) {
  const std::string path = ::testing::TempDir() + "tileplan_shapes_padding.txt";
  {
    std::ofstream f(path);
    f << "4096 4096 4096\n4096 50257 4096 bfloat16\n1000 4096 4096 float16 col row\n";
  }
  const CliResult r = run_cli("tile --shapes " + path + " --topk 1");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<json> objs = json_lines(r.out);
  ASSERT_EQ(objs.size(), 3u);
  EXPECT_TRUE(objs[0]["padding"].is_null());
  EXPECT_EQ(objs[1]["padding"]["options"][0]["n"], 50272);
  EXPECT_EQ(objs[2]["padding"]["options"][0]["pad"], json::array({"m"}));
  EXPECT_EQ(objs[2]["padding"]["options"][0]["lda"], 1008) << "A column-major: lda strides M";
}

TEST(TileCli, Devices_ListsPresetsWithSources) {
  const CliResult r = run_cli("devices --format json");
  ASSERT_EQ(r.status, 0) << r.err;
  const json j = json::parse(r.out);
  ASSERT_GE(j.size(), 6u);
  EXPECT_TRUE(j[0]["sources"].contains("sm_count"));
}

TEST(TileCli, Help_ExitsZero) { EXPECT_EQ(run_cli("tile --help").status, 0); }

TEST(TileCli, DefaultSpace_IsTheFamilysMeasuredOne) {
  // The calibrated default: the family's measured grid (block_M 16 to 256,
  // 3 x 3 block_N and block_K, stages 2-5, 4 or 8 warps); a family file's
  // own space when given.
  EXPECT_EQ(json::parse(run_cli("tile --format json --topk 1").out)["space_size"], 360);
  EXPECT_EQ(json::parse(run_cli("tile --format json --topk 1 --model seed").out)["space_size"], 900);
  const std::string dir = ::testing::TempDir();
  std::ifstream in(source_path("data/families/triton.json"));
  json f = json::parse(in);
  f["name"] = "narrow-space";
  f["space"]["block_m"] = {128};
  f["space"]["stages"] = {4};
  const std::string path = dir + "/narrow_space_family.json";
  std::ofstream(path) << f.dump();
  const json j = json::parse(run_cli("tile --format json --topk 0 --family-file " + path).out);
  EXPECT_EQ(j["space_size"], 1 * 3 * 3 * 1 * 2);
  for (const json& c : j["candidates"]) {
    EXPECT_EQ(c["block_m"], 128);
    EXPECT_EQ(c["stages"], 4);
  }
}

TEST(TileCli, BeyondTheMeasuredSpace_MarkedExtrapolated) {
  // Block sizes 32 are outside the triton family's measured space: those
  // candidates say so (JSON in_measured_space false, the notes column,
  // --diagnose); the others are inside; the seed model has no such space.
  const json j = json::parse(run_cli("tile --format json --topk 0 --block-m 64,128 --block-n 32,64").out);
  bool inside = false, outside = false;
  for (const json& c : j["candidates"]) {
    const bool expect = c["block_n"] == 64;
    EXPECT_EQ(c["in_measured_space"].get<bool>(), expect) << c.dump();
    (expect ? inside : outside) = true;
  }
  EXPECT_TRUE(inside && outside);
  const CliResult text = run_cli("tile --topk 0 --block-m 64,128 --block-n 32,64");
  ASSERT_EQ(text.status, 0) << text.err;
  std::size_t marked = 0;
  for (std::size_t at = text.out.find("extrapolated"); at != std::string::npos; at = text.out.find("extrapolated", at + 1))
    ++marked;
  std::size_t narrow = 0;
  for (const json& c : j["candidates"]) narrow += c["block_n"] == 32;
  EXPECT_EQ(marked, narrow) << text.out;
  const CliResult diag = run_cli("tile --diagnose --block-m 128 --block-n 32 --block-k 32 --stages 3 --threads 128");
  EXPECT_NE(diag.out.find("   extrapolated            the tile is outside the space family triton was measured on"),
            std::string::npos) << diag.out;
  const CliResult in = run_cli("tile --diagnose --block-m 128 --block-n 64 --block-k 32 --stages 3 --threads 128");
  EXPECT_EQ(in.out.find("extrapolated"), std::string::npos) << in.out;
  const json seed = json::parse(run_cli("tile --format json --topk 1 --model seed").out);
  EXPECT_TRUE(seed["candidates"][0]["in_measured_space"].is_null());
}

TEST(TileCli, NotesName_EachWarningsConstraint) {
  // A priced spill of held operand tiles is a C2 warning: the notes column
  // says "C2 spill" (not a C4 note).
  const CliResult r = run_cli("tile --m 1000 --n 5001 --k 1000 --topk 0");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("C2 spill"), std::string::npos) << r.out;
  const json j = json::parse(run_cli("tile --m 1000 --n 5001 --k 1000 --topk 0 --format json").out);
  std::size_t c2 = 0, notes = 0;
  for (const json& c : j["candidates"])
    for (const json& w : c["warnings"]) c2 += w.get<std::string>().rfind("C2 ", 0) == 0;
  for (std::size_t at = r.out.find("C2 spill"); at != std::string::npos; at = r.out.find("C2 spill", at + 1)) ++notes;
  EXPECT_EQ(notes, c2);
}

TEST(TileCli, RepeatedValues_CountOnce) {
  // 128,128,128 is one block_M: 1 x 3 x 3 x 4 x 2 = 72 configurations (not
  // 216) in the calibrated default space (the triton family's measured
  // space); 1 x 5 x 4 x 3 x 3 = 180 in the seed's (the reference's).
  const CliResult r = run_cli("tile --format json --block-m 128,128,128");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["space_size"], 72);
  const CliResult seed = run_cli("tile --format json --model seed --block-m 128,128,128");
  ASSERT_EQ(seed.status, 0) << seed.err;
  EXPECT_EQ(json::parse(seed.out)["space_size"], 180);
}

TEST(TileCli, KBelowEveryBlockK_SaysSo) {
  // Every default tile passes C1-C3; none has block_K <= 1.
  const CliResult r = run_cli("tile --m 1 --n 1 --k 1");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("no configuration has block_K <= K = 1"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("no configuration satisfies C1-C3"), std::string::npos) << r.out;
}

TEST(TileCli, FamilyFile_SameConstantsSamePlan) {
  // The shipped family under another name, loaded from a file: the same ranking, number for number.
  const CliResult fam = run_cli("families --family triton --format json");
  ASSERT_EQ(fam.status, 0) << fam.err;
  json j = json::parse(fam.out).at(0);
  EXPECT_EQ(j["file"], "data/families/triton.json");
  j.erase("file");
  j["name"] = "mine";
  const std::string path = "/tmp/tileplan_family_" + std::to_string(::getpid()) + ".json";
  {
    std::ofstream f(path);
    f << j.dump(2);
  }
  const json shipped = json::parse(run_cli("tile --format json --topk 20 --m 1000 --n 50257 --k 1500").out);
  const CliResult mine = run_cli("tile --format json --topk 20 --m 1000 --n 50257 --k 1500 --family-file " + path);
  ASSERT_EQ(mine.status, 0) << mine.err;
  const json other = json::parse(mine.out);
  EXPECT_EQ(other["family"], "mine");
  EXPECT_EQ(other["candidates"], shipped["candidates"]);
  std::remove(path.c_str());
}

TEST(TileCli, Families_ListsTheShippedOnes) {
  const CliResult text = run_cli("families");
  ASSERT_EQ(text.status, 0) << text.err;
  for (const char* part : {"triton", "seed", "data/families/triton.json", "h200", "float16", "mma_n_half"})
    EXPECT_NE(text.out.find(part), std::string::npos) << part;
  const json j = json::parse(run_cli("families --format json").out);
  ASSERT_EQ(j.size(), 2u);
  for (const json& f : j) {
    EXPECT_EQ(f["format"], "tileplan-family");
    EXPECT_FALSE(f["data"].empty());
    EXPECT_TRUE(f["time"]["constants"].contains("launch_us"));
  }
  // The triton family's split-K model: its kernel, its data and every
  // constant with its source (the seed family has none).
  const CliResult triton = run_cli("families --family triton");
  ASSERT_EQ(triton.status, 0) << triton.err;
  EXPECT_NE(triton.out.find("  split-K (workspace kernel): scripts/fit_splitk.py"), std::string::npos) << triton.out;
  for (const char* name : {"reduce_launch_us", "reduce_gbps", "split_dram_share", "split_dram_growth"})
    EXPECT_NE(triton.out.find(std::string("    ") + name), std::string::npos) << name;
  EXPECT_NE(triton.out.find("judged fresh by data/h100-triton-splitk-growth"), std::string::npos) << triton.out;
  const CliResult seed = run_cli("families --family seed");
  ASSERT_EQ(seed.status, 0) << seed.err;
  EXPECT_EQ(seed.out.find("split-K"), std::string::npos) << seed.out;
}

}  // namespace
}  // namespace tileplan::test
