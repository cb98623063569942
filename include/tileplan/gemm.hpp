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

// automatic: the instruction the kernel's compiler picks for each tile
// (resolve_instr); a sweep's or a dataset's request, never a TileConfig's.
enum class Instr { mma, wgmma, simt, automatic };
std::string_view to_string(Instr i);  // "auto" for automatic
std::optional<Instr> parse_instr(std::string_view s);

// The instruction a tile of `threads` threads and block_M rows compiles to
// when `requested` is automatic, as Triton's tl.dot chooses it: wgmma (MMAv3)
// on compute capability 9.0 where the block holds whole warpgroups and at
// least 64 rows (one m64 instruction per warpgroup), else mma.sync (MMAv2).
// Measured: the block_M 16 and 32 kernels of data/h200-triton-splitk-bm16
// hold their operand fragments in registers as mma kernels do (their
// registers and shared memory, docs/model.md §1). Any other request is returned as it is.
constexpr Instr resolve_instr(Instr requested, int64_t compute_capability, int64_t block_m, int64_t threads) {
  if (requested != Instr::automatic) return requested;
  return compute_capability == 90 && block_m >= 64 && threads % 128 == 0 ? Instr::wgmma : Instr::mma;
}

// Element types. The first five are input types (A and B); float16, bfloat16
// and float32 are output types (C). Accumulation is float32 throughout.
// tfloat32 operands are stored as float32 (4 bytes) and multiplied by the
// tensor cores with a 10-bit mantissa.
enum class DType { float16, bfloat16, float8_e4m3, float8_e5m2, tfloat32, float32 };
std::string_view to_string(DType t);
std::optional<DType> parse_dtype(std::string_view s);
constexpr int64_t dtype_bytes(DType t) {
  switch (t) {
    case DType::float16:
    case DType::bfloat16: return 2;
    case DType::float8_e4m3:
    case DType::float8_e5m2: return 1;
    case DType::tfloat32:
    case DType::float32: return 4;
  }
  return 0;
}
constexpr bool is_input_type(DType t) { return t != DType::float32; }
constexpr bool is_output_type(DType t) {
  return t == DType::float16 || t == DType::bfloat16 || t == DType::float32;
}
constexpr bool is_fp8(DType t) { return t == DType::float8_e4m3 || t == DType::float8_e5m2; }
// The output type when none is given: the input type for 16-bit types,
// float16 for fp8, float32 for tfloat32.
constexpr DType default_out_dtype(DType in) {
  switch (in) {
    case DType::float16: return DType::float16;
    case DType::bfloat16: return DType::bfloat16;
    case DType::float8_e4m3:
    case DType::float8_e5m2: return DType::float16;
    case DType::tfloat32:
    case DType::float32: return DType::float32;
  }
  return DType::float32;
}
std::string_view input_type_names();   // "float16, bfloat16, float8_e4m3, float8_e5m2, tfloat32"
std::string_view output_type_names();  // "float16, bfloat16, float32"

// How an operand is stored. For A[M,K]: row = K contiguous, col = M
// contiguous. For B[K,N]: row = N contiguous (the reduction dimension is not
// contiguous, as in the Triton tutorial), col = K contiguous ("K-major").
// C is row-major.
enum class Layout { row, col };
std::string_view to_string(Layout l);
std::optional<Layout> parse_layout(std::string_view s);

// Multiples the tile must respect for one instruction family.
struct InstrShape {
  int64_t m, n, k;   // block_M, block_N, block_K multiples
  int64_t threads;   // threads per block multiple (warp, or warpgroup for wgmma)
};
// mma: m16n8kK; wgmma: m64nNkK with N a multiple of 8, issued by a warpgroup
// of 128 threads; K is 32 bytes of the input type: 16 for 16-bit types, 32
// for fp8, 8 for tf32 (PTX ISA, 'Matrix shape' of mma and of wgmma).
constexpr InstrShape instr_shape(Instr i, DType t = DType::float16) {
  const int64_t k = 32 / dtype_bytes(t);
  switch (i) {
    case Instr::mma: return {16, 8, k, 32};
    case Instr::wgmma: return {64, 8, k, 128};
    case Instr::simt: return {1, 1, 1, 32};
    case Instr::automatic: return {16, 8, k, 32};  // the least any tile it resolves to needs (mma's)
  }
  return {1, 1, 1, 1};
}

struct GemmProblem {
  int64_t m = 4096, n = 4096, k = 4096;
  DType dtype = DType::float16;      // A and B
  std::optional<DType> out_dtype = std::nullopt;  // C; nothing: default_out_dtype(dtype)
  int64_t accum_bytes = 4;           // fp32 accumulators
  Layout a_layout = Layout::row, b_layout = Layout::row;
  // Leading dimensions (elements between consecutive rows of a row-major
  // operand, columns of a column-major one); 0: packed (the contiguous
  // dimension's extent).
  int64_t lda = 0, ldb = 0, ldc = 0;

  int64_t elem_bytes() const { return dtype_bytes(dtype); }
  DType c_dtype() const { return out_dtype ? *out_dtype : default_out_dtype(dtype); }
  int64_t out_bytes() const { return dtype_bytes(c_dtype()); }
};

// What the kernel sees of a problem's memory: per operand, the leading
// dimension in effect, whether it and the extent of the contiguous dimension
// are multiples of 16 elements (what Triton specializes an integer argument
// on: the leading dimension is a stride, the contiguous extent bounds the
// mask or the wrap of the loads), and so the widest load one thread issues:
// 16 bytes when both are, one element when either is not. A load narrower
// than 4 bytes cannot use the asynchronous copy (cp.async: 4, 8 or 16 bytes).
struct OperandAccess {
  int64_t ld = 0;                 // leading dimension in effect
  int64_t contiguous_extent = 0;  // K, M or N: the extent along the contiguous dimension
  bool ld_divisible = false, extent_divisible = false;
  int64_t vector_bytes = 0;
  bool async_copy = false;        // vector_bytes >= 4
  // The operand reaches shared memory through registers, one stage at a
  // time, instead of a pipelined asynchronous copy: no cp.async (narrow
  // loads), or fp8 B stored N-contiguous (Hopper's fp8 wgmma reads B K-major
  // only, so the kernel transposes it on the way). A (A only) or B (B only).
  bool through_registers = false;
  // B only: tf32 B stored N-contiguous (b_layout row). Hopper's wgmma reads
  // tf32 (and fp8) B K-major only (PTX ISA: the transpose of an operand in
  // shared memory is for 16-bit types), so the kernel transposes each B tile
  // on chip; B is still pipelined through shared memory (measured: the
  // shared memory of every tf32 kernel is stages x (A + B)).
  bool transposed = false;
  // A only: A has fewer rows than Triton's divisibility (M < 16), is
  // row-major and copied asynchronously. The kernel wraps its A tile's rows
  // (offs_am % M), so each of A's M rows appears BM/M times in the tile and
  // every copy of it requests the same cache lines (at M = 1 Triton compiles
  // the kernel apart; the same kernel runs 1.0-2.5x slower than at M = 8,
  // the more the larger A's share of a stage: data/h200-profile-m1; at
  // M = 2 it is half as much: data/h200-triton-m23, -mfew).
  bool repeated_rows = false;
};
struct ProblemAccess {
  OperandAccess a, b, c;
  bool aligned = false;           // A, B and C all move 16-byte vectors
};
// Divisibility Triton specializes integer arguments on, in elements.
inline constexpr int64_t kDivisibility = 16;
// The widest load or store one thread issues (sm_80 and later: 128 bits).
inline constexpr int64_t kMaxVectorBytes = 16;
namespace detail {
inline OperandAccess access_of(int64_t ld, int64_t contiguous, int64_t elem_bytes) {
  OperandAccess o;
  o.ld = ld > 0 ? ld : contiguous;
  o.contiguous_extent = contiguous;
  o.ld_divisible = o.ld % kDivisibility == 0;
  o.extent_divisible = contiguous % kDivisibility == 0;
  o.vector_bytes = o.ld_divisible && o.extent_divisible
                       ? (kDivisibility * elem_bytes < kMaxVectorBytes ? kDivisibility * elem_bytes : kMaxVectorBytes)
                       : elem_bytes;
  o.async_copy = o.vector_bytes >= 4;
  return o;
}
}  // namespace detail

// Whether every row (column) of an operand starts 16-byte aligned: its
// leading dimension times the element size a multiple of 16 (which a
// leading dimension not divisible by 16 elements can still be).
inline bool rows_16_byte_aligned(const OperandAccess& o, int64_t elem_bytes) {
  return o.ld * elem_bytes % kMaxVectorBytes == 0;
}

// A checked problem's access (precondition: check_problem(p).ok()). Inline:
// the sweep asks for it per configuration.
inline ProblemAccess problem_access(const GemmProblem& p) {
  ProblemAccess r;
  const int64_t e = p.elem_bytes();
  r.a = detail::access_of(p.lda, p.a_layout == Layout::row ? p.k : p.m, e);
  r.b = detail::access_of(p.ldb, p.b_layout == Layout::row ? p.n : p.k, e);
  r.c = detail::access_of(p.ldc, p.n, p.out_bytes());
  r.a.through_registers = !r.a.async_copy;
  r.b.through_registers = !r.b.async_copy || (is_fp8(p.dtype) && p.b_layout == Layout::row);
  r.b.transposed = p.dtype == DType::tfloat32 && p.b_layout == Layout::row && !r.b.through_registers;
  r.a.repeated_rows = p.m < kDivisibility && p.a_layout == Layout::row && r.a.async_copy;
  r.aligned = r.a.vector_bytes == kMaxVectorBytes && r.b.vector_bytes == kMaxVectorBytes &&
              r.c.vector_bytes == kMaxVectorBytes;
  return r;
}
struct TileConfig {
  int64_t block_m = 128, block_n = 128, block_k = 32, stages = 3, threads = 256;
  Instr instr = Instr::wgmma;
  // Split-K: the K loop split over split_k programs per output tile, their
  // fp32 partial tiles summed by a second kernel (1: no split). Only a family
  // with a split-K model (tileplan/family.hpp) predicts split_k > 1.
  int64_t split_k = 1;
};

// Largest M, N or K: below 2^31 so every quotient is exact in a double.
inline constexpr int64_t kMaxDim = (int64_t{1} << 31) - 1;
// Largest tile dimension, stage count or thread count: keeps every product
// the models form far inside 64 bits (and exact in a double).
inline constexpr int64_t kMaxTileValue = 65536;

// m, n, k in 1..kMaxDim; dtype an input type, out_dtype an output type,
// accum_bytes in 1..8; a leading dimension 0 or at least the extent it
// strides past and at most kMaxDim; the bytes of A*B (elem_bytes*M*N*K) and
// of every operand with its leading dimension fit in 64 bits.
//   error param: "m", "n", "k", "m/n/k" (their product), "dtype", "out_dtype",
//   "accum_bytes", "a_layout", "b_layout", "lda", "ldb", "ldc".
Status check_problem(const GemmProblem& p);
// Every value (split_k too) in 1..kMaxTileValue; instr one of the enumerators.
//   error param: "block_m", "block_n", "block_k", "stages", "threads", "split_k", "instr".
Status check_config(const TileConfig& cfg);

// Candidates per dimension. A sweep takes each list sorted and without
// repeats, so {128,128,64} is the two values {64,128}.
struct SearchSpace {
  std::vector<int64_t> block_m{16, 32, 64, 128, 256};
  std::vector<int64_t> block_n{16, 32, 64, 128, 256};
  std::vector<int64_t> block_k{16, 32, 64, 128};
  std::vector<int64_t> stages{2, 3, 4};
  std::vector<int64_t> threads{128, 256, 512};
  std::vector<int64_t> split_k{1};  // innermost: a tile's split factors are adjacent in sweep order
};
// Whether a configuration's tile, stages and threads are among a space's
// values (split_k aside).
bool in_space(const SearchSpace& space, const TileConfig& cfg);

// A wide space for the calibrated model: the reference's with 5 stages too
// and without 512-thread blocks: 800 configurations. Outside its family's
// measured space (KernelFamily::space) the model extrapolates, and its picks
// there were measured 15% slower than the measured space's best on narrow
// fp16 problems (data/h200-triton-v13): the calibrated model's default is
// the family's space (default_space in planner.hpp), this one a choice.
inline SearchSpace calibrated_space() {
  SearchSpace s;
  s.stages = {2, 3, 4, 5};
  s.threads = {128, 256};
  return s;
}

// The most configurations one sweep walks (after repeats are removed).
inline constexpr std::size_t kMaxSearchSpace = std::size_t{1} << 20;
// The number of distinct configurations, once each list is sorted and its
// repeats removed; an error when a list is empty, a value fails check_config
// or the product exceeds kMaxSearchSpace.
//   error param: "block_m", ..., "threads", "split_k", "space".
Result<std::size_t> space_size(const SearchSpace& s);
// The same lists, sorted, without repeats.
SearchSpace normalized(SearchSpace s);

}  // namespace tileplan
