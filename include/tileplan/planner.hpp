// The tile-size decision for a GEMM: sweep a search space, keep what passes
// C1-C4 (tileplan/constraints.hpp), rank it, or diagnose one configuration.
//
// Model::seed reproduces the book's reference script exactly (accumulator-only
// registers, blocks/SM as a min of three quotients, ranking by least traffic).
// Model::calibrated estimates registers with a kernel family's profile, takes
// blocks/SM as the hardware grants them and ranks by predicted time
// (tileplan/family.hpp, tileplan/model.hpp, docs/model.md).
//
//   auto planner = tileplan::Planner::create(*tileplan::find_device("h200"), tileplan::Instr::wgmma,
//                                            tileplan::SearchSpace{}, tileplan::Model::calibrated,
//                                            tileplan::default_family());
//   if (!planner) return planner.error();
//   auto best = planner->plan({.m = 4096, .n = 4096, .k = 4096}, 1);  // Result<std::vector<Verdict>>
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <vector>

#include "tileplan/constraints.hpp"
#include "tileplan/device.hpp"
#include "tileplan/error.hpp"
#include "tileplan/family.hpp"
#include "tileplan/gemm.hpp"
#include "tileplan/model.hpp"

namespace tileplan {

enum class Model { seed, calibrated };
std::string_view to_string(Model m);
std::optional<Model> parse_model(std::string_view s);

// The instruction a sweep asks for under `model`: the seed model reproduces
// the book's reference, whose instruction is wgmma for every tile, so an
// automatic request means wgmma there; any other request is kept.
constexpr Instr model_instr(Instr requested, Model model) {
  return requested == Instr::automatic && model == Model::seed ? Instr::wgmma : requested;
}

// One configuration for one problem: its constraints, its traffic and (under
// the calibrated model) its predicted time.
struct Verdict : TileCheck {
  double dram_bytes = 0.0;    // seed: the reference's traffic; calibrated: under the grouped order
  bool predicted = false;     // calibrated model: predicted_us holds a prediction
  double predicted_us = 0.0;  // kernel time (a split's reduction included)
  double reduce_us = 0.0;     // of which the split-K reduction kernel
  TimeBound time_bound = TimeBound::none;
  // Calibrated model, an operand through registers: the L1 its loads see.
  int64_t carveout_bytes = 0;         // the driver's shared-memory carveout
  double l1_bytes = 0;                // L1 per resident block
  double narrow_footprint_bytes = 0;  // cache lines of one iteration's tiles of those operands
  double l1_short = 0;                // share of them that does not fit (0..1)
  double l1_miss_us = 0;              // the added cost per main-loop iteration (l1_miss_cycles)
  // Calibrated model: the L2 read requests of one stage's asynchronously
  // copied rows, and what the stage costs L2 in bytes: its bytes and its
  // requests (l2_request_bytes each) joined, above smem_per_stage_bytes most
  // where rows are shorter than a cache line.
  double l2_async_bytes = 0;
  double l2_requests = 0;
  double l2_stage_bytes = 0;
  // Of l2_stage_bytes' bytes, what A of few rows adds (M < 16:
  // one_row_a_extra / M per byte of A's stage; docs/model.md §3); 0 otherwise.
  double repeated_rows_a_bytes = 0;
  // A of few rows, the programs walking K in step (M < 16): what their
  // requests of the same lines add to one program's path (in_step_a_ns ×
  // programs in step × block_M / M a K step; docs/model.md §3); 0 otherwise.
  double in_step_us = 0;
  // Calibrated model: what the predicted time is made of (model.hpp).
  TimeTerms time_terms;
};

// Plans many problems against one device and search space: the
// shape-independent work (C1-C3, occupancy) is done once, in create().
class Planner {
 public:
  // Checks the device, every value of the space (check_config), the space's
  // size (space_size) and, for the calibrated model, the family (check_family).
  // The C1-C3 table of the common class (float16, aligned operands) is built
  // here; another class's on its first problem.
  static Result<Planner> create(Device dev, Instr instr, SearchSpace space, Model model = Model::seed,
                                KernelFamily family = default_family());
  // Same, building the table of `first`'s class instead (and checking `first`
  // with check_problem): for a caller that knows which problems will come.
  static Result<Planner> create(Device dev, Instr instr, SearchSpace space, Model model, KernelFamily family,
                                const GemmProblem& first);
  // Feasible configurations for p, best first; topk = 0 keeps all (one per
  // tile where stages_have_no_effect). An error only when p fails check_problem.
  //   Ensures (seed): the order is the reference's stable sort by (round(traffic),
  //   -blocks_per_sm, smem_bytes) over the sweep order block_M, block_N,
  //   block_K, stages, threads (outermost first).
  //   Ensures (calibrated): ascending predicted_us, ties in sweep order.
  //   A configuration whose block_K exceeds K is not a candidate.
  Result<std::vector<Verdict>> plan(const GemmProblem& p, std::size_t topk = 0) const;
  // Same, into a caller's buffer (reused across calls to avoid allocation);
  // returns how many configurations were candidates before the topk cut.
  Result<std::size_t> plan_into(const GemmProblem& p, std::size_t topk, std::vector<Verdict>& out) const;
  // Configurations in the space (repeats removed) and those of them that pass
  // C1-C3 for problems of p's class (before the block_K <= K filter of a
  // particular problem); 0 when p fails check_problem.
  std::size_t space_size() const { return space_size_; }
  std::size_t shape_independent_feasible(const GemmProblem& p = GemmProblem{}) const;
  // The smallest block_K of the space: a problem with K below it has no candidate.
  int64_t min_block_k() const { return space_.block_k.front(); }
  const Device& device() const { return dev_; }
  Model model() const { return model_; }
  const KernelFamily& family() const { return *family_; }
  const SearchSpace& space() const { return space_; }  // normalized: sorted, without repeats

 private:
  // The shape-independent work for one class of problems: those of one input
  // and output type, both layouts, whose operands move the same vectors the
  // same way (problem_access), with what the costs read of M and the leading
  // dimensions besides (slot_of lists it). Built on the first problem of the
  // class, then shared; immutable once built. Safe to plan from several
  // threads at once (tile --shapes does).
  struct Table {
    std::vector<TileCheck> feasible;  // in sweep order: C1-C3 and occupancy (the calibrated numbers are per problem)
    std::vector<TileCosts> costs;   // calibrated: the prediction's shape-independent part, per feasible
    TimeConstants time;             // the family's, for the class's input type
  };
  // Published tables, found by their class key without a lock: a planner
  // serves few classes (a model's GEMMs use one or two types), so a short
  // array scanned in order; past it, a map read under the lock.
  struct Entry {
    std::size_t key;
    Table table;
  };
  static constexpr std::size_t kFastTables = 16;
  struct Tables {
    std::array<std::atomic<const Entry*>, kFastTables> fast{};
    std::atomic<std::size_t> published{0};
    std::mutex build;
    std::vector<std::unique_ptr<Entry>> owned;
    std::vector<const Entry*> overflow;  // under `build`
  };
  static std::size_t slot_of(const GemmProblem& p);
  const Table& table_for(const GemmProblem& p) const;
  Table build_table(const GemmProblem& p) const;

  // sweep()'s planner lives within the call: it borrows the caller's family
  // instead of copying it (a copy was 4% of a 900-configuration sweep).
  static Result<Planner> create_shared(Device dev, Instr instr, SearchSpace space, Model model,
                                       std::shared_ptr<const KernelFamily> family, const GemmProblem& first);
  friend Result<std::vector<Verdict>> sweep(const GemmProblem&, const Device&, Instr, const SearchSpace&, std::size_t,
                                            Model, const KernelFamily&);

  Planner() = default;
  Device dev_;
  Instr instr_ = Instr::wgmma;
  SearchSpace space_;
  std::size_t space_size_ = 0;
  Model model_ = Model::seed;
  std::shared_ptr<const KernelFamily> family_;  // immutable, shared by copies
  std::shared_ptr<Tables> tables_;
};

// The space a sweep searches when the caller names none: the reference's
// (SearchSpace{}, 900 configurations) for the seed model; for the
// calibrated model its family's measured space (KernelFamily::space: the
// triton family's 216-configuration grid), where its constants were fitted
// and validated, with no split.
SearchSpace default_space(Model model, const KernelFamily& family);

// Under the calibrated model, a problem whose operands both go through
// registers (neither can use cp.async: problem_access) has one buffer per
// operand whatever the stage count, and the stage count changes neither
// registers nor the predicted time; measured, a tile's stage variants
// differ by 0.2-0.3% (median; data/h200-triton-v9/README.md). The sweep then
// keeps one configuration per tile, the one with the fewest stages of the
// space, and distinct_tiles_first shortlists a caller's configurations the same way.
bool stages_have_no_effect(const GemmProblem& p, Model model);

// Convenience: one problem, one call.
Result<std::vector<Verdict>> sweep(const GemmProblem& p, const Device& dev, Instr instr, const SearchSpace& space,
                                   std::size_t topk = 0, Model model = Model::seed,
                                   const KernelFamily& family = default_family());
// Diagnose one configuration for a problem (failures included).
Result<Verdict> diagnose(const GemmProblem& p, const Device& dev, const TileConfig& cfg, Model model = Model::seed,
                         const KernelFamily& family = default_family());
// Rank given configurations for p the way the model orders them: candidates
// in the model's order (ties by position in `configs`), then the others
// (infeasible, or block_K > K) in their given order. Returns indices into `configs`;
// `verdicts` (if given) receives each configuration's diagnosis, in the order of `configs`.
Result<std::vector<std::size_t>> rank_configs(const GemmProblem& p, const Device& dev,
                                              const std::vector<TileConfig>& configs, Model model,
                                              const KernelFamily& family = default_family(),
                                              std::vector<Verdict>* verdicts = nullptr);

// A shortlist of a caller's configurations without repeats: `order` as
// rank_configs returned it (with its `verdicts`), and where
// stages_have_no_effect(p, model), each candidate that differs from a
// better-ranked candidate only in its stages moved after the other
// candidates (the others, not candidates, stay last). Unchanged otherwise.
std::vector<std::size_t> distinct_tiles_first(const GemmProblem& p, Model model, const std::vector<TileConfig>& configs,
                                              const std::vector<Verdict>& verdicts, std::vector<std::size_t> order);

// Whether splitting K pays for one tile: its predicted time at each split
// factor the family's kernel was measured with (kSplitFactors, those within
// the K tiles), the fastest, and the time without a split. Besides the powers
// of two, 3, 5, 6 and 12: a factor that fills the SMs' last wave where a
// power of two overshoots it (data/h200-triton-splitk-any).
inline constexpr int64_t kSplitFactors[] = {1, 2, 3, 4, 5, 6, 8, 12, 16};
static_assert(kSplitFactors[0] == 1, "the first split factor is the unsplit kernel");
struct SplitAdvice {
  int64_t best_split = 1;   // the fastest factor (1: no split pays)
  double best_us = 0;       // its predicted time
  double unsplit_us = 0;    // the tile's predicted time at split_k 1
};
// Needs the calibrated model, a family with a split-K model and a tile that
// passes C1-C3 for p (its split_k is ignored); nothing otherwise.
//   error: as diagnose.
Result<std::optional<SplitAdvice>> split_advice(const GemmProblem& p, const Device& dev, const TileConfig& cfg,
                                                const KernelFamily& family = default_family());

// Padding a problem whose dimensions or leading dimensions are not multiples
// of 16 (Triton's divisibility): such an operand loses its 16-byte vectors
// and with them the asynchronous copy (problem_access), which costs far more
// than the few rows or columns rounding it up adds. A padded problem rounds
// some of M, N and K up to a multiple of 16 (zeros in the added rows and
// columns of A and B, the added rows or columns of C dropped: the product is
// the same) and, with PadPart::leading, every explicit leading dimension; a
// leading dimension is never below the extent it strides past.
enum PadPart : unsigned { pad_m = 1u, pad_n = 2u, pad_k = 4u, pad_leading = 8u };
// p with `parts` rounded up (precondition: check_problem(p).ok()); the result
// may fail check_problem (a dimension near the largest).
GemmProblem padded_problem(const GemmProblem& p, unsigned parts);
struct PaddingOption {
  unsigned parts = 0;       // PadPart bits
  GemmProblem padded;       // padded_problem(p, parts)
  double extra_work = 0;    // M'·N'·K' / (M·N·K) - 1
  Verdict best;             // the padded problem's first pick (predicted_us)
  double speedup = 0;       // PaddingAdvice::unpadded's predicted time over best's
};
struct PaddingAdvice {
  Verdict unpadded;                    // the problem's own first pick
  std::vector<PaddingOption> options;  // fastest first (ties: fewer parts first)
};
// The options: each part whose rounding alone changes what the kernel sees
// (problem_access: an operand's vectors, or A of fewer than 16 rows), and
// all of those parts together where there are two or more; each planned with
// `planner`'s space. Nothing where no part changes anything, under the seed
// model (it ranks by traffic, not time), or where the problem or an option
// has no candidate (an option whose padded problem fails check_problem is
// left out).
//   error: check_problem's, for p.
Result<std::optional<PaddingAdvice>> padding_advice(const Planner& planner, const GemmProblem& p);
// The same options for one tile (diagnose): `cfg` diagnosed on each padded
// problem (PaddingOption::best is that verdict, the unpadded one cfg's own),
// ranked by its predicted time; nothing where the tile is not feasible and
// priced for p, or for every padded problem. Calibrated model.
//   error: as diagnose.
Result<std::optional<PaddingAdvice>> padding_advice(const GemmProblem& p, const Device& dev, const TileConfig& cfg,
                                                    const KernelFamily& family = default_family());
// The predicted speedup from which the renderers say padding pays (and below
// whose inverse, that it costs): closer than 5% the model cannot tell.
inline constexpr double kPaddingPays = 1.05;

}  // namespace tileplan
