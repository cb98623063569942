// Speed of the loop partition. Targets (docs/loop.md): enumeration into a
// buffer at >= 200 M points/s; a point's (thread, slot) and its inverse in
// O(depth); the summary of a 2^40-point nest in microseconds.
#include <benchmark/benchmark.h>

#include <vector>

#include "tileplan/loop.hpp"

namespace tileplan {
namespace {

const Device& h200() {
  static const Device d = *find_device("h200");
  return d;
}

LoopPlan nest(std::vector<int64_t> extents, int64_t threads, int64_t vector) {
  LoopNest n;
  n.extents = std::move(extents);
  n.threads = threads;
  n.vector = vector;
  return make_plan(n).value();
}

// Every point of a 1024 x 1024 nest into a buffer (the reference takes ~1 s).
void BM_Enumerate(benchmark::State& state) {
  const LoopPlan n = nest({1024, 1024}, 128, state.range(0));
  std::vector<ThreadSlot> out(1 << 20);
  for (auto _ : state) {
    benchmark::DoNotOptimize(enumerate(n, 0, out));
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(out.size()));
}
BENCHMARK(BM_Enumerate)->Arg(1)->Arg(8)->Unit(benchmark::kMicrosecond);

// (i0, i1, i2) -> (thread, slot), one point at a time.
void BM_Place(benchmark::State& state) {
  const LoopPlan n = nest({64, 128, 256}, 256, 8);
  std::vector<int64_t> index{0, 0, 0};
  int64_t k = 0;
  for (auto _ : state) {
    index[2] = k & 255;
    index[1] = (k >> 8) & 127;
    index[0] = (k >> 15) & 63;
    benchmark::DoNotOptimize(place(n, index));
    ++k;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Place);

// (thread, slot) -> (i0, i1, i2).
void BM_PointAt(benchmark::State& state) {
  const LoopPlan n = nest({64, 128, 256}, 256, 8);
  std::vector<int64_t> index(3);
  int64_t k = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(point_at(n, {k & 255, (k >> 8) & 8191}, index));
    benchmark::DoNotOptimize(index.data());
    ++k;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PointAt);

// The O(depth) summary of a 2^40-point nest.
void BM_SummaryHuge(benchmark::State& state) {
  const LoopPlan n = nest({1 << 20, 1 << 20}, 256, 8);
  for (auto _ : state) benchmark::DoNotOptimize(summarize(n, h200()));
}
BENCHMARK(BM_SummaryHuge);

// Memory analysis of the reference nest on a 4096 x 4096 fp16 matrix.
void BM_MemoryWorkedExample(benchmark::State& state) {
  const LoopPlan n = nest({128, 32}, 128, 8);
  Access a = tile_access(n, 2, MemoryScope::global);
  a.buffer_shape = {4096, 4096};
  for (auto _ : state) benchmark::DoNotOptimize(analyze_memory(n, a, h200()));
}
BENCHMARK(BM_MemoryWorkedExample)->Unit(benchmark::kMicrosecond);

// The worst case: a nest whose rounds never repeat, analysed by sampling.
void BM_MemorySampledHuge(benchmark::State& state) {
  const LoopPlan n = nest({1000003, 1000003}, 128, 1);
  const Access a = tile_access(n, 2, MemoryScope::global);
  for (auto _ : state) benchmark::DoNotOptimize(analyze_memory(n, a, h200()));
}
BENCHMARK(BM_MemorySampledHuge)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tileplan
