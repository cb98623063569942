// A TileLang `T.Parallel(e0, e1, ...)` nest as it lands on a block's threads,
// and what that does to memory.
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
// quantity below with worked examples.
//
// Every function here is O(depth) unless it says otherwise; none prints.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tileplan/device.hpp"

namespace tileplan {

inline constexpr std::size_t kMaxLoopDepth = 16;

struct LoopNest {
  std::vector<int64_t> extents{128, 32};  // e0 (outermost) .. e_{k-1} (innermost)
  int64_t threads = 128;                  // T: threads of the block
  int64_t vector = 8;                     // V: innermost iterations one thread takes as one vector
  // The body touches a local.fragment buffer: when there are fewer groups than
  // threads, TileLang replicates the plan (Fragment::Replicate) so that thread t
  // repeats the points of thread t mod G instead of idling.
  bool replicate = false;
};

// One checker for both doors: a user error in words naming the flag and the
// rule, or nothing. Rules: 1..kMaxLoopDepth extents, each >= 1; threads >= 1;
// vector >= 1 and dividing the innermost extent (a vector never straddles two
// rows); the point count and threads*vector fit in 63 bits.
std::optional<std::string> check_nest(const LoopNest& nest);

// A position in the partition: which thread, and which slot of its local buffer.
struct ThreadSlot {
  int64_t thread = 0;
  int64_t slot = 0;
  friend bool operator==(const ThreadSlot&, const ThreadSlot&) = default;
};

// N = e0*e1*...*e_{k-1}.   Requires: check_nest(nest) is empty (here and below).
int64_t total_points(const LoopNest& nest);

// (i0, ..., i_{k-1}) -> flat, row-major.
//   Requires: index.size() == extents.size(), 0 <= index[k] < extents[k].
int64_t flatten(std::span<const int64_t> extents, std::span<const int64_t> index);
// flat -> (i0, ..., i_{k-1}).
//   Requires: 0 <= flat < product(extents), out.size() == extents.size().
void unflatten(std::span<const int64_t> extents, int64_t flat, std::span<int64_t> out);

// flat -> (thread, slot), the reference plan (replica 0 when the plan replicates).
//   Requires: 0 <= flat < N.
//   Ensures: thread < min(T, G); slot < ceil(G/T)*V; flat_at(nest, result) == flat.
ThreadSlot place_flat(const LoopNest& nest, int64_t flat);
// (i0, ..., i_{k-1}) -> (thread, slot).  Requires: as flatten.
ThreadSlot place(const LoopNest& nest, std::span<const int64_t> index);

// (thread, slot) -> flat, or nothing when that thread holds no point in that
// slot (an idle thread, a masked lane of the last round, a slot past the end).
// A replica thread (replicate, thread >= G) answers with the point of thread mod G.
//   Requires: nothing of thread and slot (any value is answered).
//   Ensures: place_flat(nest, *result).slot == slot.
std::optional<int64_t> flat_at(const LoopNest& nest, ThreadSlot ts);
// (thread, slot) -> (i0, ..., i_{k-1}); false (out untouched) when flat_at has nothing.
//   Requires: out.size() == extents.size().
bool point_at(const LoopNest& nest, ThreadSlot ts, std::span<int64_t> out);

// flat in [first, first + out.size()) -> (thread, slot), in flat order. O(out.size()),
// no division per point.
//   Requires: 0 <= first, first + out.size() <= N.
void enumerate(const LoopNest& nest, int64_t first, std::span<ThreadSlot> out);

// What the partition means for the threads, whatever the nest size (O(1) after N).
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
LoopSummary summarize(const LoopNest& nest, const Device& dev);

// ---- memory ---------------------------------------------------------------

enum class MemoryScope { global, shared };
std::string_view to_string(MemoryScope s);
std::optional<MemoryScope> parse_scope(std::string_view s);

struct DType {
  std::string_view name;
  int64_t bytes = 0;
};
// float16/fp16/half, bfloat16/bf16, float32/fp32/float, float64/fp64/double,
// float8_e4m3/fp8_e4m3/e4m3/fp8, float8_e5m2/e5m2, int8, uint8, int16, uint16,
// int32, uint32, int64, uint64.
std::optional<DType> find_dtype(std::string_view name);
std::string dtype_names();

// The access buf[i_{perm[0]}, i_{perm[1]}, ...] into a row-major buffer: the
// nest reads the box origin + [0, extent) of the buffer, loop axis perm[d]
// running along buffer dimension d.
struct Access {
  std::vector<int64_t> buffer_shape;  // elements, outermost first; rank = nest depth
  std::vector<int64_t> perm;          // a permutation of 0..depth-1
  std::vector<int64_t> origin;        // the box's first element, per buffer dimension
  int64_t elem_bytes = 2;
  MemoryScope scope = MemoryScope::global;
};
// The nest's own box as its buffer: buf[i0, i1, ...] of shape (e0, e1, ...).
Access tile_access(const LoopNest& nest, int64_t elem_bytes, MemoryScope scope);
// A permutation of 0..depth-1, or the error naming --access.
std::optional<std::string> check_perm(std::span<const int64_t> perm, std::size_t depth);
// Requires: check_nest(nest) is empty. Rules: rank = depth; perm a permutation;
// shape >= 1; origin >= 0; origin[d] + e_{perm[d]} <= shape[d]; the buffer's
// bytes fit in 63 bits.
std::optional<std::string> check_access(const LoopNest& nest, const Access& access);

// Elements one thread moves per instruction: the largest power of two w that
// divides V, with w*elem_bytes <= max_vector_access_bytes, the V lanes adjacent
// in the buffer (the innermost loop axis runs along the buffer's stride-1
// dimension) and every group's first element a multiple of w. 1 otherwise.
// A group of V lanes takes V/w instructions.
//   Requires: check_access(nest, access) is empty.
int64_t access_elems(const LoopNest& nest, const Access& access, const Device& dev);

// --vector auto, as TileLang picks it (docs/loop.md, 'Choosing the vector size'):
struct VectorChoice {
  int64_t widest = 0;     // max_vector_access_bytes*8 / element bits (128 bits over the element)
  int64_t by_extent = 0;  // gcd(widest, innermost extent)
  int64_t by_access = 0;  // halved until the lanes are adjacent and aligned in the buffer
  int64_t vector = 0;     // halved until threads * vector divides N
};
//   Requires: check_nest(nest) with vector = 1 is empty, check_access likewise.
//   Ensures: vector is a power of two dividing the innermost extent; vector >= 1.
VectorChoice choose_vector(const LoopNest& nest, const Access& access, const Device& dev);

// One warp-wide memory instruction: warp `warp` in serial step `round`, part
// `part` of a vector group that takes several instructions.
struct WarpAccess {
  int64_t round = 0;
  int64_t warp = 0;
  int64_t part = 0;
  int64_t threads = 0;           // active threads
  int64_t bytes = 0;             // requested: threads * access bytes
  int64_t sectors = 0;           // distinct mem_sector_bytes sectors touched
  int64_t lines = 0;             // distinct cache_line_bytes lines touched
  int64_t wavefronts = 0;        // shared: passes through the banks, summed over phases
  int64_t ideal_wavefronts = 0;  // shared: phases with an active thread
  int64_t conflict_ways = 0;     // shared: most distinct words one bank serves in one phase
};

struct MemoryReport {
  MemoryScope scope = MemoryScope::global;
  int64_t elem_bytes = 0;
  int64_t access_elems = 0;   // w
  int64_t access_bytes = 0;   // w * elem_bytes
  int64_t parts = 0;          // V / w instructions per vector group
  bool contiguous = false;    // the V lanes are adjacent in the buffer
  int64_t phase_threads = 0;  // shared: threads one wavefront can serve
  int64_t instructions = 0;   // warp-wide instructions in the nest
  int64_t bytes_requested = 0;
  int64_t sectors = 0;
  int64_t lines = 0;
  int64_t wavefronts = 0;
  int64_t ideal_wavefronts = 0;
  int64_t conflict_ways = 0;  // the worst instruction's
  double efficiency = 0;      // bytes requested / bytes moved (sectors, or wavefronts x bank row)
  WarpAccess worst;           // lowest efficiency (global) or most ways (shared); earliest on ties
  std::vector<std::pair<int64_t, int64_t>> sectors_histogram;     // (sectors, instructions)
  std::vector<std::pair<int64_t, int64_t>> wavefronts_histogram;  // shared only
  // How the totals were obtained: exactly (every round, or every distinct round
  // pattern times how often it recurs), or from evenly spaced sample rounds
  // scaled up (very large nests whose rounds never repeat).
  bool exact = true;
  int64_t rounds_total = 0;
  int64_t rounds_analyzed = 0;
  std::vector<WarpAccess> listing;  // every instruction in issue order, when asked
};
// Cost: at most about 2^22 thread accesses whatever the nest size (distinct
// round patterns, or samples); every instruction when `list` is true.
//   Requires: check_access(nest, access) is empty.
MemoryReport analyze_memory(const LoopNest& nest, const Access& access, const Device& dev, bool list = false);

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
//   Requires: check_nest({extents, threads, vector}) is empty.
ShapeComparison compare_shape(const std::vector<int64_t>& extents, int64_t threads, int64_t vector,
                              int64_t first_threads = 2, int64_t first_points = 4);

}  // namespace tileplan
