// The library's unchecked fast paths, for its own layers only (never
// installed): each public entry point checks its inputs once and then calls
// these, which assume what the public function's checkers guarantee.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>

#include "tileplan/constraints.hpp"
#include "tileplan/device.hpp"
#include "tileplan/family.hpp"
#include "tileplan/gemm.hpp"
#include "tileplan/model.hpp"
#include "tileplan/registers.hpp"
#include "occupancy_internal.hpp"

namespace tileplan::detail {

constexpr int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
// a % b == 0 for b > 0, without a division where b is a power of two (every
// instruction shape: the sweep tests four per tile).
constexpr bool multiple_of(int64_t a, int64_t b) { return (b & (b - 1)) == 0 ? (a & (b - 1)) == 0 : a % b == 0; }

// Requires: the inputs pass check_register_profile, check_device, check_config, check_problem.
RegisterEstimate estimate_registers(const RegisterProfile& prof, const Device& dev, const TileConfig& cfg,
                                    const GemmProblem& p);

// How far to go once C3 or C1 has failed: a diagnosis reports every
// constraint; a sweep drops the tile, so it stops there.
enum class Depth { full, until_failure };
// C3, C1, C2 and occupancy (no C4).   Requires: as estimate_registers.
//   `v` is overwritten (a caller's buffer: a sweep checks hundreds of tiles).
//   price_held_spills: a spill by operand tiles held in registers is a C2
//   warning (the time model prices it per register) instead of a failure.
//   memo: where a sweep keeps what it learns of a tile that does not depend
//   on its stage counts (its register estimate, and the occupancy limits its
//   threads and registers fix): empty parts are filled, filled ones are used.
//   Null: computed here.
//   access: problem_access(p), where the caller has it (null: computed here).
struct StageFreeMemo {
  std::optional<RegisterEstimate> registers;
  std::optional<ThreadRegisterLimits> limits;
};
void check_resources(const TileConfig& cfg, const Device& dev, const GemmProblem& p, const RegisterProfile& regs,
                     OccupancyRule rule, Depth depth, TileCheck& v, bool price_held_spills = false,
                     StageFreeMemo* memo = nullptr, const ProblemAccess* access = nullptr);
// C4: grid, waves, last-wave fill and their warnings.
void finish_parallelism(TileCheck& v, const GemmProblem& p, const Device& dev);
// Stage buffers in shared memory: one per stage, but an mma tile keeps one
// stage of its operands in registers and has stages - 1 (measured: every
// one of the 2872 compiled mma kernels of data/h200-triton-splitk-bm16,
// -bm16-fresh and -bm16-types).
inline int64_t stage_buffers(const TileConfig& cfg) {
  return cfg.instr == Instr::mma ? std::max<int64_t>(cfg.stages - 1, 1) : cfg.stages;
}
// Shared memory the compiler allocates for the operand tiles (the hardware
// rule: an operand through registers has one buffer, the other
// stage_buffers).
int64_t allocated_smem_bytes(const TileConfig& cfg, const GemmProblem& p);
// The same with acc = problem_access(p) already known.
int64_t allocated_smem_bytes(const TileConfig& cfg, const GemmProblem& p, const ProblemAccess& acc);
// The carveout (bytes) the driver configures for `blocks` resident blocks of
// `smem_bytes` each (Device::carveout_multi_block_min_kb), and the L1 each
// block keeps: l1_smem_per_sm_bytes less the carveout, over the blocks.
//   Requires: check_device(dev), 0 <= smem_bytes <= smem_per_block_max_bytes, blocks >= 1.
int64_t carveout_bytes(const Device& dev, int64_t smem_bytes, int64_t blocks);
double l1_bytes_per_block(const Device& dev, int64_t smem_bytes, int64_t blocks);
// The same from a carveout already known (carveout_bytes' result).
double l1_left_per_block(const Device& dev, int64_t carveout, int64_t blocks);
// The reference's traffic.
double reference_traffic(const GemmProblem& p, const TileConfig& cfg);

// Requires: as estimate_registers, blocks_per_sm >= 1, check_time_constants(k).
//   spilled_registers: RegisterEstimate's; with k.spill_access_cycles > 0 it
//   is priced per iteration in place of spill_factor.
//   epilogue_spilled: RegisterEstimate's, priced once per tile (epilogue_spill_cycles).
TileCosts tile_costs(const Device& dev, const TileConfig& cfg, const GemmProblem& p, int64_t blocks_per_sm,
                     bool spills, const TimeConstants& k, double spilled_registers = 0, double epilogue_spilled = 0);
// tile_costs in two steps, for a sweep that prices a tile at several stage
// counts: what does not depend on the stages or the blocks per SM (cfg.stages
// is not read), then the rest (the stage buffers, the blocks, the L1 left to
// the narrow loads). unstaged then stage_tile_costs equals tile_costs to the
// bit.   Requires: as tile_costs, acc = problem_access(p), t from
// unstaged_tile_costs of the same tile but for cfg.stages.
TileCosts unstaged_tile_costs(const Device& dev, const TileConfig& cfg, const GemmProblem& p, const ProblemAccess& acc,
                              bool spills, const TimeConstants& k, double spilled_registers, double epilogue_spilled);
void stage_tile_costs(TileCosts& t, const Device& dev, const TileConfig& cfg, const GemmProblem& p,
                      const ProblemAccess& acc, int64_t blocks_per_sm, const TimeConstants& k);
// Whether `k` prices a spill of held operand tiles per register.
inline bool prices_held_spills(const TimeConstants& k) { return k.spill_access_cycles > 0; }
// A split factor and the reduction's constants (model non-null when factor > 1).
struct SplitK {
  int64_t factor = 1;
  const SplitKConstants* model = nullptr;
};
inline SplitK split_of(const TileConfig& cfg, const KernelFamily& f) {
  return {cfg.split_k, f.split_k ? &f.split_k->constants : nullptr};
}
// Requires: p passes check_problem, t from tile_costs, group_m >= 1, split
// passes check_split.
Prediction predict(const Device& dev, const GemmProblem& p, const TileCosts& t, const TimeConstants& k,
                   int64_t group_m, const SplitK& split = {});
// Only the time, for ranking many configurations (the same equations).
double predict_us(const Device& dev, const GemmProblem& p, const TileCosts& t, const TimeConstants& k,
                  int64_t group_m, const SplitK& split = {});
// The prediction's terms that depend on the problem and the tile's block_M
// and block_N alone (its tiles, DRAM traffic and L2 misses), which a sweep
// shares between the tiles of one block_M x block_N.
struct SmoothTable;  // model.cpp: a smooth maximum's order, tabulated
struct GridTerms {
  int64_t block_m = 0, block_n = 0;
  int64_t tiles_m = 0, tiles_n = 0;
  double dram = 0;        // grouped_dram_bytes
  double b_dram = 0;      // of dram, B's bytes
  double latency_us = 0;  // a stage's round trip: load latency plus the L2 misses'
  // The tables of k.overlap_power and the graded k.sm_overlap_power (null
  // where the order is 0), from this thread's cache of the last four orders:
  // valid until this thread tabulates orders other than these two (a
  // prediction tabulates none; fetched once per grid, not per configuration).
  const SmoothTable* smooth = nullptr;
  const SmoothTable* graded = nullptr;
};
GridTerms grid_terms(const Device& dev, const GemmProblem& p, int64_t block_m, int64_t block_n, const TimeConstants& k,
                     int64_t group_m);
// predict_us with g = grid_terms(dev, p, t.block_m, t.block_n, k, group_m):
// the same result to the bit.
double predict_us(const Device& dev, const GemmProblem& p, const TileCosts& t, const TimeConstants& k,
                  const GridTerms& g, const SplitK& split = {});
// block_n > 0 and far_share > 0: B's reuse in L2 between program groups
// (the family's l2_reuse shares, in units of the device's L2); otherwise B
// stays where it fits beside a group's rows of A (the room rule).
double grouped_dram_bytes(const Device& dev, const GemmProblem& p, int64_t block_m, int64_t group_m,
                          int64_t block_n = 0, double near_share = 0, double far_share = 0);
// Whether f is one of shipped_families() itself (not a copy): those are
// immutable and passed check_family when they were parsed, so a planner
// built on one need not check it again (a from-scratch sweep's check cost
// 2% of it).
bool is_shipped_family(const KernelFamily& f);
// The rule of the two shares, for a family's constants and the public
// grouped_dram_bytes alike: near in [0, 64] L2s; both 0 (the room rule), or
// far above near and at most 64. The error names the share at fault.
Status check_l2_reuse_shares(double near_share, double far_share);
// The smooth maximum (a^p + b^p)^(1/p) of a, b >= 0 (p = 0: the plain
// maximum), as the model evaluates it (tabulated, see model.cpp).
double smooth_max(double a, double b, double p);
// The same with the order graded from p where one of a, b is negligible to 2
// where they are equal (sm_overlap_power), as the model evaluates it.
double smooth_max_graded(double a, double b, double p);

}  // namespace tileplan::detail
