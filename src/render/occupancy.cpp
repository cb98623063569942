#include "tileplan/render/occupancy.hpp"

#include <array>
#include <iterator>
#include <vector>

#include <fmt/format.h>

#include "tileplan/render/tile.hpp"
#include "../occupancy_internal.hpp"

namespace tileplan::render {
namespace {

using Out = std::back_insert_iterator<std::string>;

// Whole kilobytes as "72 KB", anything else in bytes.
std::string size_text(int64_t bytes) {
  if (bytes != 0 && bytes % 1024 == 0) return fmt::format("{} KB", bytes / 1024);
  return fmt::format("{} B", bytes);
}

std::string_view limit_name(Limiter l) {
  switch (l) {
    case Limiter::warps: return "warps";
    case Limiter::regs: return "registers";
    case Limiter::smem: return "shared memory";
    case Limiter::blocks: return "blocks";
    case Limiter::none: return "nothing";
  }
  return "?";
}

int64_t smem_bytes(const OccupancyInput& in) { return in.smem_static_bytes + in.smem_dynamic_bytes; }

std::string smem_input_text(const OccupancyInput& in) {
  if (in.smem_static_bytes == 0) return size_text(in.smem_dynamic_bytes);
  return fmt::format("{} ({} static + {} dynamic)", size_text(smem_bytes(in)), size_text(in.smem_static_bytes),
                     size_text(in.smem_dynamic_bytes));
}

// Why no block fits, in words, for the limit that admits none.
std::string no_block_reason(const Device& d, const OccupancyInput& in, const Occupancy& o) {
  switch (o.limiter) {
    case Limiter::warps:
      return fmt::format("{} threads per block is over the limit of {}", in.threads_per_block,
                         d.max_threads_per_block);
    case Limiter::regs:
      if (in.regs_per_thread > d.regs_per_thread_max)
        return fmt::format("{} registers per thread is over the limit of {}", in.regs_per_thread,
                           d.regs_per_thread_max);
      return fmt::format("{} warps of {} registers do not fit in {} registers ({} sub-partitions of {})",
                         o.warps_per_block, o.regs_per_warp, d.regs_per_sm, d.sm_subpartitions,
                         d.regs_per_sm / d.sm_subpartitions);
    case Limiter::smem:
      return fmt::format("{} of shared memory is over the opt-in maximum of {}", size_text(smem_bytes(in)),
                         size_text(d.smem_per_block_max_bytes));
    default:
      return "no block fits";
  }
}

// The limits below the target say what they need; registers and shared
// memory, when they already allow it, say how far. When the warp slots need
// fewer threads, the registers are judged at that thread count.
std::string next_step_text(const Device& d, const OccupancyInput& in, const Occupancy& o,
                           const std::optional<NextStep>& next) {
  if (!next) return fmt::format("none: the SM holds at most {} blocks", d.max_blocks_per_sm);
  const int64_t target = next->blocks_per_sm;
  std::vector<std::string> needs;
  std::vector<std::string> allows;
  OccupancyInput at = in;
  std::string at_threads;
  if (o.blocks_by_warps < target) {
    // A target within the block limit always leaves at least one warp per block.
    at.threads_per_block = next->max_threads_per_block.value_or(d.warp_size);
    at_threads = fmt::format(" at {} threads", at.threads_per_block);
    needs.push_back(fmt::format("at most {} threads per block (now {})", at.threads_per_block, in.threads_per_block));
  }
  const NextStep bounds = at_threads.empty() ? *next : bounds_for_unchecked(d, at, target);
  const Occupancy o_at = at_threads.empty() ? o : occupancy_unchecked(d, at);
  if (o_at.blocks_by_regs < target) {
    needs.push_back(bounds.max_regs_per_thread
                        ? fmt::format("at most {} registers per thread{} (now {})", *bounds.max_regs_per_thread,
                                      at_threads, in.regs_per_thread)
                        : fmt::format("fewer threads: no register count fits {} blocks of {} threads", target,
                                      at.threads_per_block));
  } else if (bounds.max_regs_per_thread) {
    allows.push_back(fmt::format("registers allow it up to {} per thread{} (now {})", *bounds.max_regs_per_thread,
                                 at_threads, in.regs_per_thread));
  }
  if (o.blocks_by_smem < target) {
    needs.push_back(bounds.max_smem_bytes
                        ? fmt::format("at most {} of shared memory per block (now {})",
                                      size_text(*bounds.max_smem_bytes), size_text(smem_bytes(in)))
                        : fmt::format("a larger carveout: no shared-memory size fits {} blocks", target));
  } else if (bounds.max_smem_bytes) {
    allows.push_back(fmt::format("shared memory allows it up to {} per block (now {})",
                                 size_text(*bounds.max_smem_bytes), size_text(smem_bytes(in))));
  }
  std::string s = fmt::format("{} block{}/SM needs ", target, target == 1 ? "" : "s");
  for (std::size_t i = 0; i < needs.size(); ++i) s += (i ? " and " : "") + needs[i];
  for (const std::string& a : allows) s += "; " + a;
  return s;
}

void optional_json(std::string& s, const std::optional<int64_t>& v) {
  if (v)
    fmt::format_to(Out(s), "{}", *v);
  else
    s += "null";
}

}  // namespace

Result<OccupancyReport> make_occupancy_report(const Device& dev, const OccupancyInput& in) {
  Result<Occupancy> result = occupancy(dev, in);
  if (!result) return result.error();
  OccupancyReport r;
  r.device = &dev;
  r.input = in;
  r.result = *result;
  r.next = *next_step(dev, in);
  r.min_carveout = *min_carveout(dev, in);
  return r;
}

std::string occupancy_text(const OccupancyReport& r) {
  const Device& d = *r.device;
  const OccupancyInput& in = r.input;
  const Occupancy& o = r.result;
  std::string s;
  Out out(s);
  fmt::format_to(out, "{}: {} threads ({} warp{}), {} registers/thread, {} shared memory per block\n\n", d.label,
                 in.threads_per_block, o.warps_per_block, o.warps_per_block == 1 ? "" : "s", in.regs_per_thread,
                 smem_input_text(in));

  const auto mark = [&o](Limiter l) -> std::string_view {
    if (o.limiter == l) return "  <- limiter";
    return limits(o, l) ? "  <- tie" : "";
  };
  const std::string regs_sm = fmt::format("{} ({} x {})", d.regs_per_sm, d.sm_subpartitions,
                                          d.regs_per_sm / d.sm_subpartitions);
  const std::array<std::array<std::string, 3>, 4> rows{{
      {"warps", fmt::format("{}", o.warps_per_block), fmt::format("{}", d.max_warps_per_sm)},
      {"registers", fmt::format("{} ({} per warp)", o.regs_per_block, o.regs_per_warp), regs_sm},
      {"shared memory", fmt::format("{} B", o.smem_per_block_bytes), size_text(o.smem_config_bytes)},
      {"blocks", "1", fmt::format("{}", d.max_blocks_per_sm)},
  }};
  const std::array<int64_t, 4> counts{o.blocks_by_warps, o.blocks_by_regs, o.blocks_by_smem, o.blocks_by_blocks};
  const std::array<Limiter, 4> which{Limiter::warps, Limiter::regs, Limiter::smem, Limiter::blocks};
  fmt::format_to(out, "{:<15}{:<26}{:<22}{}\n", "limit", "one block takes", "the SM has", "blocks/SM");
  for (std::size_t i = 0; i < rows.size(); ++i)
    fmt::format_to(out, "{:<15}{:<26}{:<22}{}{}\n", rows[i][0], rows[i][1], rows[i][2], counts[i], mark(which[i]));
  s += '\n';

  if (o.blocks_per_sm == 0)
    fmt::format_to(out, "{:<15}0: one block cannot run: {}\n", "blocks/SM", no_block_reason(d, in, o));
  else
    fmt::format_to(out, "{:<15}{}, limited by {}\n", "blocks/SM", o.blocks_per_sm, limit_name(o.limiter));
  fmt::format_to(out, "{:<15}{} of {} ({:g}% occupancy)\n", "active warps", o.active_warps, d.max_warps_per_sm,
                 o.occupancy_percent);
  const std::string preference =
      in.carveout_percent ? fmt::format("--carveout {}", *in.carveout_percent) : std::string("the driver's default");
  fmt::format_to(out, "{:<15}{} of shared memory per SM ({})", "carveout", size_text(o.smem_config_bytes),
                 preference);
  if (o.blocks_per_sm > 0 && r.min_carveout.smem_config_bytes < o.smem_config_bytes)
    fmt::format_to(out, "; {} (--carveout {}) keeps {} block{}/SM and leaves the rest to L1",
                   size_text(r.min_carveout.smem_config_bytes), r.min_carveout.percent, o.blocks_per_sm,
                   o.blocks_per_sm == 1 ? "" : "s");
  s += '\n';
  fmt::format_to(out, "{:<15}{}\n", "next step", next_step_text(d, in, o, r.next));
  if (smem_bytes(in) > d.smem_per_block_default_bytes)
    fmt::format_to(out, "{:<15}over {} per block: the kernel must opt in with "
                        "cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes)\n",
                   "note", size_text(d.smem_per_block_default_bytes));
  return s;
}

std::string occupancy_json(const OccupancyReport& r) {
  const Device& d = *r.device;
  const OccupancyInput& in = r.input;
  const Occupancy& o = r.result;
  std::string s;
  Out out(s);
  s += "{\"device\":";
  append_json_string(s, d.name);
  s += ",\"label\":";
  append_json_string(s, d.label);
  fmt::format_to(out, ",\"input\":{{\"threads_per_block\":{},\"regs_per_thread\":{},\"smem_static_bytes\":{},"
                      "\"smem_dynamic_bytes\":{},\"carveout_percent\":",
                 in.threads_per_block, in.regs_per_thread, in.smem_static_bytes, in.smem_dynamic_bytes);
  optional_json(s, in.carveout_percent);
  fmt::format_to(out, "}},\"blocks_per_sm\":{},\"limiter\":\"{}\",\"limiters\":[", o.blocks_per_sm,
                 to_string(o.limiter));
  bool first = true;
  for (Limiter l : {Limiter::warps, Limiter::regs, Limiter::smem, Limiter::blocks}) {
    if (!limits(o, l)) continue;
    fmt::format_to(out, "{}\"{}\"", first ? "" : ",", to_string(l));
    first = false;
  }
  fmt::format_to(out,
                 "],\"active_warps\":{},\"max_warps_per_sm\":{},\"occupancy\":{},\"occupancy_percent\":{},"
                 "\"blocks_by\":{{\"warps\":{},\"regs\":{},\"smem\":{},\"blocks\":{}}},"
                 "\"warps_per_block\":{},\"regs_per_warp\":{},\"regs_per_block\":{},\"smem_per_block_bytes\":{},"
                 "\"smem_config_bytes\":{},\"min_carveout\":{{\"percent\":{},\"smem_config_bytes\":{}}},"
                 "\"next_step\":",
                 o.active_warps, d.max_warps_per_sm, o.occupancy_percent / 100.0, o.occupancy_percent,
                 o.blocks_by_warps, o.blocks_by_regs, o.blocks_by_smem, o.blocks_by_blocks, o.warps_per_block,
                 o.regs_per_warp, o.regs_per_block, o.smem_per_block_bytes, o.smem_config_bytes,
                 r.min_carveout.percent, r.min_carveout.smem_config_bytes);
  if (!r.next) {
    s += "null";
  } else {
    fmt::format_to(out, "{{\"blocks_per_sm\":{},\"max_regs_per_thread\":", r.next->blocks_per_sm);
    optional_json(s, r.next->max_regs_per_thread);
    s += ",\"max_smem_bytes\":";
    optional_json(s, r.next->max_smem_bytes);
    s += ",\"max_threads_per_block\":";
    optional_json(s, r.next->max_threads_per_block);
    s += '}';
  }
  s += "}\n";
  return s;
}

}  // namespace tileplan::render
