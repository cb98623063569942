// The vocabulary of the tile-size decision for a GEMM-shaped kernel
// C[M,N] += A[M,K] B[K,N]: the problem, one tile configuration, the MMA
// instruction families and a search space of tiles, with the one checker of
// each (tileplan/error.hpp). Everything above this header (constraints,
// model, planner) takes these values.
//
// Layers, each including only those before it:
//   error, device -> gemm -> occupancy -> registers -> constraints (C1-C4)
//   -> family (fitted constants as data) -> model (predicted time)
//   -> planner (sweep, ranking) -> validate -> render -> the CLI
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "tileplan/error.hpp"

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
constexpr InstrShape instr_shape(Instr i) {
  switch (i) {
    case Instr::mma: return {16, 8, 16, 32};
    case Instr::wgmma: return {64, 8, 16, 128};
    case Instr::simt: return {1, 1, 1, 32};
  }
  return {1, 1, 1, 1};
}

struct GemmProblem {
  int64_t m = 4096, n = 4096, k = 4096;
  int64_t elem_bytes = 2;   // fp16 / bf16 operands
  int64_t accum_bytes = 4;  // fp32 accumulators
};

struct TileConfig {
  int64_t block_m = 128, block_n = 128, block_k = 32, stages = 3, threads = 256;
  Instr instr = Instr::wgmma;
};

// Largest M, N or K: below 2^31 so every quotient is exact in a double.
inline constexpr int64_t kMaxDim = (int64_t{1} << 31) - 1;
// Largest tile dimension, stage count or thread count: keeps every product
// the models form far inside 64 bits (and exact in a double).
inline constexpr int64_t kMaxTileValue = 65536;

// m, n, k in 1..kMaxDim; elem_bytes and accum_bytes in 1..8; the bytes of
// A*B (elem_bytes*M*N*K) fit in 64 bits.
//   error param: "m", "n", "k", "m/n/k" (their product), "elem_bytes", "accum_bytes".
Status check_problem(const GemmProblem& p);
// Every value in 1..kMaxTileValue; instr one of the enumerators.
//   error param: "block_m", "block_n", "block_k", "stages", "threads", "instr".
Status check_config(const TileConfig& cfg);

// Candidates per dimension. A sweep takes each list sorted and without
// repeats, so {128,128,64} is the two values {64,128}.
struct SearchSpace {
  std::vector<int64_t> block_m{16, 32, 64, 128, 256};
  std::vector<int64_t> block_n{16, 32, 64, 128, 256};
  std::vector<int64_t> block_k{16, 32, 64, 128};
  std::vector<int64_t> stages{2, 3, 4};
  std::vector<int64_t> threads{128, 256, 512};
};
// The most configurations one sweep walks (after repeats are removed).
inline constexpr std::size_t kMaxSearchSpace = std::size_t{1} << 20;
// The number of distinct configurations, once each list is sorted and its
// repeats removed; an error when a list is empty, a value fails check_config
// or the product exceeds kMaxSearchSpace.
//   error param: "block_m", ..., "threads", "space".
Result<std::size_t> space_size(const SearchSpace& s);
// The same lists, sorted, without repeats.
SearchSpace normalized(SearchSpace s);

}  // namespace tileplan
