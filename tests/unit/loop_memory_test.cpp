// The memory analysis of a partitioned nest: the worked examples of
// docs/loop.md, bank conflicts, and the exact shortcuts against brute force.
#include <gtest/gtest.h>

#include "tileplan/loop.hpp"

namespace tileplan {
namespace {

const Device& h200() {
  static const Device d = *find_device("h200");
  return d;
}

LoopPlan nest(std::vector<int64_t> extents, int64_t threads, int64_t vector, bool replicate = false) {
  LoopNest n;
  n.extents = std::move(extents);
  n.threads = threads;
  n.vector = vector;
  n.replicate = replicate;
  return make_plan(n).value();
}

Access matrix(const LoopPlan& n, std::vector<int64_t> shape, std::vector<int64_t> perm, int64_t elem_bytes,
              MemoryScope scope = MemoryScope::global) {
  Access a = tile_access(n, elem_bytes, scope);
  a.buffer_shape = std::move(shape);
  a.perm = std::move(perm);
  return a;
}

MemoryReport analyze(const LoopPlan& n, const Access& a, MemoryAnalysis mode = MemoryAnalysis::fastest) {
  const Status access = check_access(n, a);
  EXPECT_TRUE(access.ok()) << (access.ok() ? "" : access.error().message);
  return analyze_memory(n, a, h200(), mode).value();
}

// Every instruction, in issue order.
std::vector<WarpAccess> listing(const LoopPlan& n, const Access& a) {
  std::vector<WarpAccess> out;
  EXPECT_TRUE(for_each_instruction(n, a, h200(), [&out](const WarpAccess& w) { out.push_back(w); }).ok());
  return out;
}

// Worked example 1 (docs/loop.md): T.Parallel(128, 32), fp16, 128 threads,
// vector 8, reading a tile of a 4096x4096 row-major global matrix.
TEST(LoopMemory, WorkedExample_Vector8) {
  const LoopPlan n = nest({128, 32}, 128, 8);
  const MemoryReport m = analyze(n, matrix(n, {4096, 4096}, {0, 1}, 2));
  // 8 fp16 = 16 B per thread, one instruction per group.
  EXPECT_EQ(m.access_bytes, 16);
  EXPECT_EQ(m.parts, 1);
  // 512 groups / 32 threads per warp = 16 warp instructions (4 rounds x 4 warps).
  EXPECT_EQ(m.instructions, 16);
  EXPECT_EQ(m.bytes_requested, 8192);
  // Each warp covers 32 groups = 8 rows (4 groups a row) x 64 B: 8 rows x 2
  // sectors = 16 sectors, 8 lines (rows are 8192 B apart), 512 B / 512 B.
  EXPECT_EQ(m.worst.threads, 32);
  EXPECT_EQ(m.worst.bytes, 512);
  EXPECT_EQ(m.worst.sectors, 16);
  EXPECT_EQ(m.worst.lines, 8);
  EXPECT_EQ(m.sectors, 16 * 16);
  EXPECT_EQ(m.lines, 16 * 8);
  EXPECT_DOUBLE_EQ(m.efficiency, 1.0);
  ASSERT_EQ(m.sectors_histogram.size(), 1u);
  EXPECT_EQ(m.sectors_histogram[0], (std::pair<int64_t, int64_t>{16, 16}));
}

// Worked example 2: the same with vector 1.
TEST(LoopMemory, WorkedExample_Vector1) {
  const LoopPlan n = nest({128, 32}, 128, 1);
  const MemoryReport m = analyze(n, matrix(n, {4096, 4096}, {0, 1}, 2));
  // 4096 groups / 32 = 128 instructions, each one row of 32 x 2 B = 64 B:
  // 2 sectors, 1 line, still 100% used.
  EXPECT_EQ(m.access_bytes, 2);
  EXPECT_EQ(m.instructions, 128);
  EXPECT_EQ(m.worst.bytes, 64);
  EXPECT_EQ(m.worst.sectors, 2);
  EXPECT_EQ(m.worst.lines, 1);
  EXPECT_EQ(m.sectors, 256);
  EXPECT_DOUBLE_EQ(m.efficiency, 1.0);
}

// Worked example 3: --access 1,0 (buf[i1, i0]) with vector 8.
TEST(LoopMemory, WorkedExample_TransposedVector8) {
  const LoopPlan n = nest({128, 32}, 128, 8);
  const MemoryReport m = analyze(n, matrix(n, {4096, 4096}, {1, 0}, 2));
  // The 8 lanes run down a column (stride 4096): 8 scalar instructions per group.
  EXPECT_FALSE(m.contiguous);
  EXPECT_EQ(m.access_bytes, 2);
  EXPECT_EQ(m.parts, 8);
  // 16 warp-groups x 8 parts = 128 instructions. In part j a warp's 32 groups
  // (i0 = g/4, i1 = 8*(g%4) + j) read buffer rows i1 in {j, 8+j, 16+j, 24+j},
  // columns i0 = 0..7: 4 rows x 16 B, 4 sectors, 64 B of 128 B moved.
  EXPECT_EQ(m.instructions, 128);
  EXPECT_EQ(m.worst.sectors, 4);
  EXPECT_EQ(m.worst.lines, 4);
  EXPECT_EQ(m.sectors, 512);
  EXPECT_DOUBLE_EQ(m.efficiency, 0.5);
}

TEST(LoopMemory, WorkedExample_TransposedVector1) {
  const LoopPlan n = nest({128, 32}, 128, 1);
  const MemoryReport m = analyze(n, matrix(n, {4096, 4096}, {1, 0}, 2));
  // A warp reads i1 = 0..31 at one i0: 32 rows, 32 sectors for 64 B: 64/1024.
  EXPECT_EQ(m.instructions, 128);
  EXPECT_EQ(m.worst.sectors, 32);
  EXPECT_EQ(m.sectors, 128 * 32);
  EXPECT_DOUBLE_EQ(m.efficiency, 0.0625);
}

TEST(LoopMemory, Shared_TransposeConflictsAndPadding) {
  // 32x32 fp32 in shared, read as buf[i1, i0] with vector 1: a warp reads a
  // column, 32 words 32 words apart, all in one bank: 32-way.
  const LoopPlan n = nest({32, 32}, 128, 1);
  MemoryReport m = analyze(n, matrix(n, {32, 32}, {1, 0}, 4, MemoryScope::shared));
  EXPECT_EQ(m.phase_threads, 32);
  EXPECT_EQ(m.conflict_ways, 32);
  EXPECT_EQ(m.wavefronts, 32 * 32);
  EXPECT_EQ(m.ideal_wavefronts, 32);
  // One padding column (row pitch 33 words) puts the 32 words in 32 banks.
  m = analyze(n, matrix(n, {32, 33}, {1, 0}, 4, MemoryScope::shared));
  EXPECT_EQ(m.conflict_ways, 1);
  EXPECT_EQ(m.wavefronts, 32);
  EXPECT_DOUBLE_EQ(m.efficiency, 1.0);
}

TEST(LoopMemory, Shared_WideAccessesRunInPhases) {
  // 8 B per thread (4 fp16): 128 B / 8 B = 16 threads a phase, 2 phases. A warp
  // covers 2 rows of 64 fp16 = 2 x 128 B; each phase one row, all 32 banks once.
  LoopPlan n = nest({32, 64}, 128, 4);
  MemoryReport m = analyze(n, matrix(n, {32, 64}, {0, 1}, 2, MemoryScope::shared));
  EXPECT_EQ(m.phase_threads, 16);
  EXPECT_EQ(m.worst.wavefronts, 2);
  EXPECT_EQ(m.conflict_ways, 1);
  // 16 B per thread (4 fp32) in a 64x8 box of a 64x32 fp32 buffer (rows of
  // 128 B): 8 threads a phase cover 4 rows x 2 chunks; each row's chunks sit
  // in banks 0-7, so the 4 rows collide: 4-way, 4 phases x 4 = 16 wavefronts.
  n = nest({64, 8}, 128, 4);
  m = analyze(n, matrix(n, {64, 32}, {0, 1}, 4, MemoryScope::shared));
  EXPECT_EQ(m.phase_threads, 8);
  EXPECT_EQ(m.worst.conflict_ways, 4);
  EXPECT_EQ(m.worst.wavefronts, 16);
  EXPECT_EQ(m.worst.ideal_wavefronts, 4);
}

TEST(LoopMemory, PartialWarpsAndIdleThreads) {
  // T.Parallel(64) on 128 threads, vector 2, fp16: 32 groups, one warp, one
  // instruction of 32 x 4 B = 128 B = 4 sectors, 1 line.
  LoopPlan n = nest({64}, 128, 2);
  MemoryReport m = analyze(n, tile_access(n, 2, MemoryScope::global));
  EXPECT_EQ(m.instructions, 1);
  EXPECT_EQ(m.worst.threads, 32);
  EXPECT_EQ(m.sectors, 4);
  // Replicated 4x: every warp issues the same 128 B.
  n = nest({64}, 128, 2, true);
  m = analyze(n, tile_access(n, 2, MemoryScope::global));
  EXPECT_EQ(m.instructions, 4);
  EXPECT_EQ(m.bytes_requested, 4 * 128);
  EXPECT_EQ(m.sectors, 16);
  // 100 x 40 on 128 threads, vector 4: 1000 groups, the last round holds 104
  // threads = 3 full warps and one of 8: 7 x 4 + 4 = 32 instructions.
  n = nest({100, 40}, 128, 4);
  m = analyze(n, tile_access(n, 4, MemoryScope::global), MemoryAnalysis::every_round);
  EXPECT_EQ(m.instructions, 32);
  const std::vector<WarpAccess> all = listing(n, tile_access(n, 4, MemoryScope::global));
  ASSERT_EQ(static_cast<int64_t>(all.size()), m.instructions);
  EXPECT_EQ(all.back().threads, 8);
  EXPECT_EQ(m.bytes_requested, 4000 * 4);
}

TEST(LoopMemory, Listing_InIssueOrder) {
  const LoopPlan n = nest({16, 16}, 64, 2);
  const MemoryReport m = analyze(n, tile_access(n, 4, MemoryScope::global), MemoryAnalysis::every_round);
  const std::vector<WarpAccess> all = listing(n, tile_access(n, 4, MemoryScope::global));
  // 256 points / 2 = 128 groups on 64 threads: 2 rounds of 2 warps.
  ASSERT_EQ(all.size(), 4u);
  ASSERT_EQ(static_cast<int64_t>(all.size()), m.instructions);
  for (std::size_t i = 1; i < all.size(); ++i) {
    const WarpAccess& a = all[i - 1];
    const WarpAccess& b = all[i];
    EXPECT_LT(std::tie(a.round, a.warp, a.part), std::tie(b.round, b.warp, b.part));
  }
  // The listing sums to the totals.
  int64_t sectors = 0, bytes = 0;
  for (const WarpAccess& a : all) sectors += a.sectors, bytes += a.bytes;
  EXPECT_EQ(sectors, m.sectors);
  EXPECT_EQ(bytes, m.bytes_requested);
}

// The periodic shortcut (distinct round patterns x their counts) must give what
// visiting every round gives (listing forces the latter).
TEST(LoopMemory, Periodic_AgreesWithEveryRound) {
  struct Case {
    std::vector<int64_t> extents;
    int64_t threads, vector;
    std::vector<int64_t> shape, perm, origin;
    int64_t elem_bytes;
    MemoryScope scope;
  };
  // Each has more rounds than distinct (position, outer residue) patterns.
  const std::vector<Case> cases = {
      {{64, 256}, 128, 2, {64, 256}, {0, 1}, {0, 0}, 2, MemoryScope::global},
      {{64, 256}, 128, 2, {100, 300}, {0, 1}, {3, 5}, 2, MemoryScope::global},
      {{512, 256}, 128, 2, {300, 600}, {1, 0}, {7, 3}, 2, MemoryScope::shared},
      {{64, 16, 64}, 64, 4, {70, 17, 70}, {0, 1, 2}, {1, 1, 2}, 4, MemoryScope::shared},
      {{256, 16, 64}, 32, 8, {70, 260, 17}, {2, 0, 1}, {3, 0, 1}, 1, MemoryScope::global},
      {{1024, 256}, 64, 4, {1024, 257}, {0, 1}, {0, 1}, 4, MemoryScope::shared},
      {{256, 32}, 32, 1, {256, 33}, {0, 1}, {0, 0}, 8, MemoryScope::global},
  };
  ASSERT_FALSE(cases.empty());
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << "extents " << c.extents[0] << "x" << c.extents[1] << " shape " << c.shape[0]
                                      << "x" << c.shape[1]);
    const LoopPlan n = nest(c.extents, c.threads, c.vector);
    Access a = tile_access(n, c.elem_bytes, c.scope);
    a.buffer_shape = c.shape;
    a.perm = c.perm;
    a.origin = c.origin;
    const MemoryReport fast = analyze(n, a);
    const MemoryReport slow = analyze(n, a, MemoryAnalysis::every_round);
    ASSERT_TRUE(fast.exact);
    EXPECT_LT(fast.rounds_analyzed, slow.rounds_analyzed) << "the shortcut was not taken";
    EXPECT_EQ(fast.instructions, slow.instructions);
    EXPECT_EQ(fast.bytes_requested, slow.bytes_requested);
    EXPECT_EQ(fast.sectors, slow.sectors);
    EXPECT_EQ(fast.lines, slow.lines);
    EXPECT_EQ(fast.wavefronts, slow.wavefronts);
    EXPECT_EQ(fast.conflict_ways, slow.conflict_ways);
    EXPECT_EQ(fast.sectors_histogram, slow.sectors_histogram);
    EXPECT_EQ(fast.wavefronts_histogram, slow.wavefronts_histogram);
    EXPECT_EQ(std::tie(fast.worst.round, fast.worst.warp, fast.worst.part, fast.worst.sectors),
              std::tie(slow.worst.round, slow.worst.warp, slow.worst.part, slow.worst.sectors));
  }
}

TEST(LoopMemory, HugeNest_PeriodicIsExact) {
  // 2^40 points, rounds of 256 x 8 = 2048 points divide a row of 2^20: 512
  // patterns repeat; every instruction is 16 B x 32 = 512 B in 16 sectors.
  const LoopPlan n = nest({1 << 20, 1 << 20}, 256, 8);
  const MemoryReport m = analyze(n, tile_access(n, 2, MemoryScope::global));
  EXPECT_TRUE(m.exact);
  EXPECT_EQ(m.instructions, int64_t{1} << 32);  // 2^40 / 8 / 32
  EXPECT_EQ(m.sectors, int64_t{1} << 36);       // 16 per instruction
  EXPECT_DOUBLE_EQ(m.efficiency, 1.0);
}

TEST(LoopMemory, HugeOddNest_SampledAndLabelled) {
  // Rows of 1000003 points never hold a whole number of 128-thread rounds:
  // the analysis samples rounds and says so; counts of instructions and bytes
  // stay exact. A warp reads 32 x 2 B = 64 B: 2 sectors unless it straddles
  // a sector edge or a row, so the estimate lies between 2 and 3 a warp.
  const LoopPlan n = nest({1000003, 1000003}, 128, 1);
  const MemoryReport m = analyze(n, tile_access(n, 2, MemoryScope::global));
  EXPECT_FALSE(m.exact);
  EXPECT_GT(m.rounds_analyzed, 1000);
  // ceil(1000003^2 / 32) warp instructions; 2 B per point.
  const int64_t points = int64_t{1000003} * 1000003;
  EXPECT_EQ(m.instructions, (points + 31) / 32);
  EXPECT_EQ(m.bytes_requested, 2 * points);
  EXPECT_GE(m.sectors, 2 * (m.instructions - 1));
  EXPECT_LE(m.sectors, 3 * m.instructions);
}

TEST(LoopAccess, CheckRejectsBadAccesses) {
  const LoopPlan n = nest({128, 32}, 128, 8);
  Access a = tile_access(n, 2, MemoryScope::global);
  EXPECT_TRUE(check_access(n, a).ok());
  const auto param_of = [&n](const Access& bad) {
    const Status s = check_access(n, bad);
    EXPECT_FALSE(s.ok());
    return s.ok() ? std::string() : s.error().param;
  };
  a.perm = {1, 1};
  EXPECT_EQ(param_of(a), "perm");
  a.perm = {1, 0};  // the default box (128, 32) cannot hold buf[i1, i0]
  EXPECT_EQ(param_of(a), "buffer_shape");
  a.buffer_shape = {32, 128};
  EXPECT_TRUE(check_access(n, a).ok());
  a.origin = {1, 0};
  EXPECT_EQ(param_of(a), "buffer_shape");
  a.origin = {0, -1};
  EXPECT_EQ(param_of(a), "origin");
  a.origin = {0};
  EXPECT_EQ(param_of(a), "origin");
  a.origin = {0, 0};
  a.buffer_shape = {int64_t{1} << 32, int64_t{1} << 31};  // 2^63 elements
  EXPECT_EQ(param_of(a), "buffer_shape");
  a.buffer_shape = {INT64_MAX, INT64_MAX};
  EXPECT_EQ(param_of(a), "buffer_shape");
  a.buffer_shape = {32, 128};
  a.elem_bytes = 0;
  EXPECT_EQ(param_of(a), "elem_bytes");
  a.elem_bytes = INT64_MAX;  // 4096 elements of 2^63-1 bytes
  EXPECT_EQ(param_of(a), "buffer_shape");
}

TEST(LoopAccess, BoxAccess_EndsWhereTheBoxDoes) {
  const LoopPlan n = nest({128, 32}, 128, 8);
  // buf[i1, i0] from (3, 5): 32 + 3 rows of 128 + 5.
  const Access a = box_access(n, {1, 0}, {3, 5}, 2, MemoryScope::global).value();
  EXPECT_EQ(a.buffer_shape, (std::vector<int64_t>{35, 133}));
  EXPECT_EQ(box_access(n, {1, 1}, {0, 0}, 2, MemoryScope::global).error().param, "perm");
  EXPECT_EQ(box_access(n, {0, 1}, {-1, 0}, 2, MemoryScope::global).error().param, "origin");
  EXPECT_EQ(box_access(n, {0, 1}, {0, 0, 0}, 2, MemoryScope::global).error().param, "origin");
  // The box past INT64_MAX does not fit: an error, not an overflow.
  const Result<Access> far = box_access(n, {0, 1}, {INT64_MAX, 0}, 2, MemoryScope::global);
  ASSERT_FALSE(far.ok());
  EXPECT_EQ(far.error().param, "origin");
  EXPECT_EQ(far.error().kind, ErrorKind::out_of_range);
  // Within 63 bits as elements but not as bytes.
  EXPECT_EQ(box_access(n, {0, 1}, {INT64_MAX - 200, 0}, 2, MemoryScope::global).error().param, "buffer_shape");
}

// What the analysis refuses, each naming the parameter.
TEST(LoopMemory, Refusals_NameTheParameter) {
  const LoopPlan n = nest({128, 32}, 128, 8);
  Access a = tile_access(n, 2, MemoryScope::global);
  // An element wider than the widest access.
  a.elem_bytes = 32;
  EXPECT_EQ(analyze_memory(n, a, h200()).error().param, "elem_bytes");
  a.elem_bytes = 2;
  // A device whose 16 B access spans 16 one-byte sectors.
  Device d = h200();
  d.mem_sector_bytes = 1;
  EXPECT_EQ(analyze_memory(n, a, d).error().param, "max_vector_access_bytes");
  // A broken device.
  d = h200();
  d.smem_banks = 0;
  EXPECT_EQ(analyze_memory(n, a, d).error().param, "smem_banks");
  EXPECT_EQ(access_elems(n, a, d).error().param, "smem_banks");
  EXPECT_EQ(choose_vector(n, a, d).error().param, "smem_banks");
  // Every round of 2^40 points is far over the limit; the fastest analysis is not.
  const LoopPlan huge = nest({1 << 20, 1 << 20}, 256, 8);
  const Access ha = tile_access(huge, 2, MemoryScope::global);
  EXPECT_EQ(analyze_memory(huge, ha, h200(), MemoryAnalysis::every_round).error().param, "extents");
  bool visited = false;
  const Status listed = for_each_instruction(huge, ha, h200(), [&visited](const WarpAccess&) { visited = true; });
  ASSERT_FALSE(listed.ok());
  EXPECT_EQ(listed.error().param, "extents");
  EXPECT_FALSE(visited);
  EXPECT_TRUE(analyze_memory(huge, ha, h200()).ok());
  // One group replicated on 2^20 threads: 2^42 points x 2^20 replicas x 8 B requested is 2^65.
  const LoopPlan replicated = nest({int64_t{1} << 42}, kMaxLoopThreads, int64_t{1} << 42, true);
  const Result<MemoryReport> over = analyze_memory(replicated, tile_access(replicated, 8, MemoryScope::global), h200());
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.error().param, "extents");
  EXPECT_EQ(over.error().kind, ErrorKind::out_of_range);
}

// A vector of 1317624576693539401 odd elements on 7 threads: one instruction
// per element, 2^63-1 in all; sampled, in bounded time, with exact counts.
TEST(LoopMemory, ExtremeVector_SampledAndBounded) {
  const LoopPlan n = nest({INT64_MAX}, 7, INT64_MAX / 7);
  const MemoryReport m = analyze(n, tile_access(n, 1, MemoryScope::global));
  EXPECT_FALSE(m.exact);
  EXPECT_EQ(m.access_elems, 1);
  EXPECT_EQ(m.parts, INT64_MAX / 7);
  // 7 threads are one warp: one instruction per part.
  EXPECT_EQ(m.instructions, INT64_MAX / 7);
  EXPECT_EQ(m.bytes_requested, INT64_MAX);
  EXPECT_GE(m.sectors, m.instructions);
}

// Devices at check_device's bounds: wide warps, many banks, one-byte banks.
TEST(LoopMemory, WideDevices_Bounded) {
  Device d = h200();
  d.warp_size = 1024;
  d.smem_banks = 1024;
  d.smem_bank_bytes = 2;
  d.max_vector_access_bytes = 16;
  const LoopPlan n = nest({64, 64}, 2048, 2);
  const Access a = tile_access(n, 2, MemoryScope::shared);
  const MemoryReport m = analyze_memory(n, a, d).value();
  // 4096 points / 2 = 2048 groups: one round of 2048 threads = 2 warps of 1024.
  EXPECT_EQ(m.instructions, 2);
  EXPECT_EQ(m.bytes_requested, 4096 * 2);
  // 1024 threads x 4 B = 4096 B a warp; a wavefront moves 1024 x 2 B = 2048 B: 2 phases.
  EXPECT_EQ(m.phase_threads, 512);
  EXPECT_EQ(m.worst.ideal_wavefronts, 2);
  EXPECT_EQ(m.conflict_ways, 1);
}

}  // namespace
}  // namespace tileplan
