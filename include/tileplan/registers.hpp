// Registers per thread as a kernel family's compiler allocates them: C2's
// estimate. The one copy of both rules, the reference's and the fitted one.
//
//   accumulators = ceil(block_M*block_N / threads) * accum_bytes/4
// Reference rule (accumulators_only), from the book's tile_decision.py:
//   regs         = roundup(accumulators * warp_size, reg_alloc_unit) / warp_size
//   spills       = regs > regs_per_thread_max
// Fitted rule (a kernel family's profile, data/families/*.json):
//   a_vectors    = block_M*block_K*elem_bytes / 16 / threads   (16-byte loads of A per stage)
//   b_vectors    = block_K*block_N*elem_bytes / 16 / threads
//   narrow_elems = (block_M*block_K if A's loads are narrow) + (block_K*block_N if B's)) / threads
//   demand       = round(base + per_accumulator*accumulators
//                        + per_a_vector*a_vectors + per_b_vector*b_vectors
//                        + per_register_element*narrow_elems), at least 1
//   regs         = min(demand, regs_per_thread_max)
//   held_elems   = narrow_elems + (block_K*block_N / threads if B is transposed on chip)
//   spills       = accumulators + spill_per_element*held_elems + spill_reserve > regs_per_thread_max
//                  (spill_per_element 0: per_register_element)
//   spilled      = that sum - regs_per_thread_max, when held_elems > 0 and it spills (else 0)
// With narrow stores of C (N or ldc not a multiple of 16), the epilogue holds
// an address per row of the tile it stores beside the accumulators:
//   epilogue     = per_narrow_c_accumulator*accumulators + per_narrow_c_row*min(accumulators, block_M)
//                  (a warp stores 32 columns of one row, the warps side by side along N: a
//                  thread visits every row of the tile when block_N >= threads)
//   demand       = max(demand, epilogue)
//   both operands through registers: spilled = max(spilled, epilogue - regs_per_thread_max)
//                  (the compiler spills the epilogue's excess in the main loop too)
//   otherwise:     epilogue_spilled = epilogue - regs_per_thread_max when above the limit (else 0),
//                  + per_narrow_c_row_accumulator*accumulators when it spills and M is not a multiple of 16:
//                  the epilogue spills on its own, once per tile; not `spills`, which is the main loop's
// docs/model.md §1 works an example by hand.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tileplan/device.hpp"
#include "tileplan/error.hpp"
#include "tileplan/gemm.hpp"

namespace tileplan {

// X(name, unit, description)
#define TILEPLAN_REGISTER_CONSTANTS(X)                                                    \
  X(base, "regs", "registers independent of the tile (indices, pointers, loop state)")     \
  X(per_accumulator, "regs", "registers per fp32 accumulator per thread")                  \
  X(per_a_vector, "regs", "registers per 16-byte load of A per thread and stage")          \
  X(per_b_vector, "regs", "registers per 16-byte load of B per thread and stage")          \
  X(spill_reserve, "regs", "registers a thread needs beside its accumulators before it spills")              \
  X(per_register_element, "regs", "registers per element per thread of an operand tile loaded with narrow loads") \
  X(spill_per_element, "regs", "registers per held element per thread that count toward spilling (0: per_register_element)") \
  X(per_narrow_c_accumulator, "regs", "registers per fp32 accumulator per thread in an epilogue that stores C with narrow stores, beside per_narrow_c_row per row (both 0: the main loop's demand only)") \
  X(per_narrow_c_row_accumulator, "regs", "registers per fp32 accumulator that such an epilogue spills beyond its excess when M is not a multiple of 16 (C's row mask is not uniform over 16 rows); the spill count only, not the allocation") \
  X(per_narrow_c_row, "regs", "registers per row of the tile that one thread's narrow stores of C visit, min(accumulators, block_M): an address each, beside per_narrow_c_accumulator (0: not priced)")

struct RegisterProfile {
  bool accumulators_only = false;  // the reference rule: nothing but accumulators
#define TILEPLAN_X(name, unit, desc) double name = 0;
  TILEPLAN_REGISTER_CONSTANTS(TILEPLAN_X)
#undef TILEPLAN_X
};

// A name, unit and description per fitted constant, for files and listings.
struct ConstantInfo {
  std::string_view name, unit, description;
};
inline constexpr std::size_t kRegisterConstantCount = 0
#define TILEPLAN_X(name, unit, desc) +1
    TILEPLAN_REGISTER_CONSTANTS(TILEPLAN_X)
#undef TILEPLAN_X
    ;
const std::array<ConstantInfo, kRegisterConstantCount>& register_constant_info();
std::array<double, kRegisterConstantCount> to_array(const RegisterProfile& r);
RegisterProfile register_profile_from(const std::array<double, kRegisterConstantCount>& v,
                                      bool accumulators_only = false);

// Every constant finite with |value| <= kMaxRegisterConstant (so that no
// estimate leaves 64 bits).
inline constexpr double kMaxRegisterConstant = 1e6;
//   error param: the constant's name ("per_accumulator").
Status check_register_profile(const RegisterProfile& r);

// The spill rule's registers per held element: spill_per_element, or
// per_register_element when it is 0.
inline double spill_cost_per_held(const RegisterProfile& r) {
  return r.spill_per_element > 0 ? r.spill_per_element : r.per_register_element;
}

struct RegisterEstimate {
  int64_t accumulators = 0;     // fp32 accumulator registers per thread
  int64_t regs_per_thread = 0;  // what the compiler allocates (the reference rule does not cap it)
  int64_t demand = 0;           // the estimate before the per-thread limit
  bool spills = false;
  // Registers beyond the per-thread limit when the spill comes from operand
  // tiles held in registers (narrow loads, on-chip transpose); 0 otherwise.
  //   spilled = accumulators + spill_per_element*held_elems + spill_reserve - regs_per_thread_max
  double spilled_registers = 0;
  // Registers the epilogue needs beyond the limit (narrow stores of C hold
  // an address per row they store); it spills once per tile, not per iteration.
  double epilogue_spilled = 0;
  double held_elements = 0;  // held_elems: operand elements per thread held in registers
};
// Checks the profile, device, configuration and problem (their checkers'
// errors) before it estimates.
Result<RegisterEstimate> estimate_registers(const RegisterProfile& prof, const Device& dev, const TileConfig& cfg,
                                            const GemmProblem& p);

}  // namespace tileplan
