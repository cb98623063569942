#include <gtest/gtest.h>

#include <functional>

#include "tileplan/occupancy.hpp"
#include "../../src/occupancy_internal.hpp"

namespace tileplan {
namespace {

Device dev(const char* name) { return *find_device(name); }

OccupancyInput input(int64_t threads, int64_t regs, int64_t dynamic_bytes, std::optional<int64_t> carveout = {}) {
  OccupancyInput in;
  in.threads_per_block = threads;
  in.regs_per_thread = regs;
  in.smem_dynamic_bytes = dynamic_bytes;
  in.carveout_percent = carveout;
  return in;
}

// The worked example of docs/occupancy.md.
TEST(Occupancy, H200_256Threads168Regs72K_OneBlockByRegisters) {
  const Occupancy o = occupancy(dev("h200"), input(256, 168, 72 * 1024)).value();
  // 256 threads = 8 warps; 64 warp slots / 8 = 8 blocks.
  EXPECT_EQ(o.warps_per_block, 8);
  EXPECT_EQ(o.blocks_by_warps, 8);
  // 168 * 32 = 5376 registers per warp, already a multiple of 256; each of the
  // 4 sub-partitions holds floor(16384 / 5376) = 3 warps: 12 warps / 8 = 1 block.
  EXPECT_EQ(o.regs_per_warp, 5376);
  EXPECT_EQ(o.regs_per_block, 43008);
  EXPECT_EQ(o.blocks_by_regs, 1);
  // 73728 + 1024 reserved = 74752 B (a multiple of 128); 233472 / 74752 = 3.12 -> 3.
  EXPECT_EQ(o.smem_per_block_bytes, 74752);
  EXPECT_EQ(o.smem_config_bytes, 233472);
  EXPECT_EQ(o.blocks_by_smem, 3);
  EXPECT_EQ(o.blocks_by_blocks, 32);
  EXPECT_EQ(o.blocks_per_sm, 1);
  EXPECT_EQ(o.limiter, Limiter::regs);
  // 8 of 64 warps.
  EXPECT_EQ(o.active_warps, 8);
  EXPECT_DOUBLE_EQ(o.occupancy_percent, 12.5);
}

TEST(Occupancy, NextStep_WorkedExample) {
  const std::optional<NextStep> s = next_step(dev("h200"), input(256, 168, 72 * 1024)).value();
  ASSERT_TRUE(s);
  EXPECT_EQ(s->blocks_per_sm, 2);
  // 2 blocks = 16 warps = 4 per sub-partition: 16384 / 4 = 4096 registers per warp = 128 per thread.
  EXPECT_EQ(s->max_regs_per_thread, 128);
  // 233472 / 2 = 116736 B per block, less the 1024 B reserve: 115712 B = 113 KB.
  EXPECT_EQ(s->max_smem_bytes, 115712);
  // 64 warp slots / 2 blocks = 32 warps = 1024 threads.
  EXPECT_EQ(s->max_threads_per_block, 1024);
}

// The register file is split in four: 200 registers = 6400 per warp; each
// sub-partition holds floor(16384 / 6400) = 2 warps, 8 per SM: 4 blocks of 2
// warps, where 65536 / (200 * 64) would promise 5.
TEST(Occupancy, Registers_SplitOverSubpartitions) {
  const Occupancy o = occupancy(dev("h200"), input(64, 200, 0)).value();
  EXPECT_EQ(o.blocks_by_regs, 4);
  EXPECT_EQ(o.blocks_per_sm, 4);
  EXPECT_EQ(o.limiter, Limiter::regs);
}

// 33 registers * 32 = 1056, allocated as 1280 (five units of 256): each
// sub-partition holds floor(16384 / 1280) = 12 warps, 48 per SM: 12 blocks of 4 warps.
TEST(Occupancy, Registers_AllocatedInUnits) {
  const Occupancy o = occupancy(dev("h200"), input(128, 33, 0)).value();
  EXPECT_EQ(o.regs_per_warp, 1280);
  EXPECT_EQ(o.blocks_by_regs, 12);
  // 32 registers: 1024 per warp, 16 warps per sub-partition, 64 per SM: 16 blocks, capped by the 64 warp slots.
  EXPECT_EQ(occupancy(dev("h200"), input(128, 32, 0)).value().blocks_by_regs, 16);
}

// A partial warp takes a whole warp slot: 33 threads are 2 warps, 64 / 2 = 32 blocks.
TEST(Occupancy, Warps_RoundedUp) {
  const Occupancy o = occupancy(dev("h200"), input(33, 16, 0)).value();
  EXPECT_EQ(o.warps_per_block, 2);
  EXPECT_EQ(o.blocks_by_warps, 32);
}

// One byte of dynamic shared memory still costs the reserve and a unit:
// 1 + 1024 rounds to 1152 B.
TEST(Occupancy, Smem_ReserveAndUnit) {
  const Occupancy o = occupancy(dev("h200"), input(32, 16, 1)).value();
  EXPECT_EQ(o.smem_per_block_bytes, 1152);
  // 233472 / 1152 = 202 blocks by shared memory; 32 by the block limit.
  EXPECT_EQ(o.blocks_by_smem, 202);
  EXPECT_EQ(o.blocks_per_sm, 32);
  EXPECT_EQ(o.limiter, Limiter::blocks);
}

// 256 threads, 32 registers, 16 KB: 17408 B per block.
TEST(Occupancy, Carveout_PreferenceAndTheDriversBump) {
  const Device h200 = dev("h200");
  // Default: the largest configuration, 233472 / 17408 = 13; the 64 warp slots give 8.
  const Occupancy def = occupancy(h200, input(256, 32, 16 * 1024)).value();
  EXPECT_EQ(def.blocks_by_smem, 13);
  EXPECT_EQ(def.blocks_per_sm, 8);
  EXPECT_EQ(def.limiter, Limiter::warps);
  // 50%: floor(0.5 * 233472) = 116736 B, rounded up to the 132 KB step: 135168 / 17408 = 7.
  const Occupancy half = occupancy(h200, input(256, 32, 16 * 1024, 50)).value();
  EXPECT_EQ(half.smem_config_bytes, 132 * 1024);
  EXPECT_EQ(half.blocks_per_sm, 7);
  EXPECT_EQ(half.limiter, Limiter::smem);
  // 0%: no block fits, so the driver takes the smallest step that holds one, 32 KB: 1 block.
  const Occupancy none = occupancy(h200, input(256, 32, 16 * 1024, 0)).value();
  EXPECT_EQ(none.smem_config_bytes, 32 * 1024);
  EXPECT_EQ(none.blocks_per_sm, 1);
}

// sm_89: 48 warp slots and 24 blocks per SM, shared memory up to 100 KB.
TEST(Occupancy, L40S_Ada_Limits) {
  const Device l40s = dev("l40s");
  // One warp of 16 registers: 48 warp slots, but 24 blocks at most.
  const Occupancy small = occupancy(l40s, input(32, 16, 0)).value();
  EXPECT_EQ(small.blocks_by_warps, 48);
  EXPECT_EQ(small.blocks_per_sm, 24);
  EXPECT_EQ(small.limiter, Limiter::blocks);
  // 24 warps of 48: 50%.
  EXPECT_DOUBLE_EQ(small.occupancy_percent, 50.0);
  // 512 threads: 48 / 16 = 3 blocks (on the H200, 64 / 16 = 4).
  EXPECT_EQ(occupancy(l40s, input(512, 32, 0)).value().blocks_per_sm, 3);
  EXPECT_EQ(occupancy(dev("h200"), input(512, 32, 0)).value().blocks_per_sm, 4);
  // 48 KB: 49152 + 1024 = 50176 B; 102400 / 50176 = 2.
  EXPECT_EQ(occupancy(l40s, input(128, 32, 48 * 1024)).value().blocks_by_smem, 2);
}

// sm_80: shared memory up to 164 KB; 100 KB + 1 KB = 103424 B: 1 block.
TEST(Occupancy, A100_Ampere_Smem) {
  const Occupancy o = occupancy(dev("a100-sxm"), input(128, 32, 100 * 1024)).value();
  EXPECT_EQ(o.smem_config_bytes, 164 * 1024);
  EXPECT_EQ(o.blocks_by_smem, 1);
  // 80 KB: 82944 B; 167936 / 82944 = 2.
  EXPECT_EQ(occupancy(dev("a100-sxm"), input(128, 32, 80 * 1024)).value().blocks_by_smem, 2);
}

// A block that cannot run gets 0 blocks and names the resource.
TEST(Occupancy, BlockThatCannotRun_ZeroBlocks) {
  const Device h200 = dev("h200");
  // 1024 threads * 255 registers: 255 * 32 = 8160 -> 8192 per warp, * 32 warps = 262144 > 65536.
  const Occupancy regs = occupancy(h200, input(1024, 255, 0)).value();
  EXPECT_EQ(regs.blocks_per_sm, 0);
  EXPECT_EQ(regs.limiter, Limiter::regs);
  // 1 block needs 65536 / 32 warps = 2048 per warp = 64 registers per thread.
  EXPECT_EQ(next_step(h200, input(1024, 255, 0)).value()->max_regs_per_thread, 64);
  // 256 registers are beyond the per-thread limit of 255.
  EXPECT_EQ(occupancy(h200, input(32, 256, 0)).value().blocks_by_regs, 0);
  // One byte over the opt-in maximum.
  const Occupancy smem = occupancy(h200, input(128, 32, h200.smem_per_block_max_bytes + 1)).value();
  EXPECT_EQ(smem.blocks_per_sm, 0);
  EXPECT_EQ(smem.limiter, Limiter::smem);
  EXPECT_EQ(occupancy(h200, input(128, 32, h200.smem_per_block_max_bytes)).value().blocks_per_sm, 1);
  // More threads than a block may have.
  EXPECT_EQ(occupancy(h200, input(1025, 32, 0)).value().limiter, Limiter::warps);
}

// Ties go to the first of warps, regs, smem, blocks; limits() reports them all.
TEST(Occupancy, Limiter_Ties) {
  // 1024 threads, 32 registers: 64 / 32 = 2 by warps; 16 warps per sub-partition * 4 / 32 = 2 by registers.
  const Occupancy o = occupancy(dev("h200"), input(1024, 32, 0)).value();
  EXPECT_EQ(o.blocks_per_sm, 2);
  EXPECT_EQ(o.limiter, Limiter::warps);
  EXPECT_TRUE(limits(o, Limiter::warps));
  EXPECT_TRUE(limits(o, Limiter::regs));
  EXPECT_FALSE(limits(o, Limiter::smem));
  EXPECT_FALSE(limits(o, Limiter::blocks));
}

TEST(Occupancy, Static_AndDynamic_Add) {
  OccupancyInput in = input(256, 168, 40 * 1024);
  in.smem_static_bytes = 32 * 1024;
  EXPECT_EQ(occupancy(dev("h200"), in).value().smem_per_block_bytes, 74752);
}

TEST(Occupancy, NextStep_AtTheBlockLimit_Nothing) {
  EXPECT_FALSE(next_step(dev("h200"), input(32, 16, 0)).value());
  EXPECT_FALSE(next_step(dev("l40s"), input(32, 16, 0)).value());
}

// When the warp slots stop the next block, only fewer threads help.
TEST(Occupancy, NextStep_WarpLimited) {
  const std::optional<NextStep> s = next_step(dev("h200"), input(1024, 32, 0)).value();
  ASSERT_TRUE(s);
  EXPECT_EQ(s->blocks_per_sm, 3);
  // 64 / 3 = 21 warps = 672 threads.
  EXPECT_EQ(s->max_threads_per_block, 672);
  // 3 blocks of 32 warps need 24 warps per sub-partition: 16384 / 24 = 682 -> 512 per warp = 16 per thread.
  EXPECT_EQ(s->max_regs_per_thread, 16);
}

// The shared-memory bound is the largest byte count with enough blocks,
// against a search over every allocation the bytes can produce.
TEST(Occupancy, NextStep_SmemBoundIsTheLargest) {
  int checked = 0;
  for (const char* name : {"h200", "a100-sxm", "l40s"}) {
    const Device d = dev(name);
    for (std::optional<int64_t> carveout : {std::optional<int64_t>{}, std::optional<int64_t>{0},
                                            std::optional<int64_t>{3}, std::optional<int64_t>{40}}) {
      for (int64_t smem : {int64_t{0}, int64_t{5000}, int64_t{30'000}, int64_t{70'000}}) {
        const OccupancyInput in = input(64, 24, smem, carveout);
        const std::optional<NextStep> s = next_step(d, in).value();
        if (!s) continue;
        int64_t best = -1;
        // Bytes change the allocation only at multiples of the 128 B unit: try each multiple and one past it.
        for (int64_t unit = 0; unit * 128 <= d.smem_per_block_max_bytes; ++unit) {
          for (int64_t bytes : {unit * 128, unit * 128 + 1}) {
            if (bytes > d.smem_per_block_max_bytes) continue;
            if (occupancy(d, input(64, 24, bytes, carveout)).value().blocks_by_smem >= s->blocks_per_sm) best = bytes;
          }
        }
        if (best < 0)
          EXPECT_FALSE(s->max_smem_bytes) << name << " " << smem;
        else
          EXPECT_EQ(s->max_smem_bytes, best) << name << " " << smem;
        ++checked;
      }
    }
  }
  // Most of the 3 devices x 4 preferences x 4 sizes are below the block limit.
  EXPECT_GT(checked, 24);
}

// ---- bounds_for in closed form against trying every value ------------------

// Devices small enough to try every register count, thread count and byte:
// the closed forms must give the largest value at which each limit allows the
// target, on every point of the domain (docs/occupancy.md, 'The next step').
Device small_device() {
  Device d = dev("h200");
  d.max_blocks_per_sm = 6;
  d.smem_per_sm_bytes = 3072;
  d.smem_per_block_max_bytes = 3072;
  d.smem_carveout_kb = {0, 1, 3};
  d.carveout_multi_block_min_kb = 0;  // the H200's 132 KB floor: more than this SM has
  return d;
}

std::optional<int64_t> largest(int64_t lo, int64_t hi, const std::function<bool(int64_t)>& allows) {
  std::optional<int64_t> best;
  for (int64_t v = lo; v <= hi; ++v)
    if (allows(v)) best = v;
  return best;
}

TEST(Occupancy, BoundsFor_RegistersMatchEveryCount) {
  int64_t cases = 0;
  for (int64_t warp_size : {1, 3, 32})
    for (int64_t sub : {1, 2, 4})
      for (int64_t unit : {1, 8, 256})
        for (int64_t regs_per_sm : {512, 4096, 65536})
          for (int64_t per_block : {300, 65536})
            for (int64_t per_thread : {7, 255}) {
              Device d = small_device();
              d.warp_size = warp_size;
              d.sm_subpartitions = sub;
              d.reg_alloc_unit = unit;
              d.regs_per_sm = regs_per_sm;
              d.regs_per_block_max = per_block;
              d.regs_per_thread_max = per_thread;
              ASSERT_TRUE(check_device(d).ok());
              for (int64_t threads : {1, 2, 5, 32, 33, 64, 100, 256, 1024}) {
                for (int64_t target = 1; target <= d.max_blocks_per_sm; ++target) {
                  const NextStep s = bounds_for(d, input(threads, 1, 0), target).value();
                  const auto want = largest(1, per_thread, [&](int64_t r) {
                    return occupancy_unchecked(d, input(threads, r, 0)).blocks_by_regs >= target;
                  });
                  ASSERT_EQ(s.max_regs_per_thread, want)
                      << "warp " << warp_size << " sub " << sub << " unit " << unit << " regs/SM " << regs_per_sm
                      << " regs/block " << per_block << " regs/thread " << per_thread << " threads " << threads
                      << " target " << target;
                  ++cases;
                }
              }
            }
  EXPECT_EQ(cases, 3 * 3 * 3 * 3 * 2 * 2 * 9 * 6);
}

TEST(Occupancy, BoundsFor_ThreadsMatchEveryCount) {
  int64_t cases = 0;
  for (int64_t warp_size : {1, 3, 32})
    for (int64_t max_warps : {1, 5, 64})
      for (int64_t max_threads : {1, 100, 1024}) {
        Device d = small_device();
        d.warp_size = warp_size;
        d.max_warps_per_sm = max_warps;
        d.max_threads_per_block = max_threads;
        ASSERT_TRUE(check_device(d).ok());
        for (int64_t target = 1; target <= d.max_blocks_per_sm; ++target) {
          const NextStep s = bounds_for(d, input(1, 1, 0), target).value();
          const auto want = largest(1, max_threads, [&](int64_t t) {
            return occupancy_unchecked(d, input(t, 1, 0)).blocks_by_warps >= target;
          });
          ASSERT_EQ(s.max_threads_per_block, want) << warp_size << " " << max_warps << " " << max_threads;
          ++cases;
        }
      }
  EXPECT_EQ(cases, 3 * 3 * 3 * 6);
}

// Carveout steps that are not all a doubling apart make blocks_by_smem not
// monotone in the bytes ({0, 1, 3} KB, no preference below: 600 B get 1 block
// of the 1 KB step, 1100 B get 2 of the 3 KB step): the bound is still the largest.
TEST(Occupancy, BoundsFor_SharedMemoryMatchesEveryByte) {
  int64_t cases = 0;
  const std::vector<std::vector<int64_t>> step_sets = {{3}, {0, 1, 3}, {1, 2, 3}, {0, 0, 2, 3}, {2, 3}};
  for (const std::vector<int64_t>& steps : step_sets)
    for (int64_t unit : {1, 96, 128})
      for (int64_t reserve : {0, 100})
        for (int64_t block_max : {3072, 2000, 0})
          for (std::optional<int64_t> carveout : {std::optional<int64_t>{}, std::optional<int64_t>{0},
                                                  std::optional<int64_t>{33}, std::optional<int64_t>{67},
                                                  std::optional<int64_t>{100}}) {
            Device d = small_device();
            d.smem_carveout_kb = steps;
            d.smem_alloc_unit_bytes = unit;
            d.smem_reserved_per_block_bytes = reserve;
            d.smem_per_block_max_bytes = block_max;
            ASSERT_TRUE(check_device(d).ok());
            for (int64_t target = 1; target <= d.max_blocks_per_sm; ++target) {
              const NextStep s = bounds_for(d, input(32, 16, 0, carveout), target).value();
              const auto want = largest(0, block_max, [&](int64_t bytes) {
                return occupancy_unchecked(d, input(32, 16, bytes, carveout)).blocks_by_smem >= target;
              });
              ASSERT_EQ(s.max_smem_bytes, want)
                  << "steps " << steps.size() << " unit " << unit << " reserve " << reserve << " max " << block_max
                  << " carveout " << carveout.value_or(-1) << " target " << target;
              ++cases;
            }
          }
  EXPECT_EQ(cases, 5 * 3 * 2 * 3 * 5 * 6);
}

TEST(Occupancy, BoundsFor_Refusals) {
  const Device h200 = dev("h200");
  EXPECT_EQ(bounds_for(h200, input(128, 32, 0), 0).error().param, "blocks_per_sm");
  EXPECT_EQ(bounds_for(h200, input(128, 32, 0), 33).error().param, "blocks_per_sm");
  EXPECT_EQ(bounds_for(h200, input(128, 32, 0), INT64_MIN).error().param, "blocks_per_sm");
  EXPECT_EQ(bounds_for(h200, input(0, 32, 0), 1).error().param, "threads_per_block");
  EXPECT_TRUE(bounds_for(h200, input(128, 32, 0), 32).ok());
}

// occupancy() computes with any input inside its domain, launchable or not,
// and refuses what lies outside.
TEST(Occupancy, Domain_CheckedInEveryBuild) {
  const Device h200 = dev("h200");
  const auto param_of = [&h200](const OccupancyInput& in) {
    const Result<Occupancy> o = occupancy(h200, in);
    EXPECT_FALSE(o.ok());
    return o.ok() ? std::string() : o.error().param;
  };
  EXPECT_EQ(param_of(input(0, 32, 0)), "threads_per_block");
  EXPECT_EQ(param_of(input(kMaxOccupancyCount + 1, 32, 0)), "threads_per_block");
  EXPECT_EQ(param_of(input(128, INT64_MIN, 0)), "regs_per_thread");
  EXPECT_EQ(param_of(input(128, 32, -1)), "smem_dynamic_bytes");
  EXPECT_EQ(param_of(input(128, 32, kMaxOccupancyBytes + 1)), "smem_dynamic_bytes");
  EXPECT_EQ(param_of(input(128, 32, 0, 101)), "carveout_percent");
  OccupancyInput in = input(128, 32, 0);
  in.smem_static_bytes = INT64_MAX;
  EXPECT_EQ(param_of(in), "smem_static_bytes");
  EXPECT_EQ(next_step(h200, in).error().param, "smem_static_bytes");
  EXPECT_EQ(min_carveout(h200, in).error().param, "smem_static_bytes");
  // The corners of the domain compute: 2^31 threads of 2^31 registers and 2^40 + 2^40 bytes.
  in = input(kMaxOccupancyCount, kMaxOccupancyCount, kMaxOccupancyBytes);
  in.smem_static_bytes = kMaxOccupancyBytes;
  const Occupancy o = occupancy(h200, in).value();
  EXPECT_EQ(o.blocks_per_sm, 0);
  EXPECT_EQ(o.warps_per_block, int64_t{1} << 26);
  EXPECT_TRUE(next_step(h200, in).ok());
  EXPECT_TRUE(min_carveout(h200, in).ok());
  // A broken device is named by its field.
  Device broken = h200;
  broken.smem_alloc_unit_bytes = 0;
  EXPECT_EQ(occupancy(broken, input(128, 32, 0)).error().param, "smem_alloc_unit_bytes");
}

TEST(Occupancy, MinCarveout_KeepsTheBlocks) {
  const Device h200 = dev("h200");
  // One block of 74752 B: any preference works (the driver bumps to the 100 KB step).
  const CarveoutChoice one = min_carveout(h200, input(256, 168, 72 * 1024)).value();
  EXPECT_EQ(one.percent, 0);
  EXPECT_EQ(one.smem_config_bytes, 100 * 1024);
  // 8 blocks of 17408 B = 139264 B: the 164 KB step, first reached at
  // floor(p * 233472 / 100) > 135168, p = 58.
  const CarveoutChoice eight = min_carveout(h200, input(256, 32, 16 * 1024)).value();
  EXPECT_EQ(eight.smem_config_bytes, 164 * 1024);
  EXPECT_EQ(eight.percent, 58);
  EXPECT_EQ(occupancy(h200, input(256, 32, 16 * 1024, 57)).value().blocks_per_sm, 7);
}

TEST(Occupancy, Check_RejectsNamingTheParameter) {
  const Device h200 = dev("h200");
  EXPECT_TRUE(check_occupancy_input(h200, input(256, 168, 72 * 1024)).ok());
  EXPECT_TRUE(check_occupancy_input(h200, input(1024, 255, h200.smem_per_block_max_bytes, 100)).ok());
  const auto rejects = [&](const OccupancyInput& in, const char* param, const char* what) {
    const Status s = check_occupancy_input(h200, in);
    ASSERT_FALSE(s.ok()) << what;
    EXPECT_EQ(s.error().param, param) << s.error().message;
    // The sentence starts with the parameter, so a front end can name its own flag.
    EXPECT_EQ(s.error().message.rfind(param, 0), 0u) << s.error().message;
    EXPECT_NE(s.error().message.find(what), std::string::npos) << s.error().message;
  };
  rejects(input(0, 32, 0), "threads_per_block", "between 1 and 1024");
  rejects(input(1025, 32, 0), "threads_per_block", "1024");
  rejects(input(128, 0, 0), "regs_per_thread", "between 1 and 255");
  rejects(input(128, 256, 0), "regs_per_thread", "255");
  rejects(input(128, 32, -1), "smem_dynamic_bytes", "negative");
  rejects(input(128, 32, h200.smem_per_block_max_bytes + 1), "smem_dynamic_bytes", "232448");
  rejects(input(128, 32, INT64_MAX), "smem_dynamic_bytes", "opt-in maximum");
  rejects(input(128, 32, 0, -1), "carveout_percent", "between 0 and 100");
  rejects(input(128, 32, 0, 101), "carveout_percent", "between 0 and 100");
  OccupancyInput big_static = input(128, 32, 0);
  big_static.smem_static_bytes = 48 * 1024 + 1;
  rejects(big_static, "smem_static_bytes", "48 KB");
  // Static near its limit and dynamic at INT64_MAX: the sum is never formed.
  big_static.smem_static_bytes = 48 * 1024;
  big_static.smem_dynamic_bytes = INT64_MAX;
  rejects(big_static, "smem_dynamic_bytes", "over 9223372036854775807 B");
  // A broken device is named by its field.
  Device broken = h200;
  broken.warp_size = 0;
  const Status s = check_occupancy_input(broken, input(128, 32, 0));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().param, "warp_size");
}

TEST(Occupancy, SmemKbOverride_KeepsCarveoutConsistent) {
  Device d = dev("h200");
  ASSERT_TRUE(override_smem_kb(d, 100).ok());
  EXPECT_EQ(d.smem_carveout_kb, (std::vector<int64_t>{0, 8, 16, 32, 64, 100}));
  EXPECT_TRUE(check_occupancy_input(d, input(128, 32, 99 * 1024)).ok());
  // 99 KB + 1 KB = the whole 100 KB: 1 block.
  EXPECT_EQ(occupancy(d, input(128, 32, 99 * 1024)).value().blocks_per_sm, 1);
  ASSERT_TRUE(override_smem_kb(d, 50).ok());
  EXPECT_EQ(d.smem_carveout_kb, (std::vector<int64_t>{0, 8, 16, 32, 50}));
  // 20 KB + 1 KB = 21504 B; 51200 / 21504 = 2.
  EXPECT_EQ(occupancy(d, input(128, 32, 20 * 1024)).value().blocks_by_smem, 2);
}

TEST(Occupancy, LimiterNames) {
  EXPECT_EQ(to_string(Limiter::warps), "warps");
  EXPECT_EQ(to_string(Limiter::regs), "regs");
  EXPECT_EQ(to_string(Limiter::smem), "smem");
  EXPECT_EQ(to_string(Limiter::blocks), "blocks");
  EXPECT_EQ(to_string(Limiter::none), "none");
}

}  // namespace
}  // namespace tileplan
