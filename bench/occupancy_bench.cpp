// Speed of the occupancy rules: one call per launch configuration, so that a
// tile sweep can afford them for every candidate.
#include <benchmark/benchmark.h>

#include <vector>

#include "tileplan/occupancy.hpp"
#include "../src/occupancy_internal.hpp"

namespace tileplan {
namespace {

const Device& h200() {
  static const Device d = *find_device("h200");
  return d;
}

// 1024 varied inputs, cycled, so that no single answer is memoised by the branch predictor.
std::vector<OccupancyInput> inputs() {
  std::vector<OccupancyInput> v;
  uint64_t x = 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < 1024; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    OccupancyInput in;
    in.threads_per_block = 1 + static_cast<int64_t>(x % 1024);
    in.regs_per_thread = 1 + static_cast<int64_t>((x >> 10) % 255);
    in.smem_dynamic_bytes = static_cast<int64_t>((x >> 20) % 232449);
    if ((x >> 40) % 2) in.carveout_percent = static_cast<int64_t>((x >> 41) % 101);
    v.push_back(in);
  }
  return v;
}

// The public entry point: checks the device and the input, then computes.
void BM_Occupancy(benchmark::State& state) {
  const std::vector<OccupancyInput> in = inputs();
  std::size_t i = 0;
  for (auto _ : state) {
    Result<Occupancy> o = occupancy(h200(), in[i++ & 1023]);
    benchmark::DoNotOptimize(o);
  }
  state.counters["ns_per_call"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_Occupancy);

// The library's internal fast path (the tile sweep's): the rules alone.
void BM_OccupancyUnchecked(benchmark::State& state) {
  const std::vector<OccupancyInput> in = inputs();
  std::size_t i = 0;
  for (auto _ : state) {
    Occupancy o = occupancy_unchecked(h200(), in[i++ & 1023]);
    benchmark::DoNotOptimize(o);
  }
  state.counters["ns_per_call"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_OccupancyUnchecked);

// The next step: closed forms for registers and shared memory, once per report.
void BM_NextStep(benchmark::State& state) {
  const std::vector<OccupancyInput> in = inputs();
  std::size_t i = 0;
  for (auto _ : state) {
    auto s = next_step(h200(), in[i++ & 1023]);
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_NextStep)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace tileplan
