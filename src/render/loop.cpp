#include "tileplan/render/loop.hpp"

#include <algorithm>
#include <array>
#include <cassert>
#include <charconv>
#include <cmath>
#include <iterator>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tileplan/render/tile.hpp"
#include "../loop_internal.hpp"

namespace tileplan::render {
namespace {

using Out = std::back_insert_iterator<std::string>;

// Collects output and hands it to the sink in pieces of about kPiece bytes.
class Writer {
 public:
  explicit Writer(const Sink& sink) : sink_(sink) {}
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;
  std::string s;
  void flush_if_full() {
    if (s.size() >= kPiece) flush();
  }
  void flush() {
    if (!s.empty()) sink_(s);
    s.clear();
  }

 private:
  static constexpr std::size_t kPiece = std::size_t{1} << 16;
  const Sink& sink_;
};

std::string tuple_text(std::span<const int64_t> v) { return fmt::format("({})", fmt::join(v, ", ")); }

// The listings write up to 2^24 lines: their fields are appended by hand,
// byte for byte what the fmt patterns beside them give.
void append_int(std::string& s, int64_t v) {
  std::array<char, 24> buf;
  const auto end = std::to_chars(buf.data(), buf.data() + buf.size(), v).ptr;
  s.append(buf.data(), end);
}

// fmt "{:>width}" of an integer.
void append_right(std::string& s, int64_t v, std::size_t width) {
  const std::size_t start = s.size();
  append_int(s, v);
  const std::size_t len = s.size() - start;
  if (len < width) s.insert(start, width - len, ' ');
}

// tuple_text(v) appended: "(1, 2, 3)".
void append_tuple(std::string& s, std::span<const int64_t> v) {
  s += '(';
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) s += ", ";
    append_int(s, v[i]);
  }
  s += ')';
}

// "{},{},..." of v.
void append_list(std::string& s, std::span<const int64_t> v) {
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) s += ',';
    append_int(s, v[i]);
  }
}

// Every point in flat order: visit(index, flat, (thread, slot)). The plan's
// enumerate in chunks and an index that advances like an odometer, innermost
// fastest: no division per point.
template <class Visit>
void each_point(const LoopPlan& n, Visit&& visit) {
  std::vector<int64_t> idx(n.depth(), 0);
  std::vector<ThreadSlot> ts(static_cast<std::size_t>(std::min<int64_t>(n.points(), 4096)));
  for (int64_t f0 = 0; f0 < n.points(); f0 += static_cast<int64_t>(ts.size())) {
    const auto size = static_cast<std::size_t>(std::min<int64_t>(static_cast<int64_t>(ts.size()), n.points() - f0));
    const std::span<ThreadSlot> chunk(ts.data(), size);
    [[maybe_unused]] const Status listed = enumerate(n, f0, chunk);
    assert(listed.ok());
    for (std::size_t i = 0; i < size; ++i) {
      visit(std::span<const int64_t>(idx), f0 + static_cast<int64_t>(i), chunk[i]);
      for (std::size_t k = idx.size(); k-- > 0;) {
        if (++idx[k] < n.extents()[k]) break;
        idx[k] = 0;
      }
    }
  }
}

std::string nest_text(const LoopPlan& n) { return "T.Parallel" + tuple_text(n.extents()); }

std::string access_text(const Access& a) {
  std::vector<std::string> idx;
  for (int64_t p : a.perm) idx.push_back(fmt::format("i{}", p));
  return fmt::format("buf[{}]", fmt::join(idx, ", "));
}

std::string shape_text(const std::vector<int64_t>& v) { return fmt::format("{}", fmt::join(v, "x")); }

std::string percent(double x) { return fmt::format("{:.1f}%", 100.0 * x); }

std::string count_of(int64_t n, std::string_view what) { return fmt::format("{} {}{}", n, what, n == 1 ? "" : "s"); }

// flat = i0*s0 + i1*s1 + ... with row-major strides, as text.
std::string flat_formula(const LoopPlan& n) {
  std::vector<std::string> terms;
  int64_t stride = 1;
  for (std::size_t k = n.depth(); k-- > 0;) {
    terms.push_back(stride == 1 ? fmt::format("i{}", k) : fmt::format("i{}*{}", k, stride));
    if (k > 0) stride *= n.extents()[k];  // a suffix product: at most N
  }
  std::reverse(terms.begin(), terms.end());
  return fmt::format("{}", fmt::join(terms, " + "));
}

void plan_text(std::string& s, const LoopReport& r) {
  Out o(s);
  const LoopPlan& n = r.plan;
  const LoopSummary& m = r.summary;
  fmt::format_to(o, "{}: {} threads, vector {}{}\n", nest_text(n), n.threads(), n.vector(),
                 n.replicate() ? ", replicated (fragment buffer in the body)" : "");
  fmt::format_to(o, "  {} points = {} vector groups of {} = {} round{} of up to {} threads\n", m.points, m.groups,
                 n.vector(), m.rounds, m.rounds == 1 ? "" : "s", n.threads());
  if (r.vector_choice) {
    const VectorChoice& c = *r.vector_choice;
    const std::string fill = m.points % (n.threads() * c.vector) == 0
                                 ? fmt::format("{} x {} divides {}", n.threads(), c.vector, m.points)
                                 : fmt::format("no {} x v divides {} for v > 1", n.threads(), m.points);
    fmt::format_to(o,
                   "  vector auto ({}): {} bits / {} = {}; gcd with innermost extent {} = {}; adjacent and aligned in "
                   "the buffer: {}; {}: {}\n",
                   r.dtype, r.device->max_vector_access_bytes * 8, r.access.elem_bytes * 8, c.widest, n.extents().back(),
                   c.by_extent, c.by_access, fill, c.vector);
  }
  std::vector<std::string> idx;
  for (std::size_t k = 0; k < n.depth(); ++k) idx.push_back(fmt::format("i{}", k));
  fmt::format_to(o, "\nplan: ({}) -> (thread, slot)\n", fmt::join(idx, ", "));
  fmt::format_to(o, "  flat   = {}\n", flat_formula(n));
  fmt::format_to(o, "  thread = (flat / {}) % {}\n", n.vector(), n.threads());
  fmt::format_to(o, "  slot   = (flat / {})*{} + flat % {}\n", n.threads() * n.vector(), n.vector(), n.vector());
}

void threads_text(std::string& s, const LoopReport& r) {
  Out o(s);
  const LoopPlan& n = r.plan;
  const LoopSummary& m = r.summary;
  s += "\nthreads\n";
  const int64_t with_max = m.masked_threads > 0 ? m.last_round_threads : n.threads();
  std::string per = fmt::format("{} on {} thread{}", m.points_per_thread_max, with_max, with_max == 1 ? "" : "s");
  if (m.masked_threads > 0)
    per += fmt::format(", {} on {}", m.points_per_thread_min, m.masked_threads);
  fmt::format_to(o, "  {:<22}{}  (mean {}/{} = {:g})\n", "points per thread", per, m.points, n.threads(),
                 static_cast<double>(m.points) / static_cast<double>(n.threads()));
  fmt::format_to(o, "  {:<22}{} round{} of one {}-wide vector; {} slots of local storage per thread\n", "serial steps",
                 m.rounds, m.rounds == 1 ? "" : "s", n.vector(), m.slots_per_thread);
  fmt::format_to(o, "  {:<22}{} of {} (warps: {} of {})\n", "threads with work", m.threads_with_work, n.threads(),
                 m.warps_with_work, m.warps);
  fmt::format_to(o, "  {:<22}{}\n", "idle threads",
                 m.idle_threads == 0 ? std::string("0")
                                     : fmt::format("{} (threads {}..{} hold no point)", m.idle_threads,
                                                   m.threads_with_work, n.threads() - 1));
  if (m.partial_last_round)
    fmt::format_to(o, "  {:<22}round {} has {} of {} threads: {} threads x {} lanes = {} lanes masked\n", "last round",
                   m.rounds - 1, m.last_round_threads, n.threads(), m.masked_threads, n.vector(), m.masked_lanes);
  else if (m.groups >= n.threads())
    fmt::format_to(o, "  {:<22}full ({} of {} threads)\n", "last round", n.threads(), n.threads());
  if (m.replicas > 1)
    fmt::format_to(o, "  {:<22}{}x: thread t runs the points of thread t % {}; shared/global stores run on t / {} == 0 only\n",
                   "replicas", m.replicas, m.thread_extent, m.thread_extent);
  std::string guard;
  if (!m.guard)
    guard = m.replicas > 1 ? fmt::format("none: {} replicas x {} threads fill the block", m.replicas, m.thread_extent)
                           : fmt::format("none: {} groups = {} round{} x {} threads", m.groups, m.rounds,
                                         m.rounds == 1 ? "" : "s", n.threads());
  else if (m.partial_last_round)
    guard = fmt::format("needed: thread t runs round r only while r*{} + t < {} ({} lanes masked in the last round)",
                        n.threads(), m.groups, m.masked_lanes);
  else
    guard = fmt::format("needed: only threads t < {} run ({} idle threads, {} masked lanes)", m.threads_with_work,
                        m.idle_threads, m.masked_lanes);
  fmt::format_to(o, "  {:<22}{}\n", "guard", guard);
  if (!n.replicate() && m.groups < n.threads() && n.threads() / m.groups > 1)
    fmt::format_to(o, "  {:<22}a body that touches a fragment buffer is replicated {}x instead (--replicate)\n", "",
                   n.threads() / m.groups);
}

void memory_text(std::string& s, const LoopReport& r) {
  Out o(s);
  const MemoryReport& m = r.memory;
  const Access& a = r.access;
  fmt::format_to(o, "\nmemory: {} of a {} {} buffer {}, box origin {}\n", access_text(a), r.dtype, to_string(a.scope),
                 shape_text(a.buffer_shape), tuple_text(a.origin));
  fmt::format_to(o, "  {:<22}{} B per thread per instruction ({} element{}{}); {} instruction{} per vector group\n",
                 "access", m.access_bytes, m.access_elems, m.access_elems == 1 ? "" : "s",
                 m.contiguous ? "" : ", lanes not adjacent in the buffer", m.parts, m.parts == 1 ? "" : "s");
  fmt::format_to(o, "  {:<22}{} warp-wide\n", "instructions", m.instructions);
  fmt::format_to(o, "  {:<22}{}\n", "bytes requested", m.bytes_requested);
  const double per = m.instructions ? static_cast<double>(m.sectors) / static_cast<double>(m.instructions) : 0.0;
  fmt::format_to(o, "  {:<22}{} ({:.2f} per instruction)\n",
                 fmt::format("sectors ({} B)", r.device->mem_sector_bytes), m.sectors, per);
  fmt::format_to(o, "  {:<22}{}\n", fmt::format("lines ({} B)", r.device->cache_line_bytes), m.lines);
  if (a.scope == MemoryScope::shared) {
    fmt::format_to(o, "  {:<22}{} ({} ideal); {} threads per phase, {} phase{} per instruction\n", "wavefronts",
                   m.wavefronts, m.ideal_wavefronts, m.phase_threads,
                   (r.device->warp_size + m.phase_threads - 1) / m.phase_threads,
                   m.phase_threads >= r.device->warp_size ? "" : "s");
    fmt::format_to(o, "  {:<22}{}-way (worst instruction)\n", "bank conflicts", m.conflict_ways);
  }
  fmt::format_to(o, "  {:<22}{} of the bytes moved are used\n", "efficiency", percent(m.efficiency));
  const WarpAccess& w = m.worst;
  std::string worst = fmt::format("round {}, warp {}{}: {}, {} B, {}, {}", w.round, w.warp,
                                  m.parts > 1 ? fmt::format(", part {}", w.part) : "", count_of(w.threads, "thread"),
                                  w.bytes, count_of(w.sectors, "sector"), count_of(w.lines, "line"));
  if (a.scope == MemoryScope::shared)
    worst += fmt::format(", {}, {}-way", count_of(w.wavefronts, "wavefront"), w.conflict_ways);
  fmt::format_to(o, "  {:<22}{}\n", "worst instruction", worst);
  std::vector<std::string> hist;
  for (const auto& [k, v] : m.sectors_histogram) hist.push_back(fmt::format("{} x {}", count_of(k, "sector"), v));
  fmt::format_to(o, "  {:<22}{}\n", "sectors/instruction", fmt::join(hist, ", "));
  if (!m.exact)
    fmt::format_to(o, "  {:<22}sectors and lines estimated from {} of {} rounds (evenly spaced; rounds never repeat)\n",
                   "note", m.rounds_analyzed, m.rounds_total);
}

// Every point in flat order, then the threads' points in slot order: at most
// kMaxListedPoints (thread, point) pairs (make_loop_report), streamed.
void points_text(Writer& w, const LoopReport& r) {
  std::string& s = w.s;
  Out o(s);
  const LoopPlan& n = r.plan;
  const LoopSummary& m = r.summary;
  s += "\npoints: index -> (thread, slot), in flat order\n";
  fmt::format_to(o, "  {:<20} {:>8} {:>7} {:>6}\n", "index", "flat", "thread", "slot");
  each_point(n, [&](std::span<const int64_t> index, int64_t flat, ThreadSlot ts) {
    // "  {:<20} {:>8} {:>7} {:>6}\n": index, flat, thread, slot.
    s += "  ";
    const std::size_t start = s.size();
    append_tuple(s, index);
    if (s.size() - start < 20) s.append(20 - (s.size() - start), ' ');
    s += ' ';
    append_right(s, flat, 8);
    s += ' ';
    append_right(s, ts.thread, 7);
    s += ' ';
    append_right(s, ts.slot, 6);
    s += '\n';
    w.flush_if_full();
  });
  std::vector<int64_t> idx(n.depth());
  s += "\nby thread: points in slot order (index@slot)\n";
  std::vector<int64_t> shown;
  if (r.list_points) {
    for (int64_t t = 0; t < n.threads(); ++t) shown.push_back(t);
  } else {
    shown = {0};
    if (n.threads() > 1) shown.push_back(1);
    if (m.thread_extent - 1 > 1) shown.push_back(m.thread_extent - 1);
  }
  for (int64_t t : shown) {
    fmt::format_to(o, "  thread {:>4}:", t);
    int64_t count = 0;
    // Threads past the ones with work hold no point in any slot.
    for (int64_t slot = 0; t < m.threads_with_work && slot < m.slots_per_thread; ++slot) {
      if (!point_at(n, {t, slot}, idx)) continue;
      if (count < 8 || r.list_points) {
        s += ' ';  // " {}@{}"
        append_tuple(s, idx);
        s += '@';
        append_int(s, slot);
        w.flush_if_full();
      }
      ++count;
    }
    if (count > 8 && !r.list_points) fmt::format_to(o, " ... (+{})", count - 8);
    if (count == 0) s += " (idle)";
    s += '\n';
    w.flush_if_full();
  }
}

void warp_access_json(std::string& s, const WarpAccess& w, bool shared) {
  const auto field = [&s](std::string_view key, int64_t v) {
    s += key;
    append_int(s, v);
  };
  field("{\"round\":", w.round);
  field(",\"warp\":", w.warp);
  field(",\"part\":", w.part);
  field(",\"threads\":", w.threads);
  field(",\"bytes\":", w.bytes);
  field(",\"sectors\":", w.sectors);
  field(",\"lines\":", w.lines);
  if (shared) {
    field(",\"wavefronts\":", w.wavefronts);
    field(",\"ideal_wavefronts\":", w.ideal_wavefronts);
    field(",\"bank_conflict_ways\":", w.conflict_ways);
  }
  s += '}';
}

void histogram_json(std::string& s, const std::vector<std::pair<int64_t, int64_t>>& h) {
  Out o(s);
  s += '[';
  for (std::size_t i = 0; i < h.size(); ++i) fmt::format_to(o, "{}[{},{}]", i ? "," : "", h[i].first, h[i].second);
  s += ']';
}

}  // namespace

namespace {

// Whether the report lists, given V / w instructions per group: the
// every-round analysis behind a listing visits G * replicas * parts thread
// accesses; listing on request stops at kMaxListedPoints pairs.
bool lists(const LoopReport& r, LoopFormat format, int64_t parts) {
  const LoopSummary& m = r.summary;
  if (static_cast<__int128>(m.groups) * m.replicas * parts > kMaxEveryRoundAccesses) return false;
  if (r.list_points) return static_cast<__int128>(m.points) * m.replicas <= kMaxListedPoints;
  return m.points <= (format == LoopFormat::json ? kJsonPointsLimit : kTextPointsLimit);
}

}  // namespace

bool lists_points(const LoopReport& r, LoopFormat format) { return lists(r, format, r.memory.parts); }

Result<LoopReport> make_loop_report(const Device& dev, const LoopPlan& plan, const Access& access,
                                    LoopReportOptions options) {
  Result<LoopSummary> summary = summarize(plan, dev);
  if (!summary) return summary.error();
  const Result<int64_t> w = access_elems(plan, access, dev);
  if (!w) return w.error();
  LoopReport r;
  r.device = &dev;
  r.plan = plan;
  r.summary = *summary;
  r.vector_choice = options.vector_choice;
  r.dtype = std::move(options.dtype);
  r.access = access;
  r.list_points = options.list_points;
  const int64_t pairs = r.summary.points * r.summary.replicas;  // <= max(N, T*V): fits
  if (options.list_points && pairs > kMaxListedPoints) {
    if (r.summary.replicas == 1)
      return Error{ErrorKind::out_of_range, "list_points",
                   fmt::format("list_points: the nest has {} points; listing is limited to {}", r.summary.points,
                               kMaxListedPoints)};
    return Error{ErrorKind::out_of_range, "list_points",
                 fmt::format("list_points: the nest has {} points x {} replicas = {} (thread, point) pairs; listing is "
                             "limited to {}",
                             r.summary.points, r.summary.replicas, pairs, kMaxListedPoints)};
  }
  const bool every_round = options.format != LoopFormat::svg && lists(r, options.format, plan.vector() / *w);
  Result<MemoryReport> memory =
      analyze_memory(plan, access, dev, every_round ? MemoryAnalysis::every_round : MemoryAnalysis::fastest);
  if (!memory) return memory.error();
  r.memory = std::move(*memory);
  return r;
}

void loop_text(const LoopReport& r, const Sink& sink) {
  Writer w(sink);
  plan_text(w.s, r);
  threads_text(w.s, r);
  memory_text(w.s, r);
  if (lists_points(r, LoopFormat::text)) points_text(w, r);
  w.flush();
}

std::string loop_text(const LoopReport& r) {
  std::string out;
  loop_text(r, [&out](std::string_view piece) { out += piece; });
  return out;
}

void loop_json(const LoopReport& r, const Sink& sink) {
  Writer w(sink);
  std::string& s = w.s;
  const LoopPlan& n = r.plan;
  const LoopSummary& m = r.summary;
  const MemoryReport& mem = r.memory;
  const bool shared = r.access.scope == MemoryScope::shared;
  Out o(s);
  fmt::format_to(o, "{{\"nest\":{{\"extents\":[{}],\"threads\":{},\"vector\":{},\"replicate\":{}", fmt::join(n.extents(), ","),
                 n.threads(), n.vector(), n.replicate());
  if (r.vector_choice)
    fmt::format_to(o, ",\"vector_auto\":{{\"widest\":{},\"by_extent\":{},\"by_access\":{},\"vector\":{}}}",
                   r.vector_choice->widest, r.vector_choice->by_extent, r.vector_choice->by_access,
                   r.vector_choice->vector);
  s += "},\"plan\":{\"flat\":";
  append_json_string(s, flat_formula(n));
  fmt::format_to(o, ",\"thread\":\"(flat / {}) % {}\",\"slot\":\"(flat / {})*{} + flat % {}\"}}", n.vector(), n.threads(),
                 n.threads() * n.vector(), n.vector(), n.vector());
  fmt::format_to(o,
                 ",\"summary\":{{\"points\":{},\"groups\":{},\"thread_extent\":{},\"replicas\":{},"
                 "\"threads_with_work\":{},\"idle_threads\":{},\"rounds\":{},\"last_round_threads\":{},"
                 "\"masked_threads\":{},\"masked_lanes\":{},\"points_per_thread_max\":{},\"points_per_thread_min\":{},"
                 "\"points_per_thread_mean\":{},\"slots_per_thread\":{},\"warps\":{},\"warps_with_work\":{},"
                 "\"partial_last_round\":{},\"guard\":{}}}",
                 m.points, m.groups, m.thread_extent, m.replicas, m.threads_with_work, m.idle_threads, m.rounds,
                 m.last_round_threads, m.masked_threads, m.masked_lanes, m.points_per_thread_max,
                 m.points_per_thread_min, static_cast<double>(m.points) / static_cast<double>(n.threads()),
                 m.slots_per_thread, m.warps, m.warps_with_work, m.partial_last_round, m.guard);
  s += ",\"memory\":{\"scope\":";
  append_json_string(s, to_string(r.access.scope));
  s += ",\"dtype\":";
  append_json_string(s, r.dtype);
  fmt::format_to(o,
                 ",\"elem_bytes\":{},\"buffer_shape\":[{}],\"access\":[{}],\"origin\":[{}],\"access_elems\":{},"
                 "\"access_bytes\":{},\"parts\":{},\"contiguous\":{},\"instructions\":{},\"bytes_requested\":{},"
                 "\"sectors\":{},\"lines\":{},\"efficiency\":{}",
                 mem.elem_bytes, fmt::join(r.access.buffer_shape, ","), fmt::join(r.access.perm, ","),
                 fmt::join(r.access.origin, ","), mem.access_elems, mem.access_bytes, mem.parts, mem.contiguous,
                 mem.instructions, mem.bytes_requested, mem.sectors, mem.lines, mem.efficiency);
  if (shared)
    fmt::format_to(o, ",\"phase_threads\":{},\"wavefronts\":{},\"ideal_wavefronts\":{},\"bank_conflict_ways\":{}",
                   mem.phase_threads, mem.wavefronts, mem.ideal_wavefronts, mem.conflict_ways);
  s += ",\"worst\":";
  warp_access_json(s, mem.worst, shared);
  s += ",\"sectors_histogram\":";
  histogram_json(s, mem.sectors_histogram);
  if (shared) {
    s += ",\"wavefronts_histogram\":";
    histogram_json(s, mem.wavefronts_histogram);
  }
  fmt::format_to(o, ",\"exact\":{},\"rounds_total\":{},\"rounds_analyzed\":{}", mem.exact, mem.rounds_total,
                 mem.rounds_analyzed);
  const bool listed = lists_points(r, LoopFormat::json);
  if (listed) {
    // Every instruction again, in issue order: at most kMaxListedPoints thread accesses.
    s += ",\"per_instruction\":[";
    bool first = true;
    for_each_instruction_unchecked(n, r.access, *r.device, [&](const WarpAccess& a) {
      if (!first) s += ',';
      first = false;
      warp_access_json(s, a, shared);
      w.flush_if_full();
    });
    s += ']';
  }
  s += '}';
  if (listed) {
    s += ",\"points\":[";
    each_point(n, [&](std::span<const int64_t> index, int64_t flat, ThreadSlot ts) {
      // "{}{{\"index\":[{}],\"thread\":{},\"slot\":{}}}"
      s += flat ? ",{\"index\":[" : "{\"index\":[";
      append_list(s, index);
      s += "],\"thread\":";
      append_int(s, ts.thread);
      s += ",\"slot\":";
      append_int(s, ts.slot);
      s += '}';
      w.flush_if_full();
    });
    s += ']';
  }
  s += "}\n";
  w.flush();
}

std::string loop_json(const LoopReport& r) {
  std::string out;
  loop_json(r, [&out](std::string_view piece) { out += piece; });
  return out;
}

// ---- SVG -------------------------------------------------------------------

namespace {

// A hue per thread that keeps neighbours apart (golden angle), lighter on odd warps.
std::string thread_colour(int64_t thread, int64_t warp_size) {
  const double hue = std::fmod(static_cast<double>(thread) * 137.508, 360.0);
  const int light = (thread / warp_size) % 2 ? 78 : 62;
  return fmt::format("hsl({:.0f},70%,{}%)", hue, light);
}

void xml_text(std::string& s, std::string_view t) {
  for (char c : t) {
    switch (c) {
      case '<': s += "&lt;"; break;
      case '>': s += "&gt;"; break;
      case '&': s += "&amp;"; break;
      case '"': s += "&quot;"; break;
      default: s += c;
    }
  }
}

}  // namespace

std::string loop_svg(const LoopReport& r) {
  const LoopPlan& n = r.plan;
  const LoopSummary& m = r.summary;
  const int64_t warp_size = r.device->warp_size;
  // The grid: one row per outer index tuple, one column per innermost index.
  // A 1-D nest longer than the side wraps after one warp's vectors. Positions
  // in the grid are 128-bit: a row of warp_size * V points can pass 2^63.
  __int128 cols = n.extents().back();
  const bool wrapped = n.depth() == 1 && cols > kSvgCellsPerSide;
  if (wrapped) cols = static_cast<__int128>(warp_size) * n.vector();
  const auto rows = static_cast<int64_t>((m.points + cols - 1) / cols);  // at most N
  const int64_t unit = cols <= kSvgCellsPerSide ? 1 : n.vector();        // points per cell
  const auto units_per_row = static_cast<int64_t>(cols / unit);           // the extent, or warp_size
  const int64_t cell_cols = std::min(units_per_row, kSvgCellsPerSide);
  const int64_t cell_rows = std::min(rows, kSvgCellsPerSide);
  const bool corner = cell_cols < units_per_row || cell_rows < rows;

  const int cell = 22;
  const int left = 132, top = 92, pad = 16;
  const int64_t width = std::max<int64_t>(left + cell_cols * cell + pad, 760);  // room for the captions
  const int64_t height = top + cell_rows * cell + pad + 20;
  std::string s;
  Out o(s);
  fmt::format_to(o,
                 "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" "
                 "font-family=\"DejaVu Sans, Arial, sans-serif\">\n",
                 width, height, width, height);
  s += "<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  std::string title = fmt::format("{}: {} threads, vector {}: {} points, {} round{}", nest_text(n), n.threads(), n.vector(),
                                  m.points, m.rounds, m.rounds == 1 ? "" : "s");
  std::string legend = unit == 1 ? "colour: thread · thick lines: warp boundaries · number: slot"
                                 : fmt::format("one cell = one vector group of {} points · colour: thread · "
                                               "thick lines: warp boundaries · number: first slot",
                                               n.vector());
  std::string note;
  if (corner)
    note = fmt::format("top-left corner: rows 0..{} of {}, {} 0..{} of {}", cell_rows - 1, rows,
                       unit == 1 ? "columns" : "groups", cell_cols - 1, units_per_row);
  else if (wrapped)
    note = fmt::format("1-D nest wrapped every {} points (one warp's vectors)", cols);
  if (m.idle_threads > 0)
    note += fmt::format("{}threads {}..{} idle: guard t < {}", note.empty() ? "" : " · ", m.threads_with_work,
                        n.threads() - 1, m.threads_with_work);
  else if (m.partial_last_round)
    note += fmt::format("{}last round: {} of {} threads, {} lanes masked", note.empty() ? "" : " · ",
                        m.last_round_threads, n.threads(), m.masked_lanes);
  s += "<text x=\"8\" y=\"22\" font-size=\"15\" font-weight=\"bold\">";
  xml_text(s, title);
  s += "</text>\n<text x=\"8\" y=\"42\" font-size=\"12\">";
  xml_text(s, legend);
  s += "</text>\n<text x=\"8\" y=\"60\" font-size=\"12\" fill=\"#a00\">";
  xml_text(s, note);
  s += "</text>\n";

  // Column labels every 8 cells, row labels on every row.
  for (int64_t c = 0; c < cell_cols; c += 8)
    fmt::format_to(o, "<text x=\"{}\" y=\"{}\" font-size=\"9\" fill=\"#555\">{}</text>\n", left + c * cell + 2,
                   top - 6, static_cast<__int128>(c) * unit);
  std::vector<int64_t> idx(n.depth());
  auto flat_of = [&](int64_t row, int64_t col) { return row * cols + static_cast<__int128>(col) * unit; };
  for (int64_t rr = 0; rr < cell_rows; ++rr) {
    std::string label;
    if (flat_of(rr, 0) < m.points) {
      const auto f0 = static_cast<int64_t>(flat_of(rr, 0));
      unflatten_unchecked(n, f0, idx);
      if (wrapped)
        label = fmt::format("i0={}", f0);
      else if (idx.size() == 2)
        label = fmt::format("i0={}", idx[0]);
      else if (idx.size() > 2)
        label = tuple_text(std::span<const int64_t>(idx.data(), idx.size() - 1));
      const auto last = static_cast<int64_t>(std::min<__int128>(flat_of(rr, cell_cols - 1) + unit - 1, m.points - 1));
      const int64_t t0 = place_flat_unchecked(n, f0).thread, t1 = place_flat_unchecked(n, last).thread;
      label += t0 == t1 ? fmt::format("  t{}", t0) : fmt::format("  t{}..{}", t0, t1);
    }
    s += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"9\" fill=\"#555\" text-anchor=\"end\">", left - 4,
                     top + rr * cell + cell / 2 + 3);
    xml_text(s, label);
    s += "</text>\n";
  }

  // Cells: fill by thread, slot number inside, a tooltip with the index.
  std::vector<int64_t> warp_of(static_cast<std::size_t>(cell_rows * cell_cols), -1);
  s += "<g stroke=\"#fff\" stroke-width=\"0.5\">\n";
  for (int64_t rr = 0; rr < cell_rows; ++rr) {
    for (int64_t cc = 0; cc < cell_cols; ++cc) {
      if (flat_of(rr, cc) >= m.points) continue;
      const auto f = static_cast<int64_t>(flat_of(rr, cc));
      const ThreadSlot ts = place_flat_unchecked(n, f);
      warp_of[static_cast<std::size_t>(rr * cell_cols + cc)] = ts.thread / warp_size;
      unflatten_unchecked(n, f, idx);
      const int64_t x = left + cc * cell, y = top + rr * cell;
      fmt::format_to(o, "<rect class=\"cell\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\">", x, y, cell,
                     cell, thread_colour(ts.thread, warp_size));
      fmt::format_to(o, "<title>{}{} thread {} slot {}</title></rect>\n", tuple_text(idx),
                     unit > 1 ? fmt::format("..+{}", unit - 1) : "", ts.thread, ts.slot);
      fmt::format_to(o,
                     "<text x=\"{}\" y=\"{}\" font-size=\"{}\" text-anchor=\"middle\" stroke=\"none\" "
                     "fill=\"#111\">{}</text>\n",
                     x + cell / 2, y + cell / 2 + 3, ts.slot >= 1000 ? 7 : 9, ts.slot);
    }
  }
  s += "</g>\n";

  // Warp outlines: a thick segment wherever neighbouring cells belong to different warps.
  s += "<g stroke=\"#111\" stroke-width=\"2\" stroke-linecap=\"square\">\n";
  auto warp_at = [&](int64_t rr, int64_t cc) {
    if (rr < 0 || cc < 0 || rr >= cell_rows || cc >= cell_cols) return int64_t{-1};
    return warp_of[static_cast<std::size_t>(rr * cell_cols + cc)];
  };
  for (int64_t rr = 0; rr < cell_rows; ++rr) {
    for (int64_t cc = 0; cc < cell_cols; ++cc) {
      const int64_t w = warp_at(rr, cc);
      if (w < 0) continue;
      const int64_t x = left + cc * cell, y = top + rr * cell;
      if (warp_at(rr, cc - 1) != w) fmt::format_to(o, "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>\n", x, y, x, y + cell);
      if (warp_at(rr, cc + 1) != w)
        fmt::format_to(o, "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>\n", x + cell, y, x + cell, y + cell);
      if (warp_at(rr - 1, cc) != w) fmt::format_to(o, "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>\n", x, y, x + cell, y);
      if (warp_at(rr + 1, cc) != w)
        fmt::format_to(o, "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>\n", x, y + cell, x + cell, y + cell);
    }
  }
  s += "</g>\n";
  fmt::format_to(o, "<text x=\"8\" y=\"{}\" font-size=\"11\" fill=\"#333\">", height - 10);
  xml_text(s, fmt::format("memory: {} {} {} · {} B per thread · {:.2f} sectors per instruction · efficiency {}",
                          access_text(r.access), r.dtype, to_string(r.access.scope), r.memory.access_bytes,
                          r.memory.instructions ? static_cast<double>(r.memory.sectors) /
                                                      static_cast<double>(r.memory.instructions)
                                                : 0.0,
                          percent(r.memory.efficiency)));
  s += "</text>\n</svg>\n";
  return s;
}

// ---- comparing shapes -------------------------------------------------------

std::string compare_text(const CompareReport& r) {
  std::string s;
  Out o(s);
  fmt::format_to(o, "Nest shapes with the same work, on {} threads with vector {}\n", r.threads, r.vector);
  s += "Each thread gets the same number of points; which points it gets depends on the shape,\n"
       "because the nest is flattened row-major before it is dealt out in vectors.\n\n";
  fmt::format_to(o, "  {:<22} {:>6} {:>13} {:>17}\n", "nest", "points", "threads used", "points/thread");
  for (const ShapeComparison& c : r.rows) {
    fmt::format_to(o, "  {:<22} {:>6} {:>13} {:>17}\n", "T.Parallel" + tuple_text(c.extents), c.points,
                   c.threads_used, c.points_per_thread);
    for (std::size_t t = 0; t < c.owned.size(); ++t) {
      std::vector<std::string> pts;
      for (const auto& p : c.owned[t]) pts.push_back(tuple_text(p));
      fmt::format_to(o, "      thread {} first owns {}\n", t, fmt::join(pts, " "));
    }
  }
  s += "\nThe shape decides which logical index a thread reads next to its neighbours, and so whether\n"
       "a warp's load coalesces. With fewer groups than threads some threads get nothing: the\n"
       "generated code needs a guard (or replicates, when the body touches a fragment buffer).\n";
  return s;
}

std::string compare_json(const CompareReport& r) {
  std::string s;
  Out o(s);
  fmt::format_to(o, "{{\"threads\":{},\"vector\":{},\"shapes\":[", r.threads, r.vector);
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    const ShapeComparison& c = r.rows[i];
    fmt::format_to(o, "{}{{\"extents\":[{}],\"points\":{},\"threads_used\":{},\"points_per_thread\":{},\"owned\":[",
                   i ? "," : "", fmt::join(c.extents, ","), c.points, c.threads_used, c.points_per_thread);
    for (std::size_t t = 0; t < c.owned.size(); ++t) {
      s += t ? ",[" : "[";
      for (std::size_t p = 0; p < c.owned[t].size(); ++p)
        fmt::format_to(o, "{}[{}]", p ? "," : "", fmt::join(c.owned[t][p], ","));
      s += ']';
    }
    s += "]}";
  }
  s += "]}\n";
  return s;
}

}  // namespace tileplan::render
