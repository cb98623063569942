// A GPU as a plain value: every hardware number the models use, each preset
// field with the document it came from.
//
// The field list is written once (TILEPLAN_DEVICE_FIELDS) and expands into the
// struct members, the per-field source table and the `tileplan devices`
// listing, so a field cannot exist without a name, a unit and a source.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tileplan/error.hpp"

namespace tileplan {

// X(type, name, unit, description)
#define TILEPLAN_DEVICE_FIELDS(X)                                                              \
  X(int64_t, compute_capability, "", "compute capability x10 (sm_XY)")                          \
  X(int64_t, sm_count, "SMs", "streaming multiprocessors")                                      \
  X(int64_t, smem_per_sm_bytes, "B", "shared memory per SM (largest carveout)")                 \
  X(int64_t, smem_per_block_max_bytes, "B", "shared memory per block (opt-in maximum)")         \
  X(int64_t, smem_per_block_default_bytes, "B", "shared memory per block without opt-in")       \
  X(int64_t, smem_reserved_per_block_bytes, "B", "shared memory the system reserves per block") \
  X(int64_t, smem_alloc_unit_bytes, "B", "shared memory allocation granularity")                \
  X(int64_t, l1_smem_per_sm_bytes, "B", "L1 data cache and shared memory per SM, one array split by the carveout") \
  X(int64_t, regs_per_sm, "regs", "32-bit registers per SM")                                    \
  X(int64_t, regs_per_block_max, "regs", "32-bit registers per block")                          \
  X(int64_t, regs_per_thread_max, "regs", "registers per thread")                               \
  X(int64_t, reg_alloc_unit, "regs", "register allocation unit per warp")                       \
  X(int64_t, sm_subpartitions, "", "SM sub-partitions (each holds 1/n of the register file)")   \
  X(int64_t, max_threads_per_sm, "threads", "resident threads per SM")                          \
  X(int64_t, max_threads_per_block, "threads", "threads per block")                             \
  X(int64_t, max_blocks_per_sm, "blocks", "resident blocks per SM")                             \
  X(int64_t, max_warps_per_sm, "warps", "resident warps per SM")                                \
  X(int64_t, warp_size, "threads", "threads per warp")                                          \
  X(double, tensor_fp16_tflops, "TFLOP/s", "peak dense fp16/bf16 tensor throughput, fp32 accumulate") \
  X(double, tensor_fp8_tflops, "TFLOP/s", "peak dense fp8 tensor throughput, fp32 accumulate (0: no fp8 tensor cores)") \
  X(double, tensor_tf32_tflops, "TFLOP/s", "peak dense tf32 tensor throughput")                  \
  X(double, simt_fp32_tflops, "TFLOP/s", "peak fp32 FMA throughput of the CUDA cores (simt kernels)") \
  X(double, dram_bandwidth_gbps, "GB/s", "DRAM bandwidth")                                      \
  X(int64_t, l2_bytes, "B", "L2 cache")                                                         \
  X(double, l2_bandwidth_gbps, "GB/s", "L2 to SM read bandwidth, all SMs reading")               \
  X(double, boost_clock_mhz, "MHz", "maximum SM clock")                                        \
  X(int64_t, mem_sector_bytes, "B", "global memory sector: the unit L1 and L2 move")            \
  X(int64_t, cache_line_bytes, "B", "L1 cache line (four sectors)")                             \
  X(int64_t, smem_banks, "banks", "shared memory banks")                                         \
  X(int64_t, smem_bank_bytes, "B", "width of one shared memory bank")                            \
  X(int64_t, max_vector_access_bytes, "B", "widest load or store one thread issues")                \
  X(double, power_budget_w, "W", "power a sustained GEMM is held to by the software power cap, as sampled (0: no power term)") \
  X(double, energy_per_flop_pj, "pJ", "energy of a 16-bit tensor flop (padded tiles) at the cap")  \
  X(double, energy_per_l2_byte_pj, "pJ", "energy of a byte copied from the L2 into shared memory at the cap") \
  X(double, energy_per_cycle_nj, "nJ", "energy of one SM clock cycle of the whole GPU at the cap, beside the flops and bytes")

enum class DeviceField : std::size_t {
#define TILEPLAN_X(type, name, unit, desc) name,
  TILEPLAN_DEVICE_FIELDS(TILEPLAN_X)
#undef TILEPLAN_X
      count_
};
inline constexpr std::size_t kDeviceFieldCount = static_cast<std::size_t>(DeviceField::count_);

struct Device {
  std::string name;   // preset key, e.g. "h200"
  std::string label;  // e.g. "NVIDIA H200 SXM (sm_90)"
#define TILEPLAN_X(type, name, unit, desc) type name{};
  TILEPLAN_DEVICE_FIELDS(TILEPLAN_X)
#undef TILEPLAN_X
  // Where each field's value comes from, indexed by DeviceField.
  std::array<std::string, kDeviceFieldCount> source{};
  // Shared-memory carveout steps the SM can be configured to, in KB (ascending).
  std::vector<int64_t> smem_carveout_kb;
  std::string carveout_source;
  // The carveout the driver configures for a kernel, as measured (the CUDA
  // guide calls the choice the driver's): the largest step once a block's
  // shared memory passes smem_per_block_default_bytes; otherwise the smallest
  // step that holds the resident blocks (each with its reserve), and at least
  // this many KB when two or more blocks are resident (0: no such floor).
  // The L1 a block keeps is l1_smem_per_sm_bytes less the carveout, shared.
  int64_t carveout_multi_block_min_kb = 0;
  std::string carveout_rule_source;
};

// One row of a device description, for listings.
struct DeviceFieldView {
  std::string_view name;
  std::string_view unit;
  std::string_view description;
  double value;
  bool integral;
  std::string_view source;
};
std::vector<DeviceFieldView> describe(const Device& d);

// Presets, in listing order. The first is the default (h200).
const std::vector<Device>& device_presets();
std::optional<Device> find_device(std::string_view name);
std::string device_names();  // "h200, h100-sxm, ..." for error messages

// Every field within the bounds the models can compute with (no division by
// zero, no overflow in any product they form), doubles finite and positive,
// carveout steps ascending and ending at smem_per_sm_bytes, l1_smem_per_sm_bytes
// at least smem_per_sm_bytes, carveout_multi_block_min_kb a size the SM has. Every public
// entry point that takes a Device checks it with this.
//   error param: the field's name ("warp_size").
Status check_device(const Device& d);

// The reference script's --smem-kb override: the SM has `kb` KB and one block
// may use all of it but the 1 KB the system reserves. The carveout steps above
// `kb` are dropped and `kb` becomes the largest step.
// Both return an error (param "smem_kb", "sm_count") outside 1..2^30 KB and
// 1..10^6 SMs, leaving `d` unchanged.
Status override_smem_kb(Device& d, int64_t kb);
Status override_sm_count(Device& d, int64_t sms);

// A power budget other than the preset's (docs/model.md §3, "The power cap"):
// a board run at another power limit, or 0 for no power term. It prices
// nothing on a preset without the energy fields (only h100-sxm has them).
// Returns an error (param "power_budget"), leaving `d` unchanged, unless
// 0 <= watts <= 1e6 and finite, and, where `d` has no energy fields, unless
// watts is 0.
Status override_power_budget(Device& d, double watts);

}  // namespace tileplan
