// The calibrated model: what a kernel family's compiler allocates per thread,
// and how long a GEMM takes with a given tile on a given device.
//
// A kernel family is a profile: a register estimate and the fitted constants
// of the run-time model, each with the data it was fitted on. The equations
// are the same for every family; docs/model.md derives them and works one
// configuration through by hand.
//
// Registers per thread (profile `regs`):
//   accumulators = ceil(block_M*block_N / threads) * accum_bytes/4
//   a_vectors    = block_M*block_K*elem_bytes / 16 / threads   (16-byte loads of A per stage)
//   b_vectors    = block_K*block_N*elem_bytes / 16 / threads
//   regs         = min(round(base + per_accumulator*accumulators
//                              + per_a_vector*a_vectors + per_b_vector*b_vectors), regs_per_thread_max)
//   spills       = accumulators + spill_reserve > regs_per_thread_max
// The seed family counts the accumulators only (the reference's rule).
//
// Run time (us), for tiles = ceil(M/block_M)*ceil(N/block_N) programs of
// kt = ceil(K/block_K) main-loop iterations, b blocks per SM:
//   t_mma   = 2*block_M*block_N*block_K / (peak_per_SM * n/(n + mma_n_half)) + iteration cycles / clock,
//             n = the columns of one warpgroup's share of the tile
//   t_load  = (block_M+block_N)*block_K*elem_bytes / bw_per_SM,  bw_per_SM = l2_bandwidth / min(tiles, SMs)
//   L       = load latency + miss latency * (share of a stage that misses L2)
//   period(j) = max(j*t_mma, j*t_load, (t_mma + t_load + L)/(stages-1))   j tiles sharing an SM
//   t_tile(j) = kt*period(j) + tile overhead + epilogue(j)
//   per SM: n = ceil(tiles/SMs) programs, b at a time: n/b rounds of b (n >= b), or one round of n
//   t_dram  = DRAM bytes under the grouped tile order / DRAM bandwidth
//   time    = (launch + sqrt(t_SM^2 + t_dram^2)) * (spill_factor if the kernel spills)
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "tileplan/device.hpp"
#include "tileplan/gemm.hpp"

namespace tileplan {

// ---- registers ----------------------------------------------------------------

// X(name, unit, description)
#define TILEPLAN_REGISTER_CONSTANTS(X)                                                    \
  X(base, "regs", "registers independent of the tile (indices, pointers, loop state)")     \
  X(per_accumulator, "regs", "registers per fp32 accumulator per thread")                  \
  X(per_a_vector, "regs", "registers per 16-byte load of A per thread and stage")          \
  X(per_b_vector, "regs", "registers per 16-byte load of B per thread and stage")          \
  X(spill_reserve, "regs", "registers a thread needs beside its accumulators before it spills")

struct RegisterProfile {
  bool accumulators_only = false;  // the seed rule: nothing but accumulators
#define TILEPLAN_X(name, unit, desc) double name = 0;
  TILEPLAN_REGISTER_CONSTANTS(TILEPLAN_X)
#undef TILEPLAN_X
};

struct RegisterEstimate {
  int64_t accumulators = 0;     // fp32 accumulator registers per thread
  int64_t regs_per_thread = 0;  // what the compiler allocates, at most regs_per_thread_max
  int64_t demand = 0;           // the estimate before the per-thread limit
  bool spills = false;
};
RegisterEstimate estimate_registers(const RegisterProfile& prof, const Device& dev, const TileConfig& cfg,
                                    const GemmProblem& p);

// ---- run time -------------------------------------------------------------------

// X(name, unit, description)
#define TILEPLAN_TIME_CONSTANTS(X)                                                                      \
  X(mma_n_half, "columns", "warpgroup tile width at which the MMA rate is half the device's peak")   \
  X(iteration_cycles, "cycles", "fixed cost of one main-loop iteration beside its MMAs (waits, barrier)") \
  X(load_latency_cycles, "cycles", "round trip of one pipeline stage whose data hit in L2")           \
  X(miss_latency_cycles, "cycles", "added round trip when a stage's data come from DRAM")             \
  X(tile_overhead_us, "us", "fixed cost of one program: start, pipeline fill, drain")                 \
  X(epilogue_factor, "", "cost of writing the C tile, in units of its bytes at the SM's L2 bandwidth") \
  X(launch_us, "us", "fixed cost of one kernel: launch, first wave's ramp, last wave's drain")          \
  X(spill_factor, "", "slowdown of a kernel whose accumulators spill to local memory")

struct TimeConstants {
#define TILEPLAN_X(name, unit, desc) double name = 0;
  TILEPLAN_TIME_CONSTANTS(TILEPLAN_X)
#undef TILEPLAN_X
};

// The constants as a list, for fitting and listings: name, unit, description.
struct ConstantInfo {
  std::string_view name, unit, description;
};
inline constexpr std::size_t kTimeConstantCount = 0
#define TILEPLAN_X(name, unit, desc) +1
    TILEPLAN_TIME_CONSTANTS(TILEPLAN_X)
#undef TILEPLAN_X
    ;
inline constexpr std::size_t kRegisterConstantCount = 0
#define TILEPLAN_X(name, unit, desc) +1
    TILEPLAN_REGISTER_CONSTANTS(TILEPLAN_X)
#undef TILEPLAN_X
    ;
const std::array<ConstantInfo, kTimeConstantCount>& time_constant_info();
const std::array<ConstantInfo, kRegisterConstantCount>& register_constant_info();
std::array<double, kTimeConstantCount> to_array(const TimeConstants& c);
TimeConstants time_constants_from(const std::array<double, kTimeConstantCount>& v);
std::array<double, kRegisterConstantCount> to_array(const RegisterProfile& r);
RegisterProfile register_profile_from(const std::array<double, kRegisterConstantCount>& v,
                                      bool accumulators_only = false);

// ---- kernel families ------------------------------------------------------------

struct KernelFamily {
  Family id;
  std::string_view name;
  std::string_view kernel;         // what the profile describes
  RegisterProfile regs;
  std::string_view regs_fitted_on; // data and command
  TimeConstants time;
  std::string_view time_fitted_on;
  int64_t group_m = 8;             // tile rows per group in the program order
};
const KernelFamily& kernel_family(Family f);

// ---- prediction -------------------------------------------------------------------

// TileCosts (tileplan/gemm.hpp): the problem-independent part of a prediction.
//   Requires: blocks_per_sm >= 1.
TileCosts tile_costs(const Device& dev, const TileConfig& cfg, const GemmProblem& p, int64_t blocks_per_sm,
                     bool spills, const TimeConstants& k);

struct Prediction {
  double time_us = 0;
  TimeBound bound = TimeBound::none;
  double dram_bytes = 0;  // under the grouped tile order
  double sm_us = 0;       // the busiest SM's time
  double dram_us = 0;     // DRAM's time
};
Prediction predict(const Device& dev, const GemmProblem& p, const TileCosts& t, const TimeConstants& k,
                   int64_t group_m);
// Only the time, for ranking many configurations (the same equations).
double predict_us(const Device& dev, const GemmProblem& p, const TileCosts& t, const TimeConstants& k,
                  int64_t group_m);

// DRAM bytes of the grouped program order: A once, B once per group of
// group_m tile rows unless it stays in L2, C once.
double grouped_dram_bytes(const Device& dev, const GemmProblem& p, int64_t block_m, int64_t group_m);

}  // namespace tileplan
