// The occupancy rules without their checks, for the library's own hot loops
// (the GEMM planner calls them once per candidate tile) and its renderers,
// after the public entry point or the caller has checked once.
// Not installed; include as "occupancy_internal.hpp" from src/.
#pragma once

#include <cstdint>

#include "tileplan/device.hpp"
#include "tileplan/occupancy.hpp"

namespace tileplan {

// occupancy() without its checks (asserted in debug builds only).
// Requires: check_device(dev).ok(); `in` inside occupancy()'s domain
//   (check_occupancy_input(dev, in).ok() implies it).
Occupancy occupancy_unchecked(const Device& dev, const OccupancyInput& in);

// occupancy_unchecked in two parts, for a caller that varies only the
// shared memory of a block (the planner, over a tile's stage counts): what
// the block's threads and registers fix, then the rest (perf: occupancy,
// its integer divisions mostly, was a quarter of a sweep's time).
struct ThreadRegisterLimits {
  int64_t warps_per_block = 0;
  int64_t regs_per_warp = 0;
  int64_t blocks_by_warps = 0;
  int64_t blocks_by_regs = 0;
};
// Requires: as occupancy_unchecked for (threads, regs).
ThreadRegisterLimits thread_register_limits(const Device& dev, int64_t threads_per_block, int64_t regs_per_thread);
// Requires: as occupancy_unchecked, and `fixed` is
// thread_register_limits(dev, in.threads_per_block, in.regs_per_thread).
Occupancy occupancy_unchecked(const Device& dev, const OccupancyInput& in, const ThreadRegisterLimits& fixed);

// bounds_for() without its checks.
// Requires: as occupancy_unchecked, and 1 <= blocks_per_sm <= dev.max_blocks_per_sm.
NextStep bounds_for_unchecked(const Device& dev, const OccupancyInput& in, int64_t blocks_per_sm);

}  // namespace tileplan
