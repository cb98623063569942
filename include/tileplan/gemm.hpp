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
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tileplan/device.hpp"

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
  FindingKind kind = FindingKind::block_m_multiple;
  int64_t value = 0;
  int64_t limit = 0;
};
Constraint constraint_of(FindingKind k);
// One line, starting with the constraint id ("C1 ", "C2 ", "C3 ", "C4 ").
std::string message(const Finding& f, const TileConfig& cfg);

// A small fixed-capacity list, so that evaluating a tile never allocates.
// Capacity 8 holds every failure one tile can collect (five C3, C1, C2 and
// "no block fits") and every warning.
struct FindingList {
  static constexpr std::size_t kCapacity = 8;
  std::array<Finding, kCapacity> items;
  std::size_t size = 0;
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
  FindingList failures;
  FindingList warnings;
  bool feasible() const { return failures.empty(); }
};

enum class Model { seed };
std::string_view to_string(Model m);
std::optional<Model> parse_model(std::string_view s);

// ---- the procedure, one step at a time -------------------------------------

// C3, C1, C2 and occupancy for one tile; needs no problem size.
Verdict evaluate(const TileConfig& cfg, const Device& dev, const GemmProblem& p = {}, Model model = Model::seed);
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
std::optional<std::string> check_device(const Device& d);

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
  Planner(Device dev, Instr instr, SearchSpace space, Model model = Model::seed);
  // Feasible configurations for p, best first; topk = 0 keeps all.
  //   Ensures: the order is the reference's stable sort by (round(traffic),
  //   -blocks_per_sm, smem_bytes) over the sweep order block_M, block_N,
  //   block_K, stages, threads (outermost first).
  std::vector<Verdict> plan(const GemmProblem& p, std::size_t topk = 0) const;
  // Same, into a caller's buffer (reused across calls to avoid allocation);
  // returns how many configurations were feasible before the topk cut.
  std::size_t plan_into(const GemmProblem& p, std::size_t topk, std::vector<Verdict>& out) const;
  // Number of configurations in the space that pass C1-C3 (before the
  // block_K <= K filter of a particular problem).
  std::size_t shape_independent_feasible() const { return feasible_.size(); }
  const Device& device() const { return dev_; }
  Model model() const { return model_; }

 private:
  Device dev_;
  Instr instr_;
  SearchSpace space_;
  Model model_;
  std::vector<Verdict> feasible_;  // in sweep order
};

// Convenience: one problem, one call.
std::vector<Verdict> sweep(const GemmProblem& p, const Device& dev, Instr instr, const SearchSpace& space,
                           std::size_t topk = 0, Model model = Model::seed);
// Diagnose one configuration for a problem (failures included).
Verdict diagnose(const GemmProblem& p, const Device& dev, const TileConfig& cfg, Model model = Model::seed);

}  // namespace tileplan
