// Every public entry point of the GEMM layers (gemm, registers, constraints,
// family, model, planner, validate's scoring) driven with random and extreme
// values: each call returns an error or a result, never crashes, never
// executes undefined behaviour (the sanitizer build runs this with
// -fno-sanitize-recover), and its results keep cheap invariants. A fixed
// seed keeps failures reproducible.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tileplan/constraints.hpp"
#include "tileplan/device.hpp"
#include "tileplan/family.hpp"
#include "tileplan/gemm.hpp"
#include "tileplan/model.hpp"
#include "tileplan/planner.hpp"
#include "tileplan/registers.hpp"
#include "tileplan/validate.hpp"

namespace tileplan {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

// Values that break careless arithmetic, and ordinary ones.
class Values {
 public:
  explicit Values(uint64_t seed) : rng_(seed) {}
  int64_t any() {
    static constexpr int64_t kEdges[] = {0,          1,          -1,         2,          7,          8,
                                         16,         64,         128,        255,        256,        1024,
                                         65536,      65537,      1 << 20,    int64_t{1} << 31,
                                         (int64_t{1} << 31) - 1, int64_t{1} << 40,      int64_t{1} << 62,
                                         kMax,       kMax - 1,   kMin,       kMin + 1,   -65536};
    switch (pick(4)) {
      case 0: return kEdges[pick(std::size(kEdges))];
      case 1: return static_cast<int64_t>(pick(300)) - 20;
      case 2: return int64_t{1} << pick(63);
      default: return static_cast<int64_t>(rng_());
    }
  }
  // Mostly valid tile values, sometimes not.
  int64_t tile() { return pick(5) == 0 ? any() : int64_t{16} << pick(5); }
  int64_t dim() { return pick(5) == 0 ? any() : static_cast<int64_t>(1 + pick(20000)); }
  double real() {
    static constexpr double kEdges[] = {0.0, -1.0, 1e-300, 1e300, std::numeric_limits<double>::infinity(),
                                        -std::numeric_limits<double>::infinity(),
                                        std::numeric_limits<double>::quiet_NaN(), 1.0, 36.0, 1e9, 1e10};
    return pick(3) == 0 ? kEdges[pick(std::size(kEdges))] : std::uniform_real_distribution<double>(0, 2000)(rng_);
  }
  std::size_t pick(std::size_t n) { return static_cast<std::size_t>(rng_() % n); }

 private:
  std::mt19937_64 rng_;
};

GemmProblem random_problem(Values& v) {
  GemmProblem p{v.dim(), v.dim(), v.dim()};
  if (v.pick(10) == 0) p.dtype = static_cast<DType>(v.any());
  if (v.pick(10) == 0) p.out_dtype = static_cast<DType>(v.any());
  if (v.pick(10) == 0) p.a_layout = static_cast<Layout>(v.any());
  if (v.pick(10) == 0) p.lda = v.any();
  if (v.pick(10) == 0) p.ldb = v.any();
  if (v.pick(10) == 0) p.ldc = v.any();
  if (v.pick(10) == 0) p.accum_bytes = v.any();
  return p;
}

TileConfig random_config(Values& v) {
  TileConfig c{v.tile(), v.tile(), v.tile(), static_cast<int64_t>(1 + v.pick(6)), int64_t{32} << v.pick(6),
               static_cast<Instr>(v.pick(3))};
  if (v.pick(10) == 0) c.stages = v.any();
  if (v.pick(10) == 0) c.threads = v.any();
  if (v.pick(50) == 0) c.instr = static_cast<Instr>(3 + v.pick(5));  // not an enumerator
  if (v.pick(4) == 0) c.split_k = int64_t{1} << v.pick(6);  // 1..32: within or beyond the K tiles
  if (v.pick(50) == 0) c.split_k = v.any();
  return c;
}

// A preset with a few fields set to random values (some in bounds, some not).
Device random_device(Values& v) {
  Device d = device_presets()[v.pick(device_presets().size())];
  const std::size_t changes = v.pick(3);
  for (std::size_t i = 0; i < changes; ++i) {
    switch (v.pick(12)) {
      case 0: d.sm_count = v.any(); break;
      case 1: d.warp_size = v.any(); break;
      case 2: d.regs_per_sm = v.any(); break;
      case 3: d.reg_alloc_unit = v.any(); break;
      case 4: d.max_threads_per_sm = v.any(); break;
      case 5: d.max_blocks_per_sm = v.any(); break;
      case 6: d.smem_per_block_max_bytes = v.any(); break;
      case 7: d.regs_per_thread_max = v.any(); break;
      case 8: d.tensor_fp16_tflops = v.real(); break;
      case 9: d.l2_bandwidth_gbps = v.real(); break;
      case 10: d.boost_clock_mhz = v.real(); break;
      default: d.smem_carveout_kb.clear(); break;
    }
  }
  return d;
}

void expect_one_line(const Error& e) {
  EXPECT_FALSE(e.message.empty());
  EXPECT_EQ(e.message.find('\n'), std::string::npos) << e.message;
  if (!e.param.empty()) {
    EXPECT_EQ(e.message.rfind(e.param, 0), 0u) << e.param << ": " << e.message;
  }
}

TEST(FuzzGemm, Checkers_NeverCrash_ErrorsNameTheirParameter) {
  Values v(1);
  std::size_t errors = 0;
  for (int i = 0; i < 400000; ++i) {
    const Status p = check_problem(random_problem(v));
    const Status c = check_config(random_config(v));
    const Status d = check_device(random_device(v));
    for (const Status* s : {&p, &c, &d})
      if (!s->ok()) {
        expect_one_line(s->error());
        ++errors;
      }
  }
  EXPECT_GT(errors, 10000u);  // the generator does reach the error paths
}

TEST(FuzzGemm, ResultsOrErrors_WithInvariants) {
  Values v(2);
  const KernelFamily& family = default_family();
  std::size_t feasible = 0, infeasible = 0, errors = 0;
  for (int i = 0; i < 100000; ++i) {
    const GemmProblem p = random_problem(v);
    const TileConfig c = random_config(v);
    const Device d = i % 4 == 0 ? random_device(v) : device_presets().front();
    const Model model = v.pick(2) ? Model::seed : Model::calibrated;
    const Result<Verdict> r = diagnose(p, d, c, model, family);
    const Result<TileCheck> t = check_tile(c, d, p, family.regs, OccupancyRule::hardware);
    const Result<RegisterEstimate> regs = estimate_registers(family.regs, d, c, p);
    const Result<double> traffic = dram_bytes(p, c);
    const Result<Prediction> pr = predict(d, p, c, 1 + static_cast<int64_t>(v.pick(40)), v.pick(2) == 0, family);
    const Result<double> grouped = grouped_dram_bytes(d, p, v.tile(), v.tile());
    for (const Error* e : {r.ok() ? nullptr : &r.error(), t.ok() ? nullptr : &t.error(),
                           regs.ok() ? nullptr : &regs.error(), traffic.ok() ? nullptr : &traffic.error(),
                           pr.ok() ? nullptr : &pr.error(), grouped.ok() ? nullptr : &grouped.error()})
      if (e) {
        expect_one_line(*e);
        ++errors;
      }
    if (r.ok()) {
      const Verdict& x = *r;
      (x.feasible() ? feasible : infeasible) += 1;
      for (const Finding& f : x.failures) EXPECT_NE(message(f, x.config), "");
      for (const Finding& f : x.warnings) {
        // C4's tail and idle SMs, C2's priced spill of held operand tiles or
        // of the epilogue, C3's serialized wgmma or fp8 run as fp16 MMAs.
        const std::string m = message(f, x.config);
        if (f.kind == FindingKind::held_tiles_spill) {
          EXPECT_EQ(m.rfind("C2 ", 0), 0u) << m;
          EXPECT_TRUE(x.spills && x.spilled_registers > 0) << m;
        } else if (f.kind == FindingKind::epilogue_spill) {
          EXPECT_EQ(m.rfind("C2 ", 0), 0u) << m;
          EXPECT_GT(x.epilogue_spilled_registers, 0.0) << m;
        } else if (f.kind == FindingKind::serialized_wgmma) {
          // Only the calibrated model prices it, only for a warpgroup wider than 128.
          EXPECT_EQ(m.rfind("C3 ", 0), 0u) << m;
          EXPECT_EQ(model, Model::calibrated) << m;
          EXPECT_GT(f.value, f.limit) << m;
        } else if (f.kind == FindingKind::fp8_mma_as_f16) {
          // Only the calibrated model says it, of an fp8 tile that compiles to mma.sync on sm_90.
          EXPECT_EQ(m.rfind("C3 ", 0), 0u) << m;
          EXPECT_EQ(model, Model::calibrated) << m;
          EXPECT_TRUE(is_fp8(p.dtype)) << m;
          EXPECT_EQ(d.compute_capability, 90) << m;
          EXPECT_EQ(resolve_instr(Instr::automatic, 90, x.config.block_m, x.config.threads), Instr::mma) << m;
        } else {
          EXPECT_EQ(m.rfind("C4 ", 0), 0u) << m;
        }
      }
      if (x.feasible()) {
        ASSERT_GE(x.blocks_per_sm, 1);
        EXPECT_GE(x.waves, 1);
        if (model == Model::calibrated) {
          EXPECT_TRUE(x.predicted && std::isfinite(x.predicted_us) && x.predicted_us > 0);
        }
      }
      EXPECT_TRUE(std::isfinite(x.dram_bytes)) << x.dram_bytes;
    }
    if (pr.ok()) {
      EXPECT_TRUE(std::isfinite(pr->time_us) && pr->time_us > 0) << pr->time_us;
    }
    if (grouped.ok()) {
      EXPECT_TRUE(std::isfinite(*grouped) && *grouped > 0);
    }
    if (regs.ok()) {
      EXPECT_GE(regs->regs_per_thread, 1);
    }
  }
  EXPECT_GT(feasible, 1000u);
  EXPECT_GT(infeasible, 1000u);
  EXPECT_GT(errors, 1000u);
}

TEST(FuzzGemm, Planner_RandomSpacesAndProblems) {
  Values v(3);
  std::size_t planned = 0;
  for (int i = 0; i < 300; ++i) {
    SearchSpace s;
    for (std::vector<int64_t>* list : {&s.block_m, &s.block_n, &s.block_k, &s.stages, &s.threads}) {
      list->clear();
      const std::size_t n = v.pick(30) == 0 ? 0 : 1 + v.pick(5);
      for (std::size_t j = 0; j < n; ++j)
        list->push_back(list == &s.stages ? static_cast<int64_t>(1 + v.pick(6))
                                          : (v.pick(30) == 0 ? v.any() : int64_t{16} << v.pick(5)));
    }
    if (i % 10 == 0) s.threads.assign(70000, 128);  // repeats count once
    const Device d = i % 3 == 0 ? random_device(v) : device_presets().front();
    const Result<Planner> planner =
        Planner::create(d, static_cast<Instr>(v.pick(3)), s, v.pick(2) ? Model::seed : Model::calibrated);
    if (!planner.ok()) {
      expect_one_line(planner.error());
      continue;
    }
    EXPECT_LE(planner->space_size(), kMaxSearchSpace);
    for (int j = 0; j < 20; ++j) {
      const GemmProblem p = random_problem(v);
      const Result<std::vector<Verdict>> ranked = planner->plan(p, v.pick(20));
      if (!ranked.ok()) {
        expect_one_line(ranked.error());
        continue;
      }
      ++planned;
      for (const Verdict& x : *ranked) {
        EXPECT_TRUE(x.feasible());
        EXPECT_LE(x.config.block_k, p.k);
      }
    }
  }
  EXPECT_GT(planned, 1000u);
}

TEST(FuzzGemm, SpaceSize_HugeSpacesAreRefusedNotWalked) {
  SearchSpace s;
  for (std::vector<int64_t>* list : {&s.block_m, &s.block_n, &s.block_k, &s.stages, &s.threads}) {
    list->clear();
    for (int64_t x = 1; x <= 8192; ++x) list->push_back(x);  // 8192^5 = 2^65: wraps a 64-bit product
  }
  const Result<std::size_t> n = space_size(s);
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.error().kind, ErrorKind::out_of_range);
  EXPECT_EQ(n.error().param, "space");
  EXPECT_FALSE(Planner::create(device_presets().front(), Instr::wgmma, s).ok());
}

TEST(FuzzGemm, RankConfigsAndScoring_RandomLists) {
  Values v(4);
  for (int i = 0; i < 3000; ++i) {
    std::vector<TileConfig> configs;
    const std::size_t n = v.pick(12);
    for (std::size_t j = 0; j < n; ++j) configs.push_back(random_config(v));
    const GemmProblem p = random_problem(v);
    const Result<std::vector<std::size_t>> order =
        rank_configs(p, device_presets().front(), configs, v.pick(2) ? Model::seed : Model::calibrated);
    if (!order.ok()) {
      expect_one_line(order.error());
      continue;
    }
    ASSERT_EQ(order->size(), configs.size());
    std::vector<double> ms;
    for (std::size_t j = 0; j < n; ++j) ms.push_back(v.pick(8) == 0 ? v.real() : 0.01 + 0.001 * static_cast<double>(j));
    const Result<RankingScore> score = score_ranking(*order, ms);
    if (score.ok()) {
      EXPECT_GE(score->top1_regret, 1.0);
      EXPECT_LE(score->top5_regret, score->top1_regret);
    }
    std::vector<double> other(v.pick(12), 1.0);
    EXPECT_TRUE(std::isfinite(spearman(ms, other)) || std::isnan(spearman(ms, other)));
    (void)geomean(ms);
  }
}

TEST(FuzzGemm, ShortlistAndSpaces_RandomLists) {
  // distinct_tiles_first, stages_have_no_effect, in_space and default_space
  // with random problems, configurations, verdicts and orders (indices out of
  // range, wrong lengths): a permutation of the order given when the inputs
  // agree, the order unchanged otherwise, never a crash.
  Values v(7);
  for (int i = 0; i < 20000; ++i) {
    const GemmProblem p = v.pick(3) == 0 ? GemmProblem{v.dim(), v.dim(), v.dim()} : random_problem(v);
    const Model model = v.pick(2) ? Model::seed : Model::calibrated;
    (void)stages_have_no_effect(p, model);
    std::vector<TileConfig> configs;
    const std::size_t n = v.pick(10);
    for (std::size_t j = 0; j < n; ++j) configs.push_back(random_config(v));
    std::vector<Verdict> verdicts(v.pick(6) == 0 ? v.pick(10) : n);
    for (std::size_t j = 0; j < verdicts.size() && j < n; ++j) {
      verdicts[j].config = configs[j];
      if (v.pick(2)) verdicts[j].failures.push(Finding{FindingKind::tail_wave, 0, 0});
    }
    std::vector<std::size_t> order(n);
    for (std::size_t j = 0; j < n; ++j) order[j] = n - 1 - j;
    if (v.pick(8) == 0 && n > 0) order[v.pick(n)] = static_cast<std::size_t>(v.any());
    const std::vector<std::size_t> out = distinct_tiles_first(p, model, configs, verdicts, order);
    ASSERT_EQ(out.size(), order.size());
    std::vector<std::size_t> a = out, b = order;
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    EXPECT_EQ(a, b);
    SearchSpace space;
    if (v.pick(4) == 0) space.block_m.clear();
    for (const TileConfig& c : configs) (void)in_space(space, c);
    KernelFamily fam = default_family();
    if (v.pick(4) == 0) fam.space.stages = {v.any()};
    const SearchSpace d = default_space(model, fam);
    EXPECT_EQ(d.split_k, std::vector<int64_t>{1});
  }
}

TEST(FuzzGemm, FamilyParser_MutatedFiles) {
  // The shipped text with bytes flipped, cut or repeated: an error or a valid family, never a crash.
  const std::string base = family_json(default_family());
  Values v(5);
  std::size_t parsed = 0, refused = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string text = base;
    const std::size_t edits = 1 + v.pick(4);
    for (std::size_t e = 0; e < edits; ++e) {
      const std::size_t at = v.pick(text.size());
      switch (v.pick(4)) {
        case 0: text[at] = static_cast<char>(v.pick(256)); break;
        case 1: text.erase(at, v.pick(40)); break;
        case 2: text.insert(at, text.substr(v.pick(text.size()), v.pick(60))); break;
        default: text.insert(at, std::to_string(v.any())); break;
      }
    }
    const Result<KernelFamily> f = parse_family(text, "fuzz.json");
    if (f.ok()) {
      ++parsed;
      EXPECT_TRUE(check_family(*f).ok());
    } else {
      ++refused;
      expect_one_line(f.error());
    }
  }
  EXPECT_GT(refused, 1000u);
  // Hostile shapes of JSON: deep nesting, huge numbers, wrong types.
  for (const std::string& text : {std::string(200000, '['), "{\"format\":" + std::string(100000, '[') + "}",
                                  std::string("{\"version\": 18446744073709551615}"), std::string("null"),
                                  std::string(""), std::string(kMaxFamilyFileBytes + 1, ' ')}) {
    const Result<KernelFamily> f = parse_family(text, "hostile.json");
    ASSERT_FALSE(f.ok());
    expect_one_line(f.error());
  }
}

}  // namespace
}  // namespace tileplan
