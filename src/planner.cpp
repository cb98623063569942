#include "tileplan/planner.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "detail.hpp"

namespace tileplan {

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

namespace {

// The reference's register rule, for Model::seed.
constexpr RegisterProfile kReferenceRegisters{.accumulators_only = true};

Status check_model(Model m) {
  if (m != Model::seed && m != Model::calibrated)
    return Error{ErrorKind::invalid_argument, "model", "model is not one of seed, calibrated"};
  return {};
}

// What each model makes of a tile's resources, for problems of input type `t`.
RegisterProfile registers_for(Model model, const KernelFamily& family, DType t, Instr instr) {
  return model == Model::calibrated ? tileplan::registers_for(family, t, instr) : kReferenceRegisters;
}
OccupancyRule rule_for(Model model) {
  return model == Model::calibrated ? OccupancyRule::hardware : OccupancyRule::reference;
}

// `time`: the calibrated model's constants (a spill of held operand tiles is
// priced when they say so); null for the seed model.
// `memo`, `access`: check_resources' memo of what the tile's stage counts
// share, and the problem's access. Overwrites v: the sweep's table keeps
// these checks alone (a Verdict's calibrated numbers are set per problem,
// for the configurations it returns; a table of Verdicts was half as large
// again), diagnose passes a fresh Verdict.
void check(const TileConfig& cfg, const Device& dev, const GemmProblem& p, Model model, const RegisterProfile& regs,
           detail::Depth depth, TileCheck& v, const TimeConstants* time,
           detail::StageFreeMemo* memo = nullptr, const ProblemAccess* access = nullptr) {
  detail::check_resources(cfg, dev, p, regs, rule_for(model), depth, v,
                          model == Model::calibrated && time && detail::prices_held_spills(*time), memo, access);
  if (model == Model::seed) {  // the reference has no notion of spilling
    v.spills = false;
    v.spilled_registers = 0;
    v.epilogue_spilled_registers = 0;
  }
}

// The calibrated model's numbers for a verdict whose C1-C3 hold.
void finish_calibrated(Verdict& v, const GemmProblem& p, const Device& dev, const TileCosts& costs,
                       const TimeConstants& time, const KernelFamily& family) {
  const Prediction pr = detail::predict(dev, p, costs, time, family.group_m, detail::split_of(v.config, family));
  v.predicted = true;
  v.predicted_us = pr.time_us;
  v.time_bound = pr.bound;
  v.dram_bytes = pr.dram_bytes;
  v.reduce_us = pr.reduce_us;
  v.carveout_bytes = costs.carveout_bytes;
  v.l1_bytes = costs.l1_bytes;
  v.narrow_footprint_bytes = costs.narrow_footprint_bytes;
  v.l1_short = costs.l1_short;
  v.l1_miss_us = costs.l1_miss_us;
  v.l2_async_bytes = costs.l2_async_bytes;
  v.l2_requests = costs.l2_requests;
  v.l2_stage_bytes = costs.l2_stage_bytes;
  v.repeated_rows_a_bytes = costs.repeated_rows_a_bytes;
  v.in_step_us = pr.in_step_us;
  v.time_terms = pr.terms;
  // kmajor_wide_n priced a warpgroup wider than 128 columns: say so.
  if (costs.serialized_wgmma_cols > 0)
    v.warnings.push({FindingKind::serialized_wgmma, costs.serialized_wgmma_cols, 128});
  // The measured family runs an fp8 tile of 16 or 32 rows as fp16 MMAs on
  // sm_90, where fp8 wgmma takes 64 rows: say so (the time's constants were
  // fitted on such tiles as they run).
  if (costs.mma_tile && is_fp8(p.dtype) && dev.compute_capability == 90 &&
      resolve_instr(Instr::automatic, dev.compute_capability, v.config.block_m, v.config.threads) == Instr::mma)
    v.warnings.push({FindingKind::fp8_mma_as_f16, v.config.block_m, 64});
}

// A split factor above 1 needs the calibrated model and a family that models
// the split (the seed model is the reference procedure, which never splits).
Status check_split_support(int64_t split_k, Model model, const KernelFamily& family) {
  if (split_k == 1) return {};
  if (model == Model::seed)
    return Error{ErrorKind::invalid_argument, "split_k",
                 fmt::format("split_k {}: the seed model (the reference procedure) has no split-K; split_k must be 1",
                             split_k)};
  return check_split_model(split_k, family);
}

// The one ranking of both models: a key per candidate, compared
// lexicographically; `index` (sweep order, or position in a caller's list)
// makes every order total and so the sort stable.
//   seed:        (round(traffic) half to even as Python's round, -blocks_per_sm, smem_bytes)
//   calibrated:  (predicted_us)
struct RankKey {
  double primary;
  int64_t neg_blocks;
  int64_t smem;
  uint32_t index;
  bool operator<(const RankKey& o) const {
    if (primary != o.primary) return primary < o.primary;
    if (neg_blocks != o.neg_blocks) return neg_blocks < o.neg_blocks;
    if (smem != o.smem) return smem < o.smem;
    return index < o.index;
  }
};
// `measure`: the predicted time (calibrated) or the traffic in bytes (seed).
RankKey rank_key(Model model, double measure, const TileCheck& v, uint32_t index) {
  if (model == Model::calibrated) return {measure, 0, 0, index};
  return {std::nearbyint(measure), -v.blocks_per_sm, v.smem_bytes, index};
}

}  // namespace

SearchSpace default_space(Model model, const KernelFamily& family) {
  if (model != Model::calibrated) return SearchSpace{};
  SearchSpace s = family.space;
  s.split_k = {1};
  return s;
}

bool stages_have_no_effect(const GemmProblem& p, Model model) {
  if (model != Model::calibrated || !check_problem(p).ok()) return false;
  const ProblemAccess acc = problem_access(p);
  return acc.a.through_registers && acc.b.through_registers;
}

Result<Planner> Planner::create(Device dev, Instr instr, SearchSpace space, Model model, KernelFamily family) {
  return create(std::move(dev), instr, std::move(space), model, std::move(family), GemmProblem{});
}

Result<Planner> Planner::create(Device dev, Instr instr, SearchSpace space, Model model, KernelFamily family,
                                const GemmProblem& first) {
  return create_shared(std::move(dev), instr, std::move(space), model,
                       std::make_shared<const KernelFamily>(std::move(family)), first);
}

Result<Planner> Planner::create_shared(Device dev, Instr instr, SearchSpace space, Model model,
                                       std::shared_ptr<const KernelFamily> family_ptr, const GemmProblem& first) {
  const KernelFamily& family = *family_ptr;
  if (Status s = check_device(dev); !s.ok()) return s.error();
  if (Status s = check_model(model); !s.ok()) return s.error();
  TileConfig probe;
  probe.instr = instr == Instr::automatic ? Instr::mma : instr;
  if (Status s = check_config(probe); !s.ok()) return s.error();
  Result<std::size_t> size = tileplan::space_size(space);
  if (!size.ok()) return size.error();
  if (model == Model::calibrated && !detail::is_shipped_family(family))
    if (Status s = check_family(family); !s.ok()) return s.error();
  if (Status s = check_problem(first); !s.ok()) return s.error();
  for (int64_t split : space.split_k)
    if (Status s = check_split_support(split, model, family); !s.ok()) return s.error();

  Planner pl;
  pl.dev_ = std::move(dev);
  pl.instr_ = model_instr(instr, model);
  pl.space_ = normalized(std::move(space));
  pl.space_size_ = *size;
  pl.model_ = model;
  pl.family_ = std::move(family_ptr);
  pl.tables_ = std::make_shared<Tables>();
  // One class is built at once, so that the first plan() of a problem of
  // that class costs no more than the others.
  (void)pl.table_for(first);
  return pl;
}

// Everything a table depends on beside the tile: the input and output types,
// how each operand moves (problem_access) and where B is K-major.
std::size_t Planner::slot_of(const GemmProblem& p) {
  // Everything of the problem that the shape-independent costs read
  // (estimate_registers, unstaged_tile_costs, stage_tile_costs): how each
  // operand moves, both layouts, and the few properties of M and the leading
  // dimensions they ask for. Two problems of one slot share a table, so a
  // property missing here makes a batch's answer depend on its order.
  const ProblemAccess acc = problem_access(p);
  const bool narrow_c = acc.c.vector_bytes < kMaxVectorBytes;
  std::size_t bits = 0;
  const auto bit = [&](bool on) { bits = bits * 2 + (on ? 1u : 0u); };
  bit(p.a_layout == Layout::col);
  bit(p.b_layout == Layout::col);
  bit(!acc.a.async_copy);
  bit(acc.a.through_registers);
  bit(!acc.b.async_copy);
  bit(acc.b.through_registers);
  bit(narrow_c);
  // The cache lines a narrow operand's rows touch (narrow_footprint_bytes):
  // one more where its leading dimension is not a multiple of 16.
  bit(acc.a.through_registers && acc.a.ld_divisible);
  bit(acc.b.through_registers && acc.b.ld_divisible);
  // B through registers with rows 16-byte aligned (aligned_b_stage_share).
  bit(acc.b.through_registers && rows_16_byte_aligned(acc.b, p.elem_bytes()));
  // C stored narrow with M not a multiple of 16: the epilogue spills more
  // (per_narrow_c_row_accumulator, src/registers.cpp).
  bit(narrow_c && p.m % kDivisibility != 0);
  constexpr std::size_t kBits = std::size_t{1} << 11;
  // A of few rows: its L2 cost depends on M itself (1..15), so each M has a table.
  const std::size_t rows = acc.a.repeated_rows ? static_cast<std::size_t>(p.m) : 0u;
  const DType out = p.c_dtype();
  const std::size_t out_index = out == DType::float16 ? 0 : out == DType::bfloat16 ? 1 : 2;
  return ((static_cast<std::size_t>(p.dtype) * 3 + out_index) * 16 + rows) * kBits + bits;
}

const Planner::Table& Planner::table_for(const GemmProblem& p) const {
  const std::size_t key = slot_of(p);
  Tables& t = *tables_;
  const std::size_t n = t.published.load(std::memory_order_acquire);
  for (std::size_t i = 0; i < n; ++i) {
    const Entry* e = t.fast[i].load(std::memory_order_relaxed);
    if (e->key == key) return e->table;
  }
  std::lock_guard<std::mutex> lock(t.build);
  const std::size_t m = t.published.load(std::memory_order_relaxed);
  for (std::size_t i = 0; i < m; ++i)
    if (const Entry* e = t.fast[i].load(std::memory_order_relaxed); e->key == key) return e->table;
  for (const Entry* e : t.overflow)
    if (e->key == key) return e->table;
  t.owned.push_back(std::make_unique<Entry>(Entry{key, build_table(p)}));
  const Entry* e = t.owned.back().get();
  if (m < kFastTables) {
    t.fast[m].store(e, std::memory_order_relaxed);
    t.published.store(m + 1, std::memory_order_release);
  } else {
    t.overflow.push_back(e);
  }
  return e->table;
}

Planner::Table Planner::build_table(const GemmProblem& p) const {
  Table t;
  t.time = time_for(*family_, p.dtype);
  // The profile of each instruction a tile may resolve to.
  const RegisterProfile regs_mma = registers_for(model_, *family_, p.dtype, Instr::mma);
  const RegisterProfile regs_other = registers_for(model_, *family_, p.dtype, instr_ == Instr::automatic ? Instr::wgmma : instr_);
  const int64_t thread_multiple = instr_shape(instr_).threads;  // automatic: mma's, each tile's below
  const SearchSpace& sp = space_;
  // Stages without effect: one configuration per tile, the fewest stages.
  const bool one_stage = stages_have_no_effect(p, model_);
  TileCheck v;
  // Reserved at once: growing by doubling returns large blocks to the system
  // and faults fresh pages in on every planner (measured: 80x slower sweeps).
  t.feasible.reserve(space_size_);
  if (model_ == Model::calibrated) t.costs.reserve(space_size_);
  const ProblemAccess acc = problem_access(p);
  // A tile's registers, the occupancy limits they and its threads fix, and
  // the costs that do not depend on its stages are the same at every stage
  // count: kept per thread count while block_M, block_N and block_K stay
  // (stages loop outside the threads).
  struct Unstaged {
    detail::StageFreeMemo memo;
    std::optional<TileCosts> costs;
  };
  std::vector<Unstaged> unstaged(sp.threads.size());
  for (int64_t bm : sp.block_m)
    for (int64_t bn : sp.block_n)
      for (int64_t bk : sp.block_k) {
        for (Unstaged& u : unstaged) u = Unstaged{};
        for (int64_t st : sp.stages)
          for (std::size_t ti = 0; ti < sp.threads.size(); ++ti) {
            const int64_t th = sp.threads[ti];
            if (!detail::multiple_of(th, thread_multiple) || (one_stage && st != sp.stages.front())) continue;
            const TileConfig cfg{bm, bn, bk, st, th, resolve_instr(instr_, dev_.compute_capability, bm, th)};
            Unstaged& u = unstaged[ti];
            check(cfg, dev_, p, model_, cfg.instr == Instr::mma ? regs_mma : regs_other, detail::Depth::until_failure, v,
                  &t.time, &u.memo, &acc);
            if (!v.feasible()) continue;
            if (model_ == Model::calibrated) {
              if (!u.costs)
                u.costs = detail::unstaged_tile_costs(dev_, cfg, p, acc, v.spills, t.time, v.spilled_registers,
                                                      v.epilogue_spilled_registers);
              t.costs.push_back(*u.costs);
              detail::stage_tile_costs(t.costs.back(), dev_, cfg, p, acc, v.blocks_per_sm, t.time);
            }
            t.feasible.push_back(v);
          }
      }
  return t;
}

std::size_t Planner::shape_independent_feasible(const GemmProblem& p) const {
  if (!check_problem(p).ok()) return 0;
  return table_for(p).feasible.size() * space_.split_k.size();
}

Result<std::size_t> Planner::plan_into(const GemmProblem& p, std::size_t topk, std::vector<Verdict>& out) const {
  if (Status s = check_problem(p); !s.ok()) return s.error();
  const Table& table = table_for(p);
  const std::vector<TileCheck>& feasible_ = table.feasible;
  const std::vector<TileCosts>& costs_ = table.costs;
  thread_local std::vector<RankKey> keys;
  keys.clear();
  // Split factors innermost: the key's index is tile * splits + split.
  const std::vector<int64_t>& splits = space_.split_k;
  const std::size_t n_splits = splits.size();
  const SplitKConstants* split_model = family_->split_k ? &family_->split_k->constants : nullptr;
  // Tiles come in sweep order, block_M and block_N outermost: their grid's
  // terms are computed once for each block_M x block_N.
  detail::GridTerms grid;
  for (std::size_t i = 0; i < feasible_.size(); ++i) {
    const TileCheck& v = feasible_[i];
    if (v.config.block_k > p.k) continue;
    if (model_ == Model::calibrated && (grid.block_m != v.config.block_m || grid.block_n != v.config.block_n))
      grid = detail::grid_terms(dev_, p, v.config.block_m, v.config.block_n, table.time, family_->group_m);
    const int64_t kt = detail::ceil_div(p.k, v.config.block_k);
    for (std::size_t si = 0; si < n_splits; ++si) {
      // A split beyond the K tiles fails C4: not a candidate.
      if (splits[si] > kt) break;
      const double measure =
          model_ == Model::calibrated
              ? detail::predict_us(dev_, p, costs_[i], table.time, grid, {splits[si], split_model})
              : detail::reference_traffic(p, v.config);
      keys.push_back(rank_key(model_, measure, v, static_cast<uint32_t>(i * n_splits + si)));
    }
  }
  const std::size_t n = (topk == 0 || topk > keys.size()) ? keys.size() : topk;
  std::partial_sort(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(n), keys.end());
  out.clear();
  out.reserve(n);
  for (std::size_t r = 0; r < n; ++r) {
    const std::size_t i = keys[r].index / n_splits;
    Verdict v;
    static_cast<TileCheck&>(v) = feasible_[i];
    v.config.split_k = splits[keys[r].index % n_splits];
    detail::finish_parallelism(v, p, dev_);
    if (model_ == Model::calibrated)
      finish_calibrated(v, p, dev_, costs_[i], table.time, *family_);
    else
      v.dram_bytes = detail::reference_traffic(p, v.config);
    out.push_back(v);
  }
  return keys.size();
}

Result<std::vector<Verdict>> Planner::plan(const GemmProblem& p, std::size_t topk) const {
  std::vector<Verdict> out;
  Result<std::size_t> n = plan_into(p, topk, out);
  if (!n.ok()) return n.error();
  return out;
}

Result<std::vector<Verdict>> sweep(const GemmProblem& p, const Device& dev, Instr instr, const SearchSpace& space,
                                   std::size_t topk, Model model, const KernelFamily& family) {
  // Only p's class: a problem of another class than the common one would
  // otherwise build two tables (measured: a bfloat16 sweep 25x slower).
  // The planner dies before this returns: a non-owning pointer to the family.
  Result<Planner> planner =
      Planner::create_shared(dev, instr, space, model, std::shared_ptr<const KernelFamily>(std::shared_ptr<void>{}, &family), p);
  if (!planner.ok()) return planner.error();
  return planner->plan(p, topk);
}

namespace {

// diagnose() after its inputs are checked.
Verdict diagnose_checked(const GemmProblem& p, const Device& dev, const TileConfig& cfg, Model model,
                         const KernelFamily& family) {
  Verdict v;
  const TimeConstants time = time_for(family, p.dtype);
  check(cfg, dev, p, model, registers_for(model, family, p.dtype, cfg.instr), detail::Depth::full, v, &time);
  detail::finish_parallelism(v, p, dev);
  v.dram_bytes = detail::reference_traffic(p, cfg);
  if (model == Model::calibrated && v.blocks_per_sm > 0 &&
      (cfg.instr == Instr::simt || tensor_tflops(dev, p.dtype) > 0) && check_split(p, cfg, family).ok()) {
    const TileCosts costs = detail::tile_costs(dev, cfg, p, v.blocks_per_sm, v.spills, time, v.spilled_registers,
                                               v.epilogue_spilled_registers);
    finish_calibrated(v, p, dev, costs, time, family);
  }
  return v;
}

Status check_inputs(const GemmProblem& p, const Device& dev, Model model, const KernelFamily& family) {
  for (const Status& s : {check_problem(p), check_device(dev), check_model(model)})
    if (!s.ok()) return s;
  if (model == Model::calibrated) return check_family(family);
  return {};
}

}  // namespace

Result<Verdict> diagnose(const GemmProblem& p, const Device& dev, const TileConfig& cfg, Model model,
                         const KernelFamily& family) {
  if (Status s = check_inputs(p, dev, model, family); !s.ok()) return s.error();
  if (Status s = check_config(cfg); !s.ok()) return s.error();
  if (Status s = check_split_support(cfg.split_k, model, family); !s.ok()) return s.error();
  return diagnose_checked(p, dev, cfg, model, family);
}

Result<std::optional<SplitAdvice>> split_advice(const GemmProblem& p, const Device& dev, const TileConfig& cfg,
                                                const KernelFamily& family) {
  if (Status s = check_inputs(p, dev, Model::calibrated, family); !s.ok()) return s.error();
  if (Status s = check_config(cfg); !s.ok()) return s.error();
  if (!family.split_k) return std::optional<SplitAdvice>{};
  TileConfig one = cfg;
  one.split_k = 1;
  Verdict v = diagnose_checked(p, dev, one, Model::calibrated, family);
  if (!v.feasible() || !v.predicted || !std::isfinite(v.predicted_us)) return std::optional<SplitAdvice>{};
  const TimeConstants time = time_for(family, p.dtype);
  const TileCosts costs = detail::tile_costs(dev, one, p, v.blocks_per_sm, v.spills, time, v.spilled_registers,
                                             v.epilogue_spilled_registers);
  SplitAdvice a;
  a.unsplit_us = a.best_us = v.predicted_us;
  const int64_t kt = detail::ceil_div(p.k, cfg.block_k);
  for (int64_t split : kSplitFactors) {
    if (split == 1 || split > kt) continue;
    const double us =
        detail::predict_us(dev, p, costs, time, family.group_m, {split, &family.split_k->constants});
    if (us < a.best_us) {
      a.best_us = us;
      a.best_split = split;
    }
  }
  return std::optional<SplitAdvice>{a};
}

Result<std::vector<std::size_t>> rank_configs(const GemmProblem& p, const Device& dev,
                                              const std::vector<TileConfig>& configs, Model model,
                                              const KernelFamily& family, std::vector<Verdict>* verdicts) {
  if (Status s = check_inputs(p, dev, model, family); !s.ok()) return s.error();
  for (const TileConfig& c : configs) {
    if (Status s = check_config(c); !s.ok()) return s.error();
    if (Status s = check_split_support(c.split_k, model, family); !s.ok()) return s.error();
  }
  if (configs.size() > kMaxSearchSpace)
    return Error{ErrorKind::out_of_range, "configs",
                 "configs holds more than " + std::to_string(kMaxSearchSpace) + " configurations"};
  std::vector<Verdict> local;
  std::vector<Verdict>& vs = verdicts ? *verdicts : local;
  vs.clear();
  vs.reserve(configs.size());
  for (const TileConfig& c : configs) vs.push_back(diagnose_checked(p, dev, c, model, family));
  // The sweep's filter: a block_K larger than K is not a candidate.
  std::vector<RankKey> keys;
  std::vector<std::size_t> rest;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    if (vs[i].feasible() && configs[i].block_k <= p.k)
      keys.push_back(rank_key(model, model == Model::calibrated ? vs[i].predicted_us : vs[i].dram_bytes, vs[i],
                              static_cast<uint32_t>(i)));
    else
      rest.push_back(i);
  }
  std::sort(keys.begin(), keys.end());
  std::vector<std::size_t> order;
  order.reserve(configs.size());
  for (const RankKey& k : keys) order.push_back(k.index);
  order.insert(order.end(), rest.begin(), rest.end());
  return order;
}

std::vector<std::size_t> distinct_tiles_first(const GemmProblem& p, Model model, const std::vector<TileConfig>& configs,
                                              const std::vector<Verdict>& verdicts, std::vector<std::size_t> order) {
  if (!stages_have_no_effect(p, model) || verdicts.size() != configs.size()) return order;
  std::vector<std::size_t> out, repeats;
  out.reserve(order.size());
  std::size_t r = 0;
  for (; r < order.size(); ++r) {
    const std::size_t i = order[r];
    if (i >= configs.size() || !verdicts[i].feasible() || configs[i].block_k > p.k) break;  // the candidates end
    const TileConfig& c = configs[i];
    const bool repeat = std::any_of(out.begin(), out.end(), [&](std::size_t j) {
      const TileConfig& o = configs[j];
      return o.block_m == c.block_m && o.block_n == c.block_n && o.block_k == c.block_k && o.threads == c.threads &&
             o.split_k == c.split_k && o.instr == c.instr;
    });
    (repeat ? repeats : out).push_back(i);
  }
  out.insert(out.end(), repeats.begin(), repeats.end());
  out.insert(out.end(), order.begin() + static_cast<std::ptrdiff_t>(r), order.end());
  return out;
}

GemmProblem padded_problem(const GemmProblem& p, unsigned parts) {
  // Rounded up without overflow: every dimension and leading dimension is at
  // most kMaxDim (check_problem), far below INT64_MAX - 16.
  const auto up = [](int64_t v) { return detail::ceil_div(v, kDivisibility) * kDivisibility; };
  GemmProblem q = p;
  if ((parts & pad_m) != 0u) q.m = up(p.m);
  if ((parts & pad_n) != 0u) q.n = up(p.n);
  if ((parts & pad_k) != 0u) q.k = up(p.k);
  // An explicit leading dimension stays at least the (padded) extent it
  // strides past; packed (0) follows the extent.
  const auto leading = [&](int64_t ld, int64_t extent) -> int64_t {
    if (ld == 0) return 0;
    const int64_t v = std::max(ld, extent);
    return (parts & pad_leading) != 0u ? up(v) : v;
  };
  q.lda = leading(p.lda, q.a_layout == Layout::row ? q.k : q.m);
  q.ldb = leading(p.ldb, q.b_layout == Layout::row ? q.n : q.k);
  q.ldc = leading(p.ldc, q.n);
  return q;
}

namespace {

// What padding can change: how each operand moves (its vectors) and
// whether A's rows repeat in its tile.
bool same_access(const ProblemAccess& a, const ProblemAccess& b) {
  return a.a.vector_bytes == b.a.vector_bytes && a.b.vector_bytes == b.b.vector_bytes &&
         a.c.vector_bytes == b.c.vector_bytes && a.a.repeated_rows == b.a.repeated_rows;
}

// The parts worth padding (each alone where it changes what the kernel
// sees, then all of them together where there are two or more), in that order.
std::vector<unsigned> padding_choices(const GemmProblem& p) {
  const ProblemAccess given = problem_access(p);
  std::vector<unsigned> choices;
  unsigned relevant = 0;
  for (unsigned part : {pad_m, pad_n, pad_k, pad_leading}) {
    const GemmProblem q = padded_problem(p, part);
    if (check_problem(q).ok() && !same_access(problem_access(q), given)) {
      relevant |= part;
      choices.push_back(part);
    }
  }
  if (choices.size() > 1) choices.push_back(relevant);
  return choices;
}

// Each choice's padded problem priced by `price` (a verdict with a finite
// prediction, or nothing), ranked against `unpadded` (a copy: `price` may
// reuse the buffer it came from).
template <typename Price>
std::optional<PaddingAdvice> rank_padding(const GemmProblem& p, const std::vector<unsigned>& choices,
                                          Verdict unpadded, Price price) {
  PaddingAdvice advice;
  advice.unpadded = std::move(unpadded);
  const double work = static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.k);
  for (unsigned parts : choices) {
    PaddingOption o;
    o.parts = parts;
    o.padded = padded_problem(p, parts);
    if (!check_problem(o.padded).ok()) continue;
    std::optional<Verdict> v = price(o.padded);
    if (!v) continue;
    o.best = std::move(*v);
    o.speedup = advice.unpadded.predicted_us / o.best.predicted_us;
    o.extra_work = static_cast<double>(o.padded.m) * static_cast<double>(o.padded.n) *
                       static_cast<double>(o.padded.k) / work -
                   1.0;
    advice.options.push_back(std::move(o));
  }
  if (advice.options.empty()) return std::nullopt;
  // Fastest first; of equal times, the option that pads less (choices are
  // single parts first, so a stable sort keeps them ahead of the union).
  std::stable_sort(advice.options.begin(), advice.options.end(), [](const PaddingOption& a, const PaddingOption& b) {
    return a.best.predicted_us < b.best.predicted_us;
  });
  return advice;
}

bool priced(const Verdict& v) { return v.feasible() && v.predicted && std::isfinite(v.predicted_us); }

}  // namespace

Result<std::optional<PaddingAdvice>> padding_advice(const Planner& planner, const GemmProblem& p) {
  if (Status s = check_problem(p); !s.ok()) return s.error();
  if (planner.model() != Model::calibrated) return std::optional<PaddingAdvice>{};
  const std::vector<unsigned> choices = padding_choices(p);
  if (choices.empty()) return std::optional<PaddingAdvice>{};
  std::vector<Verdict> picks;
  Result<std::size_t> n = planner.plan_into(p, 1, picks);
  if (!n.ok()) return n.error();
  if (picks.empty()) return std::optional<PaddingAdvice>{};
  return rank_padding(p, choices, picks.front(), [&](const GemmProblem& q) -> std::optional<Verdict> {
    Result<std::size_t> found = planner.plan_into(q, 1, picks);
    if (!found.ok() || picks.empty()) return std::nullopt;
    return picks.front();
  });
}

Result<std::optional<PaddingAdvice>> padding_advice(const GemmProblem& p, const Device& dev, const TileConfig& cfg,
                                                    const KernelFamily& family) {
  if (Status s = check_inputs(p, dev, Model::calibrated, family); !s.ok()) return s.error();
  if (Status s = check_config(cfg); !s.ok()) return s.error();
  const std::vector<unsigned> choices = padding_choices(p);
  if (choices.empty()) return std::optional<PaddingAdvice>{};
  const Verdict given = diagnose_checked(p, dev, cfg, Model::calibrated, family);
  if (!priced(given)) return std::optional<PaddingAdvice>{};
  return rank_padding(p, choices, given, [&](const GemmProblem& q) -> std::optional<Verdict> {
    Verdict v = diagnose_checked(q, dev, cfg, Model::calibrated, family);
    if (!priced(v)) return std::nullopt;
    return v;
  });
}

}  // namespace tileplan
