#include "tileplan/occupancy.hpp"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <string>

#include <fmt/format.h>

#include "occupancy_internal.hpp"

namespace tileplan {
namespace {

constexpr int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
// Allocation units are powers of two on every device so far: a mask then
// instead of a division (a sweep rounds a few per tile). a >= 0, unit > 0.
constexpr int64_t round_up(int64_t a, int64_t unit) {
  return (unit & (unit - 1)) == 0 ? (a + unit - 1) & -unit : ceil_div(a, unit) * unit;
}
constexpr int64_t round_down(int64_t a, int64_t unit) { return a / unit * unit; }

Error bad(std::string_view param, std::string message, ErrorKind kind = ErrorKind::invalid_argument) {
  return Error{kind, std::string(param), std::move(message)};
}

Status check_range(std::string_view param, int64_t v, int64_t lo, int64_t hi) {
  if (v >= lo && v <= hi) return {};
  return bad(param, fmt::format("{} {} must be between {} and {}", param, v, lo, hi),
             v < lo ? ErrorKind::invalid_argument : ErrorKind::out_of_range);
}

// occupancy()'s domain: what the rules can compute with on any device that
// passes check_device, launchable or not.
Status check_domain(const OccupancyInput& in) {
  if (Status s = check_range("threads_per_block", in.threads_per_block, 1, kMaxOccupancyCount); !s) return s;
  if (Status s = check_range("regs_per_thread", in.regs_per_thread, 1, kMaxOccupancyCount); !s) return s;
  if (Status s = check_range("smem_static_bytes", in.smem_static_bytes, 0, kMaxOccupancyBytes); !s) return s;
  if (Status s = check_range("smem_dynamic_bytes", in.smem_dynamic_bytes, 0, kMaxOccupancyBytes); !s) return s;
  if (in.carveout_percent) return check_range("carveout_percent", *in.carveout_percent, 0, 100);
  return {};
}

Status check_args(const Device& dev, const OccupancyInput& in) {
  if (Status s = check_device(dev); !s) return s;
  return check_domain(in);
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
  // The largest step is the SM's whole shared memory (check_device).
  if (!percent) return dev.smem_per_sm_bytes;
  return carveout_step(dev, *percent * dev.smem_per_sm_bytes / 100).value_or(dev.smem_per_sm_bytes);
}

int64_t warps_per_block(const Device& dev, int64_t threads) { return ceil_div(threads, dev.warp_size); }


int64_t regs_per_warp(const Device& dev, int64_t regs) { return round_up(regs * dev.warp_size, dev.reg_alloc_unit); }

// Registers live in the sub-partitions' register files: each holds
// floor(file / per_warp) warps. At launch the hardware checks the block as if
// its warps were spread evenly over every sub-partition.
int64_t regs_blocks(const Device& dev, int64_t warps, int64_t per_warp, int64_t regs) {
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
// `alloc`: smem_alloc_bytes of the block's shared memory.
SmemLimit smem_limit(const Device& dev, int64_t alloc, int64_t preferred_bytes) {
  if (alloc > dev.smem_per_block_max_bytes + dev.smem_reserved_per_block_bytes) return {0, preferred_bytes};  // smem_fits_block
  int64_t config = preferred_bytes;
  if (config < alloc) {
    const std::optional<int64_t> step = carveout_step(dev, alloc);
    if (!step) return {0, preferred_bytes};
    config = *step;
  }
  if (alloc == 0) return {dev.max_blocks_per_sm, config};  // a limit that cannot bind
  return {config / alloc, config};
}

// The most registers per thread at which `target` blocks of `threads` fit the
// register files. blocks_by_regs >= target exactly when
//   per_warp <= floor(regs_per_sm / sub / k),  k = ceil(target * w / sub)   (the files)
//   per_warp <= floor(regs_per_block_max / roundup(w, sub))                  (the launch check)
//   regs <= regs_per_thread_max,
// and per_warp = roundup(regs * warp_size, unit) <= P exactly when
// regs <= floor(floor(P / unit) * unit / warp_size).
std::optional<int64_t> max_regs_for(const Device& dev, int64_t threads, int64_t target) {
  const int64_t w = warps_per_block(dev, threads);
  const int64_t k = ceil_div(target * w, dev.sm_subpartitions);
  const int64_t by_files = dev.regs_per_sm / dev.sm_subpartitions / k;
  const int64_t by_launch = dev.regs_per_block_max / round_up(w, dev.sm_subpartitions);
  const int64_t per_warp = round_down(std::min(by_files, by_launch), dev.reg_alloc_unit);
  const int64_t regs = std::min(per_warp / dev.warp_size, dev.regs_per_thread_max);
  if (regs < 1) return std::nullopt;
  return regs;
}

// The most bytes (static + dynamic) at which `target` blocks fit the SM's
// shared memory. Blocks depend on the bytes only through the allocation A (a
// multiple of the unit, at most smem_per_block_max + reserve), and the most
// bytes of an allocation A are A - reserve. blocks_by_smem >= target exactly when
//   A <= preferred and preferred / A >= target:  A <= preferred / target, or
//   A >  preferred, the smallest step holding A is S (prev < A <= S) and S / A >= target:
//        max(prev, preferred) < A <= S / target,
// so the answer is the largest A over the preference and each step: O(steps).
// Bytes 0 with no reserve allocate nothing, a limit that cannot bind.
std::optional<int64_t> max_smem_for(const Device& dev, int64_t preferred, int64_t target) {
  const int64_t unit = dev.smem_alloc_unit_bytes;
  const int64_t reserve = dev.smem_reserved_per_block_bytes;
  const int64_t lowest = round_up(reserve, unit);  // the allocation of 0 bytes
  const int64_t highest = round_down(dev.smem_per_block_max_bytes + reserve, unit);
  int64_t best = 0;  // the largest allocation found, 0 for none
  const auto consider = [&](int64_t at_most, int64_t above) {
    const int64_t a = round_down(std::min(at_most, highest), unit);
    if (a > above && a >= lowest && a > best) best = a;
  };
  consider(preferred / target, 0);
  int64_t previous_step = 0;
  for (int64_t kb : dev.smem_carveout_kb) {
    const int64_t step = kb * 1024;
    consider(step / target, std::max(previous_step, preferred));
    previous_step = step;
  }
  if (best > 0) return best - reserve;
  if (reserve == 0) return 0;
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

ThreadRegisterLimits thread_register_limits(const Device& dev, int64_t threads_per_block, int64_t regs_per_thread) {
  ThreadRegisterLimits f;
  f.warps_per_block = warps_per_block(dev, threads_per_block);
  f.regs_per_warp = regs_per_warp(dev, regs_per_thread);
  f.blocks_by_warps = threads_per_block > dev.max_threads_per_block ? 0 : dev.max_warps_per_sm / f.warps_per_block;
  f.blocks_by_regs = regs_blocks(dev, f.warps_per_block, f.regs_per_warp, regs_per_thread);
  return f;
}

Occupancy occupancy_unchecked(const Device& dev, const OccupancyInput& in, const ThreadRegisterLimits& fixed) {
  assert(check_args(dev, in).ok());
  Occupancy o;
  const int64_t smem_bytes = in.smem_static_bytes + in.smem_dynamic_bytes;
  o.warps_per_block = fixed.warps_per_block;
  o.regs_per_warp = fixed.regs_per_warp;
  o.regs_per_block = o.regs_per_warp * o.warps_per_block;
  o.smem_per_block_bytes = smem_alloc_bytes(dev, smem_bytes);

  o.blocks_by_warps = fixed.blocks_by_warps;
  o.blocks_by_regs = fixed.blocks_by_regs;
  const SmemLimit smem = smem_limit(dev, o.smem_per_block_bytes, preferred_config_bytes(dev, in.carveout_percent));
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

Occupancy occupancy_unchecked(const Device& dev, const OccupancyInput& in) {
  return occupancy_unchecked(dev, in, thread_register_limits(dev, in.threads_per_block, in.regs_per_thread));
}

Result<Occupancy> occupancy(const Device& dev, const OccupancyInput& in) {
  if (Status s = check_args(dev, in); !s) return s;
  return occupancy_unchecked(dev, in);
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

Status check_occupancy_input(const Device& dev, const OccupancyInput& in) {
  if (Status s = check_device(dev); !s) return s;
  if (in.threads_per_block < 1 || in.threads_per_block > dev.max_threads_per_block)
    return bad("threads_per_block",
               fmt::format("threads_per_block {}: threads per block must be between 1 and {} on the {}",
                           in.threads_per_block, dev.max_threads_per_block, dev.name));
  if (in.regs_per_thread < 1 || in.regs_per_thread > dev.regs_per_thread_max)
    return bad("regs_per_thread", fmt::format("regs_per_thread {}: registers per thread must be between 1 and {} on the {}",
                                              in.regs_per_thread, dev.regs_per_thread_max, dev.name));
  if (in.smem_static_bytes < 0)
    return bad("smem_static_bytes", fmt::format("smem_static_bytes {}: shared memory must not be negative",
                                                in.smem_static_bytes));
  if (in.smem_dynamic_bytes < 0)
    return bad("smem_dynamic_bytes", fmt::format("smem_dynamic_bytes {}: shared memory must not be negative",
                                                 in.smem_dynamic_bytes));
  if (in.smem_static_bytes > dev.smem_per_block_default_bytes)
    return bad("smem_static_bytes",
               fmt::format("smem_static_bytes {}: static shared memory is limited to {} per block; larger buffers "
                           "must be dynamic",
                           in.smem_static_bytes, bytes_text(dev.smem_per_block_default_bytes)));
  // Static is within 0..2^40 here: the sum overflows only for a dynamic size near 2^63.
  if (in.smem_dynamic_bytes > kMaxOccupancyBytes || !smem_fits_block(dev, in.smem_static_bytes + in.smem_dynamic_bytes)) {
    const std::string total = in.smem_dynamic_bytes > INT64_MAX - in.smem_static_bytes
                                  ? fmt::format("over {}", INT64_MAX)
                                  : fmt::format("{}", in.smem_static_bytes + in.smem_dynamic_bytes);
    return bad("smem_dynamic_bytes",
               fmt::format("smem_dynamic_bytes {}: {} B of shared memory per block (static + dynamic) is over the "
                           "{}'s opt-in maximum of {}",
                           in.smem_dynamic_bytes, total, dev.name, bytes_text(dev.smem_per_block_max_bytes)),
               ErrorKind::out_of_range);
  }
  if (in.carveout_percent && (*in.carveout_percent < 0 || *in.carveout_percent > 100))
    return bad("carveout_percent",
               fmt::format("carveout_percent {}: the shared-memory carveout is a percent between 0 and 100",
                           *in.carveout_percent));
  assert(check_domain(in).ok());
  return {};
}

NextStep bounds_for_unchecked(const Device& dev, const OccupancyInput& in, int64_t target) {
  assert(check_args(dev, in).ok());
  assert(target >= 1 && target <= dev.max_blocks_per_sm);
  NextStep step;
  step.blocks_per_sm = target;
  // Warps: target blocks of w warps fit in the SM's warp slots.
  const int64_t max_warps = dev.max_warps_per_sm / target;
  if (max_warps >= 1) step.max_threads_per_block = std::min(max_warps * dev.warp_size, dev.max_threads_per_block);
  step.max_regs_per_thread = max_regs_for(dev, in.threads_per_block, target);
  step.max_smem_bytes = max_smem_for(dev, preferred_config_bytes(dev, in.carveout_percent), target);
  return step;
}

Result<NextStep> bounds_for(const Device& dev, const OccupancyInput& in, int64_t blocks_per_sm) {
  if (Status s = check_args(dev, in); !s) return s;
  if (Status s = check_range("blocks_per_sm", blocks_per_sm, 1, dev.max_blocks_per_sm); !s) return s;
  return bounds_for_unchecked(dev, in, blocks_per_sm);
}

Result<std::optional<NextStep>> next_step(const Device& dev, const OccupancyInput& in) {
  if (Status s = check_args(dev, in); !s) return s;
  const int64_t target = occupancy_unchecked(dev, in).blocks_per_sm + 1;
  if (target > dev.max_blocks_per_sm) return std::optional<NextStep>{};
  return std::optional<NextStep>{bounds_for_unchecked(dev, in, target)};
}

Result<CarveoutChoice> min_carveout(const Device& dev, const OccupancyInput& in) {
  if (Status s = check_args(dev, in); !s) return s;
  const int64_t blocks = occupancy_unchecked(dev, in).blocks_per_sm;
  OccupancyInput probe = in;
  for (int64_t percent = 0; percent <= 100; ++percent) {
    probe.carveout_percent = percent;
    const Occupancy o = occupancy_unchecked(dev, probe);
    if (o.blocks_per_sm == blocks) return CarveoutChoice{percent, o.smem_config_bytes};
  }
  probe.carveout_percent = 100;
  return CarveoutChoice{100, occupancy_unchecked(dev, probe).smem_config_bytes};
}

}  // namespace tileplan
