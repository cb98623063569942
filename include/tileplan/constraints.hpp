// The four constraints of the tile-size decision, checked in this order:
//   C3 instruction shape  block sizes and threads are multiples of the MMA
//                         instruction's shape (mma m16n8k16, wgmma m64nNk16)
//   C1 on-chip capacity   stages * (block_M*block_K + block_K*block_N) * elem_bytes
//                         <= shared memory per block
//   C2 register pressure  registers per thread (tileplan/registers.hpp) <= the
//                         per-thread limit, and blocks per SM > 0
//   C4 parallelism        grid = ceil(M/block_M) * ceil(N/block_N) tiles (times
//                         split_k programs per tile) over blocks_per_SM * SMs
//                         resident blocks -> waves and the fill of the last
//                         wave (warnings); a split_k above the K tiles
//                         ceil(K/block_K) is the one C4 failure
// and the reference's DRAM traffic model (bytes):
//   traffic = e*M*N*K*(1/block_N + 1/block_M) + e*M*N
//
// Blocks per SM follow one of two rules: the reference's (the smallest of
// three quotients and the block limit) or the hardware's (tileplan/occupancy.hpp).
// docs/tile.md derives each rule and works an example by hand.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tileplan/device.hpp"
#include "tileplan/error.hpp"
#include "tileplan/gemm.hpp"
#include "tileplan/occupancy.hpp"
#include "tileplan/registers.hpp"

namespace tileplan {

enum class Constraint { C1, C2, C3, C4 };
std::string_view to_string(Constraint c);

// What a check found, as data; message() turns it into words.
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
  dtype_unsupported,    // C3: value = the input DType, limit = the device's compute capability
  narrow_loads,         // C3 warning: value = operand (0 A, 1 B, 2 C), limit = vector bytes
  fp8_b_not_k_major,    // C3 warning: value = limit = 0; fp8 B stored N-contiguous
  split_exceeds_k_tiles,// C4 failure: value = split_k, limit = ceil(K/block_K)
  held_tiles_spill,     // C2 warning: value = registers spilled (estimate), limit = max per thread; priced
  epilogue_spill,       // C2 warning: value = registers the epilogue spills (estimate), limit = max per thread
  serialized_wgmma,     // C3 warning: value = block_N, limit = 128; B K-major, 2+ warpgroups, C stored with vectors
  instr_unsupported,    // C3: value = the Instr, limit = the device's compute capability (wgmma exists on sm_90 only)
  fp8_mma_as_f16,       // C3 warning: value = block_M, limit = 64; an fp8 tile that compiles to mma.sync on sm_90 runs fp16 MMAs
};
struct Finding {
  FindingKind kind;
  int64_t value;
  int64_t limit;
};
Constraint constraint_of(FindingKind k);
// One line, starting with the constraint id ("C1 ", "C2 ", "C3 ", "C4 ").
std::string message(const Finding& f, const TileConfig& cfg);

// A small fixed-capacity list, so that checking a tile never allocates.
// Capacity 10 holds every failure one tile can collect (six C3, C1, C2 and
// "no block fits"), every warning (two C4, two C2, two C3) and every problem
// finding (four C3).
// Only the first `size` items are ever initialised, read or copied: a check
// costs nothing for the findings it does not have (the sweep makes hundreds).
struct FindingList {
  static constexpr std::size_t kCapacity = 10;
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

// How blocks per SM are counted.
enum class OccupancyRule {
  reference,  // the book: min(regs_per_sm / regs_per_block, smem_per_sm / smem, threads_per_sm / threads, block limit)
  hardware,   // CUDA's rules (tileplan/occupancy.hpp): allocation units, carveout, reserve
};

// C1-C4 for one tile and one problem.
struct TileCheck {
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
  Limiter occupancy_limiter = Limiter::none;  // hardware rule only
  bool spills = false;                         // the register estimate says the kernel spills
  double spilled_registers = 0;                // of a spill by operand tiles held in registers: how many
  double epilogue_spilled_registers = 0;       // registers the epilogue spills (narrow stores of C), once per tile
  int64_t grid = 0;
  int64_t waves = 0;
  double last_wave_fill = 0.0;
  FindingList failures;
  FindingList warnings;
  bool feasible() const { return failures.empty(); }
};

// C3, C1, C2, occupancy and C4 of `cfg` for `p`, with `regs` as the register
// estimate and `rule` for blocks per SM. A violated constraint is a finding,
// not an error; an error is input outside its checker's domain
// (check_config, check_device, check_problem, check_register_profile).
//   Ensures: feasible() == no failure; blocks_per_sm >= 1 when feasible.
Result<TileCheck> check_tile(const TileConfig& cfg, const Device& dev, const GemmProblem& p,
                             const RegisterProfile& regs, OccupancyRule rule);

// What the problem alone costs every tile, as C3 warnings: operands that
// move narrow vectors (problem_access), fp8 B stored N-contiguous. Empty for
// a problem check_problem refuses.
FindingList problem_findings(const GemmProblem& p, Instr instr);

// Peak dense tensor-core rate of `dev` for input type `t` (0: the device has
// no tensor-core instruction for it). Inline: every configuration of a sweep
// asks.
inline double tensor_tflops(const Device& dev, DType t) {
  switch (t) {
    case DType::float16:
    case DType::bfloat16: return dev.tensor_fp16_tflops;
    case DType::float8_e4m3:
    case DType::float8_e5m2: return dev.compute_capability >= 89 ? dev.tensor_fp8_tflops : 0.0;
    case DType::tfloat32:
    case DType::float32: return dev.compute_capability >= 80 ? dev.tensor_tf32_tflops : 0.0;
  }
  return 0.0;
}

// The C3 failure every tile of `instr` has on `dev` for input type `t`
// (dtype_unsupported: a tensor-core family without an instruction for the
// type); nothing when there is one, and for simt.
inline std::optional<Finding> type_unsupported(const Device& dev, DType t, Instr instr) {
  if (instr == Instr::simt || tensor_tflops(dev, t) > 0) return std::nullopt;
  return Finding{FindingKind::dtype_unsupported, static_cast<int64_t>(t), dev.compute_capability};
}

// The reference's traffic model in bytes (see the header comment), evaluated
// in the reference's order so that the doubles agree bit for bit.
Result<double> dram_bytes(const GemmProblem& p, const TileConfig& cfg);

}  // namespace tileplan
