// Blocks per SM exactly as the hardware grants them (CUDA's occupancy rules),
// from a Device description: registers allocated per warp in units, warps
// spread over the SM's sub-partitions, shared memory per block plus the
// system's reserve rounded to the allocation unit, the SM's shared-memory
// carveout steps, and the per-SM limits on blocks, warps and threads.
//
// With w = ceil(threads / warp_size) warps per block (every constant a Device field):
//   warps   blocks_by_warps = max_warps_per_sm / w              (0 if threads > max_threads_per_block)
//   regs    r_warp = roundup(regs * warp_size, reg_alloc_unit)
//           blocks_by_regs  = floor(regs_per_sm / sm_subpartitions / r_warp) * sm_subpartitions / w
//                             (0 if regs > regs_per_thread_max or
//                              r_warp * roundup(w, sm_subpartitions) > regs_per_block_max)
//   smem    s_block = roundup(static + dynamic + smem_reserved_per_block, smem_alloc_unit)
//           S = the carveout: the preference (percent of smem_per_sm, default 100) rounded up
//               to a step of smem_carveout_kb; if one block does not fit in it, the
//               smallest step that holds one block
//           blocks_by_smem  = S / s_block                       (0 if static + dynamic > the opt-in maximum)
//   blocks  blocks_by_blocks = max_blocks_per_sm
//   blocks_per_sm = the smallest of the four.
// docs/occupancy.md derives each rule and works an example by hand; the rules
// agree with NVIDIA's cuda_occupancy.h and with the driver on an H200.
//
// Every function here checks its arguments in every build and answers with
// an Error (param: a Device field, or the input's field name) instead of
// computing with values outside its domain; each is O(1) in the input's
// values (O(carveout steps) at most).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "tileplan/device.hpp"
#include "tileplan/error.hpp"

namespace tileplan {

struct OccupancyInput {
  int64_t threads_per_block = 128;
  int64_t regs_per_thread = 32;
  int64_t smem_static_bytes = 0;
  int64_t smem_dynamic_bytes = 0;
  // Preferred shared-memory carveout, percent of the maximum (0..100);
  // nothing = the driver's default choice.
  std::optional<int64_t> carveout_percent;
};

// The domain of the rules, whatever the device: threads and registers
// 1..2^31, each shared-memory size 0..2^40, a carveout 0..100. Inside it every
// product the rules form fits in 64 bits (with a device that passes check_device).
inline constexpr int64_t kMaxOccupancyCount = int64_t{1} << 31;  // threads, registers
inline constexpr int64_t kMaxOccupancyBytes = int64_t{1} << 40;  // each shared-memory size

enum class Limiter { none, warps, regs, smem, blocks };
std::string_view to_string(Limiter l);

struct Occupancy {
  int64_t blocks_per_sm = 0;
  Limiter limiter = Limiter::none;  // the limit that gives the fewest blocks
  int64_t blocks_by_warps = 0;
  int64_t blocks_by_regs = 0;
  int64_t blocks_by_smem = 0;
  int64_t blocks_by_blocks = 0;  // the per-SM block limit
  int64_t active_warps = 0;      // blocks_per_sm * warps per block
  double occupancy_percent = 0;  // active warps over the SM's warp limit, x100
  int64_t smem_config_bytes = 0; // the carveout the SM runs with
  int64_t warps_per_block = 0;        // ceil(threads / warp_size)
  int64_t regs_per_warp = 0;          // registers allocated to one warp (rounded to the unit)
  int64_t regs_per_block = 0;         // regs_per_warp * warps_per_block
  int64_t smem_per_block_bytes = 0;   // allocated: static + dynamic + reserve, rounded to the unit
};

// Blocks per SM.
// Ties go to the first of warps, regs, smem, blocks; when blocks_per_sm is 0,
// `limiter` is the first limit that admits no block at all. A block that
// cannot run (more threads, registers or bytes than the device allows) is not
// an error here: it gets 0 blocks per SM, so that a sweep can ask about any
// candidate. check_occupancy_input is the stricter check for a launch.
// Error: check_device(dev) fails, or `in` is outside the domain above
//   (param threads_per_block, regs_per_thread, smem_static_bytes,
//   smem_dynamic_bytes or carveout_percent).
// Ensures: blocks_per_sm == min(blocks_by_warps, blocks_by_regs, blocks_by_smem, blocks_by_blocks).
Result<Occupancy> occupancy(const Device& dev, const OccupancyInput& in);

// Whether `l` gives as few blocks as the result (several limits can tie).
bool limits(const Occupancy& o, Limiter l);

// A launch the hardware accepts, or the first rule it breaks: the device
// passes check_device (param: the field), threads 1..max_threads_per_block
// (threads_per_block), registers 1..regs_per_thread_max (regs_per_thread),
// shared memory not negative, static shared memory within the non-opt-in
// block limit (smem_static_bytes), static + dynamic within the opt-in maximum
// (smem_dynamic_bytes), carveout 0..100 (carveout_percent). Every input it
// accepts is inside occupancy()'s domain.
Status check_occupancy_input(const Device& dev, const OccupancyInput& in);

// One more block per SM: for each limit on its own, the largest value of the
// one input it depends on (the other inputs as given) at which that limit
// allows `blocks_per_sm` blocks. Nothing where no value does.
struct NextStep {
  int64_t blocks_per_sm = 0;                     // the target: the current count + 1
  std::optional<int64_t> max_regs_per_thread;    // in 1..regs_per_thread_max; blocks_by_regs >= blocks_per_sm
  std::optional<int64_t> max_smem_bytes;         // static + dynamic, in 0..smem_per_block_max_bytes;
                                                 //   blocks_by_smem >= blocks_per_sm
  std::optional<int64_t> max_threads_per_block;  // blocks_by_warps >= blocks_per_sm
};
// Nothing when the SM's block limit is already reached.
// Error: as occupancy().
Result<std::optional<NextStep>> next_step(const Device& dev, const OccupancyInput& in);
// The same bounds for any count of blocks per SM, in closed form
// (docs/occupancy.md, 'The next step'): O(carveout steps).
// Error: as occupancy(), and blocks_per_sm outside 1..dev.max_blocks_per_sm (param blocks_per_sm).
Result<NextStep> bounds_for(const Device& dev, const OccupancyInput& in, int64_t blocks_per_sm);

// The least shared memory the SM can be configured with (and the smallest
// carveout percent that selects it) that still grants the same blocks per SM
// as `in`: the rest of the SM's memory stays L1 cache.
// Error: as occupancy().
struct CarveoutChoice {
  int64_t percent = 0;
  int64_t smem_config_bytes = 0;
};
Result<CarveoutChoice> min_carveout(const Device& dev, const OccupancyInput& in);

}  // namespace tileplan
