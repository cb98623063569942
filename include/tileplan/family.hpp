// A kernel family as data: whose compiler's register allocation and whose
// measured speed the calibrated model describes. A family is a value loaded
// from a versioned JSON file (data/families/*.json, format below): its
// register profile, the run-time model's fitted constants, each constant with
// the data and method it came from, the device and tile space it was fitted
// on. The equations that use them are the same for every family
// (tileplan/registers.hpp, tileplan/model.hpp); `tileplan_fit` writes such a
// file. The shipped files are compiled into the library and found by name.
//
// File format, version 1 (every key required unless marked optional):
//   {
//     "format": "tileplan-family", "version": 1,
//     "name": "triton",                       [a-z0-9_-]{1,64}
//     "kernel": "...",                        what the profile describes
//     "device": "h200",                       the preset it was fitted on
//     "input_types": ["float16"], "accumulator": "float32",
//     "group_m": 8,                           tile rows per group in the program order, 1..65536
//     "space": {"block_m": [...], "block_n": [...], "block_k": [...],
//               "stages": [...], "threads": [...]},   the tiles it was fitted on
//     "data": ["data/h200-triton", ...],      datasets it was fitted on (may be empty)
//     "registers": {"rule": "fitted" | "accumulators_only", "fitted_on": "...",
//                   "constants": {"base": {"value": 16.119, "fitted_on": "..."}, ...}},
//                   (accumulators_only: "constants" optional, all zero)
//     "time": {"fitted_on": "...",
//              "constants": {"mma_n_half": {"value": 36.3, "fitted_on": "..."}, ...}}
//   }
// A constant's "fitted_on" is optional (the section's is used); units and
// descriptions live in the code (register_constant_info, time_constant_info).
// Constants added after the format's first files may be absent and read as
// 0, their mechanism off: time.constants.transpose_cycles,
// paired_narrow_cycles, spill_access_cycles, paired_b_mn_cycles and
// paired_b_mn_spill_free, and
// registers.constants.spill_per_element (0: per_register_element).
//
// Optional, per input type where the data say a type differs:
//     "by_input_type": {"float8_e4m3": {"fitted_on": "...",
//                        "registers": {"base": {"value": ..., "fitted_on": "..."}, ...},
//                        "time": {"mma_n_half": {"value": ...}, ...}}, ...}
// Each constant there is optional and replaces the base one for that type;
// "registers" and "time" are optional too.
//
// Optional, for a family whose kernel splits K (TileConfig::split_k > 1):
//     "split_k": {"variant": "workspace", "fitted_on": "...",
//                 "constants": {"reduce_launch_us": {"value": ..., "fitted_on": "..."}, ...}}
// "workspace": each of the split_k programs of a tile stores its fp32 partial
// tile to a workspace[split_k, M, N]; a second kernel sums them into C. A
// family without the section predicts no split (split_k 1 only).
//
// Optional, how the family's first picks scored on measured shapes it was not
// fitted on, per device preset and problem class (tileplan/validate.hpp's
// problem_class): what `tileplan tile` reports beside a plan of that class.
//     "validation": {"h200": {"datasets": ["data/h200-triton-v5a", ...],
//                             "classes": {"float16:rr:MNK": {"cases": 150, "top1_geomean": 1.008,
//                                         "top1_worst": 1.087, "top5_geomean": 1.002,
//                                         "worst_shape": "384x4096x4096"}, ...}},
//                    "h100-sxm": {...}}
// A family's constants change when it is refitted; tileplan_fit leaves the
// section out of the family it writes (its scores were of the old constants).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <optional>
#include <string_view>
#include <vector>

#include "tileplan/device.hpp"
#include "tileplan/error.hpp"
#include "tileplan/gemm.hpp"
#include "tileplan/registers.hpp"

namespace tileplan {

// X(name, unit, description)
#define TILEPLAN_TIME_CONSTANTS(X)                                                                      \
  X(mma_n_half, "columns", "warpgroup tile width at which the MMA rate is half the device's peak")   \
  X(iteration_cycles, "cycles", "fixed cost of one main-loop iteration beside its MMAs (waits, barrier)") \
  X(load_latency_cycles, "cycles", "round trip of one pipeline stage whose data hit in L2")           \
  X(miss_latency_cycles, "cycles", "added round trip when a stage's data come from DRAM")             \
  X(tile_overhead_us, "us", "fixed cost of one program: start, pipeline fill, drain")                 \
  X(epilogue_factor, "", "cost of writing the C tile, in units of its bytes at the SM's L2 bandwidth") \
  X(launch_us, "us", "fixed cost of one kernel: launch, first wave's ramp, last wave's drain")          \
  X(spill_factor, "", "slowdown of a kernel whose accumulators spill to local memory")                  \
  X(narrow_access_cycles, "cycles", "SM cycles per warp-wide narrow load or store (an operand without 16-byte vectors)") \
  X(kmajor_wide_n, "", "MMA slowdown per 128 columns of block_N beyond 128 in a block of two or more warpgroups when B sits K-major in shared memory") \
  X(transpose_cycles, "cycles", "SM cycles per 32 elements of B transposed on chip (tf32 B stored N-contiguous)") \
  X(paired_narrow_cycles, "cycles", "SM cycles per warp-wide narrow load (A's and B's) when both operands go through registers, in the SM's issue slots but not the program's own path (0 here and in paired_b_mn_cycles: priced like one narrow operand)") \
  X(spill_access_cycles, "cycles", "SM cycles per warp and main-loop iteration for each register spilled by operand tiles held in registers (0: spill_factor prices every spill)") \
  X(paired_b_mn_cycles, "cycles", "SM cycles added per warp-wide narrow load of an N-contiguous B (b_layout row) when both operands go through registers") \
  X(paired_b_mn_spill_free, "regs", "registers that a kernel with both operands through registers and an N-contiguous B spills at no cost; the rest are priced by spill_access_cycles") \
  X(tail_sync, "", "share (0 to 1) of an SM's last, partial round of programs that runs on its own instead of staggered among the full rounds") \
  X(epilogue_spill_cycles, "cycles", "SM cycles per warp and tile for each register the epilogue spills (narrow stores of C), once per tile") \
  X(async_share, "", "share (0 to 1) of a stage's round trip spread over the stages in flight when one operand goes through registers and the other is copied asynchronously; the rest is exposed every iteration") \
  X(overlap_power, "", "exponent p of the smooth maximum (r^p + c^p)^(1/p) that joins a main-loop iteration's busiest resource r and its round trip c, which overlap imperfectly when close (0: the plain maximum)")                                                       \
  X(l1_miss_cycles, "cycles", "SM cycles added per warp-wide load of an operand that goes through registers, times the square of the share of its tile's cache lines that the L1 left to a block cannot hold (0: L1 capacity not priced)") \
  X(l2_request_bytes, "B", "L2 bandwidth, in bytes, that one read request of an asynchronous copy costs (a request covers at most one cache line, so rows shorter than a line take more requests per byte); a stage's bytes and its requests join in a smooth maximum of order overlap_power (0: requests not priced)") \
  X(one_row_a_extra, "", "L2 bytes added per byte of A's stage where A has one row (M = 1, A row-major: every row of the tile is that row, and every copy of it requests the same cache lines); divided by M where A has M < 16 rows, each repeated in the tile; 0: not priced") \
  X(kmajor_wide_unit_saving, "", "share (0 to below 1) of a stage's L2 cost saved by a block of one warpgroup 256 columns wide (64x256 with 4 warps) where B is stored K-major (b_layout col) and copied asynchronously and C is stored with 16-byte vectors: the model has such tiles L2-bound, and they run faster than that (0: not priced)") \
  X(nmajor_wide_unit_cost, "", "share added to the MMA time of a block of one warpgroup 256 columns wide (64x256 with 4 warps, wgmma) where B sits N-major in shared memory (b_layout row, 16-bit types): it issues more instructions per K step than with B K-major and is SM-bound where the grid leaves it an SM of its own (0: not priced)") \
  X(copy_bytes_per_cycle, "B", "bytes a cycle one program's asynchronous copies of a stage arrive at, at most: a stage's round trip takes its bytes at the lesser of this and the program's L2 share (0: no cap); wgmma tiles") \
  X(mma_copy_bytes_per_cycle, "B", "the same cap for the tiles that compile to mma.sync (block_M 16 or 32), whatever the input type (0: no cap)") \
  X(mma_copy_warp_power, "", "power of the warps a program runs, over 4, that mma_copy_bytes_per_cycle scales by: one program's copies arrive faster with more warps to issue them (0: the same cap for every warp count)") \
  X(mma_rate_share, "", "share (0 to 1) of the device's tensor rate that a tile compiled to mma.sync (block_M 16 or 32) reaches; the peak is wgmma's (0: the full rate)") \
  X(mma_flight_knee_kb, "KB", "bytes in flight per SM (the first round's programs x stages in flight x stage bytes) past which an mma tile's kernel draws DRAM less efficiently (0: not priced)") \
  X(mma_flight_dram_share, "", "share DRAM's time of an mma tile's kernel grows by per mma_flight_knee_kb of bytes in flight per SM past the knee (0: not priced)") \
  X(narrow_b_mn_step_share, "", "share added to every main-loop step of a kernel whose B alone goes through registers with N contiguous (b_layout row, 2-byte loads; A copied asynchronously): the lanes of each warp-wide load read different rows of B, about 27 sectors a request (data/h200-profile-row-alignment), and such kernels run about twice their modeled steps whatever the tile (0: not priced)") \
  X(in_step_a_ns, "ns", "time added to each main-loop step per copy of A's lines that programs walking K in step request at once, where A has M < 16 rows repeated in the tile (row-major, copied asynchronously): (programs resident at once / split factor) x block_M / M copies; 0: not priced") \
  X(aligned_b_stage_share, "", "share added to every main-loop step, per stage beyond two, of a kernel whose B alone goes through registers with N contiguous (as narrow_b_mn_step_share), whose B rows start 16-byte aligned (ldb x element size a multiple of 16) and which spills registers: such a kernel's third stage costs it more where its rows are aligned than where they are not (data/h100-profile-row-stride; 0: not priced)") \
  X(kmajor_b_row_dram_share, "", "share DRAM's time grows by, times B's share of the DRAM bytes divided by the rows of tiles that read each row of B (tiles_m), where B is stored K-major (b_layout col) and a stage's rows of B (block_K x element size) are shorter than 256 bytes: measured, a 16-bit decode step's block_K 64 tiles run about 4% slower against its block_K 128 tiles than the model predicts without it, with B K-major and not with B row-major (data/h200-triton-splitk-layout-pairs; 0: not priced)") \
  X(short_row_request_cycles, "cycles", "SM cycles per read request of a tile compiled to mma.sync (block_M 16 or 32) for each asynchronously copied row shorter than a cache line (block_K x element size < 128 bytes for a K-major operand), every main-loop step: one more busy resource of the SM beside its MMAs and its L2 share, since a program copying half-line rows draws about 8 bytes a cycle an SM (data/h100-profile-short-rows; 0: not priced)") \
  X(l2_reuse_near_share, "L2", "reuse distance (B, a program group's rows of A and its tile rows of C), in units of the device's L2, up to which all of B stays in L2 from one program group to the next (0 with l2_reuse_far_share: B stays where it fits beside a group's rows of A, the room rule)") \
  X(l2_reuse_far_share, "L2", "reuse distance, in units of the device's L2, from which none of B stays in L2 from one program group to the next, linear between the two shares; consecutive groups that run together (a grid of one wave, or the SMs a group leaves to the next) keep it whatever the distance (0: the room rule)") \
  X(sm_overlap_power, "", "order P of the smooth maximum that joins the SMs' time and DRAM's where the SMs bind in a grid of at least one wave of programs: (t_SM^q + t_DRAM^q)^(1/q), q = P - (P - 2) r, r = t_DRAM / t_SM, so the Euclidean norm (q = 2) where the two are equal and nearer the plain maximum as DRAM's share falls: a multi-wave grid's copies run stages ahead under other programs' MMAs (0: the Euclidean norm everywhere)")

struct TimeConstants {
#define TILEPLAN_X(name, unit, desc) double name = 0;
  TILEPLAN_TIME_CONSTANTS(TILEPLAN_X)
#undef TILEPLAN_X
};
inline constexpr std::size_t kTimeConstantCount = 0
#define TILEPLAN_X(name, unit, desc) +1
    TILEPLAN_TIME_CONSTANTS(TILEPLAN_X)
#undef TILEPLAN_X
    ;
const std::array<ConstantInfo, kTimeConstantCount>& time_constant_info();
std::array<double, kTimeConstantCount> to_array(const TimeConstants& c);
TimeConstants time_constants_from(const std::array<double, kTimeConstantCount>& v);
// Every constant finite, 0 <= value <= 1e9, spill_factor >= 1, tail_sync <= 1,
// async_share <= 1, kmajor_wide_unit_saving < 1, overlap_power 0 or between 1 and 64,
// mma_rate_share <= 1.
//   error param: the constant's name.
Status check_time_constants(const TimeConstants& c);

// X(name, unit, description): the split-K reduction kernel (model.hpp).
#define TILEPLAN_SPLIT_K_CONSTANTS(X)                                                                   \
  X(reduce_launch_us, "us", "fixed cost of the reduction kernel that follows the split GEMM")          \
  X(reduce_gbps, "GB/s", "rate at which the reduction reads the fp32 partial tiles and writes C")      \
  X(reduce_split_us, "us", "time the reduction adds per partial tile it sums (per split factor), beyond its bytes: its loads of the partials wait one after another (0: not priced)") \
  X(partial_store_share, "", "share of the fp32 partial tiles' DRAM time added after the split GEMM's SMs' and DRAM's join: a round's partial stores come together at its end (0: not priced)") \
  X(split_dram_share, "", "DRAM time a split GEMM adds, as a share of its DRAM time: its programs stream B from split_k K slices at once (0: not priced)") \
  X(split_dram_growth, "", "how the split's DRAM share grows with split_k: split_dram_share x (1 - g + g x 2(1 - 1/split_k)), the share of B that the other K slices stream at once (0: flat; at most 1)")
struct SplitKConstants {
#define TILEPLAN_X(name, unit, desc) double name = 0;
  TILEPLAN_SPLIT_K_CONSTANTS(TILEPLAN_X)
#undef TILEPLAN_X
};
inline constexpr std::size_t kSplitKConstantCount = 0
#define TILEPLAN_X(name, unit, desc) +1
    TILEPLAN_SPLIT_K_CONSTANTS(TILEPLAN_X)
#undef TILEPLAN_X
    ;
const std::array<ConstantInfo, kSplitKConstantCount>& split_k_constant_info();
std::array<double, kSplitKConstantCount> to_array(const SplitKConstants& c);
SplitKConstants split_k_constants_from(const std::array<double, kSplitKConstantCount>& v);
// reduce_launch_us, reduce_split_us, partial_store_share and split_dram_share in
// 0..1e9, split_dram_growth in 0..1, reduce_gbps in (0, 1e9], all finite.
//   error param: the constant's name.
Status check_split_k_constants(const SplitKConstants& c);
// How a family's kernel splits K. The only variant modelled is "workspace"
// (the partial tiles written to memory, then summed by a second kernel).
struct SplitKModel {
  std::string variant = "workspace";
  std::string fitted_on;
  SplitKConstants constants;
  std::array<std::string, kSplitKConstantCount> sources;  // per constant; empty = fitted_on
};

// One problem class's held-out scores (validation): the first pick's time over
// the measured best, geometric mean and worst, and the best of the first five's.
struct ClassScore {
  std::string problem_class;  // e.g. "float16:rr:MNK"
  int64_t cases = 0;          // held-out shapes, at least 1
  double top1_geomean = 1, top1_worst = 1, top5_geomean = 1;  // each at least 1
  std::string worst_shape;    // the case of top1_worst
};
struct FamilyValidation {
  std::string device;                 // the preset the shapes were measured on
  std::vector<std::string> datasets;  // what `tileplan validate --split heldout` scored
  std::vector<ClassScore> classes;    // one per class, in the file's order
};

inline constexpr int64_t kFamilyFormatVersion = 1;
// Family files larger than this are refused before they are read.
inline constexpr std::size_t kMaxFamilyFileBytes = std::size_t{1} << 20;

// Constants one input type overrides (the rest are the family's).
struct TypeConstants {
  DType dtype = DType::float16;
  std::string fitted_on;
  std::array<std::optional<double>, kRegisterConstantCount> regs{};
  std::array<std::optional<double>, kTimeConstantCount> time{};
  std::array<std::string, kRegisterConstantCount> regs_sources{};  // empty = fitted_on
  std::array<std::string, kTimeConstantCount> time_sources{};
};

// Register constants that tiles of one MMA instruction override (the rest
// are their input type's): the kernel's compiler holds an mma tile's operand
// fragments in registers that a wgmma tile reads from shared memory.
struct InstrConstants {
  Instr instr = Instr::mma;
  std::string fitted_on;
  std::array<std::optional<double>, kRegisterConstantCount> regs{};
  std::array<std::string, kRegisterConstantCount> regs_sources{};  // empty = fitted_on
};

struct KernelFamily {
  int64_t version = kFamilyFormatVersion;
  std::string name;
  std::string kernel;                  // what the profile describes
  std::string device;                  // preset the constants were fitted on
  std::vector<std::string> input_types;
  std::string accumulator = "float32";
  int64_t group_m = 8;                 // tile rows per group in the program order
  SearchSpace space;                   // the tiles it was fitted on
  std::vector<std::string> data;       // datasets it was fitted on
  std::string file;                    // where it was loaded from ("data/families/triton.json" if shipped)
  RegisterProfile regs;
  std::string regs_fitted_on;
  std::array<std::string, kRegisterConstantCount> regs_sources;  // per constant; empty = regs_fitted_on
  TimeConstants time;
  std::string time_fitted_on;
  std::array<std::string, kTimeConstantCount> time_sources;      // per constant; empty = time_fitted_on
  std::vector<TypeConstants> by_input_type;                      // at most one per input type
  std::vector<InstrConstants> by_instr;                          // at most one per instruction (mma, wgmma, simt)
  std::optional<SplitKModel> split_k;                            // none: the kernel never splits K
  std::vector<FamilyValidation> validation;                      // per device preset; none: no scores recorded
};

// The family's held-out scores that hold for `d`: those measured on d's
// preset, where d is that preset as shipped (no field overridden); else nothing.
const FamilyValidation* validation_on(const KernelFamily& f, const Device& d);
// The held-out scores of p's problem class on device `device` (a preset key),
// or nothing where the family holds none for that device or class.
const ClassScore* validation_for(const KernelFamily& f, std::string_view device, const GemmProblem& p);
// The scores of p's problem class in a record, or nothing.
const ClassScore* validation_for(const FamilyValidation& v, const GemmProblem& p);

// The family's constants for problems of input type `t`: its own, with what
// by_input_type gives for `t` in their place.
RegisterProfile registers_for(const KernelFamily& f, DType t);
// Same, for tiles of instruction `instr` (resolved: mma, wgmma or simt):
// by_instr's registers for it in place of those.
RegisterProfile registers_for(const KernelFamily& f, DType t, Instr instr);
TimeConstants time_for(const KernelFamily& f, DType t);

// Every field as the file format requires it (name, group_m, constants).
//   error param: the field's name.
Status check_family(const KernelFamily& f);

// A family from the text of a file (`origin` names it in errors and becomes `file`).
//   error: parse_error naming the key and the rule, e.g. "origin: 'time.constants.launch_us.value' must be a number".
Result<KernelFamily> parse_family(std::string_view json_text, std::string_view origin);
// A family from a file: io_error when it cannot be read or exceeds kMaxFamilyFileBytes.
Result<KernelFamily> load_family_file(const std::string& path);
// The file's text for a family (parse_family(family_json(f)) == f, doubles exact).
std::string family_json(const KernelFamily& f);

// The families shipped with the library (data/families/*.json, compiled in), by name.
const std::vector<KernelFamily>& shipped_families();
//   error: not_found, param "family", naming the shipped ones.
Result<KernelFamily> find_family(std::string_view name);
// The default family of the calibrated model: the shipped "triton".
const KernelFamily& default_family();

}  // namespace tileplan
