// The tile-size decision for a GEMM-shaped kernel C[M,N] += A[M,K] B[K,N].
//
// Four constraints decide whether a tile (block_M, block_N, block_K, stages,
// threads) is feasible, checked in this order:
//   C3 instruction shape  block sizes and threads are multiples of the MMA
//                         instruction's shape (mma m16n8k16, wgmma m64nNk16)
//   C1 on-chip capacity   stages * (block_M*block_K + block_K*block_N) * elem_bytes
//                         <= shared memory per block
//   C2 register pressure  registers per thread <= the per-thread limit
//   C4 parallelism        grid = ceil(M/block_M) * ceil(N/block_N) tiles over
//                         blocks_per_SM * SMs resident blocks -> waves and the
//                         fill of the last wave (warnings, never failures)
// and a DRAM traffic model (bytes):
//   traffic = e*M*N*K*(1/block_N + 1/block_M) + e*M*N
//
// Model::seed reproduces the book's reference script exactly (accumulator-only
// registers, blocks/SM as a min of three quotients, ranking by least traffic).
// Model::calibrated estimates registers with a kernel family's profile, takes
// blocks/SM from the occupancy module and ranks by predicted time
// (tileplan/model.hpp, docs/model.md).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tileplan/device.hpp"
#include "tileplan/occupancy.hpp"

namespace tileplan {

enum class Instr { mma, wgmma, simt };
std::string_view to_string(Instr i);
std::optional<Instr> parse_instr(std::string_view s);

// Multiples the tile must respect for one instruction family.
struct InstrShape {
  int64_t m, n, k;   // block_M, block_N, block_K multiples
  int64_t threads;   // threads per block multiple (warp, or warpgroup for wgmma)
};
// mma: m16n8k16 (PTX ISA, 'Matrix shape' for .f16); wgmma: m64nNk16 with
// N a multiple of 8, issued by a warpgroup of 128 threads (PTX ISA, wgmma).
InstrShape instr_shape(Instr i);

struct GemmProblem {
  int64_t m = 4096, n = 4096, k = 4096;
  int64_t elem_bytes = 2;   // fp16 / bf16 operands
  int64_t accum_bytes = 4;  // fp32 accumulators
};

struct TileConfig {
  int64_t block_m = 128, block_n = 128, block_k = 32, stages = 3, threads = 256;
  Instr instr = Instr::wgmma;
};

enum class Constraint { C1, C2, C3, C4 };
std::string_view to_string(Constraint c);

// What a verdict found, as data; message() turns it into words.
enum class FindingKind : uint8_t {
  block_m_multiple,     // C3: value = block_M, limit = multiple
  block_n_multiple,     // C3
  block_k_multiple,     // C3
  threads_multiple,     // C3
  threads_per_block,    // C3: value = threads, limit = max per block
  smem_per_block,       // C1: value = smem bytes, limit = max per block
  regs_per_thread,      // C2: value = regs/thread, limit = max per thread
  no_block_fits_smem,   // C1: blocks_per_SM = 0 because of shared memory
  no_block_fits_regs,   // C2: blocks_per_SM = 0 because of registers
  no_block_fits_threads,// C3: blocks_per_SM = 0 because of threads per SM
  tail_wave,            // C4 warning: value = grid, limit = resident blocks
  grid_below_sms,       // C4 warning: value = grid, limit = SMs
};
struct Finding {
  FindingKind kind;
  int64_t value;
  int64_t limit;
};
Constraint constraint_of(FindingKind k);
// One line, starting with the constraint id ("C1 ", "C2 ", "C3 ", "C4 ").
std::string message(const Finding& f, const TileConfig& cfg);

// A small fixed-capacity list, so that evaluating a tile never allocates.
// Capacity 8 holds every failure one tile can collect (five C3, C1, C2 and
// "no block fits") and every warning.
// Only the first `size` items are ever initialised, read or copied: a verdict
// costs nothing for the findings it does not have (the sweep makes hundreds).
struct FindingList {
  static constexpr std::size_t kCapacity = 8;
  std::array<Finding, kCapacity> items;  // [0, size) initialised
  std::size_t size = 0;
  FindingList() {}  // NOLINT: leaves items uninitialised on purpose
  FindingList(const FindingList& o) : size(o.size) { std::copy_n(o.items.data(), o.size, items.data()); }
  FindingList& operator=(const FindingList& o) {
    size = o.size;
    std::copy_n(o.items.data(), o.size, items.data());
    return *this;
  }
  void push(Finding f) {
    if (size < kCapacity) items[size++] = f;
  }
  const Finding* begin() const { return items.data(); }
  const Finding* end() const { return items.data() + size; }
  bool empty() const { return size == 0; }
};

// The resource that limits blocks per SM.
enum class Resource { none, regs, smem, threads, blocks, warps };
std::string_view to_string(Resource r);

// A kernel family: whose compiler's register allocation and whose measured
// speed the calibrated model describes (profiles in tileplan/model.hpp).
enum class Family { triton, seed };
std::string_view to_string(Family f);
std::optional<Family> parse_family(std::string_view s);

// What bounds a predicted time: the MMAs, L2 bandwidth, the pipeline's
// memory latency, or DRAM bandwidth.
enum class TimeBound { none, mma, l2, latency, dram };
std::string_view to_string(TimeBound b);

// The problem-independent part of a predicted time for one tile on one device
// (computed by tile_costs in tileplan/model.hpp).
struct TileCosts {
  int64_t block_m = 0, block_n = 0, block_k = 0, stages = 0;
  int64_t blocks_per_sm = 0;
  bool spills = false;
  double mma_us = 0;        // one main-loop iteration's MMAs, alone on an SM
  double stage_bytes = 0;   // operand bytes of one iteration
  double c_tile_bytes = 0;  // output bytes of one tile
};

struct Verdict {
  TileConfig config;
  int64_t smem_per_stage_bytes = 0;
  int64_t smem_bytes = 0;
  int64_t accum_per_thread = 0;
  int64_t regs_per_thread = 0;
  int64_t regs_per_block = 0;
  int64_t blocks_by_regs = 0;
  int64_t blocks_by_smem = 0;
  int64_t blocks_by_threads = 0;
  int64_t blocks_per_sm = 0;
  Resource binding = Resource::none;
  int64_t grid = 0;
  int64_t waves = 0;
  double last_wave_fill = 0.0;
  double dram_bytes = 0.0;
  // Calibrated model only (left as they are under the seed model):
  bool predicted = false;     // predicted_us holds a prediction
  double predicted_us = 0.0;  // kernel time
  TimeBound time_bound = TimeBound::none;
  Limiter occupancy_limiter = Limiter::none;
  bool spills = false;        // the family's compiler would spill accumulators
  FindingList failures;
  FindingList warnings;
  bool feasible() const { return failures.empty(); }
};

enum class Model { seed, calibrated };
std::string_view to_string(Model m);
std::optional<Model> parse_model(std::string_view s);

// ---- the procedure, one step at a time -------------------------------------

// C3, C1, C2 and occupancy for one tile; needs no problem size.
Verdict evaluate(const TileConfig& cfg, const Device& dev, const GemmProblem& p = {}, Model model = Model::seed,
                 Family family = Family::triton);
// C4 for a problem: grid, waves, last-wave fill and their warnings.
void finish_parallelism(Verdict& v, const GemmProblem& p, const Device& dev);
// Traffic model in bytes (see the header comment).
double dram_bytes(const GemmProblem& p, const TileConfig& cfg);

// ---- validation: one checker, two doors ------------------------------------
// Each returns an error sentence naming the offending quantity and the rule,
// or nothing when the value is acceptable.
// `names` are what the message calls M, N and K (flags, or columns of a file).
std::optional<std::string> check_problem(const GemmProblem& p,
                                         const std::array<std::string_view, 3>& names = {"--m", "--n", "--k"});
std::optional<std::string> check_config(const TileConfig& cfg);

// ---- the sweep -------------------------------------------------------------

struct SearchSpace {
  std::vector<int64_t> block_m{16, 32, 64, 128, 256};
  std::vector<int64_t> block_n{16, 32, 64, 128, 256};
  std::vector<int64_t> block_k{16, 32, 64, 128};
  std::vector<int64_t> stages{2, 3, 4};
  std::vector<int64_t> threads{128, 256, 512};
  std::size_t size() const {
    return block_m.size() * block_n.size() * block_k.size() * stages.size() * threads.size();
  }
};

// Plans many problems against one device and search space: the
// shape-independent work (C1-C3, occupancy) is done once, in the constructor.
//   Requires: every value in `space` passes check_config; dev passes check_device.
class Planner {
 public:
  Planner(Device dev, Instr instr, SearchSpace space, Model model = Model::seed, Family family = Family::triton);
  // Feasible configurations for p, best first; topk = 0 keeps all.
  //   Ensures (seed): the order is the reference's stable sort by (round(traffic),
  //   -blocks_per_sm, smem_bytes) over the sweep order block_M, block_N,
  //   block_K, stages, threads (outermost first).
  //   Ensures (calibrated): ascending predicted_us, ties in sweep order.
  std::vector<Verdict> plan(const GemmProblem& p, std::size_t topk = 0) const;
  // Same, into a caller's buffer (reused across calls to avoid allocation);
  // returns how many configurations were feasible before the topk cut.
  std::size_t plan_into(const GemmProblem& p, std::size_t topk, std::vector<Verdict>& out) const;
  // Number of configurations in the space that pass C1-C3 (before the
  // block_K <= K filter of a particular problem).
  std::size_t shape_independent_feasible() const { return feasible_.size(); }
  const Device& device() const { return dev_; }
  Model model() const { return model_; }
  Family family() const { return family_; }

 private:
  Device dev_;
  Instr instr_;
  SearchSpace space_;
  Model model_;
  Family family_;
  std::vector<Verdict> feasible_;   // in sweep order
  std::vector<TileCosts> costs_;    // calibrated: the prediction's shape-independent part, per feasible_
};

// Convenience: one problem, one call.
std::vector<Verdict> sweep(const GemmProblem& p, const Device& dev, Instr instr, const SearchSpace& space,
                           std::size_t topk = 0, Model model = Model::seed, Family family = Family::triton);
// Diagnose one configuration for a problem (failures included).
Verdict diagnose(const GemmProblem& p, const Device& dev, const TileConfig& cfg, Model model = Model::seed,
                 Family family = Family::triton);
// Rank given configurations for p the way the sweep would: feasible ones in
// the model's order (ties by position in `configs`), then infeasible ones in
// their given order. Returns indices into `configs`; `verdicts` (if given)
// receives each configuration's diagnosis, in the order of `configs`.
std::vector<std::size_t> rank_configs(const GemmProblem& p, const Device& dev, const std::vector<TileConfig>& configs,
                                      Model model, Family family = Family::triton,
                                      std::vector<Verdict>* verdicts = nullptr);

}  // namespace tileplan
