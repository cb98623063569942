// Blocks per SM exactly as the hardware grants them (CUDA's occupancy rules),
// from a Device description: registers allocated per warp in units, warps
// spread over the SM's sub-partitions, shared memory per block plus the
// system's reserve rounded to the allocation unit, the SM's shared-memory
// carveout steps, and the per-SM limits on blocks, warps and threads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tileplan/device.hpp"

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
};

// Requires: check_occupancy_input(dev, in) returns nothing.
Occupancy occupancy(const Device& dev, const OccupancyInput& in);

// A user error in words (naming the quantity and the rule), or nothing.
std::optional<std::string> check_occupancy_input(const Device& dev, const OccupancyInput& in);

}  // namespace tileplan
