#include "tileplan/device.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace tileplan {
namespace {

// Sources, cited once and referred to by every preset that uses them.
constexpr const char* kCudaGuideCC =
    "CUDA C++ Programming Guide, 'Technical Specifications per Compute Capability'";
constexpr const char* kHopperTuning =
    "NVIDIA Hopper Tuning Guide, 'Shared Memory' (228 KB per SM, 227 KB per block)";
constexpr const char* kAmpereTuning =
    "NVIDIA Ampere Tuning Guide, 'Shared Memory' (164 KB per SM, 163 KB per block)";
constexpr const char* kAdaTuning =
    "NVIDIA Ada Tuning Guide, 'Shared Memory' (100 KB per SM, 99 KB per block)";
constexpr const char* kHopperL1 =
    "NVIDIA Hopper Tuning Guide, 'Unified Shared Memory/L1/Texture Cache' (256 KB per SM)";
constexpr const char* kAmpereL1 =
    "NVIDIA Ampere Tuning Guide, 'Unified Shared Memory/L1/Texture Cache' (192 KB per SM on A100)";
constexpr const char* kAdaL1 =
    "NVIDIA Ada Tuning Guide, 'Unified Shared Memory/L1/Texture Cache' (128 KB per SM)";
constexpr const char* kH200CarveoutRule =
    "measured on an H200 (data/h200-profile-two-blocks, --carveout: 202 Triton kernels under Nsight Compute): "
    "above 48 KB per block the 228 KB step (129 of 129); otherwise the smallest step holding the resident blocks, "
    "and 132 KB or more with two or more resident (71 of 73)";
constexpr const char* kReservedSmem =
    "CUDA C++ Programming Guide, 'Shared Memory' (1 KB reserved per block on cc 8.0+); "
    "cuda_occupancy.h reservedSharedMemPerBlock";
constexpr const char* kRegUnit =
    "cuda_occupancy.h (CUDA 13.0), cudaOccRegAllocationGranularity: registers are allocated per warp in units of 256";
constexpr const char* kSmemUnit =
    "cuda_occupancy.h (CUDA 13.0), cudaOccSMemAllocationGranularity: 128 B on cc 8.x and 9.x";
constexpr const char* kSubpartitions =
    "Ampere, Hopper and Ada architecture whitepapers (four processing blocks per SM, each with 16384 of the SM's "
    "registers); cuda_occupancy.h cudaOccSubPartitionsPerMultiprocessor";
constexpr const char* kDefaultSmemBlock =
    "CUDA C++ Programming Guide, 'Shared Memory': more than 48 KB per block must be dynamic and opted in with "
    "cudaFuncAttributeMaxDynamicSharedMemorySize (cudaDeviceProp::sharedMemPerBlock = 49152)";
constexpr const char* kH200Props =
    "CUDA device properties read on an H200 (data/h200-triton/README.md): 233472 B per SM, "
    "232448 B per block opt-in";
constexpr const char* kH200Sheet = "NVIDIA H200 Tensor Core GPU datasheet (SXM)";
constexpr const char* kH100Sheet = "NVIDIA H100 Tensor Core GPU datasheet";
constexpr const char* kH100Paper = "NVIDIA H100 Tensor Core GPU Architecture whitepaper";
constexpr const char* kA100Sheet = "NVIDIA A100 Tensor Core GPU datasheet (80 GB SXM)";
constexpr const char* kA100Paper = "NVIDIA A100 Tensor Core GPU Architecture whitepaper";
constexpr const char* kL40SSheet = "NVIDIA L40S datasheet";
constexpr const char* kAdaPaper = "NVIDIA Ada GPU Architecture whitepaper, Appendix A";
// L2 read bandwidth: NVIDIA publishes bytes per clock for A100 only.
constexpr const char* kH200L2 =
    "measured lower bound: the largest operand read rate of any kernel in data/h200-triton (H200, "
    "2026-11-29): 2048x2048x2048 with 64x64x64 tiles, 3 stages, 4 warps reads 536.9 MB from L2 in "
    "44.77 us = 11992 GB/s";
constexpr const char* kA100L2 = "NVIDIA A100 Tensor Core GPU Architecture whitepaper: 5120 B/clk x 1410 MHz";
constexpr const char* kAdaL2 =
    "estimate, not measured: 5120 B/clk (the A100 whitepaper's figure; none is published for AD102) x boost "
    "clock; the run-time model is not calibrated on this device";

// The power term (docs/model.md §3, "The power cap"): measured on one device.
constexpr const char* kNoPowerTerm = "not measured on this device: 0, no power term";
constexpr const char* kH100Energy =
    "fitted on the 27 runs an H100 SXM held at its software power cap "
    "(data/h100-profile-power/power-1.jsonl; python3 scripts/power_clocks.py --energy)";
constexpr const char* kH100Budget =
    "median nvidia-smi power of the 27 runs an H100 SXM held at its software power cap "
    "(data/h100-profile-power/power-1.jsonl; limit 700 W)";

using F = DeviceField;

void set(Device& d, F f, const char* src) { d.source[static_cast<std::size_t>(f)] = src; }

// Fields shared by every preset here (cc 8.0 and later).
void common_limits(Device& d) {
  d.regs_per_sm = 65536;
  d.regs_per_block_max = 65536;
  d.regs_per_thread_max = 255;
  d.reg_alloc_unit = 256;
  d.sm_subpartitions = 4;
  d.smem_per_block_default_bytes = 48 * 1024;
  d.max_threads_per_block = 1024;
  d.warp_size = 32;
  d.smem_reserved_per_block_bytes = 1024;
  d.smem_alloc_unit_bytes = 128;
  for (F f : {F::regs_per_sm, F::regs_per_block_max, F::regs_per_thread_max, F::max_threads_per_block,
              F::warp_size})
    set(d, f, kCudaGuideCC);
  set(d, F::reg_alloc_unit, kRegUnit);
  set(d, F::sm_subpartitions, kSubpartitions);
  set(d, F::smem_alloc_unit_bytes, kSmemUnit);
  set(d, F::smem_per_block_default_bytes, kDefaultSmemBlock);
  set(d, F::smem_reserved_per_block_bytes, kReservedSmem);
  for (F f : {F::power_budget_w, F::energy_per_flop_pj, F::energy_per_l2_byte_pj, F::energy_per_cycle_nj})
    set(d, f, kNoPowerTerm);
}

void hopper(Device& d) {
  common_limits(d);
  d.compute_capability = 90;
  d.smem_per_sm_bytes = 228 * 1024;
  d.smem_per_block_max_bytes = 227 * 1024;
  d.max_threads_per_sm = 2048;
  d.max_blocks_per_sm = 32;
  d.max_warps_per_sm = 64;
  d.smem_carveout_kb = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};
  d.carveout_source = "CUDA C++ Programming Guide, 'Shared Memory' for compute capability 9.0";
  d.l1_smem_per_sm_bytes = 256 * 1024;
  set(d, F::l1_smem_per_sm_bytes, kHopperL1);
  d.carveout_multi_block_min_kb = 132;
  d.carveout_rule_source = kH200CarveoutRule;
  set(d, F::compute_capability, kCudaGuideCC);
  set(d, F::smem_per_sm_bytes, kHopperTuning);
  set(d, F::smem_per_block_max_bytes, kHopperTuning);
  for (F f : {F::max_threads_per_sm, F::max_blocks_per_sm, F::max_warps_per_sm}) set(d, f, kCudaGuideCC);
}

Device h200() {
  Device d;
  d.name = "h200";
  d.label = "NVIDIA H200 SXM (sm_90)";
  hopper(d);
  set(d, F::smem_per_sm_bytes, kH200Props);
  set(d, F::smem_per_block_max_bytes, kH200Props);
  d.sm_count = 132;
  d.tensor_fp16_tflops = 989.4;
  d.simt_fp32_tflops = 67;
  d.dram_bandwidth_gbps = 4800;
  d.l2_bytes = 60ll * 1024 * 1024;
  d.boost_clock_mhz = 1980;
  d.l2_bandwidth_gbps = 11992;
  set(d, F::l2_bandwidth_gbps, kH200L2);
  set(d, F::sm_count, "CUDA device properties read on an H200 (multiProcessorCount = 132)");
  set(d, F::tensor_fp16_tflops, kH200Sheet);
  set(d, F::simt_fp32_tflops, kH200Sheet);
  set(d, F::dram_bandwidth_gbps, kH200Sheet);
  set(d, F::l2_bytes, "CUDA device properties read on an H200 (l2CacheSize, 60 MiB)");
  set(d, F::boost_clock_mhz, "nvidia-smi on an H200 under load (1980 MHz); H100 whitepaper max boost");
  d.tensor_fp8_tflops = 1978.9;
  d.tensor_tf32_tflops = 494.7;
  set(d, F::tensor_fp8_tflops, "NVIDIA H200 Tensor Core GPU datasheet (SXM): FP8 Tensor Core 3,958 TFLOPS with sparsity, dense half");
  set(d, F::tensor_tf32_tflops, "NVIDIA H200 Tensor Core GPU datasheet (SXM): TF32 Tensor Core 989 TFLOPS with sparsity, dense half");
  for (F f : {F::power_budget_w, F::energy_per_flop_pj, F::energy_per_l2_byte_pj, F::energy_per_cycle_nj})
    set(d, f, "not measured on an H200 (bench/gpu/runs/h200_queue_clocks.sh measures its clocks and power): 0, no power term");
  return d;
}

Device h100_sxm() {
  Device d;
  d.name = "h100-sxm";
  d.label = "NVIDIA H100 SXM5 80GB (sm_90)";
  hopper(d);
  d.carveout_rule_source = "assumed as measured on the H200 (same architecture): not measured on this device";
  d.sm_count = 132;
  d.tensor_fp16_tflops = 989.4;
  d.simt_fp32_tflops = 67;
  d.dram_bandwidth_gbps = 3350;
  d.l2_bytes = 50ll * 1024 * 1024;
  d.boost_clock_mhz = 1980;
  d.l2_bandwidth_gbps = 11992;
  set(d, F::l2_bandwidth_gbps, "estimate: the H200 measurement (same GH100 L2, same clock); not measured on an H100");
  set(d, F::sm_count, kH100Paper);
  set(d, F::tensor_fp16_tflops, kH100Sheet);
  set(d, F::simt_fp32_tflops, kH100Sheet);
  set(d, F::dram_bandwidth_gbps, kH100Sheet);
  set(d, F::l2_bytes, kH100Paper);
  set(d, F::boost_clock_mhz, kH100Paper);
  d.tensor_fp8_tflops = 1978.9;
  d.tensor_tf32_tflops = 494.7;
  set(d, F::tensor_fp8_tflops, "NVIDIA H100 Tensor Core GPU datasheet (SXM): FP8 Tensor Core 3,958 TFLOPS with sparsity, dense half");
  set(d, F::tensor_tf32_tflops, "NVIDIA H100 Tensor Core GPU datasheet (SXM): TF32 Tensor Core 989 TFLOPS with sparsity, dense half");
  d.power_budget_w = 636;
  d.energy_per_flop_pj = 0.111;
  d.energy_per_l2_byte_pj = 24.7;
  d.energy_per_cycle_nj = 210;
  set(d, F::power_budget_w, kH100Budget);
  for (F f : {F::energy_per_flop_pj, F::energy_per_l2_byte_pj, F::energy_per_cycle_nj}) set(d, f, kH100Energy);
  return d;
}

Device h100_pcie() {
  Device d;
  d.name = "h100-pcie";
  d.label = "NVIDIA H100 PCIe 80GB (sm_90)";
  hopper(d);
  d.carveout_rule_source = "assumed as measured on the H200 (same architecture): not measured on this device";
  d.sm_count = 114;
  d.tensor_fp16_tflops = 756.5;
  d.simt_fp32_tflops = 51.2;
  d.dram_bandwidth_gbps = 2000;
  d.l2_bytes = 50ll * 1024 * 1024;
  d.boost_clock_mhz = 1755;
  d.l2_bandwidth_gbps = 10629;
  set(d, F::l2_bandwidth_gbps,
      "estimate: the H200 measurement scaled by clock, 11992 x 1755/1980 (same GH100 L2); not measured");
  set(d, F::sm_count, kH100Paper);
  set(d, F::tensor_fp16_tflops, kH100Sheet);
  set(d, F::simt_fp32_tflops, kH100Sheet);
  set(d, F::dram_bandwidth_gbps, kH100Sheet);
  set(d, F::l2_bytes, kH100Paper);
  set(d, F::boost_clock_mhz, kH100Paper);
  d.tensor_fp8_tflops = 1513;
  d.tensor_tf32_tflops = 378;
  set(d, F::tensor_fp8_tflops, "NVIDIA H100 Tensor Core GPU datasheet (PCIe): FP8 Tensor Core 3,026 TFLOPS with sparsity, dense half");
  set(d, F::tensor_tf32_tflops, "NVIDIA H100 Tensor Core GPU datasheet (PCIe): TF32 Tensor Core 756 TFLOPS with sparsity, dense half");
  return d;
}

Device a100_sxm() {
  Device d;
  d.name = "a100-sxm";
  d.label = "NVIDIA A100 SXM4 80GB (sm_80)";
  common_limits(d);
  d.compute_capability = 80;
  d.smem_per_sm_bytes = 164 * 1024;
  d.smem_per_block_max_bytes = 163 * 1024;
  d.max_threads_per_sm = 2048;
  d.max_blocks_per_sm = 32;
  d.max_warps_per_sm = 64;
  d.smem_carveout_kb = {0, 8, 16, 32, 64, 100, 132, 164};
  d.carveout_source = "CUDA C++ Programming Guide, 'Shared Memory' for compute capability 8.0";
  d.l1_smem_per_sm_bytes = 192 * 1024;
  set(d, F::l1_smem_per_sm_bytes, kAmpereL1);
  d.carveout_rule_source = "not measured on this device: the smallest step holding the resident blocks";
  d.sm_count = 108;
  d.tensor_fp16_tflops = 312;
  d.simt_fp32_tflops = 19.5;
  d.dram_bandwidth_gbps = 2039;
  d.l2_bytes = 40ll * 1024 * 1024;
  d.boost_clock_mhz = 1410;
  d.l2_bandwidth_gbps = 7219.2;
  set(d, F::l2_bandwidth_gbps, kA100L2);
  set(d, F::compute_capability, kCudaGuideCC);
  set(d, F::smem_per_sm_bytes, kAmpereTuning);
  set(d, F::smem_per_block_max_bytes, kAmpereTuning);
  for (F f : {F::max_threads_per_sm, F::max_blocks_per_sm, F::max_warps_per_sm}) set(d, f, kCudaGuideCC);
  set(d, F::sm_count, kA100Paper);
  set(d, F::tensor_fp16_tflops, kA100Sheet);
  set(d, F::simt_fp32_tflops, kA100Sheet);
  set(d, F::dram_bandwidth_gbps, kA100Sheet);
  set(d, F::l2_bytes, kA100Paper);
  set(d, F::boost_clock_mhz, kA100Paper);
  d.tensor_fp8_tflops = 0;
  d.tensor_tf32_tflops = 156;
  set(d, F::tensor_fp8_tflops, "compute capability 8.0: fp8 tensor cores start with 8.9 (PTX ISA, mma .e4m3/.e5m2 types)");
  set(d, F::tensor_tf32_tflops, "NVIDIA A100 Tensor Core GPU datasheet: TF32 Tensor Core 156 TFLOPS (dense)");
  return d;
}

void ada(Device& d) {
  common_limits(d);
  d.compute_capability = 89;
  d.smem_per_sm_bytes = 100 * 1024;
  d.smem_per_block_max_bytes = 99 * 1024;
  d.max_threads_per_sm = 1536;
  d.max_blocks_per_sm = 24;
  d.max_warps_per_sm = 48;
  d.smem_carveout_kb = {0, 8, 16, 32, 64, 100};
  d.carveout_source = "CUDA C++ Programming Guide, 'Shared Memory' for compute capability 8.9";
  d.l1_smem_per_sm_bytes = 128 * 1024;
  set(d, F::l1_smem_per_sm_bytes, kAdaL1);
  d.carveout_rule_source = "not measured on this device: the smallest step holding the resident blocks";
  set(d, F::compute_capability, kCudaGuideCC);
  set(d, F::smem_per_sm_bytes, kAdaTuning);
  set(d, F::smem_per_block_max_bytes, kAdaTuning);
  for (F f : {F::max_threads_per_sm, F::max_blocks_per_sm, F::max_warps_per_sm}) set(d, f, kCudaGuideCC);
}

Device l40s() {
  Device d;
  d.name = "l40s";
  d.label = "NVIDIA L40S (sm_89)";
  ada(d);
  d.sm_count = 142;
  d.tensor_fp16_tflops = 362.05;
  d.simt_fp32_tflops = 91.6;
  d.dram_bandwidth_gbps = 864;
  d.l2_bytes = 96ll * 1024 * 1024;
  d.boost_clock_mhz = 2520;
  d.l2_bandwidth_gbps = 12902.4;
  set(d, F::l2_bandwidth_gbps, kAdaL2);
  set(d, F::sm_count, kAdaPaper);
  set(d, F::tensor_fp16_tflops, kL40SSheet);
  set(d, F::simt_fp32_tflops, kL40SSheet);
  set(d, F::dram_bandwidth_gbps, kL40SSheet);
  set(d, F::l2_bytes, kAdaPaper);
  set(d, F::boost_clock_mhz, kL40SSheet);
  d.tensor_fp8_tflops = 733;
  d.tensor_tf32_tflops = 183;
  set(d, F::tensor_fp8_tflops, "NVIDIA L40S datasheet: FP8 Tensor 1,466 TFLOPS with sparsity, dense half");
  set(d, F::tensor_tf32_tflops, "NVIDIA L40S datasheet: TF32 Tensor 366 TFLOPS with sparsity, dense half");
  return d;
}

Device rtx_4090() {
  Device d;
  d.name = "rtx-4090";
  d.label = "NVIDIA GeForce RTX 4090 (sm_89)";
  ada(d);
  d.sm_count = 128;
  d.tensor_fp16_tflops = 165.2;  // fp32 accumulate runs at half the fp16-accumulate rate
  d.simt_fp32_tflops = 82.6;
  d.dram_bandwidth_gbps = 1008;
  d.l2_bytes = 72ll * 1024 * 1024;
  d.boost_clock_mhz = 2520;
  d.l2_bandwidth_gbps = 12902.4;
  set(d, F::l2_bandwidth_gbps, kAdaL2);
  for (F f : {F::sm_count, F::tensor_fp16_tflops, F::simt_fp32_tflops, F::dram_bandwidth_gbps, F::l2_bytes,
              F::boost_clock_mhz})
    set(d, f, kAdaPaper);
  d.tensor_fp8_tflops = 330.3;
  d.tensor_tf32_tflops = 82.6;
  set(d, F::tensor_fp8_tflops, "NVIDIA Ada GPU Architecture whitepaper, Appendix A: peak FP8 Tensor TFLOPS with FP32 accumulate 330.3 (dense)");
  set(d, F::tensor_tf32_tflops, "NVIDIA Ada GPU Architecture whitepaper, Appendix A: peak TF32 Tensor TFLOPS 82.6 (dense)");
  return d;
}

// The memory system as a loop's accesses see it; the same on every preset (cc 8.0 and later).
std::vector<Device> with_memory_system(std::vector<Device> devices) {
  for (Device& d : devices) {
    d.mem_sector_bytes = 32;
    d.cache_line_bytes = 128;
    d.smem_banks = 32;
    d.smem_bank_bytes = 4;
    d.max_vector_access_bytes = 16;
    set(d, F::mem_sector_bytes,
        "CUDA C++ Best Practices Guide, 'Coalesced Access to Global Memory' (32-byte transactions); "
        "Nsight Compute Kernel Profiling Guide, 'Memory Tables' (a sector is 32 bytes)");
    set(d, F::cache_line_bytes,
        "CUDA C++ Programming Guide, 'Global Memory' for compute capability 5.x and later (128-byte cache lines); "
        "Nsight Compute Kernel Profiling Guide (four sectors per cache line)");
    set(d, F::smem_banks, "CUDA C++ Programming Guide, 'Shared Memory' for compute capability 5.x and later");
    set(d, F::smem_bank_bytes,
        "CUDA C++ Programming Guide, 'Shared Memory' (successive 32-bit words map to successive banks)");
    set(d, F::max_vector_access_bytes,
        "CUDA C++ Programming Guide, 'Device Memory Accesses' (instructions read words of 1, 2, 4, 8 or 16 bytes); "
        "PTX ISA 'ld' (.v4 of .b32)");
  }
  return devices;
}

}  // namespace

const std::vector<Device>& device_presets() {
  static const std::vector<Device> presets =
      with_memory_system({h200(), h100_sxm(), h100_pcie(), a100_sxm(), l40s(), rtx_4090()});
  return presets;
}

std::optional<Device> find_device(std::string_view name) {
  for (const Device& d : device_presets())
    if (d.name == name) return d;
  return std::nullopt;
}

std::string device_names() {
  std::string out;
  for (const Device& d : device_presets()) {
    if (!out.empty()) out += ", ";
    out += d.name;
  }
  return out;
}

std::vector<DeviceFieldView> describe(const Device& d) {
  std::vector<DeviceFieldView> rows;
  rows.reserve(kDeviceFieldCount);
#define TILEPLAN_X(type, fname, unit, desc)                                                       \
  rows.push_back(DeviceFieldView{#fname, unit, desc, static_cast<double>(d.fname),               \
                                 std::is_integral_v<type>,                                        \
                                 d.source[static_cast<std::size_t>(DeviceField::fname)]});
  TILEPLAN_DEVICE_FIELDS(TILEPLAN_X)
#undef TILEPLAN_X
  return rows;
}

namespace {

// Bounds per field (inclusive). They are wide (no real GPU is near them) and
// keep every product the models form inside 64 bits: sizes at most 2^40 bytes,
// counts at most 2^20 (registers 2^24), so that e.g. regs_per_warp * warps or
// blocks * smem cannot overflow.
struct FieldBounds {
  double min, max;
};
constexpr double kTiB = 1099511627776.0;  // 2^40
FieldBounds bounds_of(DeviceField f) {
  switch (f) {
    case F::compute_capability: return {10, 1000};
    case F::sm_count: return {1, 1e6};
    case F::smem_per_sm_bytes:
    case F::l1_smem_per_sm_bytes: return {1024, kTiB};
    case F::smem_per_block_max_bytes:
    case F::smem_per_block_default_bytes:
    case F::smem_reserved_per_block_bytes: return {0, kTiB};
    case F::smem_alloc_unit_bytes: return {1, 1 << 20};
    case F::regs_per_sm:
    case F::regs_per_block_max: return {1, 1 << 24};
    case F::regs_per_thread_max:
    case F::reg_alloc_unit: return {1, 1 << 16};
    case F::sm_subpartitions: return {1, 64};
    case F::max_threads_per_sm:
    case F::max_threads_per_block: return {1, 1 << 20};
    case F::max_blocks_per_sm:
    case F::max_warps_per_sm: return {1, 1 << 16};
    case F::warp_size: return {1, 1024};
    case F::tensor_fp8_tflops: return {0, 1e9};
    case F::tensor_fp16_tflops:
    case F::tensor_tf32_tflops:
    case F::simt_fp32_tflops:
    case F::dram_bandwidth_gbps:
    case F::l2_bandwidth_gbps:
    case F::boost_clock_mhz: return {1e-6, 1e9};
    case F::l2_bytes: return {0, kTiB};
    case F::mem_sector_bytes:
    case F::cache_line_bytes: return {1, 1 << 16};
    case F::smem_banks:
    case F::smem_bank_bytes:
    case F::max_vector_access_bytes: return {1, 1024};
    case F::power_budget_w:
    case F::energy_per_flop_pj:
    case F::energy_per_l2_byte_pj:
    case F::energy_per_cycle_nj: return {0, 1e9};
    case F::count_: break;
  }
  return {0, 0};
}

std::string number_text(double v) { return fmt::format("{}", v); }

}  // namespace

Status check_device(const Device& d) {
  const auto bad = [](std::string_view field, std::string sentence) {
    return Error{ErrorKind::invalid_argument, std::string(field), std::move(sentence)};
  };
#define TILEPLAN_X(type, fname, unit, desc)                                                                       \
  {                                                                                                              \
    const FieldBounds b = bounds_of(DeviceField::fname);                                                         \
    const double v = static_cast<double>(d.fname);                                                               \
    if (!(v >= b.min && v <= b.max))                                                                             \
      return bad(#fname, fmt::format("{} {} of device '{}' must be between {} and {}", #fname, number_text(v),   \
                                     d.name, number_text(b.min), number_text(b.max)));                           \
  }
  TILEPLAN_DEVICE_FIELDS(TILEPLAN_X)
#undef TILEPLAN_X
  if (d.smem_per_block_max_bytes > d.smem_per_sm_bytes)
    return bad("smem_per_block_max_bytes",
               fmt::format("smem_per_block_max_bytes {} of device '{}' must not exceed smem_per_sm_bytes {}",
                           d.smem_per_block_max_bytes, d.name, d.smem_per_sm_bytes));
  if (d.l1_smem_per_sm_bytes < d.smem_per_sm_bytes)
    return bad("l1_smem_per_sm_bytes",
               fmt::format("l1_smem_per_sm_bytes {} of device '{}' must be at least smem_per_sm_bytes {}: the "
                           "carveout is a part of it",
                           d.l1_smem_per_sm_bytes, d.name, d.smem_per_sm_bytes));
  if (d.carveout_multi_block_min_kb < 0 || d.carveout_multi_block_min_kb > d.smem_per_sm_bytes / 1024)
    return bad("carveout_multi_block_min_kb",
               fmt::format("carveout_multi_block_min_kb {} of device '{}' must be between 0 and smem_per_sm_bytes / "
                           "1024 = {}",
                           d.carveout_multi_block_min_kb, d.name, d.smem_per_sm_bytes / 1024));
  // Each step within 0..2^30 KB before any step is multiplied by 1024.
  for (int64_t step : d.smem_carveout_kb)
    if (step < 0 || step > (int64_t{1} << 30))
      return bad("smem_carveout_kb", fmt::format("smem_carveout_kb of device '{}' holds {}: a step must be between "
                                                 "0 and {} KB", d.name, step, int64_t{1} << 30));
  if (d.smem_carveout_kb.empty() || d.smem_carveout_kb.back() * 1024 != d.smem_per_sm_bytes)
    return bad("smem_carveout_kb", fmt::format("smem_carveout_kb of device '{}' must end at smem_per_sm_bytes / 1024 = {}",
                                               d.name, d.smem_per_sm_bytes / 1024));
  if (d.smem_carveout_kb.size() > 64 || !std::is_sorted(d.smem_carveout_kb.begin(), d.smem_carveout_kb.end()) ||
      d.smem_carveout_kb.front() < 0)
    return bad("smem_carveout_kb",
               fmt::format("smem_carveout_kb of device '{}' must be at most 64 ascending steps, none negative", d.name));
  return {};
}

Status override_smem_kb(Device& d, int64_t kb) {
  if (kb < 1 || kb > (int64_t{1} << 30))
    return Error{ErrorKind::out_of_range, "smem_kb", fmt::format("smem_kb {} must be between 1 and {}", kb, int64_t{1} << 30)};
  d.smem_per_sm_bytes = kb * 1024;
  d.smem_per_block_max_bytes = kb * 1024 - 1024;
  const std::string src = fmt::format("--smem-kb {} (block maximum: {} KB less the 1 KB reserve)", kb, kb);
  d.source[static_cast<std::size_t>(DeviceField::smem_per_sm_bytes)] = src;
  d.source[static_cast<std::size_t>(DeviceField::smem_per_block_max_bytes)] = src;
  // The SM cannot be configured above what it has: keep the steps below kb, end at kb.
  std::erase_if(d.smem_carveout_kb, [kb](int64_t step) { return step >= kb; });
  d.smem_carveout_kb.push_back(kb);
  d.carveout_source += fmt::format("; steps above --smem-kb {} dropped", kb);
  d.carveout_multi_block_min_kb = std::min(d.carveout_multi_block_min_kb, kb);
  // The unified array holds at least the shared memory it is carved from.
  if (d.l1_smem_per_sm_bytes < d.smem_per_sm_bytes) {
    d.l1_smem_per_sm_bytes = d.smem_per_sm_bytes;
    d.source[static_cast<std::size_t>(DeviceField::l1_smem_per_sm_bytes)] =
        fmt::format("--smem-kb {} (raised to the shared memory: no L1 left at the largest carveout)", kb);
  }
  return {};
}

Status override_power_budget(Device& d, double watts) {
  if (!(watts >= 0 && watts <= 1e6))
    return Error{ErrorKind::out_of_range, "power_budget",
                 fmt::format("power_budget {} must be between 0 (no power term) and 1000000 W", watts)};
  if (watts > 0 && d.energy_per_flop_pj == 0 && d.energy_per_l2_byte_pj == 0 && d.energy_per_cycle_nj == 0)
    return Error{ErrorKind::invalid_argument, "power_budget",
                 fmt::format("power_budget {}: device '{}' has no measured energy fields (h100-sxm has), so a budget "
                             "would price nothing; give 0 or another device",
                             watts, d.name)};
  d.power_budget_w = watts;
  d.source[static_cast<std::size_t>(DeviceField::power_budget_w)] =
      fmt::format("overridden: {} W (--power-budget, power_budget=)", watts);
  return {};
}

Status override_sm_count(Device& d, int64_t sms) {
  if (sms < 1 || sms > 1'000'000)
    return Error{ErrorKind::out_of_range, "sm_count", fmt::format("sm_count {} must be between 1 and 1000000", sms)};
  d.sm_count = sms;
  d.source[static_cast<std::size_t>(DeviceField::sm_count)] = fmt::format("--sm-count {}", sms);
  return {};
}

}  // namespace tileplan
