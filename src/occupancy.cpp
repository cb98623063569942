#include "tileplan/occupancy.hpp"

#include <algorithm>
#include <cassert>

#include <fmt/format.h>

namespace tileplan {
namespace {

constexpr int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
constexpr int64_t round_up(int64_t a, int64_t unit) { return ceil_div(a, unit) * unit; }

constexpr int64_t kMaxCount = int64_t{1} << 31;  // threads, registers
constexpr int64_t kMaxBytes = int64_t{1} << 40;  // shared memory

[[maybe_unused]] bool in_domain(const OccupancyInput& in) {
  return in.threads_per_block >= 1 && in.threads_per_block <= kMaxCount && in.regs_per_thread >= 1 &&
         in.regs_per_thread <= kMaxCount && in.smem_static_bytes >= 0 && in.smem_static_bytes <= kMaxBytes &&
         in.smem_dynamic_bytes >= 0 && in.smem_dynamic_bytes <= kMaxBytes &&
         (!in.carveout_percent || (*in.carveout_percent >= 0 && *in.carveout_percent <= 100));
}

// The smallest carveout step holding `bytes`, or nothing when none does.
std::optional<int64_t> carveout_step(const Device& dev, int64_t bytes) {
  for (int64_t kb : dev.smem_carveout_kb)
    if (kb * 1024 >= bytes) return kb * 1024;
  return std::nullopt;
}

// The shared memory the SM is configured with before any block is placed:
// the preference (percent of the largest configuration; the driver's default
// is the largest) rounded up to a carveout step.
int64_t preferred_config_bytes(const Device& dev, const std::optional<int64_t>& percent) {
  // The largest step is the SM's whole shared memory (check_device_for_occupancy).
  if (!percent) return dev.smem_per_sm_bytes;
  const int64_t wanted = percent ? *percent * dev.smem_per_sm_bytes / 100 : dev.smem_per_sm_bytes;
  return carveout_step(dev, wanted).value_or(dev.smem_per_sm_bytes);
}

int64_t warps_per_block(const Device& dev, int64_t threads) { return ceil_div(threads, dev.warp_size); }

int64_t blocks_by_warps(const Device& dev, int64_t threads) {
  if (threads > dev.max_threads_per_block) return 0;
  return dev.max_warps_per_sm / warps_per_block(dev, threads);
}

int64_t regs_per_warp(const Device& dev, int64_t regs) { return round_up(regs * dev.warp_size, dev.reg_alloc_unit); }

// Registers live in the sub-partitions' register files: each holds
// floor(file / per_warp) warps. At launch the hardware checks the block as if
// its warps were spread evenly over every sub-partition.
int64_t blocks_by_regs(const Device& dev, int64_t threads, int64_t regs) {
  const int64_t warps = warps_per_block(dev, threads);
  const int64_t per_warp = regs_per_warp(dev, regs);
  if (regs > dev.regs_per_thread_max) return 0;
  if (per_warp * round_up(warps, dev.sm_subpartitions) > dev.regs_per_block_max) return 0;
  const int64_t warps_per_subpartition = dev.regs_per_sm / dev.sm_subpartitions / per_warp;
  return warps_per_subpartition * dev.sm_subpartitions / warps;
}

int64_t smem_alloc_bytes(const Device& dev, int64_t smem_bytes) {
  return round_up(smem_bytes + dev.smem_reserved_per_block_bytes, dev.smem_alloc_unit_bytes);
}

// A block's allocation must fit the opt-in maximum plus the reserve.
bool smem_fits_block(const Device& dev, int64_t smem_bytes) {
  return smem_alloc_bytes(dev, smem_bytes) <= dev.smem_per_block_max_bytes + dev.smem_reserved_per_block_bytes;
}

struct SmemLimit {
  int64_t blocks = 0;
  int64_t config_bytes = 0;
};

// The preference holds as long as one block fits in it; otherwise the driver
// configures the smallest step that holds one block.
SmemLimit smem_limit(const Device& dev, int64_t smem_bytes, int64_t preferred_bytes) {
  const int64_t alloc = smem_alloc_bytes(dev, smem_bytes);
  if (!smem_fits_block(dev, smem_bytes)) return {0, preferred_bytes};
  int64_t config = preferred_bytes;
  if (config < alloc) {
    const std::optional<int64_t> step = carveout_step(dev, alloc);
    if (!step) return {0, preferred_bytes};
    config = *step;
  }
  if (alloc == 0) return {dev.max_blocks_per_sm, config};  // a limit that cannot bind
  return {config / alloc, config};
}

std::optional<std::string> check_device_for_occupancy(const Device& d) {
  const auto bad = [&d](std::string_view what) {
    return fmt::format("device '{}': {}; the occupancy rules cannot use it", d.name, what);
  };
  if (d.warp_size < 1 || d.sm_subpartitions < 1 || d.reg_alloc_unit < 1 || d.smem_alloc_unit_bytes < 1)
    return bad("warp size, sub-partitions and allocation units must be at least 1");
  if (d.max_warps_per_sm < 1 || d.max_blocks_per_sm < 1 || d.max_threads_per_block < 1 || d.regs_per_sm < 1)
    return bad("the per-SM and per-block limits must be at least 1");
  if (d.smem_reserved_per_block_bytes < 0 || d.smem_per_block_max_bytes < 0 || d.smem_per_block_default_bytes < 0)
    return bad("shared-memory sizes must not be negative");
  if (d.smem_carveout_kb.empty() || d.smem_carveout_kb.back() * 1024 != d.smem_per_sm_bytes)
    return bad("the carveout steps must end at the SM's shared memory");
  if (!std::is_sorted(d.smem_carveout_kb.begin(), d.smem_carveout_kb.end()) || d.smem_carveout_kb.front() < 0)
    return bad("the carveout steps must be ascending and not negative");
  return std::nullopt;
}

std::string bytes_text(int64_t bytes) {
  if (bytes % 1024 == 0) return fmt::format("{} B ({} KB)", bytes, bytes / 1024);
  return fmt::format("{} B", bytes);
}

}  // namespace

std::string_view to_string(Limiter l) {
  switch (l) {
    case Limiter::none: return "none";
    case Limiter::warps: return "warps";
    case Limiter::regs: return "regs";
    case Limiter::smem: return "smem";
    case Limiter::blocks: return "blocks";
  }
  return "?";
}

Occupancy occupancy(const Device& dev, const OccupancyInput& in) {
  assert(in_domain(in));
  assert(!check_device_for_occupancy(dev));
  Occupancy o;
  const int64_t smem_bytes = in.smem_static_bytes + in.smem_dynamic_bytes;
  o.warps_per_block = warps_per_block(dev, in.threads_per_block);
  o.regs_per_warp = regs_per_warp(dev, in.regs_per_thread);
  o.regs_per_block = o.regs_per_warp * o.warps_per_block;
  o.smem_per_block_bytes = smem_alloc_bytes(dev, smem_bytes);

  o.blocks_by_warps = blocks_by_warps(dev, in.threads_per_block);
  o.blocks_by_regs = blocks_by_regs(dev, in.threads_per_block, in.regs_per_thread);
  const SmemLimit smem = smem_limit(dev, smem_bytes, preferred_config_bytes(dev, in.carveout_percent));
  o.blocks_by_smem = smem.blocks;
  o.smem_config_bytes = smem.config_bytes;
  o.blocks_by_blocks = dev.max_blocks_per_sm;

  o.blocks_per_sm = std::min({o.blocks_by_warps, o.blocks_by_regs, o.blocks_by_smem, o.blocks_by_blocks});
  for (Limiter l : {Limiter::warps, Limiter::regs, Limiter::smem, Limiter::blocks}) {
    if (limits(o, l)) {
      o.limiter = l;
      break;
    }
  }
  o.active_warps = o.blocks_per_sm * o.warps_per_block;
  o.occupancy_percent = 100.0 * static_cast<double>(o.active_warps) / static_cast<double>(dev.max_warps_per_sm);
  return o;
}

bool limits(const Occupancy& o, Limiter l) {
  switch (l) {
    case Limiter::warps: return o.blocks_by_warps == o.blocks_per_sm;
    case Limiter::regs: return o.blocks_by_regs == o.blocks_per_sm;
    case Limiter::smem: return o.blocks_by_smem == o.blocks_per_sm;
    case Limiter::blocks: return o.blocks_by_blocks == o.blocks_per_sm;
    case Limiter::none: return false;
  }
  return false;
}

std::optional<std::string> check_occupancy_input(const Device& dev, const OccupancyInput& in) {
  if (auto err = check_device_for_occupancy(dev)) return err;
  if (in.threads_per_block < 1 || in.threads_per_block > dev.max_threads_per_block)
    return fmt::format("--threads {}: threads per block must be between 1 and {} on the {}", in.threads_per_block,
                       dev.max_threads_per_block, dev.name);
  if (in.regs_per_thread < 1 || in.regs_per_thread > dev.regs_per_thread_max)
    return fmt::format("--regs {}: registers per thread must be between 1 and {} on the {}", in.regs_per_thread,
                       dev.regs_per_thread_max, dev.name);
  if (in.smem_static_bytes < 0 || in.smem_dynamic_bytes < 0)
    return fmt::format("--smem {} / --smem-static {}: shared memory must not be negative", in.smem_dynamic_bytes,
                       in.smem_static_bytes);
  if (in.smem_static_bytes > dev.smem_per_block_default_bytes)
    return fmt::format(
        "--smem-static {}: static shared memory is limited to {} per block; larger buffers must be dynamic (--smem)",
        in.smem_static_bytes, bytes_text(dev.smem_per_block_default_bytes));
  if (in.smem_dynamic_bytes > kMaxBytes || !smem_fits_block(dev, in.smem_static_bytes + in.smem_dynamic_bytes))
    return fmt::format("--smem {}: {} B of shared memory per block (static + dynamic) is over the {}'s opt-in maximum "
                       "of {}",
                       in.smem_dynamic_bytes, in.smem_static_bytes + in.smem_dynamic_bytes, dev.name,
                       bytes_text(dev.smem_per_block_max_bytes));
  if (in.carveout_percent && (*in.carveout_percent < 0 || *in.carveout_percent > 100))
    return fmt::format("--carveout {}: the shared-memory carveout is a percent between 0 and 100",
                       *in.carveout_percent);
  return std::nullopt;
}

std::optional<NextStep> next_step(const Device& dev, const OccupancyInput& in) {
  const int64_t target = occupancy(dev, in).blocks_per_sm + 1;
  if (target > dev.max_blocks_per_sm) return std::nullopt;
  return bounds_for(dev, in, target);
}

NextStep bounds_for(const Device& dev, const OccupancyInput& in, int64_t target) {
  assert(in_domain(in));
  assert(target >= 1 && target <= dev.max_blocks_per_sm);
  NextStep step;
  step.blocks_per_sm = target;

  // Warps: target blocks of w warps fit in the SM's warp slots.
  const int64_t max_warps = dev.max_warps_per_sm / target;
  if (max_warps >= 1) step.max_threads_per_block = std::min(max_warps * dev.warp_size, dev.max_threads_per_block);

  // Registers: the most per thread, from the per-thread limit down.
  for (int64_t r = dev.regs_per_thread_max; r >= 1; --r) {
    if (blocks_by_regs(dev, in.threads_per_block, r) >= target) {
      step.max_regs_per_thread = r;
      break;
    }
  }

  // Shared memory: blocks depend on the bytes only through the allocation, a
  // multiple of the unit; the largest byte count of an allocation A is A - reserve.
  const int64_t preferred = preferred_config_bytes(dev, in.carveout_percent);
  const int64_t unit = dev.smem_alloc_unit_bytes;
  const int64_t reserve = dev.smem_reserved_per_block_bytes;
  for (int64_t alloc = round_up(dev.smem_per_block_max_bytes + reserve, unit); alloc >= unit; alloc -= unit) {
    const int64_t bytes = std::min(alloc - reserve, dev.smem_per_block_max_bytes);
    if (bytes < 0) break;
    if (smem_limit(dev, bytes, preferred).blocks >= target) {
      step.max_smem_bytes = bytes;
      break;
    }
  }
  return step;
}

CarveoutChoice min_carveout(const Device& dev, const OccupancyInput& in) {
  assert(in_domain(in));
  const int64_t blocks = occupancy(dev, in).blocks_per_sm;
  OccupancyInput probe = in;
  for (int64_t percent = 0; percent <= 100; ++percent) {
    probe.carveout_percent = percent;
    const Occupancy o = occupancy(dev, probe);
    if (o.blocks_per_sm == blocks) return {percent, o.smem_config_bytes};
  }
  probe.carveout_percent = 100;
  return {100, occupancy(dev, probe).smem_config_bytes};
}

}  // namespace tileplan
