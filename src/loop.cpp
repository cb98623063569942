#include "tileplan/loop.hpp"

#include <algorithm>
#include <array>
#include <cassert>
#include <limits>
#include <cmath>
#include <map>
#include <numeric>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace tileplan {
namespace {

constexpr int64_t kMaxThreads = int64_t{1} << 20;
// Thread accesses the memory analysis may evaluate before it switches from an
// exact count to sampling (docs/loop.md, 'Cost of the analysis').
constexpr int64_t kAnalysisBudget = int64_t{1} << 22;

int64_t ceil_div(int64_t a, int64_t b) { return a / b + (a % b != 0); }

std::string list_text(const std::vector<int64_t>& v) { return fmt::format("{}", fmt::join(v, ",")); }

// Product of v, or nothing when it exceeds int64.
std::optional<int64_t> checked_product(std::span<const int64_t> v) {
  int64_t p = 1;
  for (int64_t x : v) {
    if (x != 0 && p > std::numeric_limits<int64_t>::max() / x) return std::nullopt;
    p *= x;
  }
  return p;
}

int64_t largest_pow2_divisor(int64_t x) { return x & -x; }

}  // namespace

// ---- the plan ---------------------------------------------------------------

std::optional<std::string> check_nest(const LoopNest& n) {
  if (n.extents.empty()) return std::string("--extents: give at least one extent");
  if (n.extents.size() > kMaxLoopDepth)
    return fmt::format("--extents: {} loops; a nest may have at most {}", n.extents.size(), kMaxLoopDepth);
  for (std::size_t k = 0; k < n.extents.size(); ++k)
    if (n.extents[k] < 1)
      return fmt::format("--extents {}: e{} is {}; every extent must be at least 1", list_text(n.extents), k,
                         n.extents[k]);
  if (!checked_product(n.extents))
    return fmt::format("--extents {}: the nest has more than 2^63-1 points", list_text(n.extents));
  if (n.threads < 1) return fmt::format("--threads {} must be at least 1", n.threads);
  if (n.threads > kMaxThreads) return fmt::format("--threads {} must be at most {}", n.threads, kMaxThreads);
  if (n.vector < 1) return fmt::format("--vector {} must be at least 1", n.vector);
  if (n.vector > std::numeric_limits<int64_t>::max() / n.threads)
    return fmt::format("--threads {} x --vector {} does not fit in 63 bits", n.threads, n.vector);
  const int64_t inner = n.extents.back();
  if (inner % n.vector != 0)
    return fmt::format(
        "--vector {} does not divide the innermost extent {}: a vector would straddle two rows; "
        "give a divisor of {} or --vector auto",
        n.vector, inner, inner);
  return std::nullopt;
}

int64_t total_points(const LoopNest& n) { return *checked_product(n.extents); }

int64_t flatten(std::span<const int64_t> extents, std::span<const int64_t> index) {
  assert(extents.size() == index.size());
  int64_t flat = 0;
  for (std::size_t k = 0; k < extents.size(); ++k) {
    assert(index[k] >= 0 && index[k] < extents[k]);
    flat = flat * extents[k] + index[k];
  }
  return flat;
}

void unflatten(std::span<const int64_t> extents, int64_t flat, std::span<int64_t> out) {
  assert(extents.size() == out.size() && flat >= 0);
  for (std::size_t k = extents.size(); k-- > 0;) {
    out[k] = flat % extents[k];
    flat /= extents[k];
  }
  assert(flat == 0);
}

ThreadSlot place_flat(const LoopNest& n, int64_t flat) {
  const int64_t group = flat / n.vector;
  return {group % n.threads, (group / n.threads) * n.vector + flat % n.vector};
}

ThreadSlot place(const LoopNest& n, std::span<const int64_t> index) { return place_flat(n, flatten(n.extents, index)); }

std::optional<int64_t> flat_at(const LoopNest& n, ThreadSlot ts) {
  const int64_t points = total_points(n);
  const int64_t groups = points / n.vector;
  int64_t thread = ts.thread;
  if (thread < 0 || thread >= n.threads || ts.slot < 0) return std::nullopt;
  if (groups < n.threads) {
    const int64_t replicas = n.replicate ? n.threads / groups : 1;
    if (thread >= groups * replicas) return std::nullopt;
    thread %= groups;
  }
  const int64_t round = ts.slot / n.vector;
  if (round >= ceil_div(groups, n.threads)) return std::nullopt;
  const int64_t group = round * n.threads + thread;
  if (group >= groups) return std::nullopt;
  return group * n.vector + ts.slot % n.vector;
}

bool point_at(const LoopNest& n, ThreadSlot ts, std::span<int64_t> out) {
  const std::optional<int64_t> flat = flat_at(n, ts);
  if (!flat) return false;
  unflatten(n.extents, *flat, out);
  return true;
}

void enumerate(const LoopNest& n, int64_t first, std::span<ThreadSlot> out) {
  assert(first >= 0 && first + static_cast<int64_t>(out.size()) <= total_points(n));
  const int64_t vector = n.vector;
  const int64_t threads = n.threads;
  const int64_t group = first / vector;
  int64_t lane = first % vector;
  int64_t thread = group % threads;
  int64_t base = (group / threads) * vector;
  ThreadSlot* p = out.data();
  ThreadSlot* const end = p + out.size();
  if (vector == 1) {
    // One point a group: the rest of the round, thread by thread.
    while (p != end) {
      const int64_t run = std::min<int64_t>(threads - thread, end - p);
      for (int64_t i = 0; i < run; ++i) p[i] = ThreadSlot{thread + i, base};
      p += run;
      thread += run;
      if (thread == threads) {
        thread = 0;
        ++base;
      }
    }
    return;
  }
  while (p != end) {
    // The rest of this thread's vector group, without a branch per point.
    const int64_t run = std::min<int64_t>(vector - lane, end - p);
    for (int64_t i = 0; i < run; ++i) p[i] = ThreadSlot{thread, base + lane + i};
    p += run;
    lane += run;
    if (lane == vector) {
      lane = 0;
      if (++thread == threads) {
        thread = 0;
        base += vector;
      }
    }
  }
}

LoopSummary summarize(const LoopNest& n, const Device& dev) {
  LoopSummary s;
  s.points = total_points(n);
  s.groups = s.points / n.vector;
  const int64_t t = n.threads;
  if (s.groups >= t) {
    s.thread_extent = t;
    s.rounds = ceil_div(s.groups, t);
    s.last_round_threads = s.groups - (s.rounds - 1) * t;
  } else {
    s.thread_extent = s.groups;
    s.replicas = n.replicate ? t / s.groups : 1;
    s.rounds = 1;
    s.last_round_threads = s.groups * s.replicas;
  }
  s.threads_with_work = s.thread_extent * s.replicas;
  s.idle_threads = t - s.threads_with_work;
  s.masked_threads = t - s.last_round_threads;
  s.masked_lanes = s.masked_threads * n.vector;
  s.points_per_thread_max = s.rounds * n.vector;
  s.points_per_thread_min = s.masked_threads > 0 ? (s.rounds - 1) * n.vector : s.rounds * n.vector;
  s.slots_per_thread = s.rounds * n.vector;
  s.warps = ceil_div(t, dev.warp_size);
  s.warps_with_work = ceil_div(s.threads_with_work, dev.warp_size);
  s.partial_last_round = s.groups > t && s.groups % t != 0;
  s.guard = s.masked_threads > 0;
  return s;
}

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
  DType type;
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

std::optional<DType> find_dtype(std::string_view name) {
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

Access tile_access(const LoopNest& n, int64_t elem_bytes, MemoryScope scope) {
  Access a;
  a.buffer_shape = n.extents;
  a.perm.resize(n.extents.size());
  std::iota(a.perm.begin(), a.perm.end(), int64_t{0});
  a.origin.assign(n.extents.size(), 0);
  a.elem_bytes = elem_bytes;
  a.scope = scope;
  return a;
}

std::optional<std::string> check_perm(std::span<const int64_t> perm, std::size_t depth) {
  const std::vector<int64_t> text(perm.begin(), perm.end());
  if (perm.size() != depth)
    return fmt::format("--access {}: {} axes for a nest of {} loops; list every loop axis once", list_text(text),
                       perm.size(), depth);
  std::vector<bool> seen(depth, false);
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(depth) || seen[static_cast<std::size_t>(p)])
      return fmt::format("--access {} is not a permutation of 0..{}", list_text(text), depth - 1);
    seen[static_cast<std::size_t>(p)] = true;
  }
  return std::nullopt;
}

std::optional<std::string> check_access(const LoopNest& n, const Access& a) {
  const std::size_t depth = n.extents.size();
  if (auto err = check_perm(a.perm, depth)) return err;
  if (a.buffer_shape.size() != depth)
    return fmt::format("--buffer-shape {}: the buffer needs one dimension per loop ({}), not {}",
                       list_text(a.buffer_shape), depth, a.buffer_shape.size());
  if (a.origin.size() != depth)
    return fmt::format("--origin {}: the origin needs one coordinate per buffer dimension ({}), not {}",
                       list_text(a.origin), depth, a.origin.size());
  if (a.elem_bytes < 1) return fmt::format("element size {} B must be at least 1", a.elem_bytes);
  for (std::size_t d = 0; d < depth; ++d) {
    if (a.buffer_shape[d] < 1)
      return fmt::format("--buffer-shape {}: dimension {} is {}; every dimension must be at least 1",
                         list_text(a.buffer_shape), d, a.buffer_shape[d]);
    if (a.origin[d] < 0)
      return fmt::format("--origin {}: coordinate {} is {}; it must not be negative", list_text(a.origin), d,
                         a.origin[d]);
  }
  const std::optional<int64_t> elems = checked_product(a.buffer_shape);
  if (!elems || *elems > std::numeric_limits<int64_t>::max() / a.elem_bytes)
    return fmt::format("--buffer-shape {}: the buffer's bytes do not fit in 63 bits", list_text(a.buffer_shape));
  for (std::size_t d = 0; d < depth; ++d) {
    const int64_t extent = n.extents[static_cast<std::size_t>(a.perm[d])];
    if (a.origin[d] > a.buffer_shape[d] - extent)
      return fmt::format(
          "--buffer-shape {}: buffer dimension {} (loop axis i{}, extent {}) from origin {} runs past its size {}",
          list_text(a.buffer_shape), d, a.perm[d], extent, a.origin[d], a.buffer_shape[d]);
  }
  return std::nullopt;
}

namespace {

// The access as strides per loop axis, in elements.
struct Strides {
  std::array<int64_t, kMaxLoopDepth> axis{};  // buffer stride of loop axis k
  int64_t origin = 0;                         // element offset of the box's first element
};

Strides strides_of(const Access& a) {
  Strides s;
  int64_t stride = 1;
  for (std::size_t d = a.buffer_shape.size(); d-- > 0;) {
    s.axis[static_cast<std::size_t>(a.perm[d])] = stride;
    s.origin += a.origin[d] * stride;
    stride *= a.buffer_shape[d];
  }
  return s;
}

// Largest w (a power of two, at most `cap`) such that the V lanes of every
// group are adjacent and every group starts at a multiple of w elements.
int64_t lane_width(const LoopNest& n, const Strides& s, int64_t cap) {
  const std::size_t inner = n.extents.size() - 1;
  if (s.axis[inner] != 1) return 1;
  int64_t align = s.origin;
  for (std::size_t k = 0; k < inner; ++k)
    if (n.extents[k] > 1) align = std::gcd(align, s.axis[k]);
  int64_t w = std::min(largest_pow2_divisor(n.vector), cap);
  while (w > 1 && align % w != 0) w /= 2;
  return w;
}

}  // namespace

int64_t access_elems(const LoopNest& n, const Access& a, const Device& dev) {
  const int64_t cap = std::max<int64_t>(1, dev.max_vector_access_bytes / a.elem_bytes);
  return lane_width(n, strides_of(a), largest_pow2_divisor(cap));
}

VectorChoice choose_vector(const LoopNest& nest, const Access& a, const Device& dev) {
  VectorChoice c;
  c.widest = std::max<int64_t>(1, dev.max_vector_access_bytes / a.elem_bytes);
  c.by_extent = std::gcd(c.widest, nest.extents.back());
  const Strides s = strides_of(a);
  LoopNest probe = nest;
  int64_t v = c.by_extent;
  while (v > 1) {
    probe.vector = v;
    if (lane_width(probe, s, v) == v) break;
    v /= 2;
  }
  c.by_access = v;
  const int64_t points = total_points(nest);
  while (v > 1 && points % (nest.threads * v) != 0) v /= 2;
  c.vector = v;
  return c;
}

// ---- memory analysis ------------------------------------------------------

namespace {

// Everything a warp instruction's cost depends on, fixed for one analysis.
struct Analyzer {
  Analyzer(const LoopNest& nest, const Access& acc, const Device& device, const LoopSummary& sum)
      : n(nest), dev(device), scope(acc.scope), threads(nest.threads), vector(nest.vector), elem_bytes(acc.elem_bytes),
        w(access_elems(nest, acc, device)), access_bytes(w * acc.elem_bytes), parts(nest.vector / w),
        replicas(sum.replicas), thread_extent(sum.thread_extent), depth(nest.extents.size()), s(strides_of(acc)),
        phase_threads(std::clamp<int64_t>(device.smem_banks * device.smem_bank_bytes / access_bytes, 1,
                                          device.warp_size)) {
    // cost() keeps unit ids in fixed arrays.
    assert(access_bytes / dev.smem_bank_bytes + 2 <= 8 && dev.smem_banks <= 256 && dev.warp_size <= 32);
  }

  const LoopNest& n;
  const Device& dev;
  MemoryScope scope;
  int64_t threads, vector, elem_bytes;
  int64_t w, access_bytes, parts;
  int64_t replicas, thread_extent;
  std::size_t depth;
  Strides s;
  int64_t phase_threads;

  // Totals, weighted. Weights are whole numbers when the analysis is exact
  // (a long double holds integers up to 2^64 exactly), ratios when sampled.
  long double instructions = 0, bytes = 0, sectors = 0, lines = 0, wavefronts = 0, ideal = 0;
  int64_t ways = 0;
  std::map<int64_t, long double> sector_hist, wave_hist;
  bool have_worst = false;
  WarpAccess worst;
  std::vector<WarpAccess>* listing = nullptr;

  // Byte address of the group starting at `flat`, counting loop axes first..depth-1
  // only (the others are folded into `base`).
  int64_t address(std::size_t first, int64_t flat, int64_t base) const {
    int64_t elems = 0;
    for (std::size_t k = depth; k-- > first;) {
      elems += (flat % n.extents[k]) * s.axis[k];
      flat /= n.extents[k];
    }
    return base + elems * elem_bytes;
  }

  static int64_t distinct(std::span<int64_t> ids) {
    std::sort(ids.begin(), ids.end());
    return std::unique(ids.begin(), ids.end()) - ids.begin();
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

  // Cost of one warp instruction from its active threads' byte addresses.
  WarpAccess cost(std::span<const int64_t> addr, std::span<const int64_t> lanes) const {
    WarpAccess r;
    r.threads = static_cast<int64_t>(addr.size());
    r.bytes = r.threads * access_bytes;
    std::array<int64_t, 4 * 64> ids{};
    auto count_units = [&](int64_t unit) {
      std::size_t m = 0;
      for (int64_t a : addr)
        for (int64_t u = a / unit; u <= (a + access_bytes - 1) / unit; ++u) ids[m++] = u;
      return distinct(std::span(ids.data(), m));
    };
    r.sectors = count_units(dev.mem_sector_bytes);
    r.lines = count_units(dev.cache_line_bytes);
    if (scope == MemoryScope::shared) {
      const int64_t phases = ceil_div(dev.warp_size, phase_threads);
      for (int64_t p = 0; p < phases; ++p) {
        std::size_t m = 0;
        for (std::size_t i = 0; i < addr.size(); ++i) {
          if (lanes[i] / phase_threads != p) continue;
          for (int64_t word = addr[i] / dev.smem_bank_bytes; word <= (addr[i] + access_bytes - 1) / dev.smem_bank_bytes;
               ++word)
            ids[m++] = word;
        }
        if (m == 0) continue;
        const int64_t words = distinct(std::span(ids.data(), m));
        std::array<int64_t, 256> per_bank{};
        int64_t degree = 0;
        for (int64_t i = 0; i < words; ++i)
          degree = std::max(degree, ++per_bank[static_cast<std::size_t>(ids[static_cast<std::size_t>(i)] % dev.smem_banks)]);
        r.wavefronts += degree;
        r.ideal_wavefronts += 1;
        r.conflict_ways = std::max(r.conflict_ways, degree);
      }
    }
    return r;
  }

  // One step: serial round `round`, part `part` of each group, every warp.
  // Groups start at `round_start + thread*V` in the flat space of loop axes
  // first..depth-1 (of `domain` points); `base` is the byte address of that
  // space's origin. Totals are weighted by `weight`.
  void step(int64_t round, int64_t part, std::size_t first, int64_t round_start, int64_t domain, int64_t base,
            long double weight) {
    const int64_t warp = dev.warp_size;
    const int64_t part_bytes = part * w * s.axis[depth - 1] * elem_bytes;
    std::array<int64_t, 64> addr{}, lanes{};
    for (int64_t w0 = 0; w0 < threads; w0 += warp) {
      std::size_t m = 0;
      for (int64_t t = w0; t < std::min(w0 + warp, threads); ++t) {
        int64_t te = t;
        if (thread_extent < threads) {  // fewer groups than threads
          if (t >= thread_extent * replicas) continue;
          te = t % thread_extent;
        }
        const int64_t start = round_start + te * vector;
        if (start >= domain) continue;
        addr[m] = address(first, start, base) + part_bytes;
        lanes[m] = t - w0;
        ++m;
      }
      if (m == 0) continue;
      WarpAccess a = cost(std::span(addr.data(), m), std::span(lanes.data(), m));
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
      if (listing) listing->push_back(a);
    }
  }
};

// Residues of the outer loop axes' byte offset modulo `modulus`: how many
// outer index tuples land on each residue, and the smallest outer flat index
// that does (to name a representative round).
struct ResidueClasses {
  std::vector<int64_t> count, first;
};

ResidueClasses outer_residues(const LoopNest& n, const Strides& s, std::size_t outer, int64_t elem_bytes,
                              int64_t modulus) {
  constexpr int64_t kNone = std::numeric_limits<int64_t>::max();
  ResidueClasses rc{std::vector<int64_t>(static_cast<std::size_t>(modulus), 0),
                    std::vector<int64_t>(static_cast<std::size_t>(modulus), kNone)};
  const int64_t start = (s.origin % modulus) * (elem_bytes % modulus) % modulus;
  rc.count[static_cast<std::size_t>(start)] = 1;
  rc.first[static_cast<std::size_t>(start)] = 0;
  for (std::size_t k = 0; k < outer; ++k) {
    const int64_t e = n.extents[k];
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

}  // namespace

MemoryReport analyze_memory(const LoopNest& n, const Access& acc, const Device& dev, bool list) {
  const LoopSummary sum = summarize(n, dev);
  Analyzer az(n, acc, dev, sum);
  const int64_t bank_row = dev.smem_banks * dev.smem_bank_bytes;

  MemoryReport rep;
  rep.scope = acc.scope;
  rep.elem_bytes = acc.elem_bytes;
  rep.access_elems = az.w;
  rep.access_bytes = az.access_bytes;
  rep.parts = az.parts;
  rep.contiguous = az.s.axis[az.depth - 1] == 1;
  rep.phase_threads = acc.scope == MemoryScope::shared ? az.phase_threads : 0;
  rep.rounds_total = sum.rounds;
  if (list) az.listing = &rep.listing;

  const int64_t tv = n.threads * n.vector;
  const int64_t base = az.s.origin * acc.elem_bytes;
  const int64_t per_step = n.threads;  // thread accesses in one step
  const int64_t steps = sum.rounds * az.parts;
  const __int128 direct_cost = static_cast<__int128>(steps) * per_step;

  // A periodic decomposition: the smallest suffix block of loop axes m..k-1
  // holding a whole number of rounds. Rounds at the same position in the block
  // whose outer offsets agree modulo the memory system's period cost the same.
  const int64_t modulus =
      std::lcm(std::lcm(dev.mem_sector_bytes, dev.cache_line_bytes), bank_row);
  std::size_t m = 0;
  int64_t block = 1;
  {
    int64_t p = 1;
    for (std::size_t k = az.depth; k-- > 1;) {
      p *= n.extents[k];
      if (p % tv == 0 && sum.groups >= n.threads) {
        m = k;
        block = p;
        break;
      }
    }
  }
  ResidueClasses rc;
  __int128 periodic_cost = std::numeric_limits<int64_t>::max();
  int64_t classes = 0;
  if (m > 0 && !list) {
    rc = outer_residues(n, az.s, m, acc.elem_bytes, modulus);
    for (int64_t c : rc.count) classes += c > 0;
    periodic_cost = static_cast<__int128>(block / tv) * classes * az.parts * per_step;
  }

  if (list || std::min(direct_cost, periodic_cost) <= kAnalysisBudget) {
    if (list || direct_cost <= periodic_cost) {
      for (int64_t r = 0; r < sum.rounds; ++r)
        for (int64_t j = 0; j < az.parts; ++j) az.step(r, j, 0, r * tv, sum.points, base, 1);
      rep.rounds_analyzed = sum.rounds;
    } else {
      const int64_t positions = block / tv;
      for (int64_t c = 0; c < modulus; ++c) {
        const auto ci = static_cast<std::size_t>(c);
        if (rc.count[ci] == 0) continue;
        for (int64_t p = 0; p < positions; ++p)
          for (int64_t j = 0; j < az.parts; ++j)
            az.step(rc.first[ci] * positions + p, j, m, p * tv, block, c, rc.count[ci]);
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

  // Instruction and byte counts are exact in every mode (docs/loop.md).
  const int64_t exact_instructions =
      az.parts * ((sum.rounds - 1) * ceil_div(n.threads, dev.warp_size) + ceil_div(sum.last_round_threads, dev.warp_size));
  const int64_t exact_bytes = sum.points * sum.replicas * acc.elem_bytes;
  auto rounded = [](long double v) { return static_cast<int64_t>(std::llround(v)); };
  assert(!rep.exact || (az.instructions == exact_instructions && az.bytes == exact_bytes));
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

// ---- comparing nest shapes --------------------------------------------------

std::vector<std::vector<int64_t>> reference_compare_shapes() { return {{64}, {32, 2}, {8, 8}, {2, 32}, {4, 4, 4}}; }

ShapeComparison compare_shape(const std::vector<int64_t>& extents, int64_t threads, int64_t vector,
                              int64_t first_threads, int64_t first_points) {
  LoopNest n;
  n.extents = extents;
  n.threads = threads;
  n.vector = vector;
  ShapeComparison c;
  c.extents = extents;
  c.points = total_points(n);
  c.threads_used = std::min(threads, c.points / vector);
  c.points_per_thread = c.points / threads;
  for (int64_t t = 0; t < std::min(first_threads, threads); ++t) {
    std::vector<std::vector<int64_t>>& owned = c.owned.emplace_back();
    for (int64_t slot = 0; slot < first_points; ++slot) {
      std::vector<int64_t> index(extents.size());
      if (!point_at(n, {t, slot}, index)) break;
      owned.push_back(std::move(index));
    }
  }
  return c;
}

}  // namespace tileplan
