// Every public function of the occupancy and loop modules, driven with random
// and extreme values (0, negatives, INT64_MIN/MAX, 2^31, 2^40, wide random
// ranges) and with random devices, fields inside check_device's bounds and
// outside them. Each call must return an error or a result, never crash or
// reach undefined behaviour (the dev preset runs this under ASan and UBSan with
// -fno-sanitize-recover), and each result must satisfy cheap invariants.
// Fixed seeds: a failure reproduces.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tileplan/loop.hpp"
#include "tileplan/occupancy.hpp"
#include "tileplan/render/loop.hpp"
#include "tileplan/render/occupancy.hpp"
#include "../../src/occupancy_internal.hpp"

namespace tileplan {
namespace {

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

// splitmix64: the same sequence on every platform.
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t next() {
    uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [lo, hi] (lo <= hi), without overflow.
  int64_t in(int64_t lo, int64_t hi) {
    const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
    const uint64_t r = span == std::numeric_limits<uint64_t>::max() ? next() : next() % (span + 1);
    return static_cast<int64_t>(static_cast<uint64_t>(lo) + r);
  }
  bool chance(int percent) { return in(0, 99) < percent; }
  template <class T, std::size_t N>
  const T& pick(const std::array<T, N>& a) {
    return a[static_cast<std::size_t>(in(0, static_cast<int64_t>(N) - 1))];
  }
  // Log-uniform in [1, 2^bits), for sizes spread over every magnitude.
  int64_t magnitude(int bits = 63) {
    const int64_t b = in(0, bits - 1);
    return std::max<int64_t>(1, in(int64_t{1} << b, b == 62 ? kMax : (int64_t{1} << (b + 1)) - 1));
  }
  // The extremes, or anything.
  int64_t hostile() {
    static constexpr std::array<int64_t, 16> kValues = {
        0, 1, -1, 2, kMax, kMin, kMax - 1, kMin + 1, int64_t{1} << 31, (int64_t{1} << 31) - 1,
        int64_t{1} << 40, (int64_t{1} << 40) + 1, int64_t{1} << 62, -(int64_t{1} << 40), 1024, 255};
    switch (in(0, 3)) {
      case 0: return pick(kValues);
      case 1: return magnitude();
      case 2: return -magnitude();
      default: return in(-1000, 100000);
    }
  }

 private:
  uint64_t s_;
};

const std::vector<Device>& presets() { return device_presets(); }

// A preset with a few fields changed: inside check_device's bounds (log-uniform
// between the preset's value and a power of two) or to a hostile value.
Device random_device(Rng& rng) {
  Device d = presets()[static_cast<std::size_t>(rng.in(0, static_cast<int64_t>(presets().size()) - 1))];
  const int changes = static_cast<int>(rng.in(0, 4));
  for (int c = 0; c < changes; ++c) {
    const bool wild = rng.chance(30);
    const int64_t v = wild ? rng.hostile() : rng.magnitude(rng.chance(50) ? 11 : 21);
    switch (rng.in(0, 21)) {
      case 0: d.warp_size = wild ? v : rng.in(1, 64); break;
      case 1: d.sm_subpartitions = wild ? v : rng.in(1, 8); break;
      case 2: d.reg_alloc_unit = v; break;
      case 3: d.regs_per_sm = v; break;
      case 4: d.regs_per_block_max = v; break;
      case 5: d.regs_per_thread_max = v; break;
      case 6: d.max_threads_per_block = v; break;
      case 7: d.max_warps_per_sm = v; break;
      case 8: d.max_blocks_per_sm = wild ? v : rng.in(1, 64); break;
      case 9: d.smem_alloc_unit_bytes = v; break;
      case 10: d.smem_reserved_per_block_bytes = wild ? v : rng.in(0, 4096); break;
      case 11: d.smem_per_block_max_bytes = wild ? v : rng.in(0, d.smem_per_sm_bytes); break;
      case 12: d.smem_per_block_default_bytes = v; break;
      case 13: {
        // A new shared memory size with consistent carveout steps (as --smem-kb does),
        // or steps that break the rules (check_device must say so).
        const int64_t kb = wild ? rng.in(-4, int64_t{1} << 31) : rng.in(1, int64_t{1} << 20);
        if (rng.chance(50)) {
          (void)override_smem_kb(d, kb);
        } else {
          d.smem_carveout_kb.clear();
          const int64_t steps = rng.in(0, 70);
          for (int64_t i = 0; i < steps; ++i) d.smem_carveout_kb.push_back(rng.in(-2, int64_t{1} << 31));
        }
        break;
      }
      case 14: d.mem_sector_bytes = wild ? v : rng.in(1, 256); break;
      case 15: d.cache_line_bytes = wild ? v : rng.in(1, 512); break;
      case 16: d.smem_banks = wild ? v : rng.in(1, 1024); break;
      case 17: d.smem_bank_bytes = wild ? v : rng.in(1, 64); break;
      case 18: d.max_vector_access_bytes = wild ? v : rng.in(1, 64); break;
      case 19: d.max_warps_per_sm = wild ? v : rng.in(1, 64); break;
      case 20: d.sm_count = v; break;
      default: d.tensor_fp16_tflops = wild ? std::numeric_limits<double>::quiet_NaN() : 1.0; break;
    }
  }
  return d;
}

OccupancyInput random_input(Rng& rng) {
  OccupancyInput in;
  const bool wild = rng.chance(25);
  in.threads_per_block = wild ? rng.hostile() : rng.in(1, 1100);
  in.regs_per_thread = wild ? rng.hostile() : rng.in(1, 260);
  in.smem_static_bytes = rng.chance(80) ? rng.in(0, 50000) : rng.hostile();
  in.smem_dynamic_bytes = rng.chance(80) ? rng.in(0, 240000) : rng.hostile();
  if (rng.chance(50)) in.carveout_percent = rng.chance(90) ? rng.in(0, 100) : rng.hostile();
  return in;
}

// ---- occupancy ------------------------------------------------------------------

void check_occupancy_invariants(const Device& d, const OccupancyInput& in, const Occupancy& o) {
  ASSERT_EQ(o.blocks_per_sm, std::min({o.blocks_by_warps, o.blocks_by_regs, o.blocks_by_smem, o.blocks_by_blocks}));
  ASSERT_EQ(o.blocks_by_blocks, d.max_blocks_per_sm);
  ASSERT_GE(o.blocks_per_sm, 0);
  ASSERT_NE(o.limiter, Limiter::none);
  ASSERT_TRUE(limits(o, o.limiter));
  ASSERT_FALSE(limits(o, Limiter::none));
  ASSERT_EQ(o.active_warps, o.blocks_per_sm * o.warps_per_block);
  ASSERT_LE(o.active_warps, d.max_warps_per_sm);
  ASSERT_GE(o.occupancy_percent, 0.0);
  ASSERT_LE(o.occupancy_percent, 100.0);
  ASSERT_EQ(o.warps_per_block, (in.threads_per_block + d.warp_size - 1) / d.warp_size);
  ASSERT_GE(o.regs_per_warp, in.regs_per_thread * d.warp_size);
  ASSERT_EQ(o.regs_per_block, o.regs_per_warp * o.warps_per_block);
  ASSERT_GE(o.smem_per_block_bytes, in.smem_static_bytes + in.smem_dynamic_bytes + d.smem_reserved_per_block_bytes);
  ASSERT_FALSE(to_string(o.limiter).empty());
}

void check_bounds(const Device& d, const OccupancyInput& in, const NextStep& s) {
  const int64_t target = s.blocks_per_sm;
  if (s.max_regs_per_thread) {
    const int64_t r = *s.max_regs_per_thread;
    ASSERT_GE(r, 1);
    ASSERT_LE(r, d.regs_per_thread_max);
    OccupancyInput probe = in;
    probe.regs_per_thread = r;
    ASSERT_GE(occupancy_unchecked(d, probe).blocks_by_regs, target);
    if (r < d.regs_per_thread_max) {  // the largest: registers only ever cost blocks
      probe.regs_per_thread = r + 1;
      ASSERT_LT(occupancy_unchecked(d, probe).blocks_by_regs, target);
    }
  }
  if (s.max_smem_bytes) {
    const int64_t bytes = *s.max_smem_bytes;
    ASSERT_GE(bytes, 0);
    ASSERT_LE(bytes, d.smem_per_block_max_bytes);
    OccupancyInput probe = in;
    probe.smem_static_bytes = 0;
    probe.smem_dynamic_bytes = bytes;
    ASSERT_GE(occupancy_unchecked(d, probe).blocks_by_smem, target);
  }
  if (s.max_threads_per_block) {
    const int64_t t = *s.max_threads_per_block;
    ASSERT_GE(t, 1);
    ASSERT_LE(t, d.max_threads_per_block);
    OccupancyInput probe = in;
    probe.threads_per_block = t;
    ASSERT_GE(occupancy_unchecked(d, probe).blocks_by_warps, target);
    if (t < d.max_threads_per_block) {
      probe.threads_per_block = t + 1;
      ASSERT_LT(occupancy_unchecked(d, probe).blocks_by_warps, target);
    }
  }
}

TEST(Fuzz, Occupancy_EveryEntryPoint) {
  Rng rng(0x0CC0F22);
  int64_t calls = 0, results = 0, launchable = 0;
  Device d = presets().front();
  for (int i = 0; i < 100'000; ++i) {
    if (i % 16 == 0) d = random_device(rng);
    const OccupancyInput in = random_input(rng);
    const bool device_ok = check_device(d).ok();
    const Result<Occupancy> o = occupancy(d, in);
    const Status launch = check_occupancy_input(d, in);
    calls += 2;
    if (!device_ok) {
      ASSERT_FALSE(o.ok());
      ASSERT_FALSE(launch.ok());
      ASSERT_EQ(o.error().param, check_device(d).error().param);
    }
    for (const Status& s : {o.status(), launch}) {
      if (s.ok()) continue;
      ASSERT_FALSE(s.error().param.empty());
      ASSERT_EQ(s.error().message.rfind(s.error().param, 0), 0u) << s.error().message;
      ASSERT_EQ(s.error().message.find('\n'), std::string::npos);
    }
    if (launch.ok()) {
      ++launchable;
      ASSERT_TRUE(o.ok()) << o.error().message;  // every launch is inside the domain
    }
    const int64_t target = rng.chance(80) ? rng.in(0, 70) : rng.hostile();
    const Result<NextStep> bounds = bounds_for(d, in, target);
    const Result<std::optional<NextStep>> next = next_step(d, in);
    calls += 2;
    ASSERT_EQ(next.ok(), o.ok());
    if (!o.ok()) {
      ASSERT_FALSE(bounds.ok());
      continue;
    }
    ++results;
    ASSERT_NO_FATAL_FAILURE(check_occupancy_invariants(d, in, *o));
    ASSERT_EQ(bounds.ok(), target >= 1 && target <= d.max_blocks_per_sm);
    if (bounds.ok()) {
      ASSERT_EQ(bounds->blocks_per_sm, target);
      ASSERT_NO_FATAL_FAILURE(check_bounds(d, in, *bounds));
    }
    if (*next) {
      ASSERT_EQ((*next)->blocks_per_sm, o->blocks_per_sm + 1);
      ASSERT_NO_FATAL_FAILURE(check_bounds(d, in, **next));
    } else {
      ASSERT_EQ(o->blocks_per_sm, d.max_blocks_per_sm);
    }
    if (i % 16 == 0) {  // 101 evaluations each
      const Result<CarveoutChoice> c = min_carveout(d, in);
      ++calls;
      ASSERT_TRUE(c.ok());
      ASSERT_GE(c->percent, 0);
      ASSERT_LE(c->percent, 100);
      ASSERT_LE(c->smem_config_bytes, d.smem_per_sm_bytes);
    }
    if (i % 64 == 0) {
      const Result<render::OccupancyReport> report = render::make_occupancy_report(d, in);
      ASSERT_TRUE(report.ok());
      ASSERT_FALSE(render::occupancy_text(*report).empty());
      ASSERT_TRUE(nlohmann::json::accept(render::occupancy_json(*report)));
      calls += 3;
    }
  }
  RecordProperty("calls", static_cast<int>(calls));
  EXPECT_GT(results, 15'000);
  EXPECT_GT(launchable, 7'000);
}

// ---- loop -----------------------------------------------------------------------

LoopNest random_nest(Rng& rng, bool small) {
  LoopNest n;
  n.extents.clear();
  if (!small && rng.chance(15)) {
    // Hostile: any depth, any values.
    const int64_t depth = rng.in(0, 18);
    for (int64_t k = 0; k < depth; ++k) n.extents.push_back(rng.chance(50) ? rng.hostile() : rng.in(1, 9));
    n.threads = rng.hostile();
    n.vector = rng.chance(50) ? rng.hostile() : 1;
    n.replicate = rng.chance(50);
    return n;
  }
  const int64_t depth = rng.in(1, small ? 3 : 5);
  for (int64_t k = 0; k < depth; ++k)
    n.extents.push_back(small ? rng.in(1, 24) : (rng.chance(70) ? rng.in(1, 64) : rng.magnitude(small ? 8 : 40)));
  n.threads = small ? rng.in(1, 300) : (rng.chance(70) ? rng.in(1, 1024) : rng.magnitude(21));
  // A vector that divides the innermost extent, mostly.
  const int64_t inner = n.extents.back();
  n.vector = 1;
  for (int64_t v = inner; v >= 1; v /= 2)
    if (inner % v == 0 && rng.chance(40)) {
      n.vector = v;
      break;
    }
  if (!small && rng.chance(3)) n.vector = rng.hostile();
  n.replicate = rng.chance(30);
  return n;
}

void check_plan(Rng& rng, const LoopPlan& p, const Device& dev, int64_t& calls) {
  const int64_t n = p.points();
  ASSERT_GE(n, 1);
  ASSERT_EQ(p.groups() * p.vector(), n);
  const Result<LoopSummary> sum = summarize(p, dev);
  ++calls;
  ASSERT_EQ(sum.ok(), dev.warp_size >= 1);
  if (sum.ok()) {
    ASSERT_EQ(sum->points, n);
    ASSERT_EQ(sum->threads_with_work + sum->idle_threads, p.threads());
    ASSERT_EQ(sum->masked_threads, p.threads() - sum->last_round_threads);
    ASSERT_GE(sum->idle_threads, 0);
    ASSERT_GE(sum->masked_lanes, 0);
    ASSERT_LE(sum->points_per_thread_min, sum->points_per_thread_max);
    ASSERT_EQ(sum->guard, sum->masked_threads > 0);
  }
  std::vector<int64_t> index(p.depth()), back(p.depth());
  for (int j = 0; j < 12; ++j) {
    const int64_t edge = rng.in(-2, 2);  // around N, without passing INT64_MAX
    const int64_t f =
        rng.chance(70) ? rng.in(0, n - 1) : (rng.chance(50) ? rng.hostile() : (edge > kMax - n ? kMax : n + edge));
    const std::optional<ThreadSlot> ts = place_flat(p, f);
    calls += 5;
    ASSERT_EQ(ts.has_value(), f >= 0 && f < n);
    ASSERT_EQ(unflatten(p, f, index), ts.has_value());
    if (!ts) continue;
    // The inverse of place is the identity; place and place_flat agree.
    ASSERT_EQ(flat_at(p, *ts), f);
    ASSERT_EQ(flatten(p, index), f);
    ASSERT_EQ(place(p, index), ts);
    ASSERT_LT(ts->thread, std::min(p.threads(), p.groups()));
    ASSERT_TRUE(point_at(p, *ts, back));
    ASSERT_EQ(back, index);
    calls += 4;
  }
  for (int j = 0; j < 6; ++j) {
    const ThreadSlot ts{rng.chance(60) ? rng.in(-1, p.threads()) : rng.hostile(),
                        rng.chance(60) ? rng.in(-1, 64) : rng.hostile()};
    const std::optional<int64_t> f = flat_at(p, ts);
    ASSERT_EQ(point_at(p, ts, index), f.has_value());
    calls += 2;
    if (f) {
      ASSERT_GE(*f, 0);
      ASSERT_LT(*f, n);
      ASSERT_EQ(place_flat(p, *f)->slot, ts.slot);
      ASSERT_EQ(flatten(p, index), *f);
    }
  }
  // Hostile indices: wrong rank, out of range.
  std::vector<int64_t> wrong(static_cast<std::size_t>(rng.in(0, 18)));
  for (int64_t& v : wrong) v = rng.hostile();
  ASSERT_EQ(flatten(p, wrong).has_value(), place(p, wrong).has_value());
  if (wrong.size() != p.depth()) { ASSERT_FALSE(unflatten(p, 0, wrong)); }
  calls += 3;
  // enumerate: inside the nest it matches place_flat; outside it refuses.
  std::array<ThreadSlot, 16> out{};
  const auto count = static_cast<std::size_t>(rng.in(0, 16));
  const int64_t first = rng.chance(70) ? rng.in(0, n - 1) : rng.hostile();
  const Status st = enumerate(p, first, std::span<ThreadSlot>(out.data(), count));
  ++calls;
  const bool inside = first >= 0 && first <= n && static_cast<int64_t>(count) <= n - first;
  ASSERT_EQ(st.ok(), inside);
  if (st.ok()) {
    for (std::size_t i = 0; i < count; ++i) ASSERT_EQ(out[i], place_flat(p, first + static_cast<int64_t>(i)));
  }
}

TEST(Fuzz, LoopPlan_EveryEntryPoint) {
  Rng rng(0x100F);
  int64_t calls = 0, plans = 0;
  Device dev = presets().front();
  for (int i = 0; i < 60'000; ++i) {
    if (i % 32 == 0) dev = random_device(rng);
    const LoopNest nest = random_nest(rng, false);
    const Status s = check_nest(nest);
    const Result<LoopPlan> p = make_plan(nest);
    calls += 2;
    ASSERT_EQ(s.ok(), p.ok());
    if (!s.ok()) {
      ASSERT_EQ(p.error().param, s.error().param);
      ASSERT_EQ(s.error().message.rfind(s.error().param, 0), 0u);
      continue;
    }
    ++plans;
    ASSERT_NO_FATAL_FAILURE(check_plan(rng, *p, dev, calls));
    if (i % 16 == 0) {
      const int64_t ft = rng.chance(80) ? rng.in(0, 8) : rng.hostile();
      const int64_t fp = rng.chance(80) ? rng.in(0, 8) : rng.hostile();
      const Result<ShapeComparison> c = compare_shape(nest.extents, nest.threads, nest.vector, ft, fp);
      ++calls;
      if (c.ok()) {
        ASSERT_EQ(c->points, p->points());
        ASSERT_LE(static_cast<int64_t>(c->owned.size()), std::min(ft, nest.threads));
      }
    }
  }
  RecordProperty("calls", static_cast<int>(calls));
  EXPECT_GT(plans, 30'000);
}

Access random_access(Rng& rng, const LoopPlan& p) {
  const std::array<int64_t, 5> sizes{1, 2, 4, 8, 16};
  Access a = tile_access(p, rng.pick(sizes), rng.chance(50) ? MemoryScope::global : MemoryScope::shared);
  const std::size_t depth = p.depth();
  // A random permutation, mostly.
  for (std::size_t k = depth; k > 1; --k)
    std::swap(a.perm[k - 1], a.perm[static_cast<std::size_t>(rng.in(0, static_cast<int64_t>(k) - 1))]);
  if (rng.chance(70)) {
    Result<Access> box = box_access(p, a.perm, a.origin, a.elem_bytes, a.scope);
    if (box.ok()) a = *box;
    for (std::size_t d = 0; d < depth; ++d) {
      a.origin[d] = rng.in(0, 5);
      a.buffer_shape[d] += a.origin[d] + rng.in(0, 40);
    }
  }
  if (rng.chance(8)) {  // hostile
    switch (rng.in(0, 4)) {
      case 0: a.perm.push_back(rng.hostile()); break;
      case 1: a.origin[static_cast<std::size_t>(rng.in(0, static_cast<int64_t>(depth) - 1))] = rng.hostile(); break;
      case 2: a.buffer_shape[static_cast<std::size_t>(rng.in(0, static_cast<int64_t>(depth) - 1))] = rng.hostile(); break;
      case 3: a.elem_bytes = rng.hostile(); break;
      default: a.perm[0] = rng.hostile(); break;
    }
  }
  return a;
}

// The loop device: a preset with memory fields changed, in and out of bounds.
Device random_memory_device(Rng& rng) {
  Device d = presets()[static_cast<std::size_t>(rng.in(0, static_cast<int64_t>(presets().size()) - 1))];
  if (rng.chance(60)) return d;
  const std::array<int64_t, 6> pow2{1, 2, 4, 8, 16, 32};
  switch (rng.in(0, 6)) {
    case 0: d.warp_size = rng.chance(80) ? rng.in(1, 1024) : rng.hostile(); break;
    case 1: d.mem_sector_bytes = rng.chance(80) ? rng.pick(pow2) * 4 : rng.hostile(); break;
    case 2: d.cache_line_bytes = rng.chance(80) ? rng.in(1, 512) : rng.hostile(); break;
    case 3: d.smem_banks = rng.chance(80) ? rng.in(1, 1024) : rng.hostile(); break;
    case 4: d.smem_bank_bytes = rng.chance(80) ? rng.pick(pow2) : rng.hostile(); break;
    case 5: d.max_vector_access_bytes = rng.chance(80) ? rng.pick(pow2) : rng.hostile(); break;
    default: d.warp_size = 0; break;
  }
  return d;
}

TEST(Fuzz, LoopMemory_EveryEntryPoint) {
  Rng rng(0x3E30);
  int64_t calls = 0, analysed = 0, listed = 0;
  for (int i = 0; i < 5'000; ++i) {
    const Device dev = random_memory_device(rng);
    const Result<LoopPlan> p = make_plan(random_nest(rng, true));
    if (!p.ok()) continue;
    const Access a = random_access(rng, *p);
    const Status access = check_access(*p, a);
    const Status perm = check_perm(a.perm, p->depth());
    const Result<int64_t> w = access_elems(*p, a, dev);
    const Result<VectorChoice> choice = choose_vector(*p, a, dev);
    calls += 4;
    if (!perm.ok()) { ASSERT_FALSE(access.ok()); }
    const bool usable = access.ok() && check_device(dev).ok();
    ASSERT_EQ(w.ok(), usable);
    ASSERT_EQ(choice.ok(), usable);
    if (!usable) {
      ASSERT_FALSE(analyze_memory(*p, a, dev).ok());
      continue;
    }
    ASSERT_GE(*w, 1);
    ASSERT_EQ(p->vector() % *w, 0);
    ASSERT_GE(choice->vector, 1);
    ASSERT_EQ(p->extents().back() % choice->vector, 0);
    ASSERT_EQ(choice->vector & (choice->vector - 1), 0);
    const Result<MemoryReport> fast = analyze_memory(*p, a, dev);
    ++calls;
    if (!fast.ok()) {
      // Only the analysis' own limits: the element or the device's unit.
      ASSERT_TRUE(fast.error().param == "elem_bytes" || fast.error().param == "max_vector_access_bytes")
          << fast.error().message;
      continue;
    }
    ++analysed;
    const MemoryReport& m = *fast;
    const LoopSummary sum = summarize(*p, dev).value();
    ASSERT_EQ(m.bytes_requested, sum.points * sum.replicas * a.elem_bytes);
    ASSERT_GE(m.instructions, 1);
    ASSERT_GE(m.sectors, 1);
    ASSERT_EQ(m.parts * m.access_elems, p->vector());
    // Without replicas no two threads of a warp read the same byte: at most every byte moved is used.
    if (m.exact && a.scope == MemoryScope::global && sum.replicas == 1) { ASSERT_LE(m.efficiency, 1.0 + 1e-12); }
    // Every round, once more and one instruction at a time: the same totals.
    const Result<MemoryReport> every = analyze_memory(*p, a, dev, MemoryAnalysis::every_round);
    ++calls;
    ASSERT_TRUE(every.ok()) << every.error().message;
    int64_t count = 0, bytes = 0, sectors = 0;
    const Status visited = for_each_instruction(*p, a, dev, [&](const WarpAccess& x) {
      ++count;
      bytes += x.bytes;
      sectors += x.sectors;
    });
    ++calls;
    ASSERT_TRUE(visited.ok());
    ASSERT_EQ(count, every->instructions);
    ASSERT_EQ(bytes, every->bytes_requested);
    ASSERT_EQ(sectors, every->sectors);
    if (m.exact) {
      ASSERT_EQ(m.instructions, every->instructions);
      ASSERT_EQ(m.sectors, every->sectors);
      ASSERT_EQ(m.lines, every->lines);
      ASSERT_EQ(m.wavefronts, every->wavefronts);
      ASSERT_EQ(m.conflict_ways, every->conflict_ways);
    }
    if (i % 8 == 0) {
      const std::array<render::LoopFormat, 3> formats{render::LoopFormat::text, render::LoopFormat::json,
                                                      render::LoopFormat::svg};
      const render::LoopFormat format = rng.pick(formats);
      const Result<render::LoopReport> r =
          render::make_loop_report(dev, *p, a, {"fuzz", *choice, rng.chance(50), format});
      ++calls;
      ASSERT_TRUE(r.ok()) << r.error().message;
      listed += render::lists_points(*r, format);
      if (format == render::LoopFormat::json) {
        ASSERT_TRUE(nlohmann::json::accept(render::loop_json(*r)));
      } else if (format == render::LoopFormat::svg) {
        ASSERT_EQ(render::loop_svg(*r).rfind("<?xml", 0), 0u);
      } else {
        ASSERT_FALSE(render::loop_text(*r).empty());
      }
      ++calls;
    }
  }
  RecordProperty("calls", static_cast<int>(calls));
  EXPECT_GT(analysed, 2'000);
  EXPECT_GT(listed, 100);
}

// A few nests at the extremes of check_nest, through every function that
// takes one: bounded work (sampled analyses), no overflow.
TEST(Fuzz, Loop_ExtremeNests) {
  Rng rng(0xE7);
  const Device dev = presets().front();
  struct Case {
    LoopNest nest;
    int64_t elem_bytes;
    MemoryScope scope;
  };
  const std::vector<Case> cases = {
      {{{kMax}, 7, kMax / 7, false}, 1, MemoryScope::global},            // 2^63-1 points, one part per element
      {{{kMax}, kMaxLoopThreads, 1, true}, 1, MemoryScope::shared},      // 2^63-1 points on 2^20 threads
      {{{int64_t{1} << 62}, 1, int64_t{1} << 62, true}, 1, MemoryScope::global},  // one thread, one group
      {{{int64_t{1} << 42}, kMaxLoopThreads, int64_t{1} << 42, true}, 8, MemoryScope::global},  // bytes past 2^63
      {{{3, 3074457345618258602}, 3, 2, false}, 1, MemoryScope::global},  // 2^63-2 points
      {{{2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2}, 1000, 2, false}, 8, MemoryScope::shared},  // 16 loops
      {{{int64_t{1} << 31, int64_t{1} << 31}, 1024, 8, false}, 1, MemoryScope::global},  // periodic
  };
  // Also at the extremes, elsewhere: the 1000003 x 1000003 sampled nest
  // (loop_memory_test.cpp) and the SVG's row of 2^64 points (loop_cli_test.cpp).
  int64_t calls = 0;
  ASSERT_FALSE(cases.empty());
  for (const Case& c : cases) {
    const Result<LoopPlan> p = make_plan(c.nest);
    ASSERT_TRUE(p.ok()) << p.error().message;
    ASSERT_NO_FATAL_FAILURE(check_plan(rng, *p, dev, calls));
    const Access a = tile_access(*p, c.elem_bytes, c.scope);
    ASSERT_TRUE(check_access(*p, a).ok());
    // Every round of a nest this large is over the limit: refused before any work.
    ASSERT_FALSE(analyze_memory(*p, a, dev, MemoryAnalysis::every_round).ok() && p->points() > (int64_t{1} << 26));
    // The report runs the fastest analysis once; the three renderers read it.
    const Result<render::LoopReport> r = render::make_loop_report(dev, *p, a, {"x", {}, false, render::LoopFormat::svg});
    calls += 3;
    if (!r.ok()) {
      ASSERT_EQ(r.error().kind, ErrorKind::out_of_range) << r.error().message;
      continue;
    }
    ASSERT_GE(r->memory.instructions, 1);
    ASSERT_EQ(r->memory.bytes_requested, r->summary.points * r->summary.replicas * c.elem_bytes);
    ASSERT_TRUE(nlohmann::json::accept(render::loop_json(*r)));
    ASSERT_EQ(render::loop_svg(*r).rfind("<?xml", 0), 0u);
    ASSERT_FALSE(render::loop_text(*r).empty());
    calls += 3;
  }
  RecordProperty("calls", static_cast<int>(calls));
}

TEST(Fuzz, LoopNames_Parsers) {
  Rng rng(0x4A);
  const std::array<std::string_view, 8> words{"", "global", "shared", "fp16", "float8_e4m3", "GLOBAL", "fp13", "\n"};
  for (int i = 0; i < 1000; ++i) {
    const std::string_view w = rng.pick(words);
    const std::optional<MemoryScope> s = parse_scope(w);
    if (s) { ASSERT_EQ(to_string(*s), w); }
    const std::optional<ElementType> t = find_dtype(w);
    if (t) { ASSERT_GE(t->bytes, 1); }
  }
  ASSERT_NE(dtype_names().find("float16"), std::string::npos);
  ASSERT_EQ(reference_compare_shapes().size(), 5u);
}

}  // namespace
}  // namespace tileplan
