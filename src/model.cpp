#include "tileplan/model.hpp"

#include <algorithm>
#include <cassert>
#include <array>
#include <cmath>

#include <fmt/format.h>

#include "detail.hpp"

namespace tileplan {
namespace {

using detail::ceil_div;

// The MMA unit's tile: warpgroups (wgmma) or warps (mma) are laid along M
// first, one instruction row-block (64 or 16 rows) each, then along N.
// (tile, threads) -> (rows, columns) of one unit.
struct UnitTile {
  double rows, cols;
};
UnitTile unit_tile(const TileConfig& cfg) {
  const InstrShape s = instr_shape(cfg.instr);
  const int64_t units = std::max<int64_t>(cfg.threads / s.threads, 1);
  const int64_t along_m = std::clamp<int64_t>(cfg.block_m / std::max<int64_t>(s.m, 1), 1, units);
  const int64_t along_n = std::max<int64_t>(units / along_m, 1);
  return {static_cast<double>(cfg.block_m) / static_cast<double>(along_m),
          static_cast<double>(cfg.block_n) / static_cast<double>(along_n)};
}

}  // namespace

std::string_view to_string(TimeBound b) {
  switch (b) {
    case TimeBound::none: return "";
    case TimeBound::mma: return "mma";
    case TimeBound::l2: return "l2";
    case TimeBound::latency: return "latency";
    case TimeBound::dram: return "dram";
    case TimeBound::narrow: return "narrow";
    case TimeBound::power: return "power";
  }
  return "?";
}

Result<Prediction> predict(const Device& dev, const GemmProblem& p, const TileConfig& cfg, int64_t blocks_per_sm,
                           bool spills, const KernelFamily& family) {
  for (const Status& s : {check_device(dev), check_problem(p), check_config(cfg), check_family(family)})
    if (!s.ok()) return s.error();
  if (blocks_per_sm < 1 || blocks_per_sm > dev.max_blocks_per_sm)
    return Error{ErrorKind::invalid_argument, "blocks_per_sm",
                 fmt::format("blocks_per_sm {} must be between 1 and the device's {}", blocks_per_sm,
                             dev.max_blocks_per_sm)};
  if (cfg.instr != Instr::simt && tensor_tflops(dev, p.dtype) <= 0)
    return Error{ErrorKind::invalid_argument, "dtype",
                 fmt::format("dtype {} has no tensor-core instruction on device '{}' (compute capability {})",
                             to_string(p.dtype), dev.name, dev.compute_capability)};
  if (Status s = check_split(p, cfg, family); !s.ok()) return s.error();
  const TimeConstants time = time_for(family, p.dtype);
  const RegisterEstimate r = detail::estimate_registers(registers_for(family, p.dtype, cfg.instr), dev, cfg, p);
  const TileCosts t =
      detail::tile_costs(dev, cfg, p, blocks_per_sm, spills, time, spills ? r.spilled_registers : 0.0, r.epilogue_spilled);
  return detail::predict(dev, p, t, time, family.group_m, detail::split_of(cfg, family));
}

Status check_split_model(int64_t split_k, const KernelFamily& family) {
  if (split_k == 1 || family.split_k) return {};
  return Error{ErrorKind::invalid_argument, "split_k",
               fmt::format("split_k {}: family '{}' has no split-K model (split_k must be 1)", split_k, family.name)};
}

Status check_split(const GemmProblem& p, const TileConfig& cfg, const KernelFamily& family) {
  if (cfg.split_k == 1) return {};
  if (Status s = check_split_model(cfg.split_k, family); !s.ok()) return s;
  const int64_t kt = detail::ceil_div(p.k, cfg.block_k);
  if (cfg.split_k > kt)
    return Error{ErrorKind::invalid_argument, "split_k",
                 fmt::format("split_k {} exceeds the {} K tiles of K {} in block_k {}: a split would have no K",
                             cfg.split_k, kt, p.k, cfg.block_k)};
  return {};
}

Result<double> grouped_dram_bytes(const Device& dev, const GemmProblem& p, int64_t block_m, int64_t group_m,
                                  int64_t block_n, double near_share, double far_share) {
  for (const Status& s : {check_device(dev), check_problem(p)})
    if (!s.ok()) return s.error();
  if (block_m < 1 || block_m > kMaxTileValue)
    return Error{ErrorKind::invalid_argument, "block_m",
                 fmt::format("block_m {} must be between 1 and {}", block_m, kMaxTileValue)};
  if (group_m < 1 || group_m > kMaxTileValue)
    return Error{ErrorKind::invalid_argument, "group_m",
                 fmt::format("group_m {} must be between 1 and {}", group_m, kMaxTileValue)};
  if (block_n < 0 || block_n > kMaxTileValue)
    return Error{ErrorKind::invalid_argument, "block_n",
                 fmt::format("block_n {} must be between 0 (the room rule) and {}", block_n, kMaxTileValue)};
  if (Status s = detail::check_l2_reuse_shares(near_share, far_share); !s.ok()) return s.error();
  return detail::grouped_dram_bytes(dev, p, block_m, group_m, block_n, near_share, far_share);
}

namespace detail {

Status check_l2_reuse_shares(double near_share, double far_share) {
  if (!(near_share >= 0 && near_share <= 64))
    return Error{ErrorKind::invalid_argument, "l2_reuse_near_share",
                 fmt::format("l2_reuse_near_share {} must be between 0 and 64 L2s", near_share)};
  if ((near_share > 0 || far_share > 0) && !(far_share > near_share && far_share <= 64))
    return Error{ErrorKind::invalid_argument, "l2_reuse_far_share",
                 fmt::format("l2_reuse_far_share {} must exceed l2_reuse_near_share {} and be at most 64 L2s (both 0: "
                             "the room rule): all of B stays below the near share, none from the far one",
                             far_share, near_share)};
  return {};
}

TileCosts tile_costs(const Device& dev, const TileConfig& cfg, const GemmProblem& p, int64_t blocks_per_sm,
                     bool spills, const TimeConstants& k, double spilled_registers, double epilogue_spilled) {
  const ProblemAccess acc = problem_access(p);
  TileCosts t = unstaged_tile_costs(dev, cfg, p, acc, spills, k, spilled_registers, epilogue_spilled);
  stage_tile_costs(t, dev, cfg, p, acc, blocks_per_sm, k);
  return t;
}

TileCosts unstaged_tile_costs(const Device& dev, const TileConfig& cfg, const GemmProblem& p, const ProblemAccess& acc,
                              bool spills, const TimeConstants& k, double spilled_registers, double epilogue_spilled) {
  TileCosts t;
  t.block_m = cfg.block_m;
  t.block_n = cfg.block_n;
  t.block_k = cfg.block_k;
  t.spills = spills;
  // MMA rate of one SM: the device's peak share (tensor cores, or the CUDA
  // cores' fp32 FMA for simt), scaled by the unit tile's efficiency.
  const UnitTile u = unit_tile(cfg);
  const double efficiency = u.cols / (u.cols + k.mma_n_half);
  const double peak_tflops = cfg.instr == Instr::simt ? dev.simt_fp32_tflops : tensor_tflops(dev, p.dtype);
  // A tile that compiles to mma.sync (16 or 32 rows) reaches mma_rate_share
  // of the tensor rate the device's peak states for wgmma (0: the full rate;
  // fitted on data/h200-triton-splitk-bm16-fresh/guard, docs/model.md §3,
  // "mma tiles").
  const double rate_share = cfg.instr == Instr::mma && k.mma_rate_share > 0 ? k.mma_rate_share : 1.0;
  t.mma_rate = static_cast<float>(rate_share);
  t.mma_tile = cfg.instr == Instr::mma;
  t.simt = cfg.instr == Instr::simt;
  const double sm_flops_per_us = peak_tflops * 1e6 * rate_share / static_cast<double>(dev.sm_count);
  const double flops = 2.0 * static_cast<double>(cfg.block_m * cfg.block_n * cfg.block_k);
  // B K-major in shared memory (stored col, or any fp8 or tf32 B: wgmma reads
  // B K-major only) slows a block of two or more warpgroups whose tile is
  // wider than 128 columns (measured: data/h200-triton-v5a and -v5b, rc
  // against rr): the assembler serializes its wgmma (one arrive and wait per
  // instruction; ptxas C7515). In the compiled kernels it does so for 128x256
  // and 64x256 with 8 warps, not for 64x256 with 4 (one warpgroup) or 256x128
  // with 8; and not where C is stored with narrow stores, where the tile runs
  // at the speed of an N-major one (data/h200-profile-wgmma-serial).
  const bool b_kmajor = p.b_layout == Layout::col || is_fp8(p.dtype) || p.dtype == DType::tfloat32;
  const int64_t warpgroups = cfg.threads / std::max<int64_t>(instr_shape(cfg.instr).threads, 1);
  const bool serialized =
      b_kmajor && cfg.instr == Instr::wgmma && warpgroups >= 2 && acc.c.vector_bytes >= kMaxVectorBytes;
  const double wide = serialized ? std::max(0.0, static_cast<double>(cfg.block_n) - 128.0) / 128.0 : 0.0;
  if (wide > 0 && k.kmajor_wide_n > 0) t.serialized_wgmma_cols = cfg.block_n;
  // One warpgroup 256 columns wide (64x256 with 4 warps) with B N-major in
  // shared memory: under Nsight Compute it is SM-bound and issues about 20%
  // more instructions than with B K-major (data/h200-profile-wide-unit); in
  // grids of at most one program per SM, where the MMA binds, it runs
  // 1.03-1.12x the time of 128x128 with 4 warps, which the unit's efficiency
  // alone has 7% faster (docs/model.md §3, "The same lone warpgroup with B
  // N-major"; fitted on the calibration shapes, judged on data/h200-triton-v42).
  const bool nmajor_wide_unit = !b_kmajor && cfg.instr == Instr::wgmma && warpgroups == 1 && u.cols >= 256.0;
  t.mma_us = flops / (sm_flops_per_us * efficiency) * (1.0 + k.kmajor_wide_n * wide) *
                 (nmajor_wide_unit ? 1.0 + k.nmajor_wide_unit_cost : 1.0) +
             k.iteration_cycles / dev.boost_clock_mhz;
  t.stage_bytes = static_cast<double>((cfg.block_m + cfg.block_n) * cfg.block_k * p.elem_bytes());
  // The most one program's stage arrives at (docs/model.md §3, "The stage's
  // copy rate"; fitted on data/h200-triton-v43, judged on -v44). An mma
  // tile's stages are copied the same way (cp.async) and take
  // mma_copy_bytes_per_cycle, which no input type overrides: fp8's own
  // constants were fitted on wgmma tiles without the cap.
  // An mma tile's cap grows with its warps as (warps / 4)^mma_copy_warp_power:
  // one block streaming with cp.async draws more with more warps to issue the
  // copies (data/h200-profile-sm-copy: 14.7 -> 20.3 bytes a cycle at 16 KB
  // stages, 4 -> 8 warps), and a lone 16-row program with 8 warps runs
  // faster than with 4 (docs/model.md §3, "mma tiles").
  const double mma_warp_scale =
      cfg.instr == Instr::mma && k.mma_copy_warp_power != 0 && cfg.threads != 128  // 1 at 4 warps
          ? std::pow(static_cast<double>(cfg.threads) / 128.0, k.mma_copy_warp_power)
          : 1.0;
  t.copy_bytes_per_us = (cfg.instr == Instr::wgmma  ? k.copy_bytes_per_cycle
                         : cfg.instr == Instr::mma ? k.mma_copy_bytes_per_cycle * mma_warp_scale
                                                   : 0.0) *
                        dev.boost_clock_mhz;
  t.copy_warp_scale = cfg.instr == Instr::mma ? mma_warp_scale : 1.0;
  // A of fewer than 16 rows: the tile repeats A's M rows, every copy
  // requests the same lines, and those requests cost the L2 one_row_a_extra / M
  // more per byte of A's stage (docs/model.md §3, "A of few rows").
  const bool repeats = acc.a.repeated_rows && cfg.block_m > p.m;
  t.a_row_copies = repeats ? static_cast<double>(cfg.block_m) / static_cast<double>(p.m) : 0.0;
  t.repeated_rows_a_bytes = repeats ? k.one_row_a_extra / static_cast<double>(p.m) *
                                          static_cast<double>(cfg.block_m * cfg.block_k * p.elem_bytes())
                                    : 0.0;
  // The L2 serves an asynchronous copy's rows in read requests of at most one
  // cache line each: a row shorter than a line (K-major with block_K ·
  // element size < 128 bytes) is a request of fewer sectors, and the L2's
  // request rate binds before its bandwidth (data/h200-profile-partial-lines).
  // A stage's bytes and its requests, at l2_request_bytes each, join in a
  // smooth maximum of order overlap_power (docs/model.md §3).
  {
    const int64_t line = std::max<int64_t>(dev.cache_line_bytes, 1);
    double short_rows = 0;
    const auto requests = [&](const OperandAccess& o, int64_t rows, int64_t extent) {
      if (o.through_registers) return 0.0;
      t.l2_async_bytes += static_cast<double>(rows * extent * p.elem_bytes());
      if (extent * p.elem_bytes() < line) short_rows += static_cast<double>(rows);
      return static_cast<double>(rows * ceil_div(extent * p.elem_bytes(), line));
    };
    t.l2_requests =
        (p.a_layout == Layout::row ? requests(acc.a, cfg.block_m, cfg.block_k) : requests(acc.a, cfg.block_k, cfg.block_m)) +
        (p.b_layout == Layout::row ? requests(acc.b, cfg.block_k, cfg.block_n) : requests(acc.b, cfg.block_n, cfg.block_k));
    t.l2_stage_bytes = k.l2_request_bytes > 0
                           ? smooth_max(t.stage_bytes + t.repeated_rows_a_bytes, k.l2_request_bytes * t.l2_requests, k.overlap_power)
                           : t.stage_bytes + t.repeated_rows_a_bytes;
    // One warpgroup 256 columns wide (64x256 with 4 warps) with B stored
    // K-major and copied asynchronously, C stored with 16-byte vectors (the
    // nn.Linear layout): the model has it L2-bound, and it runs about 10%
    // faster than predicted against the other near-best tiles of its shape,
    // where with B N-major it does not (data/h200-triton-v39; docs/model.md
    // §3, "A lone warpgroup 256 columns wide"). Under Nsight Compute it is
    // SM-bound and runs 7% fewer SM cycles than with B N-major
    // (data/h200-profile-wide-unit): the saving prices that where the model
    // has the tile bound, its L2 cost. Not with C stored narrow, whose
    // epilogue the model prices apart.
    if (p.b_layout == Layout::col && cfg.instr == Instr::wgmma && warpgroups == 1 && u.cols >= 256.0 &&
        !acc.b.through_registers && acc.c.vector_bytes >= kMaxVectorBytes)
      t.l2_stage_bytes *= 1.0 - k.kmajor_wide_unit_saving;
    // A tile compiled to mma.sync whose copied rows are shorter than a line:
    // under Nsight Compute a program copying half-line rows draws about 8
    // bytes a cycle an SM (7.1 to 7.9; full lines 10 to 15) and is SM-bound
    // where the same bytes in full lines are DRAM-bound
    // (data/h100-profile-short-rows, data/h100-profile-fp8-wide-mma): each
    // such row's request busies the SM short_row_request_cycles every step
    // (docs/model.md §3, "Rows shorter than a line in an mma tile").
    if (t.mma_tile && k.short_row_request_cycles > 0) {
      t.short_row_requests = short_rows;
      t.short_row_us = short_rows * k.short_row_request_cycles / dev.boost_clock_mhz;
    }
  }
  // Operands that go through registers: their narrow loads (one warp-wide
  // instruction per 32 vectors) cost issue cycles every iteration.
  const auto warp_accesses = [](int64_t elems, int64_t elem_bytes, int64_t vector_bytes) {
    return static_cast<double>(elems * elem_bytes) / static_cast<double>(vector_bytes) / 32.0;
  };
  const double loads_a =
      acc.a.through_registers ? warp_accesses(cfg.block_m * cfg.block_k, p.elem_bytes(), acc.a.vector_bytes) : 0.0;
  const double loads_b =
      acc.b.through_registers ? warp_accesses(cfg.block_k * cfg.block_n, p.elem_bytes(), acc.b.vector_bytes) : 0.0;
  t.through_registers = acc.a.through_registers || acc.b.through_registers;
  // Both operands through registers (no asynchronous copy at all): their own
  // cost per load, more for an N-contiguous B, and a program waits for its
  // loads, then runs its MMAs, every iteration (docs/model.md §3).
  t.paired_narrow = acc.a.through_registers && acc.b.through_registers &&
                    (k.paired_narrow_cycles > 0 || k.paired_b_mn_cycles > 0);
  // Exactly one operand through registers: the other is still copied
  // asynchronously, stages - 1 ahead (its buffers scale with the stages).
  t.single_narrow = acc.a.through_registers != acc.b.through_registers;
  t.narrow_b_mn = t.single_narrow && acc.b.through_registers && !acc.b.async_copy && p.b_layout == Layout::row;
  // Of those, B's rows starting 16-byte aligned in a kernel that spills
  // registers: each stage beyond two costs it aligned_b_stage_share of a
  // step more (data/h100-profile-row-stride; docs/model.md §3).
  t.aligned_b_rows = t.narrow_b_mn && (spilled_registers > 0 || epilogue_spilled > 0) &&
                     rows_16_byte_aligned(acc.b, p.elem_bytes());
  const bool paired_b_mn = t.paired_narrow && p.b_layout == Layout::row;
  t.narrow_us = ((loads_a + loads_b) * (t.paired_narrow ? k.paired_narrow_cycles : k.narrow_access_cycles) +
                 (paired_b_mn ? loads_b * k.paired_b_mn_cycles : 0.0)) / dev.boost_clock_mhz;
  // Of those, paired_narrow_cycles' share occupies the SM's issue slots but
  // not the program's own path (the loads of one iteration overlap each other).
  t.issue_only_us = t.paired_narrow ? (loads_a + loads_b) * k.paired_narrow_cycles / dev.boost_clock_mhz : 0.0;
  // B transposed on chip (tf32 B N-contiguous): issue cycles per 32 elements
  // of every B tile, in the program's issue path like the narrow loads.
  if (acc.b.transposed) {
    t.transpose_us = static_cast<double>(cfg.block_k * cfg.block_n) / 32.0 * k.transpose_cycles / dev.boost_clock_mhz;
    t.narrow_us += t.transpose_us;
  }
  // Registers spilled by held operand tiles: a local store and load per
  // spilled register, warp and iteration, in the issue path; the kernel is
  // otherwise priced like one that does not spill.
  if (spills && spilled_registers > 0 && prices_held_spills(k)) {
    // With both operands through registers and B N-contiguous, the first
    // registers spilled cost nothing measurable (docs/model.md §3).
    const double priced = std::max(0.0, spilled_registers - (paired_b_mn ? k.paired_b_mn_spill_free : 0.0));
    t.spill_us = priced * static_cast<double>(cfg.threads) / 32.0 * k.spill_access_cycles / dev.boost_clock_mhz;
    t.narrow_us += t.spill_us;
    t.spills = false;
  }
  // The cache lines of one iteration's tiles of the operands through
  // registers, which the L1 a block keeps holds or not (stage_tile_costs).
  t.narrow_loads = loads_a + loads_b;
  if (t.through_registers) {
    const double line = static_cast<double>(dev.cache_line_bytes);
    const auto footprint = [&](const OperandAccess& o, int64_t rows, int64_t extent) {
      if (!o.through_registers) return 0.0;
      // A row of a leading dimension not a multiple of 16 bytes starts anywhere in a line.
      const double lines = static_cast<double>(extent * p.elem_bytes()) / line + (o.ld_divisible ? 0.0 : 1.0);
      return static_cast<double>(rows) * lines * line;
    };
    t.narrow_footprint_bytes =
        (p.a_layout == Layout::row ? footprint(acc.a, cfg.block_m, cfg.block_k)
                                   : footprint(acc.a, cfg.block_k, cfg.block_m)) +
        (p.b_layout == Layout::row ? footprint(acc.b, cfg.block_k, cfg.block_n)
                                   : footprint(acc.b, cfg.block_n, cfg.block_k));
  }
  if (acc.c.vector_bytes < kMaxVectorBytes)
    t.narrow_store_us = warp_accesses(cfg.block_m * cfg.block_n, p.out_bytes(), acc.c.vector_bytes) *
                        k.narrow_access_cycles / dev.boost_clock_mhz;
  // Registers the epilogue spills: a local store and load per register and
  // warp, once per tile.
  t.epilogue_spill_us =
      epilogue_spilled * static_cast<double>(cfg.threads) / 32.0 * k.epilogue_spill_cycles / dev.boost_clock_mhz;
  t.c_tile_bytes = static_cast<double>(cfg.block_m * cfg.block_n * p.out_bytes());
  return t;
}

void stage_tile_costs(TileCosts& t, const Device& dev, const TileConfig& cfg, const GemmProblem& p,
                      const ProblemAccess& acc, int64_t blocks_per_sm, const TimeConstants& k) {
  t.stages = cfg.stages;
  t.blocks_per_sm = std::max<int64_t>(blocks_per_sm, 1);
  // The L1 a block keeps against the cache lines of one iteration's tiles of
  // the operands through registers (their loads go through L1; asynchronous
  // copies bypass it): the share s that does not fit misses, and each of those
  // operands' loads costs l1_miss_cycles · s² more (docs/model.md §3).
  if (t.through_registers) {
    const int64_t smem = allocated_smem_bytes(cfg, p, acc);
    t.carveout_bytes = carveout_bytes(dev, smem, t.blocks_per_sm);
    t.l1_bytes = l1_left_per_block(dev, t.carveout_bytes, t.blocks_per_sm);
    t.l1_short = t.narrow_footprint_bytes > 0 ? std::clamp(1.0 - t.l1_bytes / t.narrow_footprint_bytes, 0.0, 1.0) : 0.0;
    // Squared: the hit rate falls slowly while most of the lines still fit
    // (on the calibration cases the square fits better than the share itself
    // or a share past a threshold: docs/model.md §3).
    t.l1_miss_us = t.narrow_loads * k.l1_miss_cycles * t.l1_short * t.l1_short / dev.boost_clock_mhz;
    t.narrow_us += t.l1_miss_us;
  }
}

int64_t carveout_bytes(const Device& dev, int64_t smem_bytes, int64_t blocks) {
  const int64_t top = dev.smem_carveout_kb.back();
  // Above the default per-block size the kernel opts in and the driver
  // configures the largest step, whatever the blocks (Device's rule source).
  if (smem_bytes > dev.smem_per_block_default_bytes) return top * 1024;
  const int64_t need = blocks * (smem_bytes + dev.smem_reserved_per_block_bytes);
  const int64_t floor_kb = blocks >= 2 ? dev.carveout_multi_block_min_kb : 0;
  for (int64_t kb : dev.smem_carveout_kb)
    if (kb * 1024 >= need && kb >= floor_kb) return kb * 1024;
  return top * 1024;
}

double l1_left_per_block(const Device& dev, int64_t carveout, int64_t blocks) {
  const int64_t l1 = std::max<int64_t>(dev.l1_smem_per_sm_bytes - carveout, 0);
  return static_cast<double>(l1) / static_cast<double>(std::max<int64_t>(blocks, 1));
}

double l1_bytes_per_block(const Device& dev, int64_t smem_bytes, int64_t blocks) {
  return l1_left_per_block(dev, carveout_bytes(dev, smem_bytes, blocks), blocks);
}

double grouped_dram_bytes(const Device& dev, const GemmProblem& p, int64_t block_m, int64_t group_m,
                          int64_t block_n, double near_share, double far_share) {
  const double e = static_cast<double>(p.elem_bytes());
  const double m = static_cast<double>(p.m), n = static_cast<double>(p.n), kk = static_cast<double>(p.k);
  const int64_t tiles_m = ceil_div(p.m, block_m);
  const int64_t group = std::max<int64_t>(std::min(group_m, tiles_m), 1);
  const double groups = static_cast<double>(ceil_div(tiles_m, group));
  const double a_bytes = m * kk * e, b_bytes = n * kk * e, c_bytes = m * n * static_cast<double>(p.out_bytes());
  const double a_group = static_cast<double>(group * block_m) * kk * e;
  const double l2 = static_cast<double>(dev.l2_bytes);
  double kept = 0;
  if (block_n > 0 && far_share > 0) {
    // B's reuse in L2 between program groups, as measured (docs/model.md §3):
    // all of B stays while the reuse distance (B, a group's rows of A and its
    // tile rows of C) is within near_share of the L2, none from far_share,
    // linear between; and all of it where consecutive
    // groups run together: a grid of one wave, or the share of the SMs that a
    // group's programs leave to the next.
    const double c_group = static_cast<double>(group * block_m) * n * static_cast<double>(p.out_bytes());
    const double reuse = b_bytes + a_group + c_group;
    const double near = near_share * l2, far = far_share * l2;
    const int64_t tiles_n = ceil_div(p.n, block_n);
    const double sms = static_cast<double>(dev.sm_count);
    const double together =
        tiles_m * tiles_n <= dev.sm_count
            ? 1.0
            : std::clamp(1.0 - static_cast<double>(group * tiles_n) / sms, 0.0, 1.0);
    kept = together + (1.0 - together) * std::clamp((far - reuse) / (far - near), 0.0, 1.0);
  } else {
    // B stays in L2 across groups when it fits beside one group's rows of A.
    kept = std::clamp((l2 - a_group) / b_bytes, 0.0, 1.0);
  }
  const double b_reads = 1.0 + (groups - 1.0) * (1.0 - kept);
  return a_bytes + b_bytes * b_reads + c_bytes;
}

namespace {

// max(a, b) · g(min/max) with g(r) = (1 + r^p)^(1/p): the smooth maximum
// (a^p + b^p)^(1/p) for a, b >= 0; p = 0 is the plain maximum. g is smooth
// on [0, 1] and the sweep calls this twice per configuration, where two
// pows doubled the calibrated sweep's time: g is tabulated once per order
// (kSmoothSteps + 1 points, per thread, the last four orders kept) and
// interpolated linearly, within 2e-7 of the exact value at p = 5.5 and 2e-6
// at p = 64 (tests/unit/overlap_power_test.cpp).
constexpr int kSmoothSteps = 1024;
}  // namespace
struct SmoothTable {
  double p = -1;
  bool graded = false;  // the order graded from p at r = 0 to 2 at r = 1 (sm_overlap_power)
  std::array<double, kSmoothSteps + 1> g{};
};
namespace {
// The order at r = lo/hi: p, or graded, p - (p - 2)·r.
inline double order_at(double p, bool graded, double r) { return graded ? p - (p - 2.0) * r : p; }
// The last four tables, per thread; a grid's terms fetch the two a
// prediction reads (GridTerms; a thread_local access is a call in
// position-independent code).
struct SmoothCache {
  std::array<SmoothTable, 4> tables;
  std::size_t next = 0;
  // `keep`: a table the caller still holds, never the one replaced.
  const SmoothTable& get(double p, bool graded = false, const SmoothTable* keep = nullptr) {
    for (const SmoothTable& t : tables)
      if (t.p == p && t.graded == graded) return t;
    if (&tables[next] == keep) next = (next + 1) % tables.size();
    SmoothTable& t = tables[next];
    next = (next + 1) % tables.size();
    for (int i = 0; i <= kSmoothSteps; ++i) {
      const double r = static_cast<double>(i) / kSmoothSteps;
      const double q = order_at(p, graded, r);
      t.g[static_cast<std::size_t>(i)] = std::pow(1.0 + std::pow(r, q), 1.0 / q);
    }
    t.p = p;
    t.graded = graded;
    return t;
  }
};
inline SmoothCache& smooth_cache() {
  thread_local SmoothCache cache;
  return cache;
}
inline const SmoothTable& smooth_table(double p, bool graded = false) { return smooth_cache().get(p, graded); }

// smooth_max with its order's table already found (p > 0).
inline double smooth_max_of(const SmoothTable& t, double a, double b) {
  const double hi = std::max(a, b), lo = std::min(a, b);
  if (!(hi > 0)) return hi;
  const double r = lo / hi;
  const double x = (r > 0 ? std::min(r, 1.0) : 0.0) * kSmoothSteps;  // NaN reads as 0
  const int i = std::min(static_cast<int>(x), kSmoothSteps - 1);
  const double f = x - i;
  const auto at = [&](int j) { return t.g[static_cast<std::size_t>(j)]; };
  return hi * (at(i) + f * (at(i + 1) - at(i)));
}

}  // namespace

double smooth_max(double a, double b, double p) {
  if (p <= 0) return std::max(a, b);
  return smooth_max_of(smooth_table(p), a, b);
}

double smooth_max_graded(double a, double b, double p) {
  if (p <= 0) return std::sqrt(a * a + b * b);
  return smooth_max_of(smooth_table(p, true), a, b);
}

GridTerms grid_terms(const Device& dev, const GemmProblem& p, int64_t block_m, int64_t block_n, const TimeConstants& k,
                     int64_t group_m) {
  GridTerms g;
  g.block_m = block_m;
  g.block_n = block_n;
  g.tiles_m = ceil_div(p.m, block_m);
  g.tiles_n = ceil_div(p.n, block_n);
  // DRAM traffic, and how much of a stage misses L2: each A row-panel is read
  // by tiles_n programs, each B column-panel by tiles_m programs per reload.
  g.dram = detail::grouped_dram_bytes(dev, p, block_m, group_m, block_n, k.l2_reuse_near_share, k.l2_reuse_far_share);
  const double e = static_cast<double>(p.elem_bytes());
  const double b_reads = (g.dram - e * static_cast<double>(p.m) * static_cast<double>(p.k) -
                          static_cast<double>(p.out_bytes()) * static_cast<double>(p.m) * static_cast<double>(p.n)) /
                         (e * static_cast<double>(p.n) * static_cast<double>(p.k));
  g.b_dram = b_reads * e * static_cast<double>(p.n) * static_cast<double>(p.k);
  const double miss = std::min(1.0, std::max(1.0 / static_cast<double>(g.tiles_n),
                                             b_reads / static_cast<double>(g.tiles_m)));
  g.latency_us = (k.load_latency_cycles + k.miss_latency_cycles * miss) / dev.boost_clock_mhz;
  SmoothCache& tables = smooth_cache();
  g.smooth = k.overlap_power > 0 ? &tables.get(k.overlap_power) : nullptr;
  g.graded = k.sm_overlap_power > 0 ? &tables.get(k.sm_overlap_power, true, g.smooth) : nullptr;
  return g;
}

namespace {

// The one copy of the equations; `out` receives the breakdown when asked.
inline double predict_impl(const Device& dev, const GemmProblem& p, const TileCosts& t, const TimeConstants& k,
                           const GridTerms& g, const SplitK& split, Prediction* out) {
  const int64_t sms = dev.sm_count;
  const int64_t tiles = g.tiles_m * g.tiles_n;
  // Split-K: s programs per tile, each over one slice of ceil(kt/s) K tiles
  // (the last slices may be shorter); the busiest program sets the pace.
  const int64_t s = split.factor;
  const bool splits = s > 1;
  const int64_t programs = tiles * s;
  const int64_t kt_all = ceil_div(p.k, t.block_k);
  const double kt = static_cast<double>(ceil_div(kt_all, s));

  // L2 bandwidth is shared by the SMs that have work.
  const double active = static_cast<double>(std::min(programs, sms));
  const double sm_bytes_per_us = dev.l2_bandwidth_gbps / active * 1e3;
  const double load_us = t.l2_stage_bytes / sm_bytes_per_us;

  const double dram = g.dram;
  const double latency_us = g.latency_us;
  // A split kernel writes s fp32 partial tiles where the plain one writes C.
  const double mn = static_cast<double>(p.m) * static_cast<double>(p.n);
  const double partial_bytes = splits ? static_cast<double>(s) * mn * 4.0 : 0.0;
  const double gemm_dram = splits ? dram - mn * static_cast<double>(p.out_bytes()) + partial_bytes : dram;
  const double c_tile_bytes = splits ? static_cast<double>(t.block_m * t.block_n) * 4.0 : t.c_tile_bytes;
  // A split kernel stores fp32 partial tiles with 16-byte vectors.
  const double narrow_store_us = splits ? 0.0 : t.narrow_store_us + t.epilogue_spill_us;

  // One main-loop iteration of j programs sharing an SM: the MMAs and loads of
  // all j, or one program's pipeline round trip spread over the stages in flight.
  // With one operand through registers, its share of the round trip is
  // exposed every iteration and the asynchronous operand's share is spread
  // over its stages in flight. Triton issues the load of iteration i + S - 1
  // in iteration i whatever the instruction: S - 1 stages in flight. An mma
  // tile allocates one buffer fewer (it reads a stage into registers before
  // its MMAs, so that buffer is free when the next load is issued), not one
  // stage fewer in flight (measured: 4 stages over 3 of the same unsplit mma
  // tile 0.86-0.99, data/h200-triton-splitk-bm16*; docs/model.md §3).
  const double in_flight =
      static_cast<double>(std::max<int64_t>(std::min<int64_t>(t.stages - 1, static_cast<int64_t>(kt)), 1));
  const double exposed = !t.through_registers ? 1.0 / in_flight
                         : t.single_narrow    ? (1.0 - k.async_share) + k.async_share / in_flight
                                              : 1.0;
  const double copy_us = t.copy_bytes_per_us > 0 ? std::max(load_us, t.stage_bytes / t.copy_bytes_per_us) : load_us;
  const double chain_us =
      (copy_us + latency_us) * exposed + (t.paired_narrow ? t.narrow_us - t.issue_only_us + t.mma_us : 0.0);
  // A program issues its narrow loads and its MMAs in turn; programs sharing
  // the SM overlap one's loads with another's MMAs.
  const double mma_us = t.mma_us;
  const double issue_us = mma_us + t.narrow_us;
  // B transposed on chip (tf32): its 4-byte copies keep the L1/TEX unit near
  // its peak (data/h200-profile-tf32), so programs sharing the SM queue their
  // transposes and MMAs one after another instead of overlapping one's
  // transpose with another's MMAs (measured: a second block per SM gains
  // nothing, data/h200-triton-v5a, -v29; docs/model.md §3).
  const double mma_transpose_us = mma_us + t.transpose_us;
  // An mma tile's requests of rows shorter than a line busy the SM like its
  // MMAs and its L2 share (short_row_request_cycles; 0 for any other tile).
  const double short_us = t.short_row_us;
  const double busy_us = std::max({mma_transpose_us, t.narrow_us, load_us, short_us});
  const double epilogue_us = k.epilogue_factor * c_tile_bytes / sm_bytes_per_us + narrow_store_us;
  // Programs walking K in step (A of M < 16 rows, repeated in every tile):
  // the resident programs of one K slice request the same lines of A at
  // once, block_M / M copies each, and those requests queue on the L2 slices
  // that hold the lines (measured: data/h200-profile-few-programs; a split
  // spreads the programs over s K slices). docs/model.md §3.
  const double resident = static_cast<double>(std::min(programs, sms * t.blocks_per_sm));
  const double in_step_us = k.in_step_a_ns * 1e-3 * resident / static_cast<double>(s) * t.a_row_copies;
  // A round of j programs on one SM: each one's critical path (start, first
  // load, main loop, epilogue), or the SM's resources busy with all j.
  const SmoothTable* smooth = g.smooth;
  const SmoothTable* graded_table = g.graded;
  // B alone through registers with N contiguous: each warp-wide load's lanes
  // read different rows of B (about 27 sectors a request, against the few of
  // the loads narrow_access_cycles was fitted on), and every step of such a
  // kernel takes 1 + narrow_b_mn_step_share times the modeled one
  // (docs/model.md §3, "B through registers, N contiguous").
  // Where B's rows start 16-byte aligned and the kernel spills, each stage
  // beyond two adds aligned_b_stage_share (data/h100-profile-row-stride).
  const double aligned_stages = t.aligned_b_rows ? static_cast<double>(std::max<int64_t>(t.stages - 2, 0)) : 0.0;
  const double step_scale =
      t.narrow_b_mn ? 1.0 + k.narrow_b_mn_step_share + k.aligned_b_stage_share * aligned_stages : 1.0;
  auto tile_us = [&](int64_t j) {
    const double jd = static_cast<double>(j);
    // The SM's busiest resource and the round trip overlap imperfectly when
    // close: a smooth maximum of order overlap_power joins them (0: plain).
    const double busiest = std::max({jd * mma_transpose_us, jd * t.narrow_us, issue_us, jd * load_us, jd * short_us});
    const double period = smooth ? smooth_max_of(*smooth, busiest, chain_us) : std::max(busiest, chain_us);
    // Narrow stores of C (and the epilogue's spill traffic) queue on the SM's
    // load/store path: a program's epilogue waits behind those of the other
    // j - 1 programs. Not where both operands go through registers: there the
    // programs already take turns on that path every iteration (busiest), and
    // measured, their two-block configurations are no slower than predicted
    // without the queue (docs/model.md §3, "Narrow stores of C queue").
    const double queued_us = t.paired_narrow ? 0.0 : (jd - 1.0) * narrow_store_us;
    const double path = k.tile_overhead_us + latency_us + kt * (period * step_scale + in_step_us) + epilogue_us + queued_us;
    return std::max(path, jd * (kt * busy_us * step_scale + epilogue_us));
  };
  const int64_t per_sm = ceil_div(programs, sms);
  const int64_t b = t.blocks_per_sm;
  const int64_t full_rounds = per_sm / b, rest = per_sm % b;
  // With more programs than places, blocks start and end staggered: the SM
  // runs b at a time throughout (per_sm/b rounds of b). With fewer, they
  // start together and run as one round. A partial last round (rest
  // programs after the full rounds) runs in part on its own: tail_sync of
  // it as a round of rest programs after the full rounds, the rest staggered.
  const double round_b = full_rounds ? tile_us(b) : 0.0;
  double sm_us = full_rounds ? static_cast<double>(per_sm) / static_cast<double>(b) * round_b : tile_us(rest);
  if (full_rounds && rest && k.tail_sync > 0) {
    const double sync_us = static_cast<double>(full_rounds) * round_b + tile_us(rest);
    sm_us += std::min(k.tail_sync, 1.0) * (sync_us - sm_us);
  }

  // An mma tile's kernel whose busiest SM holds more bytes in flight than
  // mma_flight_knee_kb draws DRAM less efficiently: measured, a decode step's
  // DRAM throughput peaks near 100 KB in flight per SM and falls past it (84%
  // of the peak, then 78% and 73% at 1.3x and 2x those bytes:
  // data/h200-profile-decode-l2). Fitted on the decode-tile calibration sets
  // (docs/model.md §3, "Bytes in flight and DRAM").
  double flight_bytes = 0, dram_scale = 1.0;
  if (t.mma_tile) {
    flight_bytes = static_cast<double>(full_rounds ? b : rest) * in_flight * t.stage_bytes;
    const double knee = k.mma_flight_knee_kb * 1024.0;
    if (knee > 0 && flight_bytes > knee) dram_scale += k.mma_flight_dram_share * (flight_bytes - knee) / knee;
  }
  // A split GEMM's programs stream B from s K slices at once
  // (split_dram_share, docs/model.md §3 "Split-K"); split_dram_growth blends
  // a flat share with one that follows the share of B the other s - 1
  // slices stream, 2(1 - 1/s): 1 at s = 2, 1.5 at 4, 1.75 at 8.
  double split_dram = 0.0;
  if (splits) {
    const SplitKConstants& sc = *split.model;
    const double grow = 2.0 * (1.0 - 1.0 / static_cast<double>(s));
    split_dram = sc.split_dram_share * (1.0 - sc.split_dram_growth + sc.split_dram_growth * grow);
  }
  dram_scale += split_dram;
  // B stored K-major: each row of B a stage copies is block_K elements long,
  // and one program reads it, where with B row-major the programs beside it
  // read the rest of the line at the same step. Rows shorter than 256 bytes
  // cost DRAM time: kmajor_b_row_dram_share of B's share of the bytes
  // (measured with rows of 128 bytes against 256; shorter rows are priced
  // alike, and an mma tile's rows under a line by short_row_request_cycles).
  // Where tiles_m rows of tiles read each row of B the share is divided
  // among them (measured only at one row of tiles, a decode step; large
  // GEMMs' block_K 64 tiles with B K-major run as predicted: docs/model.md
  // §3, "Short rows of a K-major B").
  double kmajor_b_row = 0.0;
  if (p.b_layout == Layout::col && k.kmajor_b_row_dram_share > 0 && gemm_dram > 0 &&
      t.block_k * p.elem_bytes() < 256)
    kmajor_b_row = k.kmajor_b_row_dram_share * g.b_dram / gemm_dram / static_cast<double>(g.tiles_m);
  dram_scale += kmajor_b_row;
  const double dram_us = dram_scale * gemm_dram / (dev.dram_bandwidth_gbps * 1e3);
  // Held at the power cap: a sustained GEMM whose SMs bind draws more than
  // the board may, and the clock falls until its energy, that of the padded
  // tiles' flops, the bytes its programs copy from the L2 and the cycles it
  // runs, fits the budget (docs/model.md §3, "The power cap"; the constants
  // fitted on an H100's capped runs, data/h100-profile-power). 16-bit
  // tensor types only: fp8 and tf32 were not measured (fp8's GEMMs ran
  // uncapped there), nor the CUDA cores' FMAs. Not where DRAM binds: its
  // SMs wait.
  const double cycles_us = sm_us;
  double power_us = 0.0;
  if (dev.power_budget_w > 0 && p.elem_bytes() == 2 && !t.simt && dram_us < sm_us) {
    const double flops = 2.0 * static_cast<double>(g.tiles_m * t.block_m) * static_cast<double>(g.tiles_n * t.block_n) *
                         static_cast<double>(kt_all * t.block_k);
    const double l2_bytes = static_cast<double>(tiles) * static_cast<double>(kt_all) * t.stage_bytes;
    const double work_j = (dev.energy_per_flop_pj * flops + dev.energy_per_l2_byte_pj * l2_bytes) * 1e-12;
    const double cycle_w = dev.energy_per_cycle_nj * 1e-9 * dev.boost_clock_mhz * 1e6;
    power_us = work_j / dev.power_budget_w * 1e6 + cycle_w / dev.power_budget_w * sm_us;
    sm_us = std::max(sm_us, power_us);
  }
  // The SMs' time and DRAM's time overlap in part: their Euclidean norm
  // joins them smoothly (the larger one, plus a little of the smaller).
  // Where the SMs bind in a grid of at least one wave, each SM runs programs
  // back to back and one's copies run stages ahead under another's MMAs:
  // a DRAM share well below the SMs' hides more fully. The order grows from
  // 2 where the two are equal (continuous with the Euclidean norm) to
  // sm_overlap_power as DRAM's share falls (docs/model.md §3, "The SMs'
  // time and DRAM's").
  // (Tabulated per P as the main loop's smooth maximum is: two pows a
  // configuration slowed the calibrated sweep by a third.)
  const bool graded = k.sm_overlap_power > 0 && programs >= sms && dram_us < sm_us;
  const double joined = graded ? smooth_max_of(*graded_table, sm_us, dram_us) : std::sqrt(sm_us * sm_us + dram_us * dram_us);
  double time = k.launch_us + joined;
  if (t.spills) time *= k.spill_factor;
  // A round's fp32 partial tiles are stored together at its end
  // (partial_store_share, docs/model.md §3 "Split-K").
  const double partial_store_us =
      splits ? split.model->partial_store_share * partial_bytes / (dev.dram_bandwidth_gbps * 1e3) : 0.0;
  time += partial_store_us;
  // The reduction kernel follows: it reads the s partial tiles and writes C.
  const double reduce_us =
      splits ? split.model->reduce_launch_us + static_cast<double>(s) * split.model->reduce_split_us +
                   (partial_bytes + mn * static_cast<double>(p.out_bytes())) / (split.model->reduce_gbps * 1e3)
             : 0.0;
  time += reduce_us;

  if (out) {
    out->time_us = time;
    out->reduce_us = reduce_us;
    out->in_step_us = kt * in_step_us;
    out->dram_bytes = gemm_dram;
    const int64_t j_round = full_rounds ? b : rest;
    TimeTerms& d = out->terms;
    d.programs_per_sm = per_sm;
    d.round_programs = j_round;
    d.k_steps = static_cast<int64_t>(kt);
    d.mma_us = mma_transpose_us;
    d.narrow_us = t.narrow_us;
    d.load_us = load_us;
    d.round_trip_us = chain_us;
    d.stages_in_flight = static_cast<int64_t>(in_flight);
    d.mma_rate = t.mma_rate < 1.0f ? k.mma_rate_share : 1.0;  // the double, not the table's float
    const double jd = static_cast<double>(j_round);
    d.busiest_us = std::max({jd * mma_transpose_us, jd * t.narrow_us, issue_us, jd * load_us, jd * short_us});
    d.short_row_us = short_us;
    d.short_row_requests = t.short_row_requests;
    d.iteration_us = smooth_max(d.busiest_us, chain_us, k.overlap_power) * step_scale + in_step_us;
    d.step_scale = step_scale;
    d.aligned_rows_share = k.aligned_b_stage_share * aligned_stages;
    d.epilogue_us = epilogue_us;
    d.launch_us = k.launch_us;
    d.sm_us = sm_us;
    d.dram_us = dram_us;
    d.flight_bytes = static_cast<double>(j_round) * in_flight * t.stage_bytes;  // any tile's (the term reads an mma tile's)
    d.copy_us = t.copy_bytes_per_us > 0 ? t.stage_bytes / t.copy_bytes_per_us : 0.0;
    d.copy_bytes_per_cycle = t.copy_bytes_per_us / dev.boost_clock_mhz;
    d.copy_warp_scale = t.copy_warp_scale;
    d.dram_scale = dram_scale;
    d.partial_store_us = partial_store_us;
    d.split_dram_share = split_dram;
    d.kmajor_b_row_share = kmajor_b_row;
    d.power_us = power_us;
    d.cycles_us = cycles_us;
    d.overlap_order = graded ? order_at(k.sm_overlap_power, true, dram_us / sm_us) : 2.0;
    // The bound of the first round: DRAM if it takes longer than the SMs,
    // else the largest term of a main-loop iteration.
    const double j = static_cast<double>(full_rounds ? b : rest);
    if (dram_us >= sm_us)
      out->bound = TimeBound::dram;
    else if (power_us > cycles_us)
      out->bound = TimeBound::power;
    else if (chain_us >= std::max(j * std::max(mma_transpose_us, t.narrow_us), issue_us) &&
             chain_us >= j * std::max(load_us, short_us))
      out->bound = TimeBound::latency;
    else if (std::max(load_us, short_us) > std::max(mma_transpose_us, t.narrow_us) &&
             j * std::max(load_us, short_us) >= issue_us)
      out->bound = TimeBound::l2;
    else
      out->bound = t.narrow_us > mma_us ? TimeBound::narrow : TimeBound::mma;
  }
  return time;
}

}  // namespace

Prediction predict(const Device& dev, const GemmProblem& p, const TileCosts& t, const TimeConstants& k,
                   int64_t group_m, const SplitK& split) {
  Prediction out;
  predict_impl(dev, p, t, k, grid_terms(dev, p, t.block_m, t.block_n, k, group_m), split, &out);
  return out;
}

double predict_us(const Device& dev, const GemmProblem& p, const TileCosts& t, const TimeConstants& k,
                  int64_t group_m, const SplitK& split) {
  return predict_impl(dev, p, t, k, grid_terms(dev, p, t.block_m, t.block_n, k, group_m), split, nullptr);
}

double predict_us(const Device& dev, const GemmProblem& p, const TileCosts& t, const TimeConstants& k,
                  const GridTerms& g, const SplitK& split) {
  assert(g.block_m == t.block_m && g.block_n == t.block_n);
  return predict_impl(dev, p, t, k, g, split, nullptr);
}

}  // namespace detail
}  // namespace tileplan
