#include "tileplan/loop_plan.hpp"

#include <algorithm>
#include <cassert>
#include <limits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "loop_internal.hpp"

namespace tileplan {
namespace {

// Product of v, or nothing when it exceeds int64.
std::optional<int64_t> checked_product(std::span<const int64_t> v) {
  int64_t p = 1;
  for (int64_t x : v) {
    if (x != 0 && p > std::numeric_limits<int64_t>::max() / x) return std::nullopt;
    p *= x;
  }
  return p;
}

}  // namespace

std::string list_text(std::span<const int64_t> v) { return fmt::format("{}", fmt::join(v, ",")); }

// ---- the nest and its plan ----------------------------------------------------

Status check_nest(const LoopNest& n) {
  if (n.extents.empty()) return loop_error("extents", "extents: give at least one extent");
  if (n.extents.size() > kMaxLoopDepth)
    return loop_error("extents", fmt::format("extents: {} loops; a nest may have at most {}", n.extents.size(), kMaxLoopDepth),
               ErrorKind::out_of_range);
  for (std::size_t k = 0; k < n.extents.size(); ++k)
    if (n.extents[k] < 1)
      return loop_error("extents", fmt::format("extents {}: e{} is {}; every extent must be at least 1", list_text(n.extents),
                                        k, n.extents[k]));
  if (!checked_product(n.extents))
    return loop_error("extents", fmt::format("extents {}: the nest has more than 2^63-1 points", list_text(n.extents)),
               ErrorKind::out_of_range);
  if (n.threads < 1) return loop_error("threads", fmt::format("threads {} must be at least 1", n.threads));
  if (n.threads > kMaxLoopThreads)
    return loop_error("threads", fmt::format("threads {} must be at most {}", n.threads, kMaxLoopThreads),
               ErrorKind::out_of_range);
  if (n.vector < 1) return loop_error("vector", fmt::format("vector {} must be at least 1", n.vector));
  if (n.vector > std::numeric_limits<int64_t>::max() / n.threads)
    return loop_error("threads", fmt::format("threads {} x vector {} does not fit in 63 bits", n.threads, n.vector),
               ErrorKind::out_of_range);
  const int64_t inner = n.extents.back();
  if (inner % n.vector != 0)
    return loop_error("vector", fmt::format("vector {} does not divide the innermost extent {}: a vector would straddle two "
                                     "rows; give a divisor of {} or auto",
                                     n.vector, inner, inner));
  return {};
}

LoopPlan::LoopPlan() : nest_(), points_(*checked_product(nest_.extents)) { assert(check_nest(nest_).ok()); }

Result<LoopPlan> make_plan(const LoopNest& nest) {
  if (Status s = check_nest(nest); !s) return s;
  return LoopPlan(nest, *checked_product(nest.extents));
}

// ---- points ---------------------------------------------------------------------

void unflatten_unchecked(const LoopPlan& plan, int64_t flat, std::span<int64_t> out) {
  const std::vector<int64_t>& extents = plan.extents();
  assert(out.size() == extents.size() && flat >= 0 && flat < plan.points());
  for (std::size_t k = extents.size(); k-- > 0;) {
    out[k] = flat % extents[k];
    flat /= extents[k];
  }
}

bool unflatten(const LoopPlan& plan, int64_t flat, std::span<int64_t> out) {
  if (out.size() != plan.depth() || flat < 0 || flat >= plan.points()) return false;
  unflatten_unchecked(plan, flat, out);
  return true;
}

ThreadSlot place_flat_unchecked(const LoopPlan& plan, int64_t flat) {
  assert(flat >= 0 && flat < plan.points());
  const int64_t vector = plan.vector();
  const int64_t group = flat / vector;
  return {group % plan.threads(), (group / plan.threads()) * vector + flat % vector};
}

std::optional<int64_t> flat_at(const LoopPlan& plan, ThreadSlot ts) {
  const int64_t threads = plan.threads();
  const int64_t vector = plan.vector();
  const int64_t groups = plan.groups();
  int64_t thread = ts.thread;
  if (thread < 0 || thread >= threads || ts.slot < 0) return std::nullopt;
  if (groups < threads) {
    const int64_t replicas = plan.replicate() ? threads / groups : 1;
    if (thread >= groups * replicas) return std::nullopt;
    thread %= groups;
  }
  const int64_t round = ts.slot / vector;
  if (round >= ceil_div(groups, threads)) return std::nullopt;
  const int64_t group = round * threads + thread;  // < ceil(G/T)*T <= G + T
  if (group >= groups) return std::nullopt;
  return group * vector + ts.slot % vector;  // < N
}

bool point_at(const LoopPlan& plan, ThreadSlot ts, std::span<int64_t> out) {
  if (out.size() != plan.depth()) return false;
  const std::optional<int64_t> flat = flat_at(plan, ts);
  if (!flat) return false;
  unflatten_unchecked(plan, *flat, out);
  return true;
}

Status enumerate(const LoopPlan& plan, int64_t first, std::span<ThreadSlot> out) {
  const int64_t count = static_cast<int64_t>(out.size());
  if (first < 0 || first > plan.points() || count > plan.points() - first)
    return loop_error("first",
               fmt::format("first {}: points {}..{}+{} are not all in the nest's 0..{}", first, first, first, count,
                           plan.points() - 1),
               ErrorKind::out_of_range);
  const int64_t vector = plan.vector();
  const int64_t threads = plan.threads();
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
    return {};
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
  return {};
}

// ---- the summary -----------------------------------------------------------------

LoopSummary summarize_unchecked(const LoopPlan& plan, int64_t warp_size) {
  assert(warp_size >= 1);
  LoopSummary s;
  const int64_t t = plan.threads();
  const int64_t v = plan.vector();
  s.points = plan.points();
  s.groups = plan.groups();
  if (s.groups >= t) {
    s.thread_extent = t;
    s.rounds = ceil_div(s.groups, t);
    s.last_round_threads = s.groups - (s.rounds - 1) * t;
  } else {
    s.thread_extent = s.groups;
    s.replicas = plan.replicate() ? t / s.groups : 1;
    s.rounds = 1;
    s.last_round_threads = s.groups * s.replicas;
  }
  // Every product below is at most N + T*V or T*V, both checked by check_nest
  // to fit (rounds*V <= (G/T + 1)*V).
  s.threads_with_work = s.thread_extent * s.replicas;
  s.idle_threads = t - s.threads_with_work;
  s.masked_threads = t - s.last_round_threads;
  s.masked_lanes = s.masked_threads * v;
  s.points_per_thread_max = s.rounds * v;
  s.points_per_thread_min = s.masked_threads > 0 ? (s.rounds - 1) * v : s.rounds * v;
  s.slots_per_thread = s.rounds * v;
  s.warps = ceil_div(t, warp_size);
  s.warps_with_work = ceil_div(s.threads_with_work, warp_size);
  s.partial_last_round = s.groups > t && s.groups % t != 0;
  s.guard = s.masked_threads > 0;
  return s;
}

Result<LoopSummary> summarize(const LoopPlan& plan, const Device& dev) {
  if (dev.warp_size < 1)
    return loop_error("warp_size", fmt::format("warp_size {} of device '{}' must be at least 1", dev.warp_size, dev.name));
  return summarize_unchecked(plan, dev.warp_size);
}

// ---- comparing nest shapes --------------------------------------------------

std::vector<std::vector<int64_t>> reference_compare_shapes() { return {{64}, {32, 2}, {8, 8}, {2, 32}, {4, 4, 4}}; }

Result<ShapeComparison> compare_shape(const std::vector<int64_t>& extents, int64_t threads, int64_t vector,
                                      int64_t first_threads, int64_t first_points) {
  if (first_threads < 0 || first_points < 0 ||
      (first_points > 0 && first_threads > kMaxComparedPoints / first_points)) {
    const bool threads_bad = first_threads < 0 || (first_points >= 0 && first_threads > kMaxComparedPoints);
    const std::string_view param = threads_bad ? "first_threads" : "first_points";
    return loop_error(param,
               fmt::format("{} {}: first_threads {} x first_points {} must be between 0 and {}", param,
                           threads_bad ? first_threads : first_points, first_threads, first_points, kMaxComparedPoints),
               ErrorKind::out_of_range);
  }
  LoopNest n;
  n.extents = extents;
  n.threads = threads;
  n.vector = vector;
  Result<LoopPlan> plan = make_plan(n);
  if (!plan) return plan.error();
  ShapeComparison c;
  c.extents = extents;
  c.points = plan->points();
  c.threads_used = std::min(threads, plan->groups());
  c.points_per_thread = c.points / threads;
  for (int64_t t = 0; t < std::min(first_threads, threads); ++t) {
    std::vector<std::vector<int64_t>>& owned = c.owned.emplace_back();
    for (int64_t slot = 0; slot < first_points; ++slot) {
      std::vector<int64_t> index(extents.size());
      if (!point_at(*plan, {t, slot}, index)) break;
      owned.push_back(std::move(index));
    }
  }
  return c;
}

}  // namespace tileplan
