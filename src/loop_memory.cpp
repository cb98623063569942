#include "tileplan/loop_memory.hpp"

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

#include <fmt/format.h>

#include "loop_internal.hpp"

namespace tileplan {
namespace {

// Thread accesses the memory analysis may evaluate before it switches from an
// exact count to sampling (docs/loop.md, 'Cost of the analysis').
constexpr int64_t kAnalysisBudget = int64_t{1} << 22;
// The periodic shortcut keeps two counts per residue of the memory system's
// period and visits residue x axis offset pairs: only for periods up to this
// (128 B on every preset).
constexpr int64_t kMaxPeriodicModulus = 1024;
// An access may span at most this many of the device's smallest units
// (sector, line, bank word): it bounds the work per thread access.
constexpr int64_t kMaxUnitsPerAccess = 8;

int64_t largest_pow2_divisor(int64_t x) { return x & -x; }

}  // namespace

// ---- types and accesses -----------------------------------------------------

std::string_view to_string(MemoryScope s) { return s == MemoryScope::global ? "global" : "shared"; }

std::optional<MemoryScope> parse_scope(std::string_view s) {
  if (s == "global") return MemoryScope::global;
  if (s == "shared") return MemoryScope::shared;
  return std::nullopt;
}

namespace {
struct DTypeName {
  std::string_view alias;
  ElementType type;
};
constexpr DTypeName kDTypes[] = {
    {"float16", {"float16", 2}},         {"fp16", {"float16", 2}},          {"half", {"float16", 2}},
    {"bfloat16", {"bfloat16", 2}},       {"bf16", {"bfloat16", 2}},         {"float32", {"float32", 4}},
    {"fp32", {"float32", 4}},            {"float", {"float32", 4}},         {"float64", {"float64", 8}},
    {"fp64", {"float64", 8}},            {"double", {"float64", 8}},        {"float8_e4m3", {"float8_e4m3", 1}}, {"fp8", {"float8_e4m3", 1}},
    {"fp8_e4m3", {"float8_e4m3", 1}},    {"e4m3", {"float8_e4m3", 1}},      {"float8_e5m2", {"float8_e5m2", 1}},
    {"fp8_e5m2", {"float8_e5m2", 1}},    {"e5m2", {"float8_e5m2", 1}},      {"int8", {"int8", 1}},
    {"uint8", {"uint8", 1}},             {"int16", {"int16", 2}},           {"uint16", {"uint16", 2}},
    {"int32", {"int32", 4}},             {"uint32", {"uint32", 4}},         {"int64", {"int64", 8}},
    {"uint64", {"uint64", 8}},
};
}  // namespace

std::optional<ElementType> find_dtype(std::string_view name) {
  for (const DTypeName& d : kDTypes)
    if (d.alias == name) return d.type;
  return std::nullopt;
}

std::string dtype_names() {
  std::string out;
  for (const DTypeName& d : kDTypes) {
    if (d.alias != d.type.name) continue;
    if (!out.empty()) out += ", ";
    out += d.alias;
  }
  return out;
}

Access tile_access(const LoopPlan& plan, int64_t elem_bytes, MemoryScope scope) {
  Access a;
  a.buffer_shape = plan.extents();
  a.perm.resize(plan.depth());
  std::iota(a.perm.begin(), a.perm.end(), int64_t{0});
  a.origin.assign(plan.depth(), 0);
  a.elem_bytes = elem_bytes;
  a.scope = scope;
  return a;
}

Status check_perm(std::span<const int64_t> perm, std::size_t depth) {
  if (perm.size() != depth)
    return loop_error("perm", fmt::format("perm {}: {} axes for a nest of {} loops; list every loop axis once",
                                   list_text(perm), perm.size(), depth));
  std::vector<bool> seen(depth, false);
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(depth) || seen[static_cast<std::size_t>(p)])
      return loop_error("perm", fmt::format("perm {} is not a permutation of 0..{}", list_text(perm), depth - 1));
    seen[static_cast<std::size_t>(p)] = true;
  }
  return {};
}

Status check_access(const LoopPlan& plan, const Access& a) {
  const std::size_t depth = plan.depth();
  if (Status s = check_perm(a.perm, depth); !s) return s;
  if (a.buffer_shape.size() != depth)
    return loop_error("buffer_shape", fmt::format("buffer_shape {}: the buffer needs one dimension per loop ({}), not {}",
                                           list_text(a.buffer_shape), depth, a.buffer_shape.size()));
  if (a.origin.size() != depth)
    return loop_error("origin", fmt::format("origin {}: the origin needs one coordinate per buffer dimension ({}), not {}",
                                     list_text(a.origin), depth, a.origin.size()));
  if (a.elem_bytes < 1) return loop_error("elem_bytes", fmt::format("elem_bytes {} must be at least 1", a.elem_bytes));
  for (std::size_t d = 0; d < depth; ++d) {
    if (a.buffer_shape[d] < 1)
      return loop_error("buffer_shape", fmt::format("buffer_shape {}: dimension {} is {}; every dimension must be at least 1",
                                             list_text(a.buffer_shape), d, a.buffer_shape[d]));
    if (a.origin[d] < 0)
      return loop_error("origin", fmt::format("origin {}: coordinate {} is {}; it must not be negative", list_text(a.origin), d,
                                       a.origin[d]));
  }
  __int128 bytes = a.elem_bytes;
  for (int64_t dim : a.buffer_shape) {
    bytes *= dim;  // each factor < 2^63 and the product stops at the first excess: < 2^126
    if (bytes > std::numeric_limits<int64_t>::max())
      return loop_error("buffer_shape", fmt::format("buffer_shape {}: the buffer's bytes do not fit in 63 bits",
                                             list_text(a.buffer_shape)),
                 ErrorKind::out_of_range);
  }
  for (std::size_t d = 0; d < depth; ++d) {
    const int64_t extent = plan.extents()[static_cast<std::size_t>(a.perm[d])];
    if (a.origin[d] > a.buffer_shape[d] - extent)
      return loop_error("buffer_shape",
                 fmt::format("buffer_shape {}: buffer dimension {} (loop axis i{}, extent {}) from origin {} runs past "
                             "its size {}",
                             list_text(a.buffer_shape), d, a.perm[d], extent, a.origin[d], a.buffer_shape[d]),
                 ErrorKind::out_of_range);
  }
  return {};
}

Result<Access> box_access(const LoopPlan& plan, std::vector<int64_t> perm, std::vector<int64_t> origin,
                          int64_t elem_bytes, MemoryScope scope) {
  if (Status s = check_perm(perm, plan.depth()); !s) return s;
  Access a = tile_access(plan, elem_bytes, scope);
  a.perm = std::move(perm);
  a.origin = std::move(origin);
  // A negative coordinate or a wrong rank is check_access's to name.
  if (a.origin.size() == plan.depth()) {
    for (std::size_t d = 0; d < plan.depth(); ++d) {
      const int64_t extent = plan.extents()[static_cast<std::size_t>(a.perm[d])];
      const int64_t start = std::max<int64_t>(a.origin[d], 0);
      if (start > std::numeric_limits<int64_t>::max() - extent)
        return loop_error("origin", fmt::format("origin {}: coordinate {} is {}; the box past it (extent {}) does not fit in "
                                         "63 bits",
                                         list_text(a.origin), d, a.origin[d], extent),
                   ErrorKind::out_of_range);
      a.buffer_shape[d] = start + extent;
    }
  }
  if (Status s = check_access(plan, a); !s) return s;
  return a;
}

namespace {

// The access as strides per loop axis, in elements.
struct Strides {
  std::array<int64_t, kMaxLoopDepth> axis{};  // buffer stride of loop axis k
  int64_t origin = 0;                         // element offset of the box's first element
};

// Requires: check_access(plan, a) is ok: every stride and the origin's offset
// are below the buffer's element count.
Strides strides_of(const Access& a) {
  Strides s;
  int64_t stride = 1;
  for (std::size_t d = a.buffer_shape.size(); d-- > 0;) {
    s.axis[static_cast<std::size_t>(a.perm[d])] = stride;
    s.origin += a.origin[d] * stride;
    if (d > 0) stride *= a.buffer_shape[d];
  }
  return s;
}

// Largest w (a power of two, at most `cap`) such that the V lanes of every
// group are adjacent and every group starts at a multiple of w elements.
int64_t lane_width(const LoopPlan& plan, int64_t vector, const Strides& s, int64_t cap) {
  const std::size_t inner = plan.depth() - 1;
  if (s.axis[inner] != 1) return 1;
  int64_t align = s.origin;
  for (std::size_t k = 0; k < inner; ++k)
    if (plan.extents()[k] > 1) align = std::gcd(align, s.axis[k]);
  int64_t w = std::min(largest_pow2_divisor(vector), cap);
  while (w > 1 && align % w != 0) w /= 2;
  return w;
}

int64_t access_elems_unchecked(const LoopPlan& plan, const Access& a, const Device& dev) {
  const int64_t cap = std::max<int64_t>(1, dev.max_vector_access_bytes / a.elem_bytes);
  return lane_width(plan, plan.vector(), strides_of(a), largest_pow2_divisor(cap));
}

Status check_device_and_access(const LoopPlan& plan, const Access& a, const Device& dev) {
  if (Status s = check_device(dev); !s) return s;
  return check_access(plan, a);
}

}  // namespace

Result<int64_t> access_elems(const LoopPlan& plan, const Access& a, const Device& dev) {
  if (Status s = check_device_and_access(plan, a, dev); !s) return s;
  return access_elems_unchecked(plan, a, dev);
}

Result<VectorChoice> choose_vector(const LoopPlan& plan, const Access& a, const Device& dev) {
  if (Status s = check_device_and_access(plan, a, dev); !s) return s;
  VectorChoice c;
  c.widest = std::max<int64_t>(1, dev.max_vector_access_bytes / a.elem_bytes);
  c.by_extent = std::gcd(c.widest, plan.extents().back());
  const Strides s = strides_of(a);
  int64_t v = c.by_extent;
  while (v > 1 && lane_width(plan, v, s, v) != v) v /= 2;
  c.by_access = v;
  // threads * v <= 2^20 * 1024: no overflow.
  while (v > 1 && plan.points() % (plan.threads() * v) != 0) v /= 2;
  c.vector = v;
  return c;
}

// ---- memory analysis ------------------------------------------------------

namespace {

// Everything a warp instruction's cost depends on, fixed for one analysis.
struct Analyzer {
  Analyzer(const LoopPlan& plan, const Access& acc, const Device& device, const LoopSummary& sum)
      : plan(plan), dev(device), scope(acc.scope), threads(plan.threads()), vector(plan.vector()),
        elem_bytes(acc.elem_bytes), w(access_elems_unchecked(plan, acc, device)), access_bytes(w * acc.elem_bytes),
        parts(plan.vector() / w), replicas(sum.replicas), thread_extent(sum.thread_extent), depth(plan.depth()),
        s(strides_of(acc)),
        phase_threads(std::clamp<int64_t>(device.smem_banks * device.smem_bank_bytes / access_bytes, 1,
                                          device.warp_size)) {
    // Scratch for one instruction: each address spans at most (access_bytes - 1) / unit + 2 units.
    const int64_t unit = std::min({dev.mem_sector_bytes, dev.cache_line_bytes, dev.smem_bank_bytes});
    const auto warp = static_cast<std::size_t>(dev.warp_size);
    addr.resize(warp);
    lanes.resize(warp);
    ids.resize(warp * static_cast<std::size_t>((access_bytes - 1) / unit + 2));
    per_bank.assign(static_cast<std::size_t>(dev.smem_banks), 0);
  }

  const LoopPlan& plan;
  const Device& dev;
  MemoryScope scope;
  int64_t threads, vector, elem_bytes;
  int64_t w, access_bytes, parts;
  int64_t replicas, thread_extent;
  std::size_t depth;
  Strides s;
  int64_t phase_threads;
  std::vector<int64_t> addr, lanes, ids, per_bank;

  // Totals, weighted. Weights are whole numbers when the analysis is exact
  // (a long double holds integers up to 2^64 exactly), ratios when sampled.
  long double instructions = 0, bytes = 0, sectors = 0, lines = 0, wavefronts = 0, ideal = 0;
  int64_t ways = 0;
  std::map<int64_t, long double> sector_hist, wave_hist;
  bool have_worst = false;
  WarpAccess worst;
  const std::function<void(const WarpAccess&)>* visit = nullptr;

  // Byte address of the group starting at `flat`, counting loop axes first..depth-1
  // only (the others are folded into `base`). Within the buffer: below 2^63.
  int64_t address(std::size_t first, int64_t flat, int64_t base) const {
    int64_t elems = 0;
    for (std::size_t k = depth; k-- > first;) {
      elems += (flat % plan.extents()[k]) * s.axis[k];
      flat /= plan.extents()[k];
    }
    return base + elems * elem_bytes;
  }

  // Distinct values of v, moved to its front. Ascending addresses give ascending
  // units, so the sort is mostly skipped.
  static int64_t distinct(std::span<int64_t> v) {
    if (!std::is_sorted(v.begin(), v.end())) std::sort(v.begin(), v.end());
    return std::unique(v.begin(), v.end()) - v.begin();
  }

  // True when a costs more than b under this scope's ordering (ties: neither).
  bool worse(const WarpAccess& a, const WarpAccess& b) const {
    if (scope == MemoryScope::shared) {
      if (a.conflict_ways != b.conflict_ways) return a.conflict_ways > b.conflict_ways;
      if (a.wavefronts * b.ideal_wavefronts != b.wavefronts * a.ideal_wavefronts)
        return a.wavefronts * b.ideal_wavefronts > b.wavefronts * a.ideal_wavefronts;
    }
    // Lower efficiency bytes/sectors is worse: a.bytes/a.sectors < b.bytes/b.sectors.
    const __int128 lhs = static_cast<__int128>(a.bytes) * b.sectors;
    const __int128 rhs = static_cast<__int128>(b.bytes) * a.sectors;
    if (lhs != rhs) return lhs < rhs;
    return a.sectors > b.sectors;
  }

  // Cost of one warp instruction from its `count` active threads' byte
  // addresses (addr) and lanes (ascending). The loops read through locals:
  // a store into the scratch could otherwise alias any int64_t member.
  WarpAccess cost(std::size_t count) {
    WarpAccess r;
    r.threads = static_cast<int64_t>(count);
    r.bytes = r.threads * access_bytes;
    const int64_t bytes = access_bytes;
    const int64_t* const at = addr.data();
    int64_t* const out = ids.data();
    auto count_units = [&](int64_t unit) {
      std::size_t m = 0;
      for (std::size_t i = 0; i < count; ++i) {
        const int64_t a = at[i];
        const int64_t last = (a + bytes - 1) / unit;
        for (int64_t u = a / unit; u <= last; ++u) out[m++] = u;
      }
      return distinct(std::span(out, m));
    };
    r.sectors = count_units(dev.mem_sector_bytes);
    r.lines = count_units(dev.cache_line_bytes);
    if (scope == MemoryScope::shared) {
      const int64_t bank_bytes = dev.smem_bank_bytes;
      const int64_t per_phase = phase_threads;
      // Lanes ascend, so each phase's threads are one run of them.
      for (std::size_t i = 0; i < count;) {
        const int64_t phase = lanes[i] / per_phase;
        std::size_t m = 0;
        for (; i < count && lanes[i] / per_phase == phase; ++i) {
          const int64_t a = at[i];
          const int64_t last = (a + bytes - 1) / bank_bytes;
          for (int64_t word = a / bank_bytes; word <= last; ++word) out[m++] = word;
        }
        const auto words = static_cast<std::size_t>(distinct(std::span(out, m)));
        int64_t degree = 0;
        for (std::size_t k = 0; k < words; ++k)
          degree = std::max(degree, ++per_bank[static_cast<std::size_t>(out[k] % dev.smem_banks)]);
        for (std::size_t k = 0; k < words; ++k) per_bank[static_cast<std::size_t>(out[k] % dev.smem_banks)] = 0;
        r.wavefronts += degree;
        r.ideal_wavefronts += 1;
        r.conflict_ways = std::max(r.conflict_ways, degree);
      }
    }
    return r;
  }

  // One step: serial round `round`, part `part` of each group, every warp.
  // Groups start at `round_start + thread*V` in the flat space of loop axes
  // first..depth-1 (of `domain` points, round_start < domain); `base` is the
  // byte address of that space's origin. Totals are weighted by `weight`.
  void step(int64_t round, int64_t part, std::size_t first, int64_t round_start, int64_t domain, int64_t base,
            long double weight) {
    const int64_t warp = dev.warp_size;
    const int64_t part_bytes = part * w * s.axis[depth - 1] * elem_bytes;
    // The threads with a group in this step are a prefix: replicas of the
    // first G when there are fewer groups than threads, else those whose
    // group starts before the end of the domain.
    const bool replicas_wrap = thread_extent < threads;
    const int64_t extent = thread_extent, v = vector;
    const int64_t active = replicas_wrap ? thread_extent * replicas
                                         : std::min(threads, ceil_div(domain - round_start, vector));
    int64_t* const addr_out = addr.data();
    int64_t* const lanes_out = lanes.data();
    for (int64_t w0 = 0; w0 < active; w0 += warp) {
      std::size_t m = 0;
      const int64_t end = std::min(w0 + warp, active);
      for (int64_t t = w0; t < end; ++t) {
        const int64_t te = replicas_wrap ? t % extent : t;
        addr_out[m] = address(first, round_start + te * v, base) + part_bytes;
        lanes_out[m] = t - w0;
        ++m;
      }
      WarpAccess a = cost(m);
      a.round = round;
      a.warp = w0 / warp;
      a.part = part;
      instructions += weight;
      bytes += weight * a.bytes;
      sectors += weight * a.sectors;
      lines += weight * a.lines;
      wavefronts += weight * a.wavefronts;
      ideal += weight * a.ideal_wavefronts;
      ways = std::max(ways, a.conflict_ways);
      sector_hist[a.sectors] += weight;
      if (scope == MemoryScope::shared) wave_hist[a.wavefronts] += weight;
      if (!have_worst || worse(a, worst) ||
          (!worse(worst, a) && std::tie(a.round, a.warp, a.part) < std::tie(worst.round, worst.warp, worst.part))) {
        worst = a;
        have_worst = true;
      }
      if (visit) (*visit)(a);
    }
  }
};

// Residues of the outer loop axes' byte offset modulo `modulus`: how many
// outer index tuples land on each residue, and the smallest outer flat index
// that does (to name a representative round).
struct ResidueClasses {
  std::vector<int64_t> count, first;
};

ResidueClasses outer_residues(const LoopPlan& plan, const Strides& s, std::size_t outer, int64_t elem_bytes,
                              int64_t modulus) {
  constexpr int64_t kNone = std::numeric_limits<int64_t>::max();
  ResidueClasses rc{std::vector<int64_t>(static_cast<std::size_t>(modulus), 0),
                    std::vector<int64_t>(static_cast<std::size_t>(modulus), kNone)};
  const int64_t start = (s.origin % modulus) * (elem_bytes % modulus) % modulus;
  rc.count[static_cast<std::size_t>(start)] = 1;
  rc.first[static_cast<std::size_t>(start)] = 0;
  for (std::size_t k = 0; k < outer; ++k) {
    const int64_t e = plan.extents()[k];
    const int64_t step = (s.axis[k] % modulus) * (elem_bytes % modulus) % modulus;
    const int64_t period = modulus / std::gcd(step, modulus);
    ResidueClasses next{std::vector<int64_t>(static_cast<std::size_t>(modulus), 0),
                        std::vector<int64_t>(static_cast<std::size_t>(modulus), kNone)};
    for (int64_t r = 0; r < modulus; ++r) {
      const auto ri = static_cast<std::size_t>(r);
      if (rc.count[ri] == 0) continue;
      for (int64_t a = 0; a < std::min(e, period); ++a) {
        const auto to = static_cast<std::size_t>((r + a * step) % modulus);
        next.count[to] += rc.count[ri] * ((e - 1 - a) / period + 1);
        next.first[to] = std::min(next.first[to], rc.first[ri] * e + a);
      }
    }
    rc = std::move(next);
  }
  return rc;
}

// Thread accesses of an every-round analysis: G * replicas groups, V / w parts each.
__int128 every_round_accesses(const LoopPlan& plan, const Access& acc, const Device& dev, const LoopSummary& sum) {
  const int64_t w = access_elems_unchecked(plan, acc, dev);
  return static_cast<__int128>(sum.groups) * sum.replicas * (plan.vector() / w);
}

Status check_analysis(const LoopPlan& plan, const Access& acc, const Device& dev, MemoryAnalysis mode) {
  if (Status s = check_device_and_access(plan, acc, dev); !s) return s;
  if (acc.elem_bytes > dev.max_vector_access_bytes)
    return loop_error("elem_bytes", fmt::format("elem_bytes {} is wider than the widest access of device '{}' "
                                         "(max_vector_access_bytes {})",
                                         acc.elem_bytes, dev.name, dev.max_vector_access_bytes),
               ErrorKind::out_of_range);
  const int64_t unit = std::min({dev.mem_sector_bytes, dev.cache_line_bytes, dev.smem_bank_bytes});
  if (dev.max_vector_access_bytes > kMaxUnitsPerAccess * unit)
    return loop_error("max_vector_access_bytes",
               fmt::format("max_vector_access_bytes {} of device '{}': the memory analysis takes accesses of at most "
                           "{} of its smallest unit ({} B: sector, line or bank word)",
                           dev.max_vector_access_bytes, dev.name, kMaxUnitsPerAccess, unit),
               ErrorKind::out_of_range);
  const LoopSummary sum = summarize_unchecked(plan, dev.warp_size);
  // points * replicas <= T * V when replicating, else N: each below 2^63.
  if (static_cast<__int128>(sum.points) * sum.replicas * acc.elem_bytes > std::numeric_limits<int64_t>::max())
    return loop_error("extents",
               fmt::format("extents {}: {} points x {} replicas x {} B requested do not fit in 63 bits",
                           list_text(plan.extents()), sum.points, sum.replicas, acc.elem_bytes),
               ErrorKind::out_of_range);
  if (mode == MemoryAnalysis::every_round) {
    const __int128 visits = every_round_accesses(plan, acc, dev, sum);
    if (visits > kMaxEveryRoundAccesses)
      return loop_error("extents",
                 fmt::format("extents {}: every round of the nest is {} thread accesses; an analysis of every "
                             "round is limited to {}",
                             list_text(plan.extents()), static_cast<int64_t>(visits), kMaxEveryRoundAccesses),
                 ErrorKind::out_of_range);
  }
  return {};
}

// Every round, in issue order.
void every_round(Analyzer& az, const LoopSummary& sum, int64_t base) {
  const int64_t tv = az.threads * az.vector;
  for (int64_t r = 0; r < sum.rounds; ++r)
    for (int64_t j = 0; j < az.parts; ++j) az.step(r, j, 0, r * tv, sum.points, base, 1);
}

Result<MemoryReport> analyze_unchecked(const LoopPlan& plan, const Access& acc, const Device& dev,
                                       MemoryAnalysis mode) {
  const LoopSummary sum = summarize_unchecked(plan, dev.warp_size);
  Analyzer az(plan, acc, dev, sum);
  const int64_t bank_row = dev.smem_banks * dev.smem_bank_bytes;
  const int64_t threads = plan.threads();

  MemoryReport rep;
  rep.scope = acc.scope;
  rep.elem_bytes = acc.elem_bytes;
  rep.access_elems = az.w;
  rep.access_bytes = az.access_bytes;
  rep.parts = az.parts;
  rep.contiguous = az.s.axis[az.depth - 1] == 1;
  rep.phase_threads = acc.scope == MemoryScope::shared ? az.phase_threads : 0;
  rep.rounds_total = sum.rounds;

  const int64_t tv = threads * plan.vector();
  const int64_t base = az.s.origin * acc.elem_bytes;
  const int64_t per_step = threads;  // thread accesses in one step, idle threads counted
  const int64_t steps = sum.rounds * az.parts;
  const __int128 direct_cost = static_cast<__int128>(steps) * per_step;

  // A periodic decomposition: the smallest suffix block of loop axes m..k-1
  // holding a whole number of rounds. Rounds at the same position in the block
  // whose outer offsets agree modulo the memory system's period cost the same.
  const int64_t modulus = std::lcm(std::lcm(dev.mem_sector_bytes, dev.cache_line_bytes), bank_row);
  std::size_t m = 0;
  int64_t block = 1;
  {
    int64_t p = 1;
    for (std::size_t k = az.depth; k-- > 1;) {
      p *= plan.extents()[k];
      if (p % tv == 0 && sum.groups >= threads) {
        m = k;
        block = p;
        break;
      }
    }
  }
  ResidueClasses rc;
  __int128 periodic_cost = std::numeric_limits<int64_t>::max();
  int64_t classes = 0;
  if (m > 0 && mode == MemoryAnalysis::fastest && modulus <= kMaxPeriodicModulus) {
    rc = outer_residues(plan, az.s, m, acc.elem_bytes, modulus);
    for (int64_t c : rc.count) classes += c > 0;
    periodic_cost = static_cast<__int128>(block / tv) * classes * az.parts * per_step;
  }

  if (mode == MemoryAnalysis::every_round || std::min(direct_cost, periodic_cost) <= kAnalysisBudget) {
    if (mode == MemoryAnalysis::every_round || direct_cost <= periodic_cost) {
      every_round(az, sum, base);
      rep.rounds_analyzed = sum.rounds;
    } else {
      const int64_t positions = block / tv;
      for (int64_t c = 0; c < modulus; ++c) {
        const auto ci = static_cast<std::size_t>(c);
        if (rc.count[ci] == 0) continue;
        for (int64_t p = 0; p < positions; ++p)
          for (int64_t j = 0; j < az.parts; ++j)
            az.step(rc.first[ci] * positions + p, j, m, p * tv, block, c, static_cast<long double>(rc.count[ci]));
      }
      rep.rounds_analyzed = positions * classes;
    }
  } else {
    // Sample evenly spaced steps (ends included) of the full rounds, and of the
    // last round when it is partial, each weighted by the steps it stands for.
    rep.exact = false;
    const int64_t full_rounds = sum.masked_threads > 0 ? sum.rounds - 1 : sum.rounds;
    int64_t last_round = -1;
    auto sample = [&](int64_t first_step, int64_t count, int64_t budget) {
      if (count <= 0) return;
      const int64_t samples = std::clamp<int64_t>(budget / per_step, 2, count);
      const long double weight = static_cast<long double>(count) / static_cast<long double>(samples);
      for (int64_t i = 0; i < samples; ++i) {
        const int64_t st =
            first_step + (samples == 1 ? 0 : static_cast<int64_t>(static_cast<__int128>(count - 1) * i / (samples - 1)));
        const int64_t r = st / az.parts;
        az.step(r, st % az.parts, 0, r * tv, sum.points, base, weight);
        rep.rounds_analyzed += r != last_round;
        last_round = r;
      }
    };
    sample(0, full_rounds * az.parts, kAnalysisBudget / 2);
    sample(full_rounds * az.parts, (sum.rounds - full_rounds) * az.parts, kAnalysisBudget / 2);
  }

  // Instruction and byte counts are exact in every mode (docs/loop.md); the
  // instructions are at most the thread accesses, N * replicas / w.
  const auto exact_instructions = static_cast<int64_t>(
      static_cast<__int128>(az.parts) * ((sum.rounds - 1) * ceil_div(threads, dev.warp_size) +
                                         ceil_div(sum.last_round_threads, dev.warp_size)));
  const int64_t exact_bytes = sum.points * sum.replicas * acc.elem_bytes;  // check_analysis
  assert(!rep.exact || (az.instructions == exact_instructions && az.bytes == exact_bytes));
  constexpr long double kTwo63 = 9223372036854775808.0L;
  for (long double total : {az.sectors, az.lines, az.wavefronts, az.ideal})
    if (!(total < kTwo63))
      return loop_error("extents",
                 fmt::format("extents {}: the nest's memory totals do not fit in 63 bits", list_text(plan.extents())),
                 ErrorKind::out_of_range);
  auto rounded = [](long double v) { return static_cast<int64_t>(std::llround(v)); };
  rep.instructions = exact_instructions;
  rep.bytes_requested = exact_bytes;
  rep.sectors = rounded(az.sectors);
  rep.lines = rounded(az.lines);
  rep.wavefronts = rounded(az.wavefronts);
  rep.ideal_wavefronts = rounded(az.ideal);
  rep.conflict_ways = az.ways;
  const long double moved = acc.scope == MemoryScope::shared
                                ? static_cast<long double>(rep.wavefronts) * bank_row
                                : static_cast<long double>(rep.sectors) * dev.mem_sector_bytes;
  rep.efficiency = moved > 0 ? static_cast<double>(static_cast<long double>(rep.bytes_requested) / moved) : 0.0;
  rep.worst = az.worst;
  for (const auto& [k, v] : az.sector_hist) rep.sectors_histogram.emplace_back(k, rounded(v));
  for (const auto& [k, v] : az.wave_hist) rep.wavefronts_histogram.emplace_back(k, rounded(v));
  return rep;
}

}  // namespace

Result<MemoryReport> analyze_memory(const LoopPlan& plan, const Access& acc, const Device& dev, MemoryAnalysis mode) {
  if (Status s = check_analysis(plan, acc, dev, mode); !s) return s;
  return analyze_unchecked(plan, acc, dev, mode);
}

void for_each_instruction_unchecked(const LoopPlan& plan, const Access& acc, const Device& dev,
                                    const std::function<void(const WarpAccess&)>& visit) {
  assert(check_analysis(plan, acc, dev, MemoryAnalysis::every_round).ok());
  const LoopSummary sum = summarize_unchecked(plan, dev.warp_size);
  Analyzer az(plan, acc, dev, sum);
  az.visit = &visit;
  every_round(az, sum, az.s.origin * acc.elem_bytes);
}

Status for_each_instruction(const LoopPlan& plan, const Access& acc, const Device& dev,
                            const std::function<void(const WarpAccess&)>& visit) {
  if (Status s = check_analysis(plan, acc, dev, MemoryAnalysis::every_round); !s) return s;
  for_each_instruction_unchecked(plan, acc, dev, visit);
  return {};
}

}  // namespace tileplan
