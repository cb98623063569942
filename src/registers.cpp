#include "tileplan/registers.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "detail.hpp"

namespace tileplan {
namespace {

constexpr std::array<ConstantInfo, kRegisterConstantCount> kRegisterInfo{{
#define TILEPLAN_X(name, unit, desc) {#name, unit, desc},
    TILEPLAN_REGISTER_CONSTANTS(TILEPLAN_X)
#undef TILEPLAN_X
}};

}  // namespace

const std::array<ConstantInfo, kRegisterConstantCount>& register_constant_info() { return kRegisterInfo; }

std::array<double, kRegisterConstantCount> to_array(const RegisterProfile& r) {
  return {{
#define TILEPLAN_X(name, unit, desc) r.name,
      TILEPLAN_REGISTER_CONSTANTS(TILEPLAN_X)
#undef TILEPLAN_X
  }};
}

RegisterProfile register_profile_from(const std::array<double, kRegisterConstantCount>& v, bool accumulators_only) {
  RegisterProfile r;
  r.accumulators_only = accumulators_only;
  std::size_t i = 0;
#define TILEPLAN_X(name, unit, desc) r.name = v[i++];
  TILEPLAN_REGISTER_CONSTANTS(TILEPLAN_X)
#undef TILEPLAN_X
  return r;
}

Status check_register_profile(const RegisterProfile& r) {
  const std::array<double, kRegisterConstantCount> values = to_array(r);
  for (std::size_t i = 0; i < values.size(); ++i)
    if (!(std::abs(values[i]) <= kMaxRegisterConstant))
      return Error{ErrorKind::invalid_argument, std::string(kRegisterInfo[i].name),
                   fmt::format("{} {} must be a finite number of magnitude at most {}", kRegisterInfo[i].name,
                               values[i], kMaxRegisterConstant)};
  return {};
}

Result<RegisterEstimate> estimate_registers(const RegisterProfile& prof, const Device& dev, const TileConfig& cfg,
                                            const GemmProblem& p) {
  for (const Status& s : {check_register_profile(prof), check_device(dev), check_config(cfg), check_problem(p)})
    if (!s.ok()) return s.error();
  return detail::estimate_registers(prof, dev, cfg, p);
}

namespace detail {

RegisterEstimate estimate_registers(const RegisterProfile& prof, const Device& dev, const TileConfig& cfg,
                                    const GemmProblem& p) {
  RegisterEstimate r;
  r.accumulators = ceil_div(cfg.block_m * cfg.block_n, cfg.threads) * p.accum_bytes / 4;
  if (prof.accumulators_only) {
    // The reference: accumulators rounded to the per-warp allocation unit.
    const int64_t per_warp = ceil_div(r.accumulators * dev.warp_size, dev.reg_alloc_unit) * dev.reg_alloc_unit;
    r.demand = per_warp / dev.warp_size;
    r.regs_per_thread = r.demand;
    r.spills = r.demand > dev.regs_per_thread_max;
    return r;
  }
  const double threads = static_cast<double>(cfg.threads);
  const double a_vectors = static_cast<double>(cfg.block_m * cfg.block_k * p.elem_bytes()) / 16.0 / threads;
  const double b_vectors = static_cast<double>(cfg.block_k * cfg.block_n * p.elem_bytes()) / 16.0 / threads;
  // Narrow loads (no cp.async) hold the next tile in registers, about one
  // register per element per thread for each operand so loaded.
  const ProblemAccess acc = problem_access(p);
  const double narrow_elems =
      (static_cast<double>(acc.a.async_copy ? 0 : cfg.block_m * cfg.block_k) +
       static_cast<double>(acc.b.async_copy ? 0 : cfg.block_k * cfg.block_n)) / threads;
  // B transposed on chip (tf32 B N-contiguous) passes through registers too:
  // per_b_vector counts them in the demand; they count toward spilling.
  const double held_elems =
      narrow_elems + (acc.b.transposed ? static_cast<double>(cfg.block_k * cfg.block_n) / threads : 0.0);
  const double demand = prof.base + prof.per_accumulator * static_cast<double>(r.accumulators) +
                        prof.per_a_vector * a_vectors + prof.per_b_vector * b_vectors +
                        prof.per_register_element * narrow_elems;
  // Narrow stores of C: the epilogue holds the converted accumulators and an
  // address per row of the tile it stores (docs/model.md §1).
  const double store_rows = static_cast<double>(std::min(r.accumulators, cfg.block_m));
  const double epilogue = acc.c.vector_bytes < kMaxVectorBytes
                              ? prof.per_narrow_c_accumulator * static_cast<double>(r.accumulators) +
                                    prof.per_narrow_c_row * store_rows
                              : 0.0;
  r.demand = std::max<int64_t>(std::llround(std::max(demand, epilogue)), 1);
  r.regs_per_thread = std::min(r.demand, dev.regs_per_thread_max);
  const double per_held = spill_cost_per_held(prof);
  const double limit = static_cast<double>(dev.regs_per_thread_max);
  double over = static_cast<double>(r.accumulators) + per_held * held_elems + prof.spill_reserve - limit;
  // With both operands through registers the compiler spills the epilogue's
  // excess in the main loop too (measured: data/h200-triton-v5b and -v9);
  // otherwise the epilogue spills on its own, once per tile.
  if (acc.a.through_registers && acc.b.through_registers)
    over = std::max(over, epilogue - limit);
  else if (epilogue > limit)
    // It spills more where M is not a multiple of 16: the row mask is then
    // not uniform over the 16 rows Triton's axis analysis groups, and the
    // compiler keeps a predicate per row too (data/h200-triton-v20: 50 and
    // 104 registers for 256x128 and 128x256 with 8 warps, 160 and 168 with
    // M unaligned).
    r.epilogue_spilled = std::max(
        0.0, epilogue - limit + (p.m % kDivisibility != 0
                                     ? prof.per_narrow_c_row_accumulator * static_cast<double>(r.accumulators)
                                     : 0.0));
  r.spills = over > 0;
  r.spilled_registers = r.spills && held_elems > 0 ? over : 0.0;
  r.held_elements = held_elems;
  return r;
}

}  // namespace detail
}  // namespace tileplan
