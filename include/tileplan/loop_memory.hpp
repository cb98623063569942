// What a partitioned loop nest (tileplan/loop_plan.hpp) does to memory: the
// access one thread issues, how a warp's accesses coalesce into sectors and
// lines (global memory) or pass through the banks (shared memory), the vector
// size TileLang would choose, and the totals over the whole nest.
// docs/loop.md derives each quantity with worked examples.
//
// Every function checks what it is given (the access against the plan, the
// device with check_device) in every build and answers with an Error instead;
// each one's cost is bounded whatever the sizes (see analyze_memory).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tileplan/device.hpp"
#include "tileplan/error.hpp"
#include "tileplan/loop_plan.hpp"

namespace tileplan {

enum class MemoryScope { global, shared };
std::string_view to_string(MemoryScope s);
std::optional<MemoryScope> parse_scope(std::string_view s);

struct ElementType {
  std::string_view name;
  int64_t bytes = 0;
};
// float16/fp16/half, bfloat16/bf16, float32/fp32/float, float64/fp64/double,
// float8_e4m3/fp8_e4m3/e4m3/fp8, float8_e5m2/e5m2, int8, uint8, int16, uint16,
// int32, uint32, int64, uint64.
std::optional<ElementType> find_dtype(std::string_view name);
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
Access tile_access(const LoopPlan& plan, int64_t elem_bytes, MemoryScope scope);
// The nest's box read as buf[i_{perm[0]}, ...] in a buffer that ends where the
// box does: buffer_shape[d] = origin[d] + e_{perm[d]}.
//   Error: check_perm's; origin[d] + e_{perm[d]} beyond 63 bits (param origin);
//   then check_access's.
Result<Access> box_access(const LoopPlan& plan, std::vector<int64_t> perm, std::vector<int64_t> origin,
                          int64_t elem_bytes, MemoryScope scope);
// A permutation of 0..depth-1, or the error (param perm).
Status check_perm(std::span<const int64_t> perm, std::size_t depth);
// Rules: rank = depth (params buffer_shape, origin); perm a permutation
// (perm); elem_bytes >= 1 (elem_bytes); shape >= 1 (buffer_shape); origin >= 0
// (origin); the buffer's bytes within 63 bits and origin[d] + e_{perm[d]} <=
// shape[d] (buffer_shape).
Status check_access(const LoopPlan& plan, const Access& access);

// Elements one thread moves per instruction: the largest power of two w that
// divides V, with w*elem_bytes <= max_vector_access_bytes, the V lanes adjacent
// in the buffer (the innermost loop axis runs along the buffer's stride-1
// dimension) and every group's first element a multiple of w. 1 otherwise.
// A group of V lanes takes V/w instructions.
//   Error: check_device(dev)'s, check_access(plan, access)'s.
Result<int64_t> access_elems(const LoopPlan& plan, const Access& access, const Device& dev);

// --vector auto, as TileLang picks it (docs/loop.md, 'Choosing the vector size'),
// for the plan's extents and threads (its vector is not read):
struct VectorChoice {
  int64_t widest = 0;     // max_vector_access_bytes*8 / element bits (128 bits over the element)
  int64_t by_extent = 0;  // gcd(widest, innermost extent)
  int64_t by_access = 0;  // halved until the lanes are adjacent and aligned in the buffer
  int64_t vector = 0;     // halved until threads * vector divides N
};
//   Error: as access_elems.
//   Ensures: vector is a power of two dividing the innermost extent; vector >= 1.
Result<VectorChoice> choose_vector(const LoopPlan& plan, const Access& access, const Device& dev);

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
};

enum class MemoryAnalysis {
  fastest,      // at most about 2^22 thread accesses whatever the nest size
                // (every round, distinct round patterns, or samples)
  every_round,  // every instruction, as for_each_instruction issues them
};
// Thread accesses an every-round analysis (or a listing) may visit:
// G * replicas * (V / w), the groups each thread runs times the parts of each.
inline constexpr int64_t kMaxEveryRoundAccesses = int64_t{1} << 26;

// The memory instructions of the whole nest, summed.
//   Error: check_device(dev)'s, check_access(plan, access)'s; elem_bytes over
//   dev.max_vector_access_bytes (param elem_bytes); a device whose widest
//   access spans more than 8 of its smallest units (sector, line, bank word;
//   param max_vector_access_bytes); every_round over kMaxEveryRoundAccesses
//   thread accesses, or a total beyond 63 bits (param extents).
Result<MemoryReport> analyze_memory(const LoopPlan& plan, const Access& access, const Device& dev,
                                    MemoryAnalysis mode = MemoryAnalysis::fastest);

// Every warp instruction in issue order (round, warp, part), handed to `visit`
// one at a time: O(1) memory whatever the count.
//   Error: as analyze_memory with every_round; `visit` is then never called.
Status for_each_instruction(const LoopPlan& plan, const Access& access, const Device& dev,
                            const std::function<void(const WarpAccess&)>& visit);

}  // namespace tileplan
