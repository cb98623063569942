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

// Every small nest of up to three loops with extents from {1, 2, 3, 4, 6}, on
// 1..9 threads, with every vector that divides the innermost extent.
std::vector<LoopNest> small_domains() {
  std::vector<LoopNest> out;
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
          for (bool rep : {false, true}) out.push_back(nest(shape, t, v, rep));
  return out;
}

TEST(LoopPlan, Golden_EveryPointMatchesReference) {
  const json golden = load_golden("loop_plan.json");
  ASSERT_GE(golden["cases"].size(), 15u);
  for (const json& c : golden["cases"]) {
    const LoopNest n = nest(c["extents"].get<std::vector<int64_t>>(), c["threads"], c["vector"]);
    ASSERT_FALSE(check_nest(n).has_value()) << c["extents"];
    const auto map = c["map"].get<std::vector<int64_t>>();
    const int64_t points = total_points(n);
    ASSERT_EQ(static_cast<int64_t>(map.size()), 2 * points);
    std::vector<ThreadSlot> all(static_cast<std::size_t>(points));
    enumerate(n, 0, all);
    std::vector<int64_t> index(n.extents.size());
    for (int64_t f = 0; f < points; ++f) {
      const ThreadSlot want{map[static_cast<std::size_t>(2 * f)], map[static_cast<std::size_t>(2 * f + 1)]};
      unflatten(n.extents, f, index);
      ASSERT_EQ(place(n, index), want) << c["extents"] << " flat " << f;
      ASSERT_EQ(place_flat(n, f), want);
      ASSERT_EQ(all[static_cast<std::size_t>(f)], want);
      ASSERT_EQ(flat_at(n, want), f);
    }
  }
}

TEST(LoopPlan, Inverse_EveryThreadSlotOfSmallDomains) {
  for (const LoopNest& n : small_domains()) {
    const int64_t points = total_points(n);
    const LoopSummary s = summarize(n, h200());
    // Every point maps to a (thread, slot) that maps back to it.
    for (int64_t f = 0; f < points; ++f) {
      const ThreadSlot ts = place_flat(n, f);
      ASSERT_LT(ts.thread, s.thread_extent);
      ASSERT_LT(ts.slot, s.slots_per_thread);
      ASSERT_EQ(flat_at(n, ts), f);
    }
    // Every (thread, slot), a margin past the ends included, maps to a point
    // whose slot is that slot, or to nothing; replicas aside, to N points in all.
    int64_t held = 0;
    std::map<int64_t, int64_t> per_thread;
    std::vector<int64_t> index(n.extents.size());
    for (int64_t t = -1; t <= n.threads + 1; ++t) {
      for (int64_t slot = -1; slot <= s.slots_per_thread + n.vector; ++slot) {
        const std::optional<int64_t> f = flat_at(n, {t, slot});
        ASSERT_EQ(point_at(n, {t, slot}, index), f.has_value());
        if (!f) continue;
        ASSERT_GE(*f, 0);
        ASSERT_LT(*f, points);
        ASSERT_EQ(place_flat(n, *f).slot, slot);
        ASSERT_EQ(place_flat(n, *f).thread, t % s.thread_extent);
        ASSERT_EQ(flatten(n.extents, index), *f);
        ++per_thread[t];
        held += t < s.thread_extent;
      }
    }
    ASSERT_EQ(held, points);
    // The summary against the brute-force count per thread.
    int64_t with_work = 0, most = 0, least = points;
    for (int64_t t = 0; t < n.threads; ++t) {
      const int64_t c = per_thread.count(t) ? per_thread[t] : 0;
      with_work += c > 0;
      most = std::max(most, c);
      least = std::min(least, c);
    }
    ASSERT_EQ(s.threads_with_work, with_work);
    ASSERT_EQ(s.idle_threads, n.threads - with_work);
    ASSERT_EQ(s.points_per_thread_max, most);
    ASSERT_EQ(s.points_per_thread_min, least);
    ASSERT_EQ(s.guard, least < most || with_work < n.threads);
  }
}

TEST(LoopPlan, Enumerate_FromAnyStartMatchesPlace) {
  const LoopNest n = nest({7, 12}, 5, 3);
  const int64_t points = total_points(n);
  for (int64_t first = 0; first < points; ++first) {
    std::vector<ThreadSlot> out(static_cast<std::size_t>(std::min<int64_t>(17, points - first)));
    enumerate(n, first, out);
    for (std::size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], place_flat(n, first + static_cast<int64_t>(i)));
  }
}

TEST(LoopPlan, Replicate_ReplicaRunsThePointsOfItsOriginal) {
  // T.Parallel(64) on 128 threads, vector 2: 32 groups, so 128/32 = 4 replicas.
  const LoopNest n = nest({64}, 128, 2, true);
  // Thread 33 is replica 1 of thread 1, which owns points 2 and 3.
  EXPECT_EQ(flat_at(n, {33, 0}), 2);
  EXPECT_EQ(flat_at(n, {33, 1}), 3);
  EXPECT_EQ(flat_at(n, {127, 1}), 63);
  // Without replication thread 33 holds nothing.
  EXPECT_FALSE(flat_at(nest({64}, 128, 2), {33, 0}).has_value());
}

TEST(LoopSummary, IdleThreads_64PointsOn128ThreadsVector2) {
  const LoopSummary s = summarize(nest({64}, 128, 2), h200());
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
  const LoopSummary s = summarize(nest({64}, 128, 2, true), h200());
  EXPECT_EQ(s.replicas, 4);
  EXPECT_EQ(s.threads_with_work, 128);
  EXPECT_EQ(s.idle_threads, 0);
  EXPECT_FALSE(s.guard);
  // 6 groups on 16 threads: floor(16/6) = 2 replicas cover 12 threads; 4 stay idle.
  const LoopSummary odd = summarize(nest({6}, 16, 1, true), h200());
  EXPECT_EQ(odd.replicas, 2);
  EXPECT_EQ(odd.idle_threads, 4);
  EXPECT_TRUE(odd.guard);
}

TEST(LoopSummary, FullRounds_ReferenceDefault) {
  const LoopSummary s = summarize(nest({128, 32}, 128, 8), h200());
  // 4096 points / 8 = 512 groups = 4 rounds of 128 threads exactly.
  EXPECT_EQ(s.rounds, 4);
  EXPECT_EQ(s.slots_per_thread, 32);
  EXPECT_EQ(s.points_per_thread_min, 32);
  EXPECT_EQ(s.masked_lanes, 0);
  EXPECT_FALSE(s.guard);
  EXPECT_EQ(s.warps, 4);
}

TEST(LoopSummary, PartialLastRound_MasksLanes) {
  const LoopSummary s = summarize(nest({100, 40}, 128, 4), h200());
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
  const LoopNest n = nest({1 << 20, 1 << 20}, 256, 8);
  ASSERT_FALSE(check_nest(n).has_value());
  const LoopSummary s = summarize(n, h200());
  EXPECT_EQ(s.points, int64_t{1} << 40);
  EXPECT_EQ(s.rounds, int64_t{1} << 29);
  EXPECT_EQ(s.slots_per_thread, int64_t{1} << 32);
  EXPECT_FALSE(s.guard);
  // The last point sits in the last slot of the last thread.
  EXPECT_EQ(place_flat(n, (int64_t{1} << 40) - 1), (ThreadSlot{255, (int64_t{1} << 32) - 1}));
  EXPECT_EQ(flat_at(n, {255, (int64_t{1} << 32) - 1}), (int64_t{1} << 40) - 1);
}

TEST(LoopCheck, RejectsBadNests) {
  EXPECT_TRUE(check_nest(nest({}, 128, 1)).has_value());
  EXPECT_TRUE(check_nest(nest({0}, 128, 1)).has_value());
  EXPECT_TRUE(check_nest(nest({4, -1}, 128, 1)).has_value());
  EXPECT_TRUE(check_nest(nest({4}, 0, 1)).has_value());
  EXPECT_TRUE(check_nest(nest({4}, 4, 0)).has_value());
  EXPECT_TRUE(check_nest(nest({4, 6}, 4, 4)).has_value());  // 4 does not divide 6
  EXPECT_TRUE(check_nest(nest({int64_t{1} << 32, int64_t{1} << 31}, 4, 1)).has_value());
  const auto msg = check_nest(nest({32}, 128, 3));
  ASSERT_TRUE(msg.has_value());
  EXPECT_NE(msg->find("--vector 3"), std::string::npos) << *msg;
  EXPECT_FALSE(check_nest(nest({int64_t{1} << 31, int64_t{1} << 31}, 1024, 8)).has_value());
}

TEST(LoopVector, Auto_FollowsTileLangSteps) {
  const Device& d = h200();
  auto choose = [&](std::vector<int64_t> extents, int64_t threads, int64_t elem_bytes) {
    const LoopNest n = nest(std::move(extents), threads, 1);
    return choose_vector(n, tile_access(n, elem_bytes, MemoryScope::global), d);
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
  LoopNest n = nest({128, 32}, 128, 1);
  Access a = tile_access(n, 2, MemoryScope::global);
  a.buffer_shape = {4096, 4096};
  // buf[i1, i0]: the innermost loop runs down a column, stride 4096: no vector.
  a.perm = {1, 0};
  EXPECT_EQ(choose_vector(n, a, d).by_access, 1);
  // The box starts at column 4 of a row-major fp16 matrix: groups start at
  // multiples of gcd(4, 4096) = 4 elements, so 8-wide would straddle: 4.
  a.perm = {0, 1};
  a.origin = {0, 4};
  const VectorChoice c = choose_vector(n, a, d);
  EXPECT_EQ(c.by_extent, 8);
  EXPECT_EQ(c.by_access, 4);
  EXPECT_EQ(c.vector, 4);
}

TEST(LoopVector, AccessElems_SplitsWideAndOddVectors) {
  const Device& d = h200();
  // fp32 x 8 = 32 B: two 16 B instructions per group.
  LoopNest n = nest({16, 64}, 128, 8);
  EXPECT_EQ(access_elems(n, tile_access(n, 4, MemoryScope::global), d), 4);
  // Vector 6 of fp16: the largest power of two dividing 6 is 2: three 4 B instructions.
  n = nest({16, 12}, 32, 6);
  EXPECT_EQ(access_elems(n, tile_access(n, 2, MemoryScope::global), d), 2);
  // Vector 8 of int8 (8 B) fits one instruction.
  n = nest({16, 64}, 32, 8);
  EXPECT_EQ(access_elems(n, tile_access(n, 1, MemoryScope::global), d), 8);
}

TEST(LoopCompare, MatchesReference) {
  const json golden = load_golden("loop_compare.json");
  const auto shapes = reference_compare_shapes();
  ASSERT_EQ(shapes.size(), golden["shapes"].size());
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const json& g = golden["shapes"][i];
    const ShapeComparison c = compare_shape(shapes[i], golden["threads"], golden["vector"]);
    EXPECT_EQ(c.extents, g["extents"].get<std::vector<int64_t>>());
    EXPECT_EQ(c.points, g["points"].get<int64_t>());
    EXPECT_EQ(c.threads_used, g["threads_used"].get<int64_t>());
    EXPECT_EQ(c.points_per_thread, g["points_per_thread"].get<int64_t>());
    EXPECT_EQ(c.owned, (g["owned"].get<std::vector<std::vector<std::vector<int64_t>>>>()));
  }
}

}  // namespace
}  // namespace tileplan
