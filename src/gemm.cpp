#include "tileplan/gemm.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "tileplan/model.hpp"

namespace tileplan {
namespace {

constexpr int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Largest value accepted for a tile dimension, stage count or thread count:
// keeps every product the model forms far inside 64 bits (and exact in a double).
constexpr int64_t kMaxTileValue = 65536;
// Largest M, N or K: below 2^31 so every quotient is exact in a double.
constexpr int64_t kMaxDim = (int64_t{1} << 31) - 1;

}  // namespace

std::string_view to_string(Instr i) {
  switch (i) {
    case Instr::mma: return "mma";
    case Instr::wgmma: return "wgmma";
    case Instr::simt: return "simt";
  }
  return "?";
}

std::optional<Instr> parse_instr(std::string_view s) {
  if (s == "mma") return Instr::mma;
  if (s == "wgmma") return Instr::wgmma;
  if (s == "simt") return Instr::simt;
  return std::nullopt;
}

InstrShape instr_shape(Instr i) {
  switch (i) {
    case Instr::mma: return {16, 8, 16, 32};
    case Instr::wgmma: return {64, 8, 16, 128};
    case Instr::simt: return {1, 1, 1, 32};
  }
  return {1, 1, 1, 1};
}

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

std::string_view to_string(Model m) {
  switch (m) {
    case Model::seed: return "seed";
    case Model::calibrated: return "calibrated";
  }
  return "?";
}

std::optional<Model> parse_model(std::string_view s) {
  if (s == "seed") return Model::seed;
  if (s == "calibrated") return Model::calibrated;
  return std::nullopt;
}

Constraint constraint_of(FindingKind k) {
  switch (k) {
    case FindingKind::block_m_multiple:
    case FindingKind::block_n_multiple:
    case FindingKind::block_k_multiple:
    case FindingKind::threads_multiple:
    case FindingKind::threads_per_block:
    case FindingKind::no_block_fits_threads: return Constraint::C3;
    case FindingKind::smem_per_block:
    case FindingKind::no_block_fits_smem: return Constraint::C1;
    case FindingKind::regs_per_thread:
    case FindingKind::no_block_fits_regs: return Constraint::C2;
    case FindingKind::tail_wave:
    case FindingKind::grid_below_sms: return Constraint::C4;
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
    case FindingKind::no_block_fits_smem:
      return fmt::format("C1 not one block fits on an SM: {} B of shared memory against {} B", f.value,
                         f.limit);
    case FindingKind::no_block_fits_regs:
      return fmt::format("C2 not one block fits on an SM: {} registers per block against {}", f.value,
                         f.limit);
    case FindingKind::no_block_fits_threads:
      return fmt::format("C3 not one block fits on an SM: {} threads against {}", f.value, f.limit);
    case FindingKind::tail_wave: {
      const int64_t rem = f.value % f.limit;
      return fmt::format("C4 the last wave fills {:.0f}% of the machine ({} tiles over {} resident blocks)",
                         100.0 * static_cast<double>(rem) / static_cast<double>(f.limit), f.value, f.limit);
    }
    case FindingKind::grid_below_sms:
      return fmt::format("C4 {} tiles cannot occupy {} SMs: most of the machine idles", f.value, f.limit);
  }
  return "?";
}

// ---- C3, C1, C2 and occupancy ---------------------------------------------

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

// C2 and occupancy under the calibrated model: the family's register
// estimate, and blocks/SM as the occupancy module grants them.
void calibrated_resources(Verdict& v, const TileConfig& cfg, const Device& dev, const GemmProblem& p, Family family) {
  const RegisterEstimate r = estimate_registers(kernel_family(family).regs, dev, cfg, p);
  v.accum_per_thread = ceil_div(cfg.block_m * cfg.block_n, cfg.threads);
  v.regs_per_thread = r.regs_per_thread;
  v.regs_per_block = v.regs_per_thread * cfg.threads;
  v.spills = r.spills;
  if (r.spills)
    v.failures.push({FindingKind::regs_per_thread, std::max(r.demand, dev.regs_per_thread_max + 1),
                     dev.regs_per_thread_max});
  // A block over the per-block thread or shared-memory limit (C3 or C1 has
  // failed) cannot be placed at all: leave its occupancy at zero.
  for (const Finding& f : v.failures)
    if (f.kind == FindingKind::threads_per_block || f.kind == FindingKind::smem_per_block) return;
  const OccupancyInput in{cfg.threads, v.regs_per_thread, 0, v.smem_bytes, std::nullopt};
  const Occupancy o = occupancy(dev, in);
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

}  // namespace

namespace {

// How far to go once C3 or C1 has failed: a diagnosis reports every
// constraint; a sweep drops the tile, so it stops there.
enum class Depth { full, until_failure };

Verdict evaluate_impl(const TileConfig& cfg, const Device& dev, const GemmProblem& p, Model model, Family family,
                      Depth depth) {
  Verdict v;
  v.config = cfg;

  // C3: instruction shape.
  const InstrShape s = instr_shape(cfg.instr);
  if (cfg.block_m % s.m) v.failures.push({FindingKind::block_m_multiple, cfg.block_m, s.m});
  if (cfg.block_n % s.n) v.failures.push({FindingKind::block_n_multiple, cfg.block_n, s.n});
  if (cfg.block_k % s.k) v.failures.push({FindingKind::block_k_multiple, cfg.block_k, s.k});
  if (cfg.threads % s.threads) v.failures.push({FindingKind::threads_multiple, cfg.threads, s.threads});
  if (cfg.threads > dev.max_threads_per_block)
    v.failures.push({FindingKind::threads_per_block, cfg.threads, dev.max_threads_per_block});

  // C1: stages * (block_M*block_K + block_K*block_N) * elem_bytes.
  v.smem_per_stage_bytes = (cfg.block_m * cfg.block_k + cfg.block_k * cfg.block_n) * p.elem_bytes;
  v.smem_bytes = v.smem_per_stage_bytes * cfg.stages;
  if (v.smem_bytes > dev.smem_per_block_max_bytes)
    v.failures.push({FindingKind::smem_per_block, v.smem_bytes, dev.smem_per_block_max_bytes});
  if (depth == Depth::until_failure && !v.failures.empty()) return v;

  if (model == Model::calibrated) {
    calibrated_resources(v, cfg, dev, p, family);
    return v;
  }

  // C2 (seed): fp32 accumulators only, rounded to the per-warp allocation unit.
  v.accum_per_thread = ceil_div(cfg.block_m * cfg.block_n, cfg.threads);
  const int64_t raw_regs = v.accum_per_thread * p.accum_bytes / 4;
  const int64_t per_warp = ceil_div(raw_regs * dev.warp_size, dev.reg_alloc_unit) * dev.reg_alloc_unit;
  v.regs_per_thread = per_warp / dev.warp_size;
  if (v.regs_per_thread > dev.regs_per_thread_max)
    v.failures.push({FindingKind::regs_per_thread, v.regs_per_thread, dev.regs_per_thread_max});
  v.regs_per_block = v.regs_per_thread * cfg.threads;

  // Occupancy (seed): the smallest of three quotients and the block limit.
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
  if (v.blocks_per_sm == 0) {
    switch (binding) {
      case Resource::smem:
        v.failures.push({FindingKind::no_block_fits_smem, v.smem_bytes, dev.smem_per_sm_bytes});
        break;
      case Resource::threads:
        v.failures.push({FindingKind::no_block_fits_threads, cfg.threads, dev.max_threads_per_sm});
        break;
      default:
        v.failures.push({FindingKind::no_block_fits_regs, v.regs_per_block, dev.regs_per_sm});
        break;
    }
  } else {
    v.binding = binding;
  }
  return v;
}

}  // namespace

Verdict evaluate(const TileConfig& cfg, const Device& dev, const GemmProblem& p, Model model, Family family) {
  return evaluate_impl(cfg, dev, p, model, family, Depth::full);
}

// ---- C4: parallelism --------------------------------------------------------

void finish_parallelism(Verdict& v, const GemmProblem& p, const Device& dev) {
  const TileConfig& c = v.config;
  v.grid = ceil_div(p.m, c.block_m) * ceil_div(p.n, c.block_n);
  const int64_t resident = std::max<int64_t>(v.blocks_per_sm * dev.sm_count, 1);
  v.waves = ceil_div(v.grid, resident);
  const int64_t rem = v.grid % resident;
  v.last_wave_fill = rem ? static_cast<double>(rem) / static_cast<double>(resident) : 1.0;
  if (v.waves > 1 && v.last_wave_fill < 0.5) v.warnings.push({FindingKind::tail_wave, v.grid, resident});
  if (v.grid < dev.sm_count) v.warnings.push({FindingKind::grid_below_sms, v.grid, dev.sm_count});
}

double dram_bytes(const GemmProblem& p, const TileConfig& cfg) {
  // Evaluated in the reference's order so that the doubles agree bit for bit.
  const double mnk = static_cast<double>(p.elem_bytes * p.m * p.n * p.k);
  const double reuse = 1.0 / static_cast<double>(cfg.block_n) + 1.0 / static_cast<double>(cfg.block_m);
  const double mn = static_cast<double>(p.elem_bytes * p.m * p.n);
  return mnk * reuse + mn;
}

// ---- validation ---------------------------------------------------------------

std::optional<std::string> check_problem(const GemmProblem& p, const std::array<std::string_view, 3>& names) {
  const std::pair<std::string_view, int64_t> dims[] = {{names[0], p.m}, {names[1], p.n}, {names[2], p.k}};
  for (const auto& [flag, value] : dims) {
    if (value < 1) return fmt::format("{} is {}: a GEMM dimension must be at least 1", flag, value);
    if (value > kMaxDim)
      return fmt::format("{} is {}: a GEMM dimension must be at most {}", flag, value, kMaxDim);
  }
  __int128 bytes = static_cast<__int128>(p.elem_bytes) * p.m * p.n;
  bytes *= p.k;
  if (bytes > std::numeric_limits<int64_t>::max())
    return fmt::format("{}/{}/{} {}x{}x{}: {}*M*N*K bytes must fit in 64 bits", names[0], names[1], names[2], p.m,
                       p.n, p.k, p.elem_bytes);
  return std::nullopt;
}

std::optional<std::string> check_config(const TileConfig& c) {
  const std::pair<const char*, int64_t> values[] = {{"--block-m", c.block_m}, {"--block-n", c.block_n},
                                                    {"--block-k", c.block_k}, {"--stages", c.stages},
                                                    {"--threads", c.threads}};
  for (const auto& [flag, value] : values) {
    if (value < 1) return fmt::format("{} value {} must be at least 1", flag, value);
    if (value > kMaxTileValue) return fmt::format("{} value {} must be at most {}", flag, value, kMaxTileValue);
  }
  return std::nullopt;
}

// ---- the sweep --------------------------------------------------------------

namespace {
std::vector<int64_t> sorted_unique(std::vector<int64_t> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}
}  // namespace

Planner::Planner(Device dev, Instr instr, SearchSpace space, Model model, Family family)
    : dev_(std::move(dev)), instr_(instr), space_(std::move(space)), model_(model), family_(family) {
  space_.block_m = sorted_unique(space_.block_m);
  space_.block_n = sorted_unique(space_.block_n);
  space_.block_k = sorted_unique(space_.block_k);
  space_.stages = sorted_unique(space_.stages);
  space_.threads = sorted_unique(space_.threads);
  const int64_t thread_multiple = instr_shape(instr_).threads;
  const TimeConstants& k = kernel_family(family_).time;
  feasible_.reserve(space_.size());
  for (int64_t bm : space_.block_m)
    for (int64_t bn : space_.block_n)
      for (int64_t bk : space_.block_k)
        for (int64_t st : space_.stages)
          for (int64_t th : space_.threads) {
            if (th % thread_multiple) continue;
            const TileConfig cfg{bm, bn, bk, st, th, instr_};
            Verdict v = evaluate_impl(cfg, dev_, GemmProblem{}, model_, family_, Depth::until_failure);
            if (!v.feasible()) continue;
            if (model_ == Model::calibrated) costs_.push_back(tile_costs(dev_, cfg, GemmProblem{}, v.blocks_per_sm, v.spills, k));
            feasible_.push_back(v);
          }
}

namespace {

// The calibrated model's numbers for a verdict whose C1-C3 hold.
void finish_calibrated(Verdict& v, const GemmProblem& p, const Device& dev, const TileCosts& costs, Family family) {
  const KernelFamily& fam = kernel_family(family);
  const Prediction pr = predict(dev, p, costs, fam.time, fam.group_m);
  v.predicted = true;
  v.predicted_us = pr.time_us;
  v.time_bound = pr.bound;
  v.dram_bytes = pr.dram_bytes;
}

}  // namespace

std::size_t Planner::plan_into(const GemmProblem& p, std::size_t topk, std::vector<Verdict>& out) const {
  if (model_ == Model::calibrated) {
    struct Key {
      double time_us;
      uint32_t index;
      bool operator<(const Key& o) const { return time_us != o.time_us ? time_us < o.time_us : index < o.index; }
    };
    thread_local std::vector<Key> keys;
    keys.clear();
    const TimeConstants& k = kernel_family(family_).time;
    const int64_t group_m = kernel_family(family_).group_m;
    for (std::size_t i = 0; i < feasible_.size(); ++i) {
      if (feasible_[i].config.block_k > p.k) continue;
      keys.push_back({predict_us(dev_, p, costs_[i], k, group_m), static_cast<uint32_t>(i)});
    }
    const std::size_t n = (topk == 0 || topk > keys.size()) ? keys.size() : topk;
    std::partial_sort(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(n), keys.end());
    out.clear();
    out.reserve(n);
    for (std::size_t r = 0; r < n; ++r) {
      Verdict v = feasible_[keys[r].index];
      finish_parallelism(v, p, dev_);
      finish_calibrated(v, p, dev_, costs_[keys[r].index], family_);
      out.push_back(v);
    }
    return keys.size();
  }
  struct Key {
    double traffic;  // round(traffic): Python's round, half to even
    int64_t neg_blocks;
    int64_t smem;
    uint32_t index;  // sweep order: makes the sort stable
    bool operator<(const Key& o) const {
      if (traffic != o.traffic) return traffic < o.traffic;
      if (neg_blocks != o.neg_blocks) return neg_blocks < o.neg_blocks;
      if (smem != o.smem) return smem < o.smem;
      return index < o.index;
    }
  };
  thread_local std::vector<Key> keys;
  thread_local std::vector<double> traffic;
  keys.clear();
  traffic.assign(feasible_.size(), 0.0);
  for (std::size_t i = 0; i < feasible_.size(); ++i) {
    const Verdict& v = feasible_[i];
    if (v.config.block_k > p.k) continue;
    traffic[i] = dram_bytes(p, v.config);
    keys.push_back({std::nearbyint(traffic[i]), -v.blocks_per_sm, v.smem_bytes, static_cast<uint32_t>(i)});
  }
  const std::size_t n = (topk == 0 || topk > keys.size()) ? keys.size() : topk;
  std::partial_sort(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(n), keys.end());
  out.clear();
  out.reserve(n);
  for (std::size_t r = 0; r < n; ++r) {
    Verdict v = feasible_[keys[r].index];
    finish_parallelism(v, p, dev_);
    v.dram_bytes = traffic[keys[r].index];
    out.push_back(v);
  }
  return keys.size();
}

std::vector<Verdict> Planner::plan(const GemmProblem& p, std::size_t topk) const {
  std::vector<Verdict> out;
  plan_into(p, topk, out);
  return out;
}

std::vector<Verdict> sweep(const GemmProblem& p, const Device& dev, Instr instr, const SearchSpace& space,
                           std::size_t topk, Model model, Family family) {
  return Planner(dev, instr, space, model, family).plan(p, topk);
}

Verdict diagnose(const GemmProblem& p, const Device& dev, const TileConfig& cfg, Model model, Family family) {
  Verdict v = evaluate(cfg, dev, p, model, family);
  finish_parallelism(v, p, dev);
  v.dram_bytes = dram_bytes(p, cfg);
  if (model == Model::calibrated && v.blocks_per_sm > 0) {
    const TileCosts costs = tile_costs(dev, cfg, p, v.blocks_per_sm, v.spills, kernel_family(family).time);
    finish_calibrated(v, p, dev, costs, family);
  }
  return v;
}

std::vector<std::size_t> rank_configs(const GemmProblem& p, const Device& dev, const std::vector<TileConfig>& configs,
                                      Model model, Family family, std::vector<Verdict>* verdicts) {
  std::vector<Verdict> local;
  std::vector<Verdict>& vs = verdicts ? *verdicts : local;
  vs.clear();
  vs.reserve(configs.size());
  for (const TileConfig& c : configs) vs.push_back(diagnose(p, dev, c, model, family));
  // The sweep's filter: a block_K larger than K is not a candidate.
  auto candidate = [&](std::size_t i) { return vs[i].feasible() && configs[i].block_k <= p.k; };
  std::vector<std::size_t> order(configs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const bool fa = candidate(a), fb = candidate(b);
    if (fa != fb) return fa;
    if (!fa) return false;
    const Verdict& x = vs[a];
    const Verdict& y = vs[b];
    if (model == Model::calibrated) return x.predicted_us < y.predicted_us;
    const double tx = std::nearbyint(x.dram_bytes), ty = std::nearbyint(y.dram_bytes);
    if (tx != ty) return tx < ty;
    if (x.blocks_per_sm != y.blocks_per_sm) return x.blocks_per_sm > y.blocks_per_sm;
    return x.smem_bytes < y.smem_bytes;
  });
  return order;
}

}  // namespace tileplan
