// The loop partition plan: parity with the reference on every point of the
// golden nests, the inverse on every (thread, slot) of small domains, the
// summary against brute force, and vector auto.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <numeric>

#include <nlohmann/json.hpp>

#include "tileplan/loop.hpp"

namespace tileplan {
namespace {

using nlohmann::json;

const Device& h200() {
  static const Device d = *find_device("h200");
  return d;
}

json load_golden(const std::string& name) {
  std::ifstream f(std::string(TILEPLAN_SOURCE_DIR) + "/tests/golden/" + name);
  EXPECT_TRUE(f.good()) << name;
  return json::parse(f);
}

LoopNest nest(std::vector<int64_t> extents, int64_t threads, int64_t vector, bool replicate = false) {
  LoopNest n;
  n.extents = std::move(extents);
  n.threads = threads;
  n.vector = vector;
  n.replicate = replicate;
  return n;
}

LoopPlan plan(std::vector<int64_t> extents, int64_t threads, int64_t vector, bool replicate = false) {
  return make_plan(nest(std::move(extents), threads, vector, replicate)).value();
}

LoopSummary summary(const LoopPlan& p) { return summarize(p, h200()).value(); }

// Every small nest of up to three loops with extents from {1, 2, 3, 4, 6}, on
// 1..9 threads, with every vector that divides the innermost extent.
std::vector<LoopPlan> small_domains() {
  std::vector<LoopPlan> out;
  const int64_t sizes[] = {1, 2, 3, 4, 6};
  std::vector<std::vector<int64_t>> shapes;
  for (int64_t a : sizes) {
    shapes.push_back({a});
    for (int64_t b : sizes) {
      shapes.push_back({a, b});
      for (int64_t c : {1, 4}) shapes.push_back({a, b, c});
    }
  }
  for (const auto& shape : shapes)
    for (int64_t t = 1; t <= 9; ++t)
      for (int64_t v = 1; v <= shape.back(); ++v)
        if (shape.back() % v == 0)
          for (bool rep : {false, true}) out.push_back(plan(shape, t, v, rep));
  return out;
}

TEST(LoopPlan, Golden_EveryPointMatchesReference) {
  const json golden = load_golden("loop_plan.json");
  ASSERT_GE(golden["cases"].size(), 15u);
  for (const json& c : golden["cases"]) {
    const Result<LoopPlan> made = make_plan(nest(c["extents"].get<std::vector<int64_t>>(), c["threads"], c["vector"]));
    ASSERT_TRUE(made.ok()) << c["extents"];
    const LoopPlan& n = *made;
    const auto map = c["map"].get<std::vector<int64_t>>();
    const int64_t points = n.points();
    ASSERT_EQ(static_cast<int64_t>(map.size()), 2 * points);
    std::vector<ThreadSlot> all(static_cast<std::size_t>(points));
    ASSERT_TRUE(enumerate(n, 0, all).ok());
    std::vector<int64_t> index(n.depth());
    for (int64_t f = 0; f < points; ++f) {
      const ThreadSlot want{map[static_cast<std::size_t>(2 * f)], map[static_cast<std::size_t>(2 * f + 1)]};
      ASSERT_TRUE(unflatten(n, f, index));
      ASSERT_EQ(place(n, index), want) << c["extents"] << " flat " << f;
      ASSERT_EQ(place_flat(n, f), want);
      ASSERT_EQ(all[static_cast<std::size_t>(f)], want);
      ASSERT_EQ(flat_at(n, want), f);
    }
  }
}

TEST(LoopPlan, Inverse_EveryThreadSlotOfSmallDomains) {
  const std::vector<LoopPlan> domains = small_domains();
  ASSERT_GT(domains.size(), 1000u);
  for (const LoopPlan& n : domains) {
    const int64_t points = n.points();
    const LoopSummary s = summary(n);
    // Every point maps to a (thread, slot) that maps back to it.
    for (int64_t f = 0; f < points; ++f) {
      const ThreadSlot ts = place_flat(n, f).value();
      ASSERT_LT(ts.thread, s.thread_extent);
      ASSERT_LT(ts.slot, s.slots_per_thread);
      ASSERT_EQ(flat_at(n, ts), f);
    }
    // Every (thread, slot), a margin past the ends included, maps to a point
    // whose slot is that slot, or to nothing; replicas aside, to N points in all.
    int64_t held = 0;
    std::map<int64_t, int64_t> per_thread;
    std::vector<int64_t> index(n.depth());
    for (int64_t t = -1; t <= n.threads() + 1; ++t) {
      for (int64_t slot = -1; slot <= s.slots_per_thread + n.vector(); ++slot) {
        const std::optional<int64_t> f = flat_at(n, {t, slot});
        ASSERT_EQ(point_at(n, {t, slot}, index), f.has_value());
        if (!f) continue;
        ASSERT_GE(*f, 0);
        ASSERT_LT(*f, points);
        ASSERT_EQ(place_flat(n, *f)->slot, slot);
        ASSERT_EQ(place_flat(n, *f)->thread, t % s.thread_extent);
        ASSERT_EQ(flatten(n, index), *f);
        ++per_thread[t];
        held += t < s.thread_extent;
      }
    }
    ASSERT_EQ(held, points);
    // The summary against the brute-force count per thread.
    int64_t with_work = 0, most = 0, least = points;
    for (int64_t t = 0; t < n.threads(); ++t) {
      const int64_t c = per_thread.count(t) ? per_thread[t] : 0;
      with_work += c > 0;
      most = std::max(most, c);
      least = std::min(least, c);
    }
    ASSERT_EQ(s.threads_with_work, with_work);
    ASSERT_EQ(s.idle_threads, n.threads() - with_work);
    ASSERT_EQ(s.points_per_thread_max, most);
    ASSERT_EQ(s.points_per_thread_min, least);
    ASSERT_EQ(s.guard, least < most || with_work < n.threads());
  }
}

TEST(LoopPlan, Enumerate_FromAnyStartMatchesPlace) {
  const LoopPlan n = plan({7, 12}, 5, 3);
  const int64_t points = n.points();
  ASSERT_EQ(points, 84);
  for (int64_t first = 0; first < points; ++first) {
    std::vector<ThreadSlot> out(static_cast<std::size_t>(std::min<int64_t>(17, points - first)));
    ASSERT_FALSE(out.empty());
    ASSERT_TRUE(enumerate(n, first, out).ok());
    for (std::size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], place_flat(n, first + static_cast<int64_t>(i)));
  }
}

TEST(LoopPlan, Replicate_ReplicaRunsThePointsOfItsOriginal) {
  // T.Parallel(64) on 128 threads, vector 2: 32 groups, so 128/32 = 4 replicas.
  const LoopPlan n = plan({64}, 128, 2, true);
  // Thread 33 is replica 1 of thread 1, which owns points 2 and 3.
  EXPECT_EQ(flat_at(n, {33, 0}), 2);
  EXPECT_EQ(flat_at(n, {33, 1}), 3);
  EXPECT_EQ(flat_at(n, {127, 1}), 63);
  // Without replication thread 33 holds nothing.
  EXPECT_FALSE(flat_at(plan({64}, 128, 2), {33, 0}).has_value());
}

TEST(LoopSummary, IdleThreads_64PointsOn128ThreadsVector2) {
  const LoopSummary s = summary(plan({64}, 128, 2));
  // 64 / 2 = 32 groups: threads 0..31 take one each; 128 - 32 = 96 idle.
  EXPECT_EQ(s.groups, 32);
  EXPECT_EQ(s.threads_with_work, 32);
  EXPECT_EQ(s.idle_threads, 96);
  // 96 idle threads x 2 lanes.
  EXPECT_EQ(s.masked_lanes, 192);
  EXPECT_EQ(s.rounds, 1);
  EXPECT_EQ(s.warps_with_work, 1);
  EXPECT_TRUE(s.guard);
  EXPECT_FALSE(s.partial_last_round);
  EXPECT_EQ(s.points_per_thread_min, 0);
  EXPECT_EQ(s.points_per_thread_max, 2);
}

TEST(LoopSummary, Replicate_FillsTheBlock) {
  // 32 groups on 128 threads, replicated 128/32 = 4 times: no idle thread, no guard.
  const LoopSummary s = summary(plan({64}, 128, 2, true));
  EXPECT_EQ(s.replicas, 4);
  EXPECT_EQ(s.threads_with_work, 128);
  EXPECT_EQ(s.idle_threads, 0);
  EXPECT_FALSE(s.guard);
  // 6 groups on 16 threads: floor(16/6) = 2 replicas cover 12 threads; 4 stay idle.
  const LoopSummary odd = summary(plan({6}, 16, 1, true));
  EXPECT_EQ(odd.replicas, 2);
  EXPECT_EQ(odd.idle_threads, 4);
  EXPECT_TRUE(odd.guard);
}

TEST(LoopSummary, FullRounds_ReferenceDefault) {
  const LoopSummary s = summary(plan({128, 32}, 128, 8));
  // 4096 points / 8 = 512 groups = 4 rounds of 128 threads exactly.
  EXPECT_EQ(s.rounds, 4);
  EXPECT_EQ(s.slots_per_thread, 32);
  EXPECT_EQ(s.points_per_thread_min, 32);
  EXPECT_EQ(s.masked_lanes, 0);
  EXPECT_FALSE(s.guard);
  EXPECT_EQ(s.warps, 4);
}

TEST(LoopSummary, PartialLastRound_MasksLanes) {
  const LoopSummary s = summary(plan({100, 40}, 128, 4));
  // 4000 / 4 = 1000 groups; 1000 = 7*128 + 104: 8 rounds, the last with 104
  // threads; 24 threads x 4 lanes = 96 lanes masked.
  EXPECT_EQ(s.groups, 1000);
  EXPECT_EQ(s.rounds, 8);
  EXPECT_EQ(s.last_round_threads, 104);
  EXPECT_EQ(s.masked_threads, 24);
  EXPECT_EQ(s.masked_lanes, 96);
  EXPECT_TRUE(s.partial_last_round);
  EXPECT_TRUE(s.guard);
  EXPECT_EQ(s.idle_threads, 0);
  // 104 threads hold 8*4 = 32 points, 24 hold 7*4 = 28.
  EXPECT_EQ(s.points_per_thread_max, 32);
  EXPECT_EQ(s.points_per_thread_min, 28);
}

TEST(LoopSummary, HugeNest_IsArithmeticOnly) {
  // 2^20 x 2^20 = 2^40 points, 256 threads, vector 8: 2^37 groups, 2^29 rounds.
  const LoopPlan n = plan({1 << 20, 1 << 20}, 256, 8);
  const LoopSummary s = summary(n);
  EXPECT_EQ(s.points, int64_t{1} << 40);
  EXPECT_EQ(s.rounds, int64_t{1} << 29);
  EXPECT_EQ(s.slots_per_thread, int64_t{1} << 32);
  EXPECT_FALSE(s.guard);
  // The last point sits in the last slot of the last thread.
  EXPECT_EQ(place_flat(n, (int64_t{1} << 40) - 1), (ThreadSlot{255, (int64_t{1} << 32) - 1}));
  EXPECT_EQ(flat_at(n, {255, (int64_t{1} << 32) - 1}), (int64_t{1} << 40) - 1);
}

TEST(LoopCheck, RejectsBadNests) {
  EXPECT_FALSE(check_nest(nest({}, 128, 1)).ok());
  EXPECT_FALSE(check_nest(nest({0}, 128, 1)).ok());
  EXPECT_FALSE(check_nest(nest({4, -1}, 128, 1)).ok());
  EXPECT_FALSE(check_nest(nest({4}, 0, 1)).ok());
  EXPECT_FALSE(check_nest(nest({4}, 4, 0)).ok());
  EXPECT_FALSE(check_nest(nest({4, 6}, 4, 4)).ok());  // 4 does not divide 6
  EXPECT_FALSE(check_nest(nest({int64_t{1} << 32, int64_t{1} << 31}, 4, 1)).ok());
  const Status msg = check_nest(nest({32}, 128, 3));
  ASSERT_FALSE(msg.ok());
  EXPECT_EQ(msg.error().param, "vector");
  EXPECT_EQ(msg.error().message.rfind("vector 3 does not divide", 0), 0u) << msg.error().message;
  EXPECT_TRUE(check_nest(nest({int64_t{1} << 31, int64_t{1} << 31}, 1024, 8)).ok());
}

TEST(LoopVector, Auto_FollowsTileLangSteps) {
  const Device& d = h200();
  auto choose = [&](std::vector<int64_t> extents, int64_t threads, int64_t elem_bytes) {
    const LoopPlan n = plan(std::move(extents), threads, 1);
    return choose_vector(n, tile_access(n, elem_bytes, MemoryScope::global), d).value();
  };
  // fp16: 128 bits / 16 = 8; gcd(8, 32) = 8; 128*8 = 1024 divides 4096.
  VectorChoice c = choose({128, 32}, 128, 2);
  EXPECT_EQ(c.widest, 8);
  EXPECT_EQ(c.by_extent, 8);
  EXPECT_EQ(c.vector, 8);
  // fp32: 128/32 = 4; gcd(4, 6) = 2; 128*2 = 256 divides 128*6 = 768.
  c = choose({128, 6}, 128, 4);
  EXPECT_EQ(c.widest, 4);
  EXPECT_EQ(c.by_extent, 2);
  EXPECT_EQ(c.vector, 2);
  // 64 points on 128 threads: 128*v never divides 64, so v halves to 1.
  c = choose({64}, 128, 2);
  EXPECT_EQ(c.by_extent, 8);
  EXPECT_EQ(c.vector, 1);
  // 16x16 fp16 on 128 threads: gcd(8, 16) = 8, but 256 % (128*8) != 0 and
  // 256 % (128*4) != 0; 256 % (128*2) == 0: 2.
  EXPECT_EQ(choose({16, 16}, 128, 2).vector, 2);
  // fp64: 128/64 = 2. int8: 128/8 = 16 = gcd(16, 64); 16*64 = 1024 = 32*16*2: 16.
  EXPECT_EQ(choose({4, 8}, 4, 8).vector, 2);
  EXPECT_EQ(choose({16, 64}, 32, 1).vector, 16);
}

TEST(LoopVector, Auto_HalvesForTheAccess) {
  const Device& d = h200();
  const LoopPlan n = plan({128, 32}, 128, 1);
  Access a = tile_access(n, 2, MemoryScope::global);
  a.buffer_shape = {4096, 4096};
  // buf[i1, i0]: the innermost loop runs down a column, stride 4096: no vector.
  a.perm = {1, 0};
  EXPECT_EQ(choose_vector(n, a, d)->by_access, 1);
  // The box starts at column 4 of a row-major fp16 matrix: groups start at
  // multiples of gcd(4, 4096) = 4 elements, so 8-wide would straddle: 4.
  a.perm = {0, 1};
  a.origin = {0, 4};
  const VectorChoice c = choose_vector(n, a, d).value();
  EXPECT_EQ(c.by_extent, 8);
  EXPECT_EQ(c.by_access, 4);
  EXPECT_EQ(c.vector, 4);
}

TEST(LoopVector, AccessElems_SplitsWideAndOddVectors) {
  const Device& d = h200();
  // fp32 x 8 = 32 B: two 16 B instructions per group.
  LoopPlan n = plan({16, 64}, 128, 8);
  EXPECT_EQ(access_elems(n, tile_access(n, 4, MemoryScope::global), d).value(), 4);
  // Vector 6 of fp16: the largest power of two dividing 6 is 2: three 4 B instructions.
  n = plan({16, 12}, 32, 6);
  EXPECT_EQ(access_elems(n, tile_access(n, 2, MemoryScope::global), d).value(), 2);
  // Vector 8 of int8 (8 B) fits one instruction.
  n = plan({16, 64}, 32, 8);
  EXPECT_EQ(access_elems(n, tile_access(n, 1, MemoryScope::global), d).value(), 8);
}

TEST(LoopCompare, MatchesReference) {
  const json golden = load_golden("loop_compare.json");
  const auto shapes = reference_compare_shapes();
  ASSERT_EQ(shapes.size(), 5u);
  ASSERT_EQ(shapes.size(), golden["shapes"].size());
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const json& g = golden["shapes"][i];
    const ShapeComparison c = compare_shape(shapes[i], golden["threads"], golden["vector"]).value();
    EXPECT_EQ(c.extents, g["extents"].get<std::vector<int64_t>>());
    EXPECT_EQ(c.points, g["points"].get<int64_t>());
    EXPECT_EQ(c.threads_used, g["threads_used"].get<int64_t>());
    EXPECT_EQ(c.points_per_thread, g["points_per_thread"].get<int64_t>());
    EXPECT_EQ(c.owned, (g["owned"].get<std::vector<std::vector<std::vector<int64_t>>>>()));
  }
}

// Each rule names the parameter it is about; the sentence starts with it.
TEST(LoopCheck, ErrorsNameTheParameter) {
  const auto param_of = [](const LoopNest& n) {
    const Status s = check_nest(n);
    EXPECT_FALSE(s.ok());
    if (s.ok()) return std::string();
    EXPECT_EQ(s.error().message.rfind(s.error().param, 0), 0u) << s.error().message;
    return s.error().param;
  };
  EXPECT_EQ(param_of(nest({}, 128, 1)), "extents");
  EXPECT_EQ(param_of(nest(std::vector<int64_t>(17, 1), 128, 1)), "extents");
  EXPECT_EQ(param_of(nest({4, 0}, 128, 1)), "extents");
  EXPECT_EQ(param_of(nest({INT64_MAX, 2}, 128, 1)), "extents");
  EXPECT_EQ(param_of(nest({4}, 0, 1)), "threads");
  EXPECT_EQ(param_of(nest({4}, INT64_MAX, 1)), "threads");
  EXPECT_EQ(param_of(nest({4}, 4, INT64_MIN)), "vector");
  EXPECT_EQ(param_of(nest({INT64_MAX}, kMaxLoopThreads, INT64_MAX)), "threads");
  EXPECT_EQ(param_of(nest({32}, 4, 3)), "vector");
  // make_plan is the only door to a plan: it says the same.
  const Result<LoopPlan> bad = make_plan(nest({32}, 4, 3));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().param, "vector");
  EXPECT_THROW((void)bad.value(), BadResultAccess);
}

// Out-of-range positions get no answer, never undefined behaviour.
TEST(LoopPlan, OutOfRangeArguments_NoAnswer) {
  const LoopPlan n = plan({6, 10}, 7, 2);  // 60 points
  std::vector<int64_t> index(2), short_index(1), long_index(3);
  for (int64_t flat : {int64_t{-1}, int64_t{60}, INT64_MAX, INT64_MIN}) {
    EXPECT_FALSE(place_flat(n, flat).has_value()) << flat;
    EXPECT_FALSE(unflatten(n, flat, index)) << flat;
  }
  EXPECT_FALSE(unflatten(n, 0, short_index));
  EXPECT_FALSE(unflatten(n, 0, long_index));
  EXPECT_FALSE(place(n, std::vector<int64_t>{6, 0}).has_value());
  EXPECT_FALSE(place(n, std::vector<int64_t>{0, -1}).has_value());
  EXPECT_FALSE(place(n, std::vector<int64_t>{0}).has_value());
  EXPECT_FALSE(flatten(n, std::vector<int64_t>{0, 0, 0}).has_value());
  EXPECT_EQ(flatten(n, std::vector<int64_t>{5, 9}), 59);
  for (ThreadSlot ts : {ThreadSlot{INT64_MAX, 0}, ThreadSlot{0, INT64_MAX}, ThreadSlot{INT64_MIN, INT64_MIN},
                        ThreadSlot{-1, 0}, ThreadSlot{7, 0}}) {
    EXPECT_FALSE(flat_at(n, ts).has_value()) << ts.thread << " " << ts.slot;
    EXPECT_FALSE(point_at(n, ts, index));
  }
  EXPECT_FALSE(point_at(n, {0, 0}, short_index));
  // enumerate: the span must lie inside 0..N-1; first + size never overflows.
  std::vector<ThreadSlot> out(4, ThreadSlot{-5, -5});
  EXPECT_FALSE(enumerate(n, -1, out).ok());
  EXPECT_FALSE(enumerate(n, 57, out).ok());
  EXPECT_FALSE(enumerate(n, INT64_MAX, out).ok());
  const Status s = enumerate(n, INT64_MAX - 1, out);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().param, "first");
  EXPECT_EQ(out[0], (ThreadSlot{-5, -5}));  // untouched
  EXPECT_TRUE(enumerate(n, 56, out).ok());
  EXPECT_TRUE(enumerate(n, 60, std::span<ThreadSlot>()).ok());
}

TEST(LoopSummary, BadWarpSize_Error) {
  Device d = h200();
  d.warp_size = 0;
  const Result<LoopSummary> s = summarize(plan({64}, 128, 2), d);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().param, "warp_size");
}

// The largest nest check_nest admits: every summary count still fits.
TEST(LoopSummary, ExtremeNests_CountsFit) {
  // 2^62 points in one row, vector 2^62 on one thread: one group, one round.
  LoopSummary s = summary(plan({int64_t{1} << 62}, 1, int64_t{1} << 62, true));
  EXPECT_EQ(s.groups, 1);
  EXPECT_EQ(s.slots_per_thread, int64_t{1} << 62);
  // 2^63-1 points, 7 = (2^63-1) / 1317624576693539401 threads of one vector each.
  s = summary(plan({INT64_MAX}, 7, INT64_MAX / 7));
  EXPECT_EQ(s.groups, 7);
  EXPECT_EQ(s.rounds, 1);
  EXPECT_FALSE(s.guard);
  // 2^20 threads, vector 2^42: one group, replicated on every thread.
  s = summary(plan({int64_t{1} << 42}, kMaxLoopThreads, int64_t{1} << 42, true));
  EXPECT_EQ(s.replicas, kMaxLoopThreads);
  EXPECT_EQ(s.masked_lanes, 0);
}

TEST(LoopCompare, FirstPoints_Bounded) {
  EXPECT_FALSE(compare_shape({64}, 8, 2, 2, INT64_MAX).ok());
  EXPECT_FALSE(compare_shape({64}, 8, 2, -1, 4).ok());
  EXPECT_FALSE(compare_shape({64}, 8, 2, INT64_MAX, INT64_MAX).ok());
  EXPECT_EQ(compare_shape({64}, 8, 3).error().param, "vector");
  const ShapeComparison c = compare_shape({64}, 8, 2, 8, 512).value();
  ASSERT_EQ(c.owned.size(), 8u);
  // 64 points over 8 threads: 8 each, whatever the request.
  for (const auto& owned : c.owned) EXPECT_EQ(owned.size(), 8u);
}

}  // namespace
}  // namespace tileplan
