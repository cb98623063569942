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

// bounds_for() without its checks.
// Requires: as occupancy_unchecked, and 1 <= blocks_per_sm <= dev.max_blocks_per_sm.
NextStep bounds_for_unchecked(const Device& dev, const OccupancyInput& in, int64_t blocks_per_sm);

}  // namespace tileplan
