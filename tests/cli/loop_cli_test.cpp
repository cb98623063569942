#include <gtest/gtest.h>

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <regex>
#include <vector>

#include <nlohmann/json.hpp>

#include "run_cli.hpp"

namespace tileplan::test {
namespace {

using nlohmann::json;

json golden(const std::string& name) {
  std::ifstream f(source_path("tests/golden/" + name));
  return json::parse(f);
}

std::string joined(const json& extents) {
  std::string s;
  for (const json& e : extents) {
    if (!s.empty()) s += ' ';
    s += std::to_string(e.get<int64_t>());
  }
  return s;
}

TEST(LoopCli, Defaults_ReferenceNestWithEverySection) {
  const CliResult r = run_cli("loop");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  for (const char* s : {"T.Parallel(128, 32): 128 threads, vector 8", "plan:", "threads", "memory:", "guard",
                        "sectors (32 B)", "efficiency"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s;
  // 4096 points is more than the text lists by default.
  EXPECT_EQ(r.out.find("points: index"), std::string::npos);
}

TEST(LoopCli, JsonPointMap_MatchesReferenceGolden) {
  const json cases = golden("loop_plan.json")["cases"];
  ASSERT_GE(cases.size(), 15u);
  for (const json& c : cases) {
    const CliResult r = run_cli("loop --format json --extents " + joined(c["extents"]) + " --threads " +
                                std::to_string(c["threads"].get<int64_t>()) + " --vector " +
                                std::to_string(c["vector"].get<int64_t>()));
    ASSERT_EQ(r.status, 0) << r.err;
    const json j = json::parse(r.out);
    const auto map = c["map"].get<std::vector<int64_t>>();
    ASSERT_FALSE(map.empty()) << c["extents"];
    ASSERT_EQ(j["points"].size() * 2, map.size()) << c["extents"];
    std::vector<int64_t> index(c["extents"].size(), 0);
    for (std::size_t f = 0; f < j["points"].size(); ++f) {
      const json& p = j["points"][f];
      ASSERT_EQ(p["thread"].get<int64_t>(), map[2 * f]) << c["extents"] << " flat " << f;
      ASSERT_EQ(p["slot"].get<int64_t>(), map[2 * f + 1]);
      ASSERT_EQ(p["index"].get<std::vector<int64_t>>(), index);
      for (std::size_t k = index.size(); k-- > 0;) {
        if (++index[k] < c["extents"][k].get<int64_t>()) break;
        index[k] = 0;
      }
    }
  }
}

TEST(LoopCli, Json_HoldsPlanSummaryAndMemory) {
  const CliResult r = run_cli("loop --format json --extents 100 40 --threads 128 --vector 4 --dtype float32");
  ASSERT_EQ(r.status, 0) << r.err;
  const json j = json::parse(r.out);
  for (const char* key : {"nest", "plan", "summary", "memory", "points"}) EXPECT_TRUE(j.contains(key)) << key;
  for (const char* key : {"points", "groups", "idle_threads", "rounds", "masked_lanes", "guard", "partial_last_round"})
    EXPECT_TRUE(j["summary"].contains(key)) << key;
  for (const char* key : {"instructions", "bytes_requested", "sectors", "lines", "efficiency", "worst",
                          "sectors_histogram", "per_instruction"})
    EXPECT_TRUE(j["memory"].contains(key)) << key;
  // 1000 groups = 7 x 128 + 104.
  EXPECT_EQ(j["summary"]["masked_lanes"], 96);
  EXPECT_EQ(j["summary"]["guard"], true);
  EXPECT_EQ(j["memory"]["per_instruction"].size(), j["memory"]["instructions"].get<size_t>());
  EXPECT_FALSE(j["memory"].contains("bank_conflict_ways"));
}

TEST(LoopCli, Json_NoPointMapForLargeNestsUnlessAsked) {
  // 512 x 256 = 131072 points > 65536.
  CliResult r = run_cli("loop --format json --extents 512 256");
  ASSERT_EQ(r.status, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_FALSE(j.contains("points"));
  EXPECT_FALSE(j["memory"].contains("per_instruction"));
  r = run_cli("loop --format json --extents 512 256 --points");
  ASSERT_EQ(r.status, 0) << r.err;
  j = json::parse(r.out);
  EXPECT_EQ(j["points"].size(), 131072u);
  // The last point: 131072/8 = 16384 groups; group 16383 -> thread 127, round 127, slot 127*8+7.
  EXPECT_EQ(j["points"].back()["thread"], 127);
  EXPECT_EQ(j["points"].back()["slot"], 1023);
}

TEST(LoopCli, WorkedExamples_GlobalMatrix) {
  struct Want {
    const char* args;
    int64_t instructions, sectors;
    double efficiency;
  };
  // docs/loop.md, worked examples 1-4: T.Parallel(128, 32), fp16, 128 threads.
  const Want wants[] = {
      {"--vector 8", 16, 256, 1.0},
      {"--vector 1", 128, 256, 1.0},
      {"--vector 8 --access 1,0", 128, 512, 0.5},
      {"--vector 1 --access 1,0", 128, 4096, 0.0625},
  };
  for (const Want& w : wants) {
    const CliResult r =
        run_cli(std::string("loop --format json --extents 128 32 --threads 128 --dtype float16 --buffer-shape 4096,4096 ") +
                w.args);
    ASSERT_EQ(r.status, 0) << r.err;
    const json m = json::parse(r.out)["memory"];
    EXPECT_EQ(m["instructions"], w.instructions) << w.args;
    EXPECT_EQ(m["bytes_requested"], 8192) << w.args;
    EXPECT_EQ(m["sectors"], w.sectors) << w.args;
    EXPECT_DOUBLE_EQ(m["efficiency"].get<double>(), w.efficiency) << w.args;
  }
}

TEST(LoopCli, Shared_ReportsBankConflicts) {
  const CliResult r =
      run_cli("loop --format json --extents 32 32 --vector 1 --dtype float32 --scope shared --access 1,0");
  ASSERT_EQ(r.status, 0) << r.err;
  const json m = json::parse(r.out)["memory"];
  EXPECT_EQ(m["bank_conflict_ways"], 32);
  EXPECT_EQ(m["phase_threads"], 32);
  const CliResult text = run_cli("loop --extents 32 32 --vector 1 --dtype float32 --scope shared --access 1,0");
  EXPECT_NE(text.out.find("32-way"), std::string::npos) << text.out;
}

TEST(LoopCli, IdleThreads_ExplainedInText) {
  const CliResult r = run_cli("loop --extents 64 --threads 128 --vector 2");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("96 (threads 32..127 hold no point)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("only threads t < 32 run"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("replicated 4x"), std::string::npos) << r.out;
  // 64 points are few enough to list.
  EXPECT_NE(r.out.find("points: index"), std::string::npos);
}

TEST(LoopCli, VectorAuto_StatesEachStep) {
  const CliResult r = run_cli("loop --format json --extents 16 16 --threads 128 --vector auto --dtype float16");
  ASSERT_EQ(r.status, 0) << r.err;
  const json j = json::parse(r.out);
  // 128/16 = 8; gcd(8, 16) = 8; 256 points: 128*2 is the largest 128*v dividing 256.
  EXPECT_EQ(j["nest"]["vector_auto"]["widest"], 8);
  EXPECT_EQ(j["nest"]["vector_auto"]["by_extent"], 8);
  EXPECT_EQ(j["nest"]["vector"], 2);
  const CliResult text = run_cli("loop --extents 16 16 --threads 128 --vector auto");
  EXPECT_NE(text.out.find("vector auto (float16): 128 bits / 16 = 8"), std::string::npos) << text.out;
}

TEST(LoopCli, Compare_MatchesReferenceData) {
  const json want = golden("loop_compare.json");
  const CliResult r = run_cli("loop --compare --format json");
  ASSERT_EQ(r.status, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["threads"], want["threads"]);
  EXPECT_EQ(j["vector"], want["vector"]);
  ASSERT_EQ(want["shapes"].size(), 5u);
  ASSERT_EQ(j["shapes"].size(), want["shapes"].size());
  for (std::size_t i = 0; i < want["shapes"].size(); ++i)
    for (const char* key : {"extents", "points", "threads_used", "points_per_thread", "owned"})
      EXPECT_EQ(j["shapes"][i][key], want["shapes"][i][key]) << i << " " << key;
  const CliResult text = run_cli("loop --compare");
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("thread 0 first owns (0, 0) (0, 1) (2, 0) (2, 1)"), std::string::npos) << text.out;
}

TEST(LoopCli, HugeNest_SummarisesWithoutListing) {
  const CliResult r = run_cli("loop --format json --extents 1048576 1048576 --threads 256 --vector 8");
  ASSERT_EQ(r.status, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["summary"]["points"], int64_t{1} << 40);
  EXPECT_FALSE(j.contains("points"));
  EXPECT_EQ(j["memory"]["exact"], true);
  EXPECT_LT(r.out.size(), 4096u);
}

// Every point at the listing limit streams to the output: bounded memory and
// seconds, not the 96 s and 5.5 GB of a listing built in memory. Sanitized
// builds list 2^20 points instead of 2^24.
TEST(LoopCli, PointsAtTheLimit_StreamedInBoundedMemory) {
#if defined(__SANITIZE_ADDRESS__)
  const char* extents = "1024 1024";
  const int64_t points = int64_t{1} << 20;
#else
  const char* extents = "4096 4096";
  const int64_t points = int64_t{1} << 24;
#endif
  for (const char* format : {"text", "json"}) {
    const auto start = std::chrono::steady_clock::now();
    const CliResult r = run_cli(std::string("loop --points --threads 1 --vector 1 --extents ") + extents +
                                " --format " + format + " -o /dev/null");
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(r.status, 0) << format << ": " << r.err;
    EXPECT_LT(seconds, 60.0) << format << ", " << points << " points";
  }
  // The largest resident set of the children this test ran.
  rusage usage{};
  ASSERT_EQ(getrusage(RUSAGE_CHILDREN, &usage), 0);
#if !defined(__SANITIZE_ADDRESS__)
  EXPECT_LT(usage.ru_maxrss, 200 * 1024) << "KB";
#endif
}

// An empty --access, --origin or --buffer-shape is the flag's default.
TEST(LoopCli, Output_WritesTheFile) {
  const std::string path = "/tmp/tileplan_loop_cli_" + std::to_string(::getpid()) + ".json";
  const CliResult r = run_cli("loop --format json -o " + path);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(r.out.empty());
  EXPECT_EQ(json::parse(slurp(path))["summary"]["points"], 4096);
  std::remove(path.c_str());
}

// ---- SVG ---------------------------------------------------------------------

// Tags must nest and close: a small stack-based check of the XML structure.
::testing::AssertionResult well_formed(const std::string& svg) {
  std::vector<std::string> stack;
  std::size_t pos = 0;
  while ((pos = svg.find('<', pos)) != std::string::npos) {
    const std::size_t end = svg.find('>', pos);
    if (end == std::string::npos) return ::testing::AssertionFailure() << "unclosed tag at " << pos;
    const std::string tag = svg.substr(pos + 1, end - pos - 1);
    pos = end + 1;
    if (tag.empty()) return ::testing::AssertionFailure() << "empty tag";
    if (tag[0] == '?' || tag[0] == '!') continue;
    if (tag[0] == '/') {
      const std::string name = tag.substr(1);
      if (stack.empty() || stack.back() != name)
        return ::testing::AssertionFailure() << "</" << name << "> closes " << (stack.empty() ? "nothing" : stack.back());
      stack.pop_back();
      continue;
    }
    if (tag.back() == '/') continue;
    stack.push_back(tag.substr(0, tag.find_first_of(" \n\t")));
  }
  if (!stack.empty()) return ::testing::AssertionFailure() << "<" << stack.back() << "> never closed";
  if (svg.find('&') != std::string::npos && std::regex_search(svg, std::regex("&(?!(lt|gt|amp|quot);)")))
    return ::testing::AssertionFailure() << "a bare &";
  return ::testing::AssertionSuccess();
}

int count(const std::string& s, const std::string& what) {
  int n = 0;
  for (std::size_t p = 0; (p = s.find(what, p)) != std::string::npos; p += what.size()) ++n;
  return n;
}

TEST(LoopSvg, SmallNest_OneCellPerPointWithSlots) {
  const CliResult r = run_cli("loop --format svg --extents 16 32 --threads 64 --vector 4");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(well_formed(r.out));
  EXPECT_EQ(r.out.rfind("<?xml", 0), 0u);
  EXPECT_EQ(count(r.out, "<rect class=\"cell\""), 16 * 32);
  // (0, 5): flat 5 -> group 1 -> thread 1, slot 1; (8, 0): flat 256 -> group 64 -> thread 0, slot 4.
  EXPECT_NE(r.out.find("<title>(0, 5) thread 1 slot 1</title>"), std::string::npos);
  EXPECT_NE(r.out.find("<title>(8, 0) thread 0 slot 4</title>"), std::string::npos);
  // 64 threads = 2 warps: warp boundaries are drawn.
  EXPECT_GT(count(r.out, "<line "), 32);
  EXPECT_NE(r.out.find("T.Parallel(16, 32): 64 threads, vector 4"), std::string::npos);
}

TEST(LoopSvg, LargestReadableNest_64x64) {
  const CliResult r = run_cli("loop --format svg --extents 64 64 --threads 128 --vector 4");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(well_formed(r.out));
  EXPECT_EQ(count(r.out, "<rect class=\"cell\""), 64 * 64);
  EXPECT_EQ(r.out.find("corner"), std::string::npos);
}

TEST(LoopSvg, LargeNest_VectorGroupsOfACorner) {
  const CliResult r = run_cli("loop --format svg --extents 256 1024 --threads 256 --vector 8");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(well_formed(r.out));
  // 1024 / 8 = 128 groups a row: the top-left 64 x 64 groups.
  EXPECT_EQ(count(r.out, "<rect class=\"cell\""), 64 * 64);
  EXPECT_NE(r.out.find("one cell = one vector group of 8 points"), std::string::npos);
  EXPECT_NE(r.out.find("top-left corner: rows 0..63 of 256, groups 0..63 of 128"), std::string::npos);
  EXPECT_LT(r.out.size(), 2u << 20);
}

TEST(LoopSvg, IdleThreads_Noted) {
  const CliResult r = run_cli("loop --format svg --extents 64 --threads 128 --vector 2");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(well_formed(r.out));
  EXPECT_EQ(count(r.out, "<rect class=\"cell\""), 64);
  EXPECT_NE(r.out.find("threads 32..127 idle: guard t &lt; 32"), std::string::npos);
}

// 2^59 points on one thread, vector 2^59: a row of one warp's vectors is 2^64
// points. The grid is addressed in 128 bits: one cell, no division by zero.
TEST(LoopSvg, HugeVector_OneCellNoOverflow) {
  const CliResult r = run_cli("loop --format svg --extents 576460752303423488 --threads 1 --vector 576460752303423488");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(well_formed(r.out));
  EXPECT_EQ(count(r.out, "<rect class=\"cell\""), 1);
  EXPECT_NE(r.out.find("1-D nest wrapped every 18446744073709551616 points"), std::string::npos);
}

// Renders through headless Chromium when it is installed (scripts/render_svg.sh).
TEST(LoopSvg, RendersToPng_WhenChromiumIsPresent) {
  if (std::system("command -v chromium >/dev/null 2>&1") != 0) GTEST_SKIP() << "chromium is not installed";
  const std::string base = "/tmp/tileplan_loop_svg_" + std::to_string(::getpid());
  ASSERT_EQ(run_cli("loop --format svg --extents 16 32 --threads 64 --vector 4 -o " + base + ".svg").status, 0);
  const std::string cmd = "timeout 120 " + source_path("scripts/render_svg.sh") + " " + base + ".svg " + base + ".png";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  const std::string png = slurp(base + ".png");
  ASSERT_GT(png.size(), 24u);
  EXPECT_EQ(png.substr(1, 3), "PNG");
  // IHDR width and height, big-endian at bytes 16..23: the SVG's own size.
  auto be32 = [&](std::size_t at) {
    return (static_cast<unsigned char>(png[at]) << 24) | (static_cast<unsigned char>(png[at + 1]) << 16) |
           (static_cast<unsigned char>(png[at + 2]) << 8) | static_cast<unsigned char>(png[at + 3]);
  };
  const std::string svg = slurp(base + ".svg");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(svg, m, std::regex("width=\"([0-9]+)\" height=\"([0-9]+)\"")));
  EXPECT_EQ(be32(16), std::stoi(m[1]));
  EXPECT_EQ(be32(20), std::stoi(m[2]));
  std::remove((base + ".svg").c_str());
  std::remove((base + ".png").c_str());
}

}  // namespace
}  // namespace tileplan::test
