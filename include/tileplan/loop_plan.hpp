// A TileLang `T.Parallel(e0, e1, ...)` nest as it lands on a block's threads:
// the partition plan.
//
// The plan is TileLang's default loop partition (LoopPartitioner::Partition in
// src/transform/loop_partition.cc): with T threads and vector size V,
//
//   flat   = (...((i0*e1 + i1)*e2 + i2)...)*e_{k-1} + i_{k-1}    row-major
//   group  = flat / V                                            one vector access
//   thread = group % T
//   slot   = (group / T)*V + flat % V                            the thread's register index
//
// Three levels, fastest first: lane (V consecutive innermost iterations share a
// thread and vectorize), thread (consecutive groups go to consecutive threads, so
// a warp touches consecutive memory), round (what is left becomes a serial loop
// of ceil(G/T) steps per thread, G = N/V groups). docs/loop.md derives every
// quantity below with worked examples; tileplan/loop_memory.hpp analyses what
// the plan does to memory.
//
// A LoopNest is a plain description; make_plan() checks it once and returns a
// LoopPlan, the only way to obtain one, so every function below computes with
// a nest that passed check_nest, in every build. Arguments beyond the plan
// (indices, flat positions, buffers) are checked by each function: out of
// range, it answers nothing or an Error, never undefined behaviour.
//
// Every function here is O(depth) unless it says otherwise; none prints.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "tileplan/device.hpp"
#include "tileplan/error.hpp"

namespace tileplan {

inline constexpr std::size_t kMaxLoopDepth = 16;
inline constexpr int64_t kMaxLoopThreads = int64_t{1} << 20;

struct LoopNest {
  std::vector<int64_t> extents{128, 32};  // e0 (outermost) .. e_{k-1} (innermost)
  int64_t threads = 128;                  // T: threads of the block
  int64_t vector = 8;                     // V: innermost iterations one thread takes as one vector
  // The body touches a local.fragment buffer: when there are fewer groups than
  // threads, TileLang replicates the plan (Fragment::Replicate) so that thread t
  // repeats the points of thread t mod G instead of idling.
  bool replicate = false;
};

// One checker for both doors: ok, or the first rule the nest breaks. Rules:
// 1..kMaxLoopDepth extents, each >= 1, their product (the point count) within
// 63 bits (param extents); threads 1..kMaxLoopThreads (threads); vector >= 1,
// threads*vector within 63 bits and vector dividing the innermost extent, so
// that a vector never straddles two rows (vector).
Status check_nest(const LoopNest& nest);

// A nest that passed check_nest, with its counts.
class LoopPlan {
 public:
  LoopPlan();  // the default LoopNest's plan: T.Parallel(128, 32), 128 threads, vector 8

  const LoopNest& nest() const { return nest_; }
  const std::vector<int64_t>& extents() const { return nest_.extents; }
  std::size_t depth() const { return nest_.extents.size(); }
  int64_t threads() const { return nest_.threads; }
  int64_t vector() const { return nest_.vector; }
  bool replicate() const { return nest_.replicate; }
  int64_t points() const { return points_; }                 // N = e0*e1*...*e_{k-1}
  int64_t groups() const { return points_ / nest_.vector; }  // G = N / V

 private:
  friend Result<LoopPlan> make_plan(const LoopNest& nest);
  LoopPlan(LoopNest nest, int64_t points) : nest_(std::move(nest)), points_(points) {}
  LoopNest nest_;
  int64_t points_ = 0;
};

// The plan of `nest`. Error: check_nest(nest)'s.
Result<LoopPlan> make_plan(const LoopNest& nest);

// A position in the partition: which thread, and which slot of its local buffer.
struct ThreadSlot {
  int64_t thread = 0;
  int64_t slot = 0;
  friend bool operator==(const ThreadSlot&, const ThreadSlot&) = default;
};

// (i0, ..., i_{k-1}) -> flat, row-major.
//   Nothing when index.size() != depth or some index[k] is outside 0..e_k-1.
inline std::optional<int64_t> flatten(const LoopPlan& plan, std::span<const int64_t> index);
// flat -> (i0, ..., i_{k-1}) into `out`.
//   False (out untouched) when flat is outside 0..N-1 or out.size() != depth.
[[nodiscard]] bool unflatten(const LoopPlan& plan, int64_t flat, std::span<int64_t> out);

// flat -> (thread, slot), the reference plan (replica 0 when the plan replicates).
//   Nothing when flat is outside 0..N-1.
//   Ensures: thread < min(T, G); slot < ceil(G/T)*V; flat_at(plan, result) == flat.
inline std::optional<ThreadSlot> place_flat(const LoopPlan& plan, int64_t flat);
// (i0, ..., i_{k-1}) -> (thread, slot).  Nothing where flatten has nothing.
inline std::optional<ThreadSlot> place(const LoopPlan& plan, std::span<const int64_t> index);

// (thread, slot) -> flat, or nothing when that thread holds no point in that
// slot (an idle thread, a masked lane of the last round, a slot past the end,
// a negative or too large thread). A replica thread (replicate, thread >= G)
// answers with the point of thread mod G.
//   Ensures: place_flat(plan, *result)->slot == slot.
std::optional<int64_t> flat_at(const LoopPlan& plan, ThreadSlot ts);
// (thread, slot) -> (i0, ..., i_{k-1}); false (out untouched) when flat_at has
// nothing or out.size() != depth.
[[nodiscard]] bool point_at(const LoopPlan& plan, ThreadSlot ts, std::span<int64_t> out);

// flat in [first, first + out.size()) -> (thread, slot), in flat order.
// O(out.size()), no division per point.
//   Error (param first): first < 0 or first + out.size() > N; out untouched.
Status enumerate(const LoopPlan& plan, int64_t first, std::span<ThreadSlot> out);

// What the partition means for the threads, whatever the nest size (O(1)).
struct LoopSummary {
  int64_t points = 0;             // N
  int64_t groups = 0;             // G = N / V: vector accesses
  int64_t thread_extent = 0;      // min(T, G): threads the plan gives points to
  int64_t replicas = 1;           // floor(T / G) when replicating and G < T, else 1
  int64_t threads_with_work = 0;  // thread_extent * replicas
  int64_t idle_threads = 0;       // T - threads_with_work
  int64_t rounds = 0;             // ceil(G / T): serial steps of the busiest thread
  int64_t last_round_threads = 0; // threads with a group in the last round
  int64_t masked_threads = 0;     // T - last_round_threads (idle threads included)
  int64_t masked_lanes = 0;       // masked_threads * V: lanes the guard switches off
  int64_t points_per_thread_max = 0;
  int64_t points_per_thread_min = 0;  // over all T threads (0 when some idle)
  int64_t slots_per_thread = 0;   // rounds * V: each thread's local buffer
  int64_t warps = 0;              // ceil(T / warp_size)
  int64_t warps_with_work = 0;    // ceil(threads_with_work / warp_size)
  bool partial_last_round = false;  // G > T and G % T != 0
  // Code generation must predicate the body on the thread index (and the
  // round): true exactly when masked_threads > 0.
  bool guard = false;
};
// Reads dev.warp_size only. Error (param warp_size): dev.warp_size < 1.
Result<LoopSummary> summarize(const LoopPlan& plan, const Device& dev);

// ---- comparing nest shapes --------------------------------------------------

// The same work under different nest shapes: which points the first threads own.
struct ShapeComparison {
  std::vector<int64_t> extents;
  int64_t points = 0;
  int64_t threads_used = 0;        // threads holding at least one point
  int64_t points_per_thread = 0;   // N / T (integer division, as the reference prints it)
  std::vector<std::vector<std::vector<int64_t>>> owned;  // owned[t]: thread t's first points, in slot order
};
// The reference's five shapes of 64 points: (64), (32,2), (8,8), (2,32), (4,4,4).
std::vector<std::vector<int64_t>> reference_compare_shapes();
// At most kMaxComparedPoints of the first threads' points are listed.
inline constexpr int64_t kMaxComparedPoints = 4096;
// Error: check_nest({extents, threads, vector})'s; first_threads or
//   first_points negative, or first_threads * first_points over kMaxComparedPoints
//   (param first_threads, first_points).
Result<ShapeComparison> compare_shape(const std::vector<int64_t>& extents, int64_t threads, int64_t vector,
                                      int64_t first_threads = 2, int64_t first_points = 4);

// ---- the per-point maps, inline: callers map points one at a time ----------------

inline std::optional<int64_t> flatten(const LoopPlan& plan, std::span<const int64_t> index) {
  const std::vector<int64_t>& extents = plan.extents();
  if (index.size() != extents.size()) return std::nullopt;
  int64_t flat = 0;
  for (std::size_t k = 0; k < extents.size(); ++k) {
    if (index[k] < 0 || index[k] >= extents[k]) return std::nullopt;
    flat = flat * extents[k] + index[k];  // < e0*...*ek <= N
  }
  return flat;
}

inline std::optional<ThreadSlot> place_flat(const LoopPlan& plan, int64_t flat) {
  if (flat < 0 || flat >= plan.points()) return std::nullopt;
  const int64_t vector = plan.vector();
  const int64_t group = flat / vector;
  return ThreadSlot{group % plan.threads(), (group / plan.threads()) * vector + flat % vector};
}

inline std::optional<ThreadSlot> place(const LoopPlan& plan, std::span<const int64_t> index) {
  const std::optional<int64_t> flat = flatten(plan, index);
  if (!flat) return std::nullopt;
  return place_flat(plan, *flat);
}

}  // namespace tileplan
