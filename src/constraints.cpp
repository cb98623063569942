#include "tileplan/constraints.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "detail.hpp"
#include "occupancy_internal.hpp"

namespace tileplan {

using detail::ceil_div;

std::string_view to_string(Constraint c) {
  switch (c) {
    case Constraint::C1: return "C1";
    case Constraint::C2: return "C2";
    case Constraint::C3: return "C3";
    case Constraint::C4: return "C4";
  }
  return "?";
}

std::string_view to_string(Resource r) {
  switch (r) {
    case Resource::none: return "";
    case Resource::regs: return "regs";
    case Resource::smem: return "smem";
    case Resource::threads: return "threads";
    case Resource::blocks: return "blocks";
    case Resource::warps: return "warps";
  }
  return "?";
}

Constraint constraint_of(FindingKind k) {
  switch (k) {
    case FindingKind::block_m_multiple:
    case FindingKind::block_n_multiple:
    case FindingKind::block_k_multiple:
    case FindingKind::threads_multiple:
    case FindingKind::threads_per_block:
    case FindingKind::no_block_fits_threads:
    case FindingKind::dtype_unsupported:
    case FindingKind::instr_unsupported:
    case FindingKind::narrow_loads:
    case FindingKind::fp8_b_not_k_major:
    case FindingKind::serialized_wgmma:
    case FindingKind::fp8_mma_as_f16: return Constraint::C3;
    case FindingKind::smem_per_block:
    case FindingKind::no_block_fits_smem: return Constraint::C1;
    case FindingKind::regs_per_thread:
    case FindingKind::held_tiles_spill:
    case FindingKind::epilogue_spill:
    case FindingKind::no_block_fits_regs: return Constraint::C2;
    case FindingKind::tail_wave:
    case FindingKind::grid_below_sms:
    case FindingKind::split_exceeds_k_tiles: return Constraint::C4;
  }
  return Constraint::C4;
}

std::string message(const Finding& f, const TileConfig& cfg) {
  const std::string_view instr = to_string(cfg.instr);
  switch (f.kind) {
    case FindingKind::block_m_multiple:
      return fmt::format("C3 block_M {} must be a multiple of {} for {}", f.value, f.limit, instr);
    case FindingKind::block_n_multiple:
      return fmt::format("C3 block_N {} must be a multiple of {} for {}", f.value, f.limit, instr);
    case FindingKind::block_k_multiple:
      return fmt::format("C3 block_K {} must be a multiple of {} for {}", f.value, f.limit, instr);
    case FindingKind::threads_multiple:
      return fmt::format("C3 {} threads must be a multiple of {} for {}", f.value, f.limit, instr);
    case FindingKind::threads_per_block:
      return fmt::format("C3 {} threads exceed the {}-thread block limit", f.value, f.limit);
    case FindingKind::smem_per_block:
      return fmt::format("C1 {} stages need {} B of shared memory, more than the {} B a block may use",
                         cfg.stages, f.value, f.limit);
    case FindingKind::regs_per_thread:
      return fmt::format("C2 {} registers per thread exceed the limit of {}: the kernel would spill",
                         f.value, f.limit);
    case FindingKind::held_tiles_spill:
      return fmt::format("C2 about {} registers per thread spill beyond the limit of {}: operand tiles held in "
                         "registers (narrow loads or a transpose); the predicted time includes their local-memory "
                         "traffic",
                         f.value, f.limit);
    case FindingKind::epilogue_spill:
      return fmt::format("C2 about {} registers per thread spill in the epilogue beyond the limit of {}: narrow "
                         "stores of C hold an address per row they store; the predicted time includes their "
                         "local-memory traffic, once per tile",
                         f.value, f.limit);
    case FindingKind::no_block_fits_smem:
      return fmt::format("C1 not one block fits on an SM: {} B of shared memory against {} B", f.value,
                         f.limit);
    case FindingKind::no_block_fits_regs:
      return fmt::format("C2 not one block fits on an SM: {} registers per block against {}", f.value,
                         f.limit);
    case FindingKind::no_block_fits_threads:
      return fmt::format("C3 not one block fits on an SM: {} threads against {}", f.value, f.limit);
    case FindingKind::tail_wave: {
      // A finding can come from a caller: no division by a limit below 1.
      const int64_t limit = std::max<int64_t>(f.limit, 1);
      const int64_t rem = f.value % limit;
      return fmt::format("C4 the last wave fills {:.0f}% of the machine ({} {} over {} resident blocks)",
                         100.0 * static_cast<double>(rem) / static_cast<double>(limit), f.value,
                         cfg.split_k > 1 ? "programs" : "tiles", f.limit);
    }
    case FindingKind::grid_below_sms:
      return fmt::format("C4 {} {} cannot occupy {} SMs: {} of them idle", f.value,
                         cfg.split_k > 1 ? "programs" : "tiles", f.limit, std::max<int64_t>(f.limit - f.value, 0));
    case FindingKind::split_exceeds_k_tiles:
      return fmt::format("C4 split_k {} exceeds the {} K tiles of the problem: a split would have no K", f.value,
                         f.limit);
    case FindingKind::dtype_unsupported: {
      const auto t = static_cast<DType>(f.value);
      const bool known = f.value >= 0 && f.value <= static_cast<int64_t>(DType::float32);
      return fmt::format("C3 {} has no tensor-core instruction on compute capability {}.{}{}",
                         known ? to_string(t) : std::string_view("this type"), f.limit / 10, f.limit % 10,
                         known && is_fp8(t) ? " (fp8 needs 8.9 or later)" : "");
    }
    case FindingKind::instr_unsupported:
      return fmt::format("C3 {} does not exist on compute capability {}.{} (wgmma is sm_90's; use mma or auto)",
                         instr, f.limit / 10, f.limit % 10);
    case FindingKind::narrow_loads: {
      static constexpr std::string_view kOperand[] = {"A", "B", "C"};
      const std::string_view op = f.value >= 0 && f.value < 3 ? kOperand[f.value] : "an operand";
      return fmt::format("C3 {} moves {}-byte vectors: its leading dimension or contiguous extent is not a "
                         "multiple of 16 elements{}",
                         op, f.limit, f.limit < 4 && f.value < 2 ? " (no cp.async, loads through registers)" : "");
    }
    case FindingKind::fp8_b_not_k_major:
      return "C3 fp8 B is stored N-contiguous (b_layout row): Hopper's fp8 wgmma reads B K-major, so the kernel "
             "transposes B on chip";
    case FindingKind::fp8_mma_as_f16:
      return fmt::format("C3 fp8 in a tile of {} rows: Triton compiles it to fp16 mma.sync after converting both "
                         "operands in registers (data/h100-profile-fp8-wide-mma), so its MMAs reach the 16-bit rate "
                         "at most; fp8 wgmma needs block_M {} or more in whole warpgroups",
                         f.value, f.limit);
    case FindingKind::serialized_wgmma:
      return fmt::format("C3 B K-major, a tile {} columns wide (more than {}) over two or more warpgroups and C "
                         "stored with 16-byte vectors: the assembler serializes this kernel's wgmma (ptxas C7515 on "
                         "the measured family); the predicted time includes it",
                         f.value, f.limit);
  }
  return "?";
}



Result<TileCheck> check_tile(const TileConfig& cfg, const Device& dev, const GemmProblem& p,
                             const RegisterProfile& regs, OccupancyRule rule) {
  for (const Status& s : {check_config(cfg), check_device(dev), check_problem(p), check_register_profile(regs)})
    if (!s.ok()) return s.error();
  if (rule != OccupancyRule::reference && rule != OccupancyRule::hardware)
    return Error{ErrorKind::invalid_argument, "rule", "rule is not one of reference, hardware"};
  TileCheck v;
  detail::check_resources(cfg, dev, p, regs, rule, detail::Depth::full, v);
  detail::finish_parallelism(v, p, dev);
  return v;
}

Result<double> dram_bytes(const GemmProblem& p, const TileConfig& cfg) {
  for (const Status& s : {check_config(cfg), check_problem(p)})
    if (!s.ok()) return s.error();
  return detail::reference_traffic(p, cfg);
}

namespace detail {
namespace {

Resource resource_of(Limiter l) {
  switch (l) {
    case Limiter::none: return Resource::none;
    case Limiter::warps: return Resource::warps;
    case Limiter::regs: return Resource::regs;
    case Limiter::smem: return Resource::smem;
    case Limiter::blocks: return Resource::blocks;
  }
  return Resource::none;
}

// Blocks per SM as CUDA grants them (tileplan/occupancy.hpp).
void hardware_occupancy(TileCheck& v, const TileConfig& cfg, const Device& dev,
                        std::optional<ThreadRegisterLimits>& limits) {
  // A block over the per-block thread or shared-memory limit (C3 or C1 has
  // failed) cannot be placed at all: leave its occupancy at zero.
  for (const Finding& f : v.failures)
    if (f.kind == FindingKind::threads_per_block || f.kind == FindingKind::smem_per_block) return;
  // In occupancy's domain: threads and registers at least 1, at most 2^16 and
  // 2^31; shared memory within the opt-in maximum (checked just above).
  const OccupancyInput in{cfg.threads, v.regs_per_thread, 0, v.smem_bytes, std::nullopt};
  if (!limits) limits = thread_register_limits(dev, cfg.threads, v.regs_per_thread);
  const Occupancy o = occupancy_unchecked(dev, in, *limits);
  v.blocks_by_regs = o.blocks_by_regs;
  v.blocks_by_smem = o.blocks_by_smem;
  v.blocks_by_threads = o.blocks_by_warps;
  v.blocks_per_sm = o.blocks_per_sm;
  v.occupancy_limiter = o.limiter;
  if (v.blocks_per_sm > 0) {
    v.binding = resource_of(o.limiter);
    return;
  }
  switch (o.limiter) {
    case Limiter::smem: v.failures.push({FindingKind::no_block_fits_smem, v.smem_bytes, dev.smem_per_sm_bytes}); break;
    case Limiter::warps:
      v.failures.push({FindingKind::no_block_fits_threads, cfg.threads, dev.max_threads_per_sm});
      break;
    default: v.failures.push({FindingKind::no_block_fits_regs, v.regs_per_block, dev.regs_per_sm}); break;
  }
}

// The reference's blocks per SM: the smallest of three quotients and the block limit.
void reference_occupancy(TileCheck& v, const TileConfig& cfg, const Device& dev) {
  v.blocks_by_regs = dev.regs_per_sm / std::max<int64_t>(v.regs_per_block, 1);
  v.blocks_by_smem = dev.smem_per_sm_bytes / std::max<int64_t>(v.smem_bytes, 1);
  v.blocks_by_threads = dev.max_threads_per_sm / std::max<int64_t>(cfg.threads, 1);
  v.blocks_per_sm = std::max<int64_t>(
      std::min({v.blocks_by_regs, v.blocks_by_smem, v.blocks_by_threads, dev.max_blocks_per_sm}), 0);
  // Binding: the first of (regs, smem, threads) with the fewest blocks.
  Resource binding = Resource::regs;
  int64_t least = v.blocks_by_regs;
  if (v.blocks_by_smem < least) binding = Resource::smem, least = v.blocks_by_smem;
  if (v.blocks_by_threads < least) binding = Resource::threads, least = v.blocks_by_threads;
  if (v.blocks_per_sm > 0) {
    v.binding = binding;
    return;
  }
  switch (binding) {
    case Resource::smem: v.failures.push({FindingKind::no_block_fits_smem, v.smem_bytes, dev.smem_per_sm_bytes}); break;
    case Resource::threads:
      v.failures.push({FindingKind::no_block_fits_threads, cfg.threads, dev.max_threads_per_sm});
      break;
    default: v.failures.push({FindingKind::no_block_fits_regs, v.regs_per_block, dev.regs_per_sm}); break;
  }
}

}  // namespace

void check_resources(const TileConfig& cfg, const Device& dev, const GemmProblem& p, const RegisterProfile& regs,
                     OccupancyRule rule, Depth depth, TileCheck& v, bool price_held_spills,
                     StageFreeMemo* memo, const ProblemAccess* access) {
  static const TileCheck kFresh{};
  v = kFresh;
  v.config = cfg;

  // C3: instruction shape.
  const InstrShape s = instr_shape(cfg.instr, p.dtype);
  if (!multiple_of(cfg.block_m, s.m)) v.failures.push({FindingKind::block_m_multiple, cfg.block_m, s.m});
  if (!multiple_of(cfg.block_n, s.n)) v.failures.push({FindingKind::block_n_multiple, cfg.block_n, s.n});
  if (!multiple_of(cfg.block_k, s.k)) v.failures.push({FindingKind::block_k_multiple, cfg.block_k, s.k});
  if (!multiple_of(cfg.threads, s.threads)) v.failures.push({FindingKind::threads_multiple, cfg.threads, s.threads});
  if (cfg.threads > dev.max_threads_per_block)
    v.failures.push({FindingKind::threads_per_block, cfg.threads, dev.max_threads_per_block});
  if (const std::optional<Finding> f = type_unsupported(dev, p.dtype, cfg.instr)) v.failures.push(*f);
  // wgmma is sm_90's alone (PTX ISA, 'Asynchronous Warpgroup Level Matrix
  // Multiply-Accumulate Instructions': requires sm_90a). The reference's
  // rule knows one instruction table for every device, and keeps it.
  if (cfg.instr == Instr::wgmma && dev.compute_capability != 90 && rule == OccupancyRule::hardware)
    v.failures.push({FindingKind::instr_unsupported, static_cast<int64_t>(cfg.instr), dev.compute_capability});

  // C1: stages * (block_M*block_K + block_K*block_N) * elem_bytes.
  v.smem_per_stage_bytes = (cfg.block_m * cfg.block_k + cfg.block_k * cfg.block_n) * p.elem_bytes();
  v.smem_bytes = v.smem_per_stage_bytes * cfg.stages;
  if (rule == OccupancyRule::hardware)
    v.smem_bytes = access ? detail::allocated_smem_bytes(cfg, p, *access) : detail::allocated_smem_bytes(cfg, p);
  if (v.smem_bytes > dev.smem_per_block_max_bytes)
    v.failures.push({FindingKind::smem_per_block, v.smem_bytes, dev.smem_per_block_max_bytes});
  if (depth == Depth::until_failure && !v.failures.empty()) return;

  // C2: the register estimate (the reference's rule or a family's profile).
  StageFreeMemo local;
  StageFreeMemo& m = memo ? *memo : local;
  std::optional<RegisterEstimate>& known = m.registers;
  if (!known) known = detail::estimate_registers(regs, dev, cfg, p);
  const RegisterEstimate& r = *known;
  v.accum_per_thread = ceil_div(cfg.block_m * cfg.block_n, cfg.threads);
  v.regs_per_thread = r.regs_per_thread;
  v.spills = r.spills;
  v.spilled_registers = r.spilled_registers;
  v.epilogue_spilled_registers = r.epilogue_spilled;
  if (r.epilogue_spilled > 0)
    v.warnings.push({FindingKind::epilogue_spill, static_cast<int64_t>(std::ceil(r.epilogue_spilled)),
                     dev.regs_per_thread_max});
  if (r.spills && r.spilled_registers > 0 && price_held_spills)
    v.warnings.push({FindingKind::held_tiles_spill, static_cast<int64_t>(std::ceil(r.spilled_registers)),
                     dev.regs_per_thread_max});
  else if (r.spills)
    v.failures.push({FindingKind::regs_per_thread, std::max(r.demand, dev.regs_per_thread_max + 1),
                     dev.regs_per_thread_max});
  v.regs_per_block = v.regs_per_thread * cfg.threads;

  if (rule == OccupancyRule::hardware)
    hardware_occupancy(v, cfg, dev, m.limits);
  else
    reference_occupancy(v, cfg, dev);
}

void finish_parallelism(TileCheck& v, const GemmProblem& p, const Device& dev) {
  const TileConfig& c = v.config;
  // Programs: tiles times the split, counted as far as the K tiles go (a
  // split beyond them fails; the product stays below M*N*K).
  const int64_t kt = ceil_div(p.k, c.block_k);
  v.grid = ceil_div(p.m, c.block_m) * ceil_div(p.n, c.block_n) * std::min(c.split_k, kt);
  if (c.split_k > kt) v.failures.push({FindingKind::split_exceeds_k_tiles, c.split_k, kt});
  const int64_t resident = std::max<int64_t>(v.blocks_per_sm * dev.sm_count, 1);
  v.waves = ceil_div(v.grid, resident);
  const int64_t rem = v.grid % resident;
  v.last_wave_fill = rem ? static_cast<double>(rem) / static_cast<double>(resident) : 1.0;
  if (v.waves > 1 && v.last_wave_fill < 0.5) v.warnings.push({FindingKind::tail_wave, v.grid, resident});
  if (v.grid < dev.sm_count) v.warnings.push({FindingKind::grid_below_sms, v.grid, dev.sm_count});
}

}  // namespace detail

FindingList problem_findings(const GemmProblem& p, Instr instr) {
  FindingList out;
  if (!check_problem(p).ok()) return out;
  if (instr != Instr::simt && is_fp8(p.dtype) && p.b_layout == Layout::row)
    out.push({FindingKind::fp8_b_not_k_major, 0, 0});
  const ProblemAccess acc = problem_access(p);
  const OperandAccess* ops[] = {&acc.a, &acc.b, &acc.c};
  for (int64_t i = 0; i < 3; ++i)
    if (ops[i]->vector_bytes < kMaxVectorBytes) out.push({FindingKind::narrow_loads, i, ops[i]->vector_bytes});
  return out;
}

namespace detail {

double reference_traffic(const GemmProblem& p, const TileConfig& cfg) {
  // Evaluated in the reference's order so that the doubles agree bit for bit
  // (the reference prices C in the input type; so does this).
  const double mnk = static_cast<double>(p.elem_bytes() * p.m * p.n * p.k);
  const double reuse = 1.0 / static_cast<double>(cfg.block_n) + 1.0 / static_cast<double>(cfg.block_m);
  const double mn = static_cast<double>(p.elem_bytes() * p.m * p.n);
  return mnk * reuse + mn;
}

int64_t allocated_smem_bytes(const TileConfig& cfg, const GemmProblem& p) {
  return allocated_smem_bytes(cfg, p, problem_access(p));
}

int64_t allocated_smem_bytes(const TileConfig& cfg, const GemmProblem& p, const ProblemAccess& acc) {
  // What the compiler allocates: an operand that goes through registers
  // has one buffer, not one per stage (measured: data/h200-triton-v5b).
  const int64_t a = cfg.block_m * cfg.block_k * p.elem_bytes(), b = cfg.block_k * cfg.block_n * p.elem_bytes();
  const int64_t buffers = stage_buffers(cfg);
  return (acc.a.through_registers ? a : a * buffers) + (acc.b.through_registers ? b : b * buffers);
}

}  // namespace detail
}  // namespace tileplan
