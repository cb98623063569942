// tileplan's occupancy rules against NVIDIA's occupancy calculator
// (cuda_occupancy.h, cudaOccMaxActiveBlocksPerMultiprocessor), which runs on
// the CPU. The header is an oracle only: this file is built where it exists.
#include <cuda_occupancy.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <sstream>
#include <string>

#include "tileplan/occupancy.hpp"

namespace tileplan {
namespace {

constexpr int kRandomInputsPerPreset = 1'000'000;
constexpr int kNextStepInputsPerPreset = 4'000;

// The header's device description, filled from ours field by field.
cudaOccDeviceProp occ_props(const Device& d) {
  cudaOccDeviceProp p;
  p.computeMajor = static_cast<int>(d.compute_capability / 10);
  p.computeMinor = static_cast<int>(d.compute_capability % 10);
  p.maxThreadsPerBlock = static_cast<int>(d.max_threads_per_block);
  p.maxThreadsPerMultiprocessor = static_cast<int>(d.max_threads_per_sm);
  p.regsPerBlock = static_cast<int>(d.regs_per_block_max);
  p.regsPerMultiprocessor = static_cast<int>(d.regs_per_sm);
  p.warpSize = static_cast<int>(d.warp_size);
  p.sharedMemPerBlock = static_cast<size_t>(d.smem_per_block_default_bytes);
  p.sharedMemPerMultiprocessor = static_cast<size_t>(d.smem_per_sm_bytes);
  p.numSms = static_cast<int>(d.sm_count);
  p.sharedMemPerBlockOptin = static_cast<size_t>(d.smem_per_block_max_bytes);
  p.reservedSharedMemPerBlock = static_cast<size_t>(d.smem_reserved_per_block_bytes);
  return p;
}

// How the kernel declares its shared memory to the driver.
enum class OptIn {
  up_to_max,  // cudaFuncSetAttribute(MaxDynamicSharedMemorySize, opt-in max - static), as CUTLASS does
  exact,      // ... set to exactly the launch's dynamic size, as Triton does above 48 KB
  none,       // no attribute: only possible while static + dynamic <= 48 KB
};

struct OracleCase {
  OccupancyInput in;
  OptIn opt_in = OptIn::up_to_max;
};

std::string describe(const Device& d, const OracleCase& c) {
  std::ostringstream s;
  s << d.name << ": threads " << c.in.threads_per_block << ", regs " << c.in.regs_per_thread << ", smem static "
    << c.in.smem_static_bytes << " + dynamic " << c.in.smem_dynamic_bytes << ", carveout "
    << (c.in.carveout_percent ? std::to_string(*c.in.carveout_percent) : std::string("default")) << ", opt-in "
    << static_cast<int>(c.opt_in);
  return s.str();
}

cudaOccResult oracle(const Device& d, const OracleCase& c) {
  const cudaOccDeviceProp props = occ_props(d);
  cudaOccFuncAttributes attr;
  attr.maxThreadsPerBlock = static_cast<int>(d.max_threads_per_block);
  attr.numRegs = static_cast<int>(c.in.regs_per_thread);
  attr.sharedSizeBytes = static_cast<size_t>(c.in.smem_static_bytes);
  attr.partitionedGCConfig = PARTITIONED_GC_OFF;
  attr.numBlockBarriers = 1;  // what cudaFuncGetAttributes reports for a kernel
  switch (c.opt_in) {
    case OptIn::up_to_max:
      attr.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
      attr.maxDynamicSharedSizeBytes = props.sharedMemPerBlockOptin - attr.sharedSizeBytes;
      break;
    case OptIn::exact:
      attr.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
      attr.maxDynamicSharedSizeBytes = static_cast<size_t>(c.in.smem_dynamic_bytes);
      break;
    case OptIn::none:
      attr.shmemLimitConfig = FUNC_SHMEM_LIMIT_DEFAULT;
      attr.maxDynamicSharedSizeBytes = 0;
      break;
  }
  cudaOccDeviceState state;
  state.carveoutConfig = c.in.carveout_percent ? static_cast<int>(*c.in.carveout_percent) : SHAREDMEM_CARVEOUT_DEFAULT;
  cudaOccResult r{};
  const cudaOccError err = cudaOccMaxActiveBlocksPerMultiprocessor(
      &r, &props, &attr, &state, static_cast<int>(c.in.threads_per_block), static_cast<size_t>(c.in.smem_dynamic_bytes));
  EXPECT_EQ(err, CUDA_OCC_SUCCESS) << describe(d, c);
  return r;
}

// Inputs over the ranges a kernel can have, weighted towards the edges where
// the rules round: warp and sub-partition multiples, register units, the
// shared memory at which n blocks stop fitting in a carveout step.
class Inputs {
 public:
  Inputs(const Device& d, uint64_t seed) : d_(d), rng_(seed) {}

  OracleCase next() {
    OracleCase c;
    c.in.threads_per_block = threads();
    c.in.regs_per_thread = regs();
    const int64_t total = smem();
    const int64_t static_max = std::min(total, d_.smem_per_block_default_bytes);
    c.in.smem_static_bytes = pick(3) == 0 ? uniform(0, static_max) : 0;
    c.in.smem_dynamic_bytes = total - c.in.smem_static_bytes;
    const int64_t k = pick(10);
    if (k < 3) c.in.carveout_percent = std::nullopt;
    else if (k == 3) c.in.carveout_percent = pick(2) ? 0 : 100;
    else c.in.carveout_percent = uniform(0, 100);
    const int64_t o = pick(3);
    c.opt_in = o == 0 ? OptIn::up_to_max : o == 1 ? OptIn::exact : OptIn::none;
    if (c.opt_in == OptIn::none && total > d_.smem_per_block_default_bytes) c.opt_in = OptIn::up_to_max;
    return c;
  }

  int64_t uniform(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng_); }
  int64_t pick(int64_t n) { return uniform(0, n - 1); }

 private:
  int64_t threads() {
    const int64_t max = d_.max_threads_per_block;
    switch (pick(4)) {
      case 0: return uniform(1, max);
      case 1: return d_.warp_size * uniform(1, max / d_.warp_size);
      case 2: return std::clamp<int64_t>(d_.warp_size * uniform(1, max / d_.warp_size) + uniform(-1, 1), 1, max);
      default: return 128 * uniform(1, max / 128);
    }
  }
  int64_t regs() {
    const int64_t max = d_.regs_per_thread_max;
    switch (pick(3)) {
      case 0: return uniform(1, max);
      case 1: return std::clamp<int64_t>(8 * uniform(0, 32) + uniform(0, 1), 1, max);  // 256-register units
      default: {
        // Where warps per sub-partition change: regs * 32 near 16384 / n.
        const int64_t n = uniform(1, 64);
        return std::clamp<int64_t>(d_.regs_per_sm / d_.sm_subpartitions / n / d_.warp_size + uniform(-1, 1), 1, max);
      }
    }
  }
  int64_t smem() {
    const int64_t max = d_.smem_per_block_max_bytes;
    const int64_t reserve = d_.smem_reserved_per_block_bytes;
    int64_t s = 0;
    switch (pick(5)) {
      case 0: s = uniform(0, max); break;
      case 1: s = uniform(0, 8192); break;
      case 2: {  // n blocks in a carveout step, give or take a unit
        const int64_t step = 1024 * d_.smem_carveout_kb[static_cast<size_t>(pick(
                                        static_cast<int64_t>(d_.smem_carveout_kb.size())))];
        s = step / uniform(1, 32) - reserve + uniform(-160, 160);
        break;
      }
      case 3: s = d_.smem_alloc_unit_bytes * uniform(0, max / d_.smem_alloc_unit_bytes) - reserve + uniform(-1, 1); break;
      default: s = max - uniform(0, 2048); break;
    }
    return std::clamp<int64_t>(s, 0, max);
  }

  const Device& d_;
  std::mt19937_64 rng_;
};

class OccupancyOracle : public ::testing::TestWithParam<std::string> {
 protected:
  Device dev() const { return *find_device(GetParam()); }
};

// Every constant the rules use, next to the header's value for the same compute capability.
TEST_P(OccupancyOracle, DeviceFields_MatchTheHeader) {
  const Device d = dev();
  const cudaOccDeviceProp p = occ_props(d);
  int value = 0;
  ASSERT_EQ(cudaOccSMemAllocationGranularity(&value, &p), CUDA_OCC_SUCCESS);
  EXPECT_EQ(value, d.smem_alloc_unit_bytes);
  ASSERT_EQ(cudaOccRegAllocationGranularity(&value, &p), CUDA_OCC_SUCCESS);
  EXPECT_EQ(value, d.reg_alloc_unit);
  ASSERT_EQ(cudaOccSubPartitionsPerMultiprocessor(&value, &p), CUDA_OCC_SUCCESS);
  EXPECT_EQ(value, d.sm_subpartitions);
  ASSERT_EQ(cudaOccMaxBlocksPerMultiprocessor(&value, &p), CUDA_OCC_SUCCESS);
  EXPECT_EQ(value, d.max_blocks_per_sm);
  // The header allocates up to 256 registers per thread; ptxas assigns at most 255.
  ASSERT_EQ(cudaOccRegAllocationMaxPerThread(&value, &p), CUDA_OCC_SUCCESS);
  EXPECT_EQ(d.regs_per_thread_max, value - 1);
  EXPECT_EQ(d.max_warps_per_sm * d.warp_size, d.max_threads_per_sm);
  EXPECT_EQ(d.smem_per_block_max_bytes + d.smem_reserved_per_block_bytes, d.smem_per_sm_bytes);

  // The carveout steps: each aligns to itself, one byte over aligns to the
  // next, and one byte over the last is not a configuration.
  size_t bytes = 0;
  int64_t previous = -1;
  ASSERT_GE(d.smem_carveout_kb.size(), 2u);
  for (int64_t kb : d.smem_carveout_kb) {
    bytes = static_cast<size_t>(kb * 1024);
    ASSERT_EQ(cudaOccAlignUpShmemSizeVoltaPlus(&bytes, &p), CUDA_OCC_SUCCESS);
    EXPECT_EQ(bytes, static_cast<size_t>(kb * 1024)) << kb;
    if (previous >= 0) {
      bytes = static_cast<size_t>(previous * 1024 + 1);
      ASSERT_EQ(cudaOccAlignUpShmemSizeVoltaPlus(&bytes, &p), CUDA_OCC_SUCCESS);
      EXPECT_EQ(bytes, static_cast<size_t>(kb * 1024)) << kb;
    }
    previous = kb;
  }
  bytes = static_cast<size_t>(d.smem_carveout_kb.back() * 1024 + 1);
  EXPECT_NE(cudaOccAlignUpShmemSizeVoltaPlus(&bytes, &p), CUDA_OCC_SUCCESS);
}

// Blocks per SM, each limit's count, the allocations and the limiting factors,
// on every random input.
TEST_P(OccupancyOracle, RandomInputs_AgreeOnEveryOne) {
  const Device d = dev();
  Inputs gen(d, 0x0CC0 + std::hash<std::string>{}(d.name));
  int agreed = 0;
  for (int i = 0; i < kRandomInputsPerPreset; ++i) {
    const OracleCase c = gen.next();
    ASSERT_TRUE(check_occupancy_input(d, c.in).ok()) << describe(d, c);
    const Occupancy o = occupancy(d, c.in).value();
    const cudaOccResult r = oracle(d, c);
    ASSERT_EQ(o.blocks_per_sm, r.activeBlocksPerMultiprocessor) << "first disagreement: " << describe(d, c);
    ASSERT_EQ(o.blocks_by_warps, r.blockLimitWarps) << describe(d, c);
    ASSERT_EQ(o.blocks_by_regs, r.blockLimitRegs) << describe(d, c);
    ASSERT_EQ(o.blocks_by_smem, r.blockLimitSharedMem) << describe(d, c);
    ASSERT_EQ(o.blocks_by_blocks, r.blockLimitBlocks) << describe(d, c);
    ASSERT_EQ(o.regs_per_block, r.allocatedRegistersPerBlock) << describe(d, c);
    ASSERT_EQ(o.smem_per_block_bytes, static_cast<int64_t>(r.allocatedSharedMemPerBlock)) << describe(d, c);
    ASSERT_EQ(limits(o, Limiter::warps), (r.limitingFactors & OCC_LIMIT_WARPS) != 0) << describe(d, c);
    ASSERT_EQ(limits(o, Limiter::regs), (r.limitingFactors & OCC_LIMIT_REGISTERS) != 0) << describe(d, c);
    ASSERT_EQ(limits(o, Limiter::smem), (r.limitingFactors & OCC_LIMIT_SHARED_MEMORY) != 0) << describe(d, c);
    ASSERT_EQ(limits(o, Limiter::blocks), (r.limitingFactors & OCC_LIMIT_BLOCKS) != 0) << describe(d, c);
    ++agreed;
  }
  EXPECT_EQ(agreed, kRandomInputsPerPreset);
  RecordProperty("agreed", agreed);
}

// Blocks that cannot run: both sides say 0, for the same reason.
TEST_P(OccupancyOracle, BlocksThatCannotRun_GetZero) {
  const Device d = dev();
  const int64_t max_threads = d.max_threads_per_block;
  for (const OracleCase& c : {
           OracleCase{{max_threads + 1, 32, 0, 0, std::nullopt}},                        // too many threads
           OracleCase{{max_threads, d.regs_per_thread_max, 0, 0, std::nullopt}},         // registers per block
           OracleCase{{128, 32, 0, d.smem_per_block_max_bytes + 1, std::nullopt}},      // over the opt-in maximum
           OracleCase{{128, 32, 0, d.smem_per_block_max_bytes + 1, int64_t{0}}},
       }) {
    const Occupancy o = occupancy(d, c.in).value();
    const cudaOccResult r = oracle(d, c);
    EXPECT_EQ(o.blocks_per_sm, 0) << describe(d, c);
    EXPECT_EQ(r.activeBlocksPerMultiprocessor, 0) << describe(d, c);
    EXPECT_EQ(o.blocks_by_warps, r.blockLimitWarps) << describe(d, c);
    EXPECT_EQ(o.blocks_by_regs, r.blockLimitRegs) << describe(d, c);
    EXPECT_EQ(o.blocks_by_smem, r.blockLimitSharedMem) << describe(d, c);
  }
}

// next_step's bounds are the largest values at which each limit allows one more
// block: the bound passes the header's limit and one more fails it.
TEST_P(OccupancyOracle, NextStepBounds_AreTheLargestTheHeaderAllows) {
  const Device d = dev();
  Inputs gen(d, 0x57E9 + std::hash<std::string>{}(d.name));
  for (int i = 0; i < kNextStepInputsPerPreset; ++i) {
    OracleCase c = gen.next();
    c.opt_in = OptIn::up_to_max;
    const std::optional<NextStep> step = next_step(d, c.in).value();
    const int active = oracle(d, c).activeBlocksPerMultiprocessor;
    if (!step) {
      ASSERT_EQ(active, d.max_blocks_per_sm) << describe(d, c);
      continue;
    }
    const int target = static_cast<int>(step->blocks_per_sm);
    ASSERT_EQ(target, active + 1) << describe(d, c);

    OracleCase probe = c;
    if (step->max_regs_per_thread) {
      probe.in.regs_per_thread = *step->max_regs_per_thread;
      ASSERT_GE(oracle(d, probe).blockLimitRegs, target) << describe(d, probe);
      if (*step->max_regs_per_thread < d.regs_per_thread_max) {
        probe.in.regs_per_thread = *step->max_regs_per_thread + 1;
        ASSERT_LT(oracle(d, probe).blockLimitRegs, target) << describe(d, probe);
      }
    } else {
      probe.in.regs_per_thread = 1;
      ASSERT_LT(oracle(d, probe).blockLimitRegs, target) << describe(d, probe);
    }

    probe = c;
    probe.in.smem_static_bytes = 0;
    if (step->max_smem_bytes) {
      probe.in.smem_dynamic_bytes = *step->max_smem_bytes;
      ASSERT_GE(oracle(d, probe).blockLimitSharedMem, target) << describe(d, probe);
      for (int64_t more : {int64_t{1}, d.smem_alloc_unit_bytes, int64_t{4096}}) {
        if (*step->max_smem_bytes + more > d.smem_per_block_max_bytes) break;
        probe.in.smem_dynamic_bytes = *step->max_smem_bytes + more;
        ASSERT_LT(oracle(d, probe).blockLimitSharedMem, target) << describe(d, probe);
      }
    } else {
      probe.in.smem_dynamic_bytes = 0;
      ASSERT_LT(oracle(d, probe).blockLimitSharedMem, target) << describe(d, probe);
    }

    probe = c;
    if (step->max_threads_per_block) {
      probe.in.threads_per_block = *step->max_threads_per_block;
      ASSERT_GE(oracle(d, probe).blockLimitWarps, target) << describe(d, probe);
      if (*step->max_threads_per_block < d.max_threads_per_block) {
        probe.in.threads_per_block = *step->max_threads_per_block + 1;
        ASSERT_LT(oracle(d, probe).blockLimitWarps, target) << describe(d, probe);
      }
    } else {
      probe.in.threads_per_block = 1;
      ASSERT_LT(oracle(d, probe).blockLimitWarps, target) << describe(d, probe);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Presets, OccupancyOracle,
                         ::testing::Values("h200", "h100-sxm", "h100-pcie", "a100-sxm", "l40s", "rtx-4090"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& ch : name)
                             if (ch == '-') ch = '_';
                           return name;
                         });

// Why next_step does not use the header's own helper: cudaOccAvailableDynamicSMemPerBlock
// divides the SM's shared memory among the blocks without the 1 KB each block
// reserves, so the size it returns does not fit that many blocks.
TEST(OccupancyOracleHelper, AvailableDynamicSmem_IgnoresTheReserve) {
  const Device d = *find_device("h200");
  const cudaOccDeviceProp props = occ_props(d);
  cudaOccFuncAttributes attr;
  attr.maxThreadsPerBlock = 1024;
  attr.numRegs = 32;
  attr.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
  attr.maxDynamicSharedSizeBytes = props.sharedMemPerBlockOptin;
  attr.numBlockBarriers = 1;
  const cudaOccDeviceState state;
  size_t available = 0;
  ASSERT_EQ(cudaOccAvailableDynamicSMemPerBlock(&available, &props, &attr, &state, 2, 256), CUDA_OCC_SUCCESS);
  // 233472 B per SM / 2 blocks = 116736 B, reserve not taken off.
  EXPECT_EQ(available, 116736u);
  cudaOccResult r{};
  ASSERT_EQ(cudaOccMaxActiveBlocksPerMultiprocessor(&r, &props, &attr, &state, 256, available), CUDA_OCC_SUCCESS);
  EXPECT_EQ(r.activeBlocksPerMultiprocessor, 1);
  // tileplan: 2 blocks need (116736 - 1024) B at most, and that does give 2.
  const OccupancyInput in{256, 32, 0, 116736 - 1024, std::nullopt};
  EXPECT_EQ(next_step(d, OccupancyInput{256, 32, 0, 150'000, std::nullopt}).value()->max_smem_bytes, 116736 - 1024);
  ASSERT_EQ(cudaOccMaxActiveBlocksPerMultiprocessor(&r, &props, &attr, &state, 256, 116736 - 1024), CUDA_OCC_SUCCESS);
  EXPECT_EQ(r.activeBlocksPerMultiprocessor, 2);
  EXPECT_EQ(occupancy(d, in).value().blocks_per_sm, 2);
  // One byte more rounds to the next 128 B unit: 2 * (116736 + 128) > 233472.
  ASSERT_EQ(cudaOccMaxActiveBlocksPerMultiprocessor(&r, &props, &attr, &state, 256, 116736 - 1024 + 1),
            CUDA_OCC_SUCCESS);
  EXPECT_EQ(r.activeBlocksPerMultiprocessor, 1);
}

}  // namespace
}  // namespace tileplan
