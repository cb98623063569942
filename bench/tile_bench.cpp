// Speed of the tile decision. Targets (README): <= 50 ns per configuration,
// one default 900-configuration sweep <= 50 us, 10,000 shapes < 1 s with output;
// a default sweep of any input type and shape <= 100 us (measured with wgmma
// for every tile; BM_SweepAuto and BM_SweepDefault price the 16- and 32-row
// tiles as mma tiles, as the CLI's default does).
#include <benchmark/benchmark.h>

#include <string>

#include "tileplan/family.hpp"
#include "tileplan/gemm.hpp"
#include "tileplan/model.hpp"
#include "tileplan/planner.hpp"
#include "tileplan/render/tile.hpp"

namespace tileplan {
namespace {

const Device& h200() {
  static const Device d = *find_device("h200");
  return d;
}

// Sweeps of one shape, from scratch, with the time per configuration.
void run_sweeps(benchmark::State& state, const GemmProblem& p, const SearchSpace& space, Model model,
                Instr instr = Instr::wgmma) {
  for (auto _ : state) {
    auto r = sweep(p, h200(), instr, space, 15, model);
    benchmark::DoNotOptimize(r);
  }
  state.counters["time_per_config"] = benchmark::Counter(
      static_cast<double>(state.iterations() * space_size(space).value()),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// One default sweep of one shape, from scratch (C1-C3 included; under the
// calibrated model also registers, occupancy and the shape-independent costs).
void BM_Sweep(benchmark::State& state, Model model) { run_sweeps(state, {4096, 4096, 4096}, SearchSpace{}, model); }
BENCHMARK_CAPTURE(BM_Sweep, seed, Model::seed)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Sweep, calibrated, Model::calibrated)->Unit(benchmark::kMicrosecond);
// The CLI's default instruction: each tile's as tl.dot picks it, so the
// 16- and 32-row tiles (two fifths of the space) are priced as mma tiles
// instead of failing C3 as wgmma ones.
void BM_SweepAuto(benchmark::State& state) {
  run_sweeps(state, {4096, 4096, 4096}, SearchSpace{}, Model::calibrated, Instr::automatic);
}
BENCHMARK(BM_SweepAuto)->Unit(benchmark::kMicrosecond);
// What `tileplan tile` runs on its defaults: the family's measured space
// (360 configurations, block_M 16 to 256) with the automatic instruction.
void BM_SweepDefault(benchmark::State& state) {
  run_sweeps(state, {4096, 4096, 4096}, default_space(Model::calibrated, default_family()), Model::calibrated,
             Instr::automatic);
}
BENCHMARK(BM_SweepDefault)->Unit(benchmark::kMicrosecond);

// The same from-scratch calibrated sweep for problems outside the common class
// (fp16, aligned), whose C1-C3 table the Planner builds on first use. Target
// (issue "Picks that hold for every input type and every shape"): <= 100 us.
void BM_SweepTyped(benchmark::State& state, GemmProblem p) { run_sweeps(state, p, SearchSpace{}, Model::calibrated); }
BENCHMARK_CAPTURE(BM_SweepTyped, bfloat16, GemmProblem{.m = 4096, .n = 4096, .k = 4096, .dtype = DType::bfloat16})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_SweepTyped, float8_e4m3_k_major_b,
                  GemmProblem{.m = 4096, .n = 4096, .k = 4096, .dtype = DType::float8_e4m3, .b_layout = Layout::col})
    ->Unit(benchmark::kMicrosecond);
// K = 1000 is not a multiple of 16: A (row-major) moves 2-byte vectors.
BENCHMARK_CAPTURE(BM_SweepTyped, float16_k1000, GemmProblem{.m = 4096, .n = 4096, .k = 1000})
    ->Unit(benchmark::kMicrosecond);

// Split-K as a sweep dimension: the calibrated space (800 tiles) x split_k
// {1, 2, 4, 8, 16} = 4000 configurations on a decode shape; a split costs one
// more prediction per tile, the C1-C3 table is the same.
void BM_SweepSplitK(benchmark::State& state) {
  SearchSpace space = calibrated_space();
  space.split_k = {1, 2, 4, 8, 16};
  run_sweeps(state, {.m = 16, .n = 4096, .k = 14336}, space, Model::calibrated);
}
BENCHMARK(BM_SweepSplitK)->Unit(benchmark::kMicrosecond);

// Padding advice on a problem with N and K unaligned: the problem and its
// three options (N, K, both) planned with a planner whose tables are built
// (the first call builds the padded classes' tables; the loop measures the
// steady state of a batch).
void BM_PaddingAdvice(benchmark::State& state) {
  const Planner planner =
      Planner::create(h200(), Instr::automatic, default_space(Model::calibrated, default_family()), Model::calibrated)
          .value();
  const GemmProblem p{.m = 1024, .n = 11001, .k = 1000};
  (void)padding_advice(planner, p);
  for (auto _ : state) {
    auto a = padding_advice(planner, p);
    benchmark::DoNotOptimize(a);
  }
}
BENCHMARK(BM_PaddingAdvice)->Unit(benchmark::kMicrosecond);

// Batch planning: the Planner reused across shapes, JSON Lines output included.
void BM_BatchWithJson(benchmark::State& state, Model model) {
  const Planner planner = Planner::create(h200(), Instr::wgmma, SearchSpace{}, model).value();
  render::TileReport report;
  report.device = &h200();
  const std::string device_text = render::device_json(h200());  // rendered once, as the CLI does
  report.device_json = &device_text;
  report.model = model;
  report.space_size = planner.space_size();
  std::vector<Verdict> all;
  std::string out;
  int64_t shapes = 0;
  for (auto _ : state) {
    out.clear();
    for (int i = 0; i < 1000; ++i) {
      const GemmProblem p{16 + 16 * (i % 512), 4096 + 64 * (i % 7), 1024 + 512 * (i % 15)};
      report.problem = p;
      report.feasible_count = planner.plan_into(p, 15, all).value();
      report.candidates.swap(all);
      render::append_tile_json_line(report, out);
      report.candidates.swap(all);
      out += '\n';
      ++shapes;
    }
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["time_per_shape"] =
      benchmark::Counter(static_cast<double>(shapes), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK_CAPTURE(BM_BatchWithJson, seed, Model::seed)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_BatchWithJson, calibrated, Model::calibrated)->Unit(benchmark::kMillisecond);

// One predicted time through the public, checked entry point (device,
// problem, tile and family checked on every call).
void BM_Predict(benchmark::State& state) {
  const KernelFamily& fam = default_family();
  const TileConfig cfg{128, 256, 64, 4, 256, Instr::wgmma};
  int64_t i = 0;
  for (auto _ : state) {
    const GemmProblem p{16 + 16 * (i % 512), 4096 + 64 * (i % 7), 1024 + 512 * (i % 15)};
    benchmark::DoNotOptimize(predict(h200(), p, cfg, 1, false, fam));
    ++i;
  }
}
BENCHMARK(BM_Predict);

}  // namespace
}  // namespace tileplan
