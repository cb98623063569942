// The calibrated model's run time: how long a GEMM takes with a given tile on
// a given device, from a kernel family's fitted constants
// (tileplan/family.hpp). The equations are the same for every family;
// docs/model.md derives them and works one configuration through by hand.
//
// Run time (us), for tiles = ceil(M/block_M)*ceil(N/block_N) programs of
// kt = ceil(K/block_K) main-loop iterations, b blocks per SM:
//   t_mma   = 2*block_M*block_N*block_K / (peak_per_SM * n/(n + mma_n_half)) * (1 + kmajor_wide_n*w)
//             + iteration cycles / clock,
//             n = the columns of one warpgroup's share of the tile, peak_per_SM the input type's tensor rate,
//             w = max(0, n - 128)/128 when B sits K-major in shared memory (b_layout col, fp8, tf32), else 0;
//             the flops term times 1 + nmajor_wide_unit_cost for one warpgroup (wgmma) with n >= 256 and B
//             N-major in shared memory
//   t_load  = (block_M+block_N)*block_K*elem_bytes / bw_per_SM,  bw_per_SM = l2_bandwidth / min(tiles, SMs)
//             (joined with the stage's read requests, l2_request_bytes each; times 1 - kmajor_wide_unit_saving
//             for one warpgroup 256 columns wide with B stored K-major, copied asynchronously, and C stored
//             with 16-byte vectors)
//   t_narrow = warp-wide narrow loads of the operands without 16-byte vectors * narrow_access_cycles / clock
//             (a program issues them and its MMAs in turn; programs sharing an SM overlap them); an
//             operand that goes through registers keeps one stage in flight
//   L       = load latency + miss latency * (share of a stage that misses L2)
//   t_copy  = max(t_load, (block_M+block_N)*block_K*elem_bytes / (copy_bytes_per_cycle * clock)) for a wgmma
//             tile (one program's stage arrives at most that fast; for an mma tile
//             mma_copy_bytes_per_cycle * (warps/4)^mma_copy_warp_power), else t_load
//   t_short = for an mma tile, the rows of a stage shorter than a cache line (asynchronously copied;
//             block_K*elem_bytes < 128 for a K-major operand) * short_row_request_cycles / clock, else 0
//   period(j) = max(j*t_mma, j*t_narrow, t_mma + t_narrow, j*t_load, j*t_short, (t_copy + L)/in_flight)
//             j tiles sharing an SM
//             in_flight = stages-1 (an mma tile allocates stages-1 buffers, since it reads a
//             stage into registers before its MMAs, and keeps stages-1 in flight), or 1 when an
//             operand goes through registers
//   t_tile(j) = kt*period(j) + tile overhead + epilogue(j)
//   epilogue = epilogue_factor * C tile bytes / bw_per_SM + narrow stores of C
//             + registers the epilogue spills * warps * epilogue_spill_cycles / clock
//   per SM: n = ceil(tiles/SMs) programs, b at a time: n/b rounds of b (n >= b), or one round of n;
//             a partial last round (n mod b programs) counts tail_sync of the way to
//             floor(n/b) rounds of b and then one round of n mod b
//   both operands through registers: chain += t_narrow - (their loads * paired_narrow_cycles) + t_mma
//   t_dram  = DRAM bytes under the grouped tile order / DRAM bandwidth
//             * (1 + mma_flight_dram_share * (F - knee)/knee for an mma tile with F > knee = mma_flight_knee_kb
//                  + kmajor_b_row_dram_share * (B's DRAM bytes / all) / tiles_m where B is stored K-major
//                    (b_layout col) and block_K * elem bytes < 256),
//             F = bytes in flight on the busiest SM: its first round's programs * in_flight * stage bytes
//   time    = (launch + (t_SM^q + t_dram^q)^(1/q)) * (spill_factor if the kernel spills) + t_reduce,
//             q = 2 (the Euclidean norm), or where the SMs bind (t_dram < t_SM) in a grid of at least one
//             wave of programs (programs >= SMs), q = P - (P - 2) * t_dram/t_SM, P = sm_overlap_power (> 0)
//
// Split-K (split_k = s > 1, a family with a split-K model): s programs per
// tile, each over ceil(kt/s) K tiles, so tiles*s programs share the SMs and
// each stores an fp32 partial tile (block_M*block_N*4 bytes) where the plain
// kernel stores C; DRAM carries s*M*N*4 partial bytes instead of C, its
// t_dram is scaled by 1 + split_dram_share * (1 - g + g * 2(1 - 1/s)), g =
// split_dram_growth (0: a flat share; 1: the share of B that the other
// K slices stream at once), and the time adds
// partial_store_share * s*M*N*4 / DRAM bandwidth (the partial tiles of a
// round are stored together at its end; docs/model.md §3, "Split-K"). Then
//   t_reduce = reduce_launch_us + s * reduce_split_us + (s*M*N*4 + M*N*out_bytes) / reduce_gbps      (0 when s = 1)
#pragma once

#include <cstdint>
#include <string_view>

#include "tileplan/device.hpp"
#include "tileplan/error.hpp"
#include "tileplan/family.hpp"
#include "tileplan/gemm.hpp"

namespace tileplan {

// What bounds a predicted time: the MMAs, L2 bandwidth, the pipeline's
// memory latency, DRAM bandwidth, or the narrow loads of operands without
// 16-byte vectors.
enum class TimeBound { none, mma, l2, latency, dram, narrow, power };
std::string_view to_string(TimeBound b);

// The problem-independent part of a predicted time for one tile on one
// device (the planner computes it once per tile and reuses it per problem).
struct TileCosts {
  int64_t block_m = 0, block_n = 0, block_k = 0, stages = 0;
  int64_t blocks_per_sm = 0;
  bool spills = false;      // priced by spill_factor (a spill not priced per register)
  bool mma_tile = false;    // compiled to mma.sync (block_M 16 or 32): mma_flight_knee_kb and mma_flight_dram_share
  bool simt = false;        // CUDA-core FMAs, no tensor instruction (no power term: its energy was not measured)
  float mma_rate = 1;       // the share of the tensor rate the MMAs run at (mma_rate_share for an mma tile;
                            // a float, in the padding after `spills`: the planner's tables hold many)
  double mma_us = 0;        // one main-loop iteration's MMAs, alone on an SM
  int64_t serialized_wgmma_cols = 0;  // block_N where the assembler serializes the wgmma (kmajor_wide_n), else 0
  double narrow_us = 0;     // one iteration's narrow loads of operands that go through registers
  double transpose_us = 0;  // of narrow_us, the on-chip transpose of B (tf32 B N-contiguous)
  double spill_us = 0;      // of narrow_us, registers spilled by held operand tiles (spill_access_cycles)
  double narrow_store_us = 0;  // the epilogue's narrow stores of C
  double epilogue_spill_us = 0;  // the epilogue's spilled registers (narrow stores of C), once per tile
  bool through_registers = false;  // an operand is not pipelined: one stage in flight
  bool paired_narrow = false;      // both are: paired_narrow_cycles and paired_b_mn_cycles price their loads
  bool single_narrow = false;      // exactly one is: the other is copied asynchronously (async_share)
  bool narrow_b_mn = false;        // of those, B with N contiguous (narrow_b_mn_step_share)
  bool aligned_b_rows = false;     // of those, B's rows 16-byte aligned in a kernel that spills (aligned_b_stage_share)
  double issue_only_us = 0;        // of narrow_us, paired_narrow_cycles' share: issue slots, not the program's path
  int64_t carveout_bytes = 0;      // the shared-memory carveout the driver configures (operands through registers)
  double l1_bytes = 0;             // L1 a block keeps: the unified array less the carveout, over the blocks
  double narrow_footprint_bytes = 0;  // cache lines of one iteration's tiles of the operands through registers
  double l1_short = 0;             // share of that footprint the L1 cannot hold: 1 - l1/footprint, in [0, 1]
  double l1_miss_us = 0;           // of narrow_us, the loads that miss because of it (l1_miss_cycles)
  double narrow_loads = 0;         // warp-wide narrow loads of one iteration (A's and B's through registers)
  double stage_bytes = 0;   // operand bytes of one iteration
  double l2_async_bytes = 0;  // of stage_bytes, the asynchronously copied rows'
  double repeated_rows_a_bytes = 0;  // L2 bytes a stage's A of M < 16 rows adds: one_row_a_extra / M per byte of it
  double a_row_copies = 0;  // copies of each of A's rows in its tile where they repeat (block_M / M; M < 16), else 0
  double l2_requests = 0;     // their L2 read requests (one per line a row touches)
  double l2_stage_bytes = 0;  // what a stage costs L2: its bytes and its requests (l2_request_bytes each), joined
  double short_row_requests = 0;  // an mma tile's: its copied rows shorter than a line, one request each a step
                                  // (0 for other tiles or where short_row_request_cycles is 0)
  double short_row_us = 0;        // their time busy on the SM a step: requests * short_row_request_cycles / clock
  double c_tile_bytes = 0;  // output bytes of one tile
  double copy_bytes_per_us = 0;  // the most a stage's copies arrive at for one program (copy_bytes_per_cycle; mma tiles mma_copy_bytes_per_cycle), 0: no cap
  double copy_warp_scale = 1;    // of that cap, an mma tile's (warps / 4)^mma_copy_warp_power; 1 otherwise
};

// The terms a predicted time is made of (docs/model.md §3), for a diagnosis
// that shows why: the busiest SM's first round of j programs sharing it, one
// main-loop iteration (K step) of that round, and how the SMs' time and
// DRAM's join. Times in microseconds.
//   time_us = (launch_us + (sm_us^q + dram_us^q)^(1/q)) · (spill_factor if
//             the kernel spills unpriced) + partial_store_us + reduce_us,
//             q = overlap_order
struct TimeTerms {
  int64_t programs_per_sm = 0;  // on the busiest SM: ceil(programs / SMs)
  int64_t round_programs = 0;   // j: the programs sharing the SM in the first round
  int64_t k_steps = 0;          // main-loop iterations of one program (its K slice)
  double mma_us = 0;            // one program's MMAs of one iteration (tf32: and B's on-chip transpose)
  double narrow_us = 0;         // its narrow loads of operands through registers (their spills, L1 misses)
  double load_us = 0;           // its stage from L2, at the SM's share of the L2 bandwidth
  double short_row_us = 0;      // an mma tile's requests of rows shorter than a line, a step (short_row_request_cycles)
  double short_row_requests = 0;  // those requests: the stage's copied rows shorter than a line
  double round_trip_us = 0;     // the pipeline's round trip exposed per iteration (latency over the stages in flight)
  int64_t stages_in_flight = 0;  // the stages a program's copies keep in flight: stages - 1 (at most k_steps, at least 1)
  double mma_rate = 1;          // the share of the device's tensor rate its MMAs reach: mma_rate_share for an mma tile
  double busiest_us = 0;        // the SM's busiest resource over one iteration of the j programs
  double iteration_us = 0;      // busiest and round trip joined (smooth maximum), times step_scale, plus the programs-in-step term
  double step_scale = 1;        // every step's factor: 1, or with B alone through registers and N contiguous
                                // 1 + narrow_b_mn_step_share + aligned_rows_share
  double aligned_rows_share = 0;  // of step_scale, B's 16-byte-aligned rows in a spilling kernel:
                                  // aligned_b_stage_share x stages beyond two
  double epilogue_us = 0;       // one program's epilogue: storing C (or its partial tile)
  double launch_us = 0;         // the kernel launch
  double sm_us = 0;             // the busiest SM's time, all its rounds
  double dram_us = 0;           // DRAM's time for the kernel's traffic (times dram_scale)
  double flight_bytes = 0;      // bytes in flight on the busiest SM: its first round's programs x stages in flight x stage bytes
  double copy_us = 0;           // one stage's arrival at the program's copy-rate cap (0: no cap); the round trip
                                // takes the larger of it and load_us
  double copy_bytes_per_cycle = 0;  // that cap, bytes a cycle (0: none)
  double copy_warp_scale = 1;   // of the cap, an mma tile's (warps / 4)^mma_copy_warp_power; 1 otherwise
  double dram_scale = 1;        // DRAM's time's factor: 1, plus for an mma tile past mma_flight_knee_kb
                                // mma_flight_dram_share x (flight_bytes - knee) / knee, plus a split's split_dram_share,
                                // plus a K-major B's kmajor_b_row_share
  double split_dram_share = 0;  // of dram_scale, a split's share (split_dram_share; 0 unsplit)
  double kmajor_b_row_share = 0;  // of dram_scale, a K-major B's short rows' share (kmajor_b_row_dram_share)
  double partial_store_us = 0;  // a split's partial stores at the round's end: partial_store_share x s*M*N*4 / DRAM bandwidth
  double power_us = 0;          // the SMs' time at the device's power budget (0: no power term here): the energy of the
                                // padded flops, the L2 bytes copied and the cycles, over power_budget_w; sm_us is at least this
  double cycles_us = 0;         // the busiest SM's time at the boost clock, before the power budget
  double overlap_order = 2;     // q, the order sm_us and dram_us are joined by: 2 (the Euclidean norm), or where the
                                // SMs bind in a grid of at least one wave P - (P - 2) dram_us/sm_us (sm_overlap_power)
};

struct Prediction {
  double time_us = 0;       // the GEMM, and the reduction of a split
  double reduce_us = 0;     // the split-K reduction kernel (0 without a split)
  double in_step_us = 0;    // of a program's path, what its K steps in step with the others add (in_step_a_ns)
  TimeBound bound = TimeBound::none;
  double dram_bytes = 0;  // under the grouped tile order
  TimeTerms terms;        // what the time is made of (the busiest SM's time, DRAM's, ...)
};

// A split factor the family can price: 1, or any with a split-K model.
//   error param: "split_k".
Status check_split_model(int64_t split_k, const KernelFamily& family);
// A split factor the family and the problem admit: check_split_model, and
// split_k at most the K tiles ceil(K/block_K).
//   error param: "split_k".
Status check_split(const GemmProblem& p, const TileConfig& cfg, const KernelFamily& family);

// The predicted time of `cfg` for `p` with `blocks_per_sm` resident blocks
// (>= 1, at most the device's block limit), under `family`'s constants.
// Checks every input (its checker's error; param "blocks_per_sm"; check_split).
Result<Prediction> predict(const Device& dev, const GemmProblem& p, const TileConfig& cfg, int64_t blocks_per_sm,
                           bool spills, const KernelFamily& family);

// DRAM bytes of the grouped program order: A once, B once per group of
// group_m tile rows unless it stays in L2, C once. With block_n > 0 and the
// reuse shares of a family (l2_reuse_near_share < l2_reuse_far_share, in
// units of the device's L2), how much of B stays follows the measured reuse
// distance (docs/model.md §3, "B's reuse in L2 between program groups"), as
// the calibrated model prices it; without them (0), B stays where it fits
// beside a group's rows of A (the room rule).
//   error param: as predict, and "block_m", "group_m", "block_n",
//   "l2_reuse_near_share", "l2_reuse_far_share".
Result<double> grouped_dram_bytes(const Device& dev, const GemmProblem& p, int64_t block_m, int64_t group_m,
                                  int64_t block_n = 0, double near_share = 0, double far_share = 0);

}  // namespace tileplan
