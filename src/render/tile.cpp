#include "tileplan/render/tile.hpp"
#include "tileplan/validate.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <optional>
#include <utility>

#include <fmt/compile.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace tileplan::render {
namespace {

using Out = std::back_insert_iterator<std::string>;

std::string kb(int64_t bytes) { return fmt::format("{:.1f}", static_cast<double>(bytes) / 1024.0); }

// The seed model is the seed family's rule whatever the report says.
std::string_view report_family(const TileReport& r) {
  if (r.model == Model::seed) return "seed";
  return r.family;
}

double tflops(const GemmProblem& p, double time_us) {
  return 2.0 * static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.k) / time_us / 1e6;
}

void device_json(std::string& s, const Device& d) {
  Out o(s);
  s += "{\"name\":";
  append_json_string(s, d.name);
  s += ",\"label\":";
  append_json_string(s, d.label);
  for (const DeviceFieldView& f : describe(d)) {
    s += ",\"";
    s += f.name;
    s += "\":";
    if (f.integral)
      fmt::format_to(o, "{}", static_cast<int64_t>(f.value));
    else
      fmt::format_to(o, "{}", f.value);
  }
  s += '}';
}

void findings_json(std::string& s, const FindingList& list, const TileConfig& cfg) {
  s += '[';
  bool first = true;
  for (const Finding& f : list) {
    if (!first) s += ',';
    first = false;
    append_json_string(s, message(f, cfg));
  }
  s += ']';
}

// A finite predicted time: the calibrated model's time for a tile whose type
// has no tensor-core rate on the device (C3) is infinite, and JSON cannot hold it.
bool has_time(const Verdict& v) { return v.predicted && std::isfinite(v.predicted_us); }

// The calibrated model's additions; null under the seed model. `terms`:
// what the time is made of too (a diagnosis; a sweep's many candidates
// leave it out, a third of their bytes).
void prediction_json(std::string& s, const Verdict& v, bool terms) {
  Out o(s);
  if (has_time(v))
    fmt::format_to(o, FMT_COMPILE(",\"predicted_us\":{},\"reduce_us\":{},\"time_bound\":\"{}\""), v.predicted_us,
                   v.reduce_us, to_string(v.time_bound));
  else
    s += ",\"predicted_us\":null,\"reduce_us\":null,\"time_bound\":null";
  if (v.occupancy_limiter != Limiter::none)
    fmt::format_to(o, FMT_COMPILE(",\"occupancy_limiter\":\"{}\""), to_string(v.occupancy_limiter));
  else
    s += ",\"occupancy_limiter\":null";
  s += v.spills ? ",\"spills\":true" : ",\"spills\":false";
  fmt::format_to(o, FMT_COMPILE(",\"spilled_registers\":{},\"epilogue_spilled_registers\":{}"), v.spilled_registers,
                 v.epilogue_spilled_registers);
  // The L1 the loads of operands through registers see (docs/model.md §3).
  if (has_time(v) && v.narrow_footprint_bytes > 0)
    fmt::format_to(o, FMT_COMPILE(",\"carveout_bytes\":{},\"l1_bytes_per_block\":{},\"narrow_lines_bytes\":{},"
                                  "\"l1_short\":{}"),
                   v.carveout_bytes, v.l1_bytes, v.narrow_footprint_bytes, v.l1_short);
  else
    s += ",\"carveout_bytes\":null,\"l1_bytes_per_block\":null,\"narrow_lines_bytes\":null,\"l1_short\":null";
  // A stage's L2 read requests and what it costs L2 (l2_request_bytes, docs/model.md §3).
  if (has_time(v))
    fmt::format_to(o, FMT_COMPILE(",\"l2_requests\":{},\"l2_stage_bytes\":{},\"repeated_rows_a_bytes\":{},\"in_step_us\":{}"),
                   v.l2_requests, v.l2_stage_bytes, v.repeated_rows_a_bytes, v.in_step_us);
  else
    s += ",\"l2_requests\":null,\"l2_stage_bytes\":null,\"repeated_rows_a_bytes\":null,\"in_step_us\":null";
  // What the predicted time is made of (TimeTerms).
  if (!terms) return;
  if (has_time(v)) {
    const TimeTerms& t = v.time_terms;
    fmt::format_to(o,
                   FMT_COMPILE(",\"time_terms\":{{\"programs_per_sm\":{},\"round_programs\":{},\"k_steps\":{},"
                               "\"mma_us\":{},\"mma_rate\":{},\"narrow_us\":{},\"load_us\":{},\"round_trip_us\":{},"
                               "\"stages_in_flight\":{},\"busiest_us\":{},\"iteration_us\":{},\"step_scale\":{},"
                               "\"aligned_rows_share\":{},\"epilogue_us\":{},\"launch_us\":{},\"sm_us\":{},\"dram_us\":{},"
                               "\"flight_bytes\":{},\"dram_scale\":{},\"copy_us\":{},\"copy_bytes_per_cycle\":{},"
                               "\"copy_warp_scale\":{},\"short_row_us\":{},\"short_row_requests\":{},\"split_dram_share\":{},"
                               "\"partial_store_us\":{},\"kmajor_b_row_share\":{},\"power_us\":{},\"cycles_us\":{},"
                               "\"overlap_order\":{}}}"),
                   t.programs_per_sm, t.round_programs, t.k_steps, t.mma_us, t.mma_rate, t.narrow_us, t.load_us,
                   t.round_trip_us, t.stages_in_flight, t.busiest_us, t.iteration_us, t.step_scale, t.aligned_rows_share,
                   t.epilogue_us, t.launch_us, t.sm_us, t.dram_us, t.flight_bytes, t.dram_scale, t.copy_us,
                   t.copy_bytes_per_cycle, t.copy_warp_scale, t.short_row_us, t.short_row_requests,
                   t.split_dram_share, t.partial_store_us, t.kmajor_b_row_share, t.power_us, t.cycles_us,
                   t.overlap_order);
  } else {
    s += ",\"time_terms\":null";
  }
}

// The problem's findings (problem_findings) as strings, like a candidate's.
void problem_warnings_json(std::string& s, const TileReport& r) {
  TileConfig cfg;
  cfg.instr = r.instr;
  findings_json(s, problem_findings(r.problem, r.instr), cfg);
}

void candidate_json(std::string& s, const Verdict& v, const ProblemAccess& acc, const SearchSpace* measured,
                    bool terms) {
  const TileConfig& c = v.config;
  Out o(s);
  fmt::format_to(o,
                 FMT_COMPILE("{{\"block_m\":{},\"block_n\":{},\"block_k\":{},\"stages\":{},\"threads\":{},\"split_k\":{},\"instr\":\"{}\","
                 "\"smem_per_stage_bytes\":{},\"smem_bytes\":{},\"accum_per_thread\":{},\"regs_per_thread\":{},"
                 "\"regs_per_block\":{},\"blocks_by_regs\":{},\"blocks_by_smem\":{},\"blocks_by_threads\":{},"
                 "\"blocks_per_sm\":{},\"binding\":\"{}\",\"grid\":{},\"waves\":{},\"last_wave_fill\":{},"
                 "\"dram_bytes\":{}"),
                 c.block_m, c.block_n, c.block_k, c.stages, c.threads, c.split_k, to_string(c.instr),
                 v.smem_per_stage_bytes, v.smem_bytes, v.accum_per_thread, v.regs_per_thread, v.regs_per_block, v.blocks_by_regs,
                 v.blocks_by_smem, v.blocks_by_threads, v.blocks_per_sm, to_string(v.binding), v.grid, v.waves,
                 v.last_wave_fill, v.dram_bytes);
  // The problem's, repeated per candidate: what each tile's loads and stores move.
  fmt::format_to(o, FMT_COMPILE(",\"vector_bytes_a\":{},\"vector_bytes_b\":{},\"aligned\":{}"), acc.a.vector_bytes,
                 acc.b.vector_bytes, acc.aligned);
  prediction_json(s, v, terms);
  s += ",\"in_measured_space\":";
  s += measured ? (in_space(*measured, c) ? "true" : "false") : "null";
  s += ",\"failures\":";
  findings_json(s, v.failures, c);
  s += ",\"warnings\":";
  findings_json(s, v.warnings, c);
  s += '}';
}

// The padding options (planner.hpp's padding_advice): null where there is
// nothing to pad or no prediction.
void padding_json(std::string& s, const TileReport& r) {
  if (!r.padding) {
    s += "null";
    return;
  }
  const PaddingAdvice& a = *r.padding;
  Out o(s);
  s += "{\"unpadded_us\":";
  append_json_number(s, a.unpadded.predicted_us);
  s += ",\"options\":[";
  bool first = true;
  for (const PaddingOption& p : a.options) {
    if (!first) s += ',';
    first = false;
    s += "{\"pad\":[";
    bool first_part = true;
    for (const auto& [bit, name] : {std::pair{pad_m, "m"}, {pad_n, "n"}, {pad_k, "k"}, {pad_leading, "leading"}})
      if ((p.parts & bit) != 0u) {
        fmt::format_to(o, "{}\"{}\"", first_part ? "" : ",", name);
        first_part = false;
      }
    const ProblemAccess acc = problem_access(p.padded);
    const TileConfig& c = p.best.config;
    fmt::format_to(o,
                   "],\"m\":{},\"n\":{},\"k\":{},\"lda\":{},\"ldb\":{},\"ldc\":{},\"vector_bytes_a\":{},"
                   "\"vector_bytes_b\":{},\"vector_bytes_c\":{},\"extra_work\":",
                   p.padded.m, p.padded.n, p.padded.k, acc.a.ld, acc.b.ld, acc.c.ld, acc.a.vector_bytes,
                   acc.b.vector_bytes, acc.c.vector_bytes);
    append_json_number(s, p.extra_work);
    s += ",\"predicted_us\":";
    append_json_number(s, p.best.predicted_us);
    s += ",\"speedup\":";
    append_json_number(s, p.speedup);
    fmt::format_to(o,
                   ",\"config\":{{\"block_m\":{},\"block_n\":{},\"block_k\":{},\"stages\":{},\"threads\":{},"
                   "\"split_k\":{},\"instr\":\"{}\"}}}}",
                   c.block_m, c.block_n, c.block_k, c.stages, c.threads, c.split_k, to_string(c.instr));
  }
  s += "]}";
}

void validation_json(std::string& s, const TileReport& r);  // below, beside validation_text

void report_json(std::string& s, const TileReport& r) {
  Out o(s);
  s += "{\"device\":";
  if (r.device_json)
    s += *r.device_json;
  else
    device_json(s, *r.device);
  const GemmProblem& p = r.problem;
  const ProblemAccess acc = problem_access(p);
  fmt::format_to(o,
                 ",\"problem\":{{\"m\":{},\"n\":{},\"k\":{},\"dtype\":\"{}\",\"out_dtype\":\"{}\","
                 "\"a_layout\":\"{}\",\"b_layout\":\"{}\",\"lda\":{},\"ldb\":{},\"ldc\":{},"
                 "\"vector_bytes_a\":{},\"vector_bytes_b\":{},\"vector_bytes_c\":{},\"aligned\":{},\"a_repeated_rows\":{},"
                 "\"elem_bytes\":{},\"accum_bytes\":{},\"instr\":\"{}\",\"warnings\":",
                 p.m, p.n, p.k, to_string(p.dtype), to_string(p.c_dtype()), to_string(p.a_layout),
                 to_string(p.b_layout), acc.a.ld, acc.b.ld, acc.c.ld, acc.a.vector_bytes, acc.b.vector_bytes,
                 acc.c.vector_bytes, acc.aligned, acc.a.repeated_rows, p.elem_bytes(), p.accum_bytes, to_string(r.instr));
  problem_warnings_json(s, r);
  fmt::format_to(o,
                 "}},\"model\":\"{}\",\"family\":\"{}\",\"mode\":\"{}\",\"space_size\":{},\"feasible\":{},"
                 "\"stages_inert\":{},\"candidates\":[",
                 to_string(r.model), report_family(r), r.diagnose ? "diagnose" : "sweep", r.space_size,
                 r.feasible_count, r.stages_inert);
  bool first = true;
  for (const Verdict& v : r.candidates) {
    if (!first) s += ',';
    first = false;
    candidate_json(s, v, acc, r.measured_space ? &*r.measured_space : nullptr, r.diagnose);
  }
  s += "],\"padding\":";
  padding_json(s, r);
  s += ",\"validation\":";
  validation_json(s, r);
  s += '}';
}

// The problem, the device, and what the problem alone costs every tile
// (problem_findings), one warning line each.
std::string header(const TileReport& r) {
  const Device& d = *r.device;
  const GemmProblem& p = r.problem;
  const std::string family =
      r.model == Model::calibrated ? fmt::format(" family={}", r.family) : std::string();
  std::string types = p.dtype == DType::float16 && p.c_dtype() == DType::float16
                          ? std::string("fp16 in")
                          : types_summary(p);
  types += ", fp32 accumulate";
  if (const std::string layout = layout_summary(p); !layout.empty()) types += "  " + layout;
  std::string s = fmt::format(
      "problem  {}x{}x{} (MxNxK)  {}  instr={}  model={}{}\n"
      "device   {} [{}]: {} SMs, {} KB shared/SM, {} KB/block, {} regs/SM\n",
      p.m, p.n, p.k, types, to_string(r.instr), to_string(r.model), family, d.label, d.name, d.sm_count,
      kb(d.smem_per_sm_bytes), kb(d.smem_per_block_max_bytes), d.regs_per_sm);
  TileConfig cfg;
  cfg.instr = r.instr;
  for (const Finding& f : problem_findings(p, r.instr)) fmt::format_to(Out(s), "warning  {}\n", message(f, cfg));
  return s;
}

std::string short_notes(const Verdict& v, const TileReport& r) {
  std::string notes;
  // An automatic sweep mixes instructions: say which tiles compile to mma.
  if (r.instr == Instr::automatic && v.config.instr != Instr::wgmma) notes = std::string(to_string(v.config.instr));
  if (r.measured_space && !in_space(*r.measured_space, v.config))
    notes += std::string(notes.empty() ? "" : ", ") + "extrapolated";
  for (const Finding& f : v.warnings) {
    if (!notes.empty()) notes += ", ";
    switch (f.kind) {
      case FindingKind::tail_wave: notes += "C4 tail"; break;
      case FindingKind::grid_below_sms: notes += "C4 grid<SMs"; break;
      case FindingKind::held_tiles_spill: notes += "C2 spill"; break;
      case FindingKind::epilogue_spill: notes += "C2 epilogue spill"; break;
      case FindingKind::serialized_wgmma: notes += "C3 serial wgmma"; break;
      case FindingKind::fp8_mma_as_f16: notes += "C3 fp8 as f16"; break;
      default: notes += to_string(constraint_of(f.kind)); break;
    }
  }
  return notes;
}

// Within 5% either way the model cannot tell (its picks' measured times
// spread about that much around its predictions, README).
std::string_view padding_verdict(double speedup) {
  return speedup >= kPaddingPays ? "pays" : speedup > 1.0 / kPaddingPays ? "even" : "costs";
}

std::string padding_work(double extra) {
  return extra >= 1.0 ? fmt::format("{:.1f}x work", 1.0 + extra) : fmt::format("+{:.2f}% work", extra * 100.0);
}

// The padding options, fastest first, against the problem as given.
void padding_text(std::string& s, const TileReport& r) {
  const PaddingAdvice& a = *r.padding;
  Out o(s);
  fmt::format_to(o,
                 "\npadding  up to multiples of 16 (A and B zero-filled, C's added part dropped); as given {:.1f} us\n",
                 a.unpadded.predicted_us);
  for (const PaddingOption& p : a.options) {
    const TileConfig& c = p.best.config;
    fmt::format_to(o, "  {:<34} {:>12} {:>9.1f} us {:>6.2f}x  {:<5}  {}x{}x{}, {} stages, {} threads{}\n",
                   padding_summary(r.problem, p), padding_work(p.extra_work), p.best.predicted_us, p.speedup,
                   padding_verdict(p.speedup), c.block_m, c.block_n,
                   c.block_k, c.stages, c.threads,
                   c.split_k > 1 ? fmt::format(", split_k {}", c.split_k) : std::string());
  }
}


// The family's held-out scores for the problem's class (docs/model.md §5):
// how far its first pick, and the best of its first five, ran from the
// measured best on shapes of that class it was not fitted on.
// The scores are of unsplit picks: a space that splits K reports none.
void validation_text(std::string& s, const TileReport& r) {
  if (!r.validation || r.split_space) return;
  Out o(s);
  const std::string cls = problem_class(r.problem);
  const ClassScore* c = validation_for(*r.validation, r.problem);
  if (!c) {
    fmt::format_to(o, "\nheld out {}: no held-out shape of this class was measured on {}: this ranking is not "
                      "validated\n",
                   cls, r.validation->device);
    return;
  }
  fmt::format_to(o,
                 "\nheld out {}: {} shape{} measured on {}, never fitted on: the first pick ran {:.3f}x the best "
                 "(geomean; worst {:.3f}x, {}), the best of the first five {:.3f}x\n",
                 cls, c->cases, c->cases == 1 ? "" : "s", r.validation->device, c->top1_geomean, c->top1_worst,
                 c->worst_shape, c->top5_geomean);
  // Past the CI gate's thresholds (tests/cli/model_cli_test.cpp), timing the
  // first five is what the data support.
  if (c->top1_geomean > 1.03 || c->top1_worst > 1.10)
    fmt::format_to(o, "         time the first five before taking the first (--emit triton writes them)\n");
}

void validation_json(std::string& s, const TileReport& r) {
  if (!r.validation || r.split_space) {
    s += "null";
    return;
  }
  s += "{\"class\":";
  append_json_string(s, problem_class(r.problem));
  s += ",\"device\":";
  append_json_string(s, r.validation->device);
  const ClassScore* c = validation_for(*r.validation, r.problem);
  fmt::format_to(Out(s), ",\"cases\":{}", c ? c->cases : 0);
  if (c) {
    for (const auto& [key, value] : {std::pair{"top1_geomean", c->top1_geomean}, std::pair{"top1_worst", c->top1_worst},
                                     std::pair{"top5_geomean", c->top5_geomean}}) {
      fmt::format_to(Out(s), ",\"{}\":", key);
      append_json_number(s, value);
    }
    s += ",\"worst_shape\":";
    append_json_string(s, c->worst_shape);
  }
  s += '}';
}

// The ranked table. Both models share the tile columns; the last columns
// are the calibrated model's predicted time or the seed model's traffic.
std::string sweep_text(const TileReport& r) {
  const bool calibrated = r.model == Model::calibrated;
  const std::string_view order =
      calibrated ? "by predicted time" : "by least DRAM traffic, then more blocks/SM, then less shared memory";
  std::string s = header(r);
  Out o(s);
  fmt::format_to(o, "feasible {} of {} configurations", r.feasible_count, r.space_size);
  if (r.stages_inert)
    s += " (one per tile: neither A nor B can use cp.async, so the stage count changes nothing; the fewest stages "
         "are kept)";
  s += "; ";
  if (r.candidates.size() < r.feasible_count)
    fmt::format_to(o, "the best {} {}\n\n", r.candidates.size(), order);
  else
    fmt::format_to(o, "all of them, {}\n\n", order);
  if (r.candidates.empty()) {
    s += no_candidate_reason(r);
    s += '\n';
    return s;
  }
  fmt::format_to(o, "{:>4} {:>7} {:>7} {:>7} {:>6} {:>7} ", "rank", "block_M", "block_N", "block_K", "stages",
                 "threads");
  if (r.split_space) fmt::format_to(o, "{:>5} ", "split");
  fmt::format_to(o, "{:>8} {:>8} {:>6} {:>7} {:>6} {:>9} ", "smem KB", "regs/thr", "blk/SM", "binding", "waves",
                 "last wave");
  if (calibrated)
    fmt::format_to(o, "{:>9} {:>7} {:>7}  notes\n", "pred us", "TFLOP/s", "bound");
  else
    fmt::format_to(o, "{:>10}  notes\n", "traffic MB");
  int rank = 0;
  for (const Verdict& v : r.candidates) {
    const TileConfig& c = v.config;
    fmt::format_to(o, "{:>4} {:>7} {:>7} {:>7} {:>6} {:>7} ", ++rank, c.block_m, c.block_n, c.block_k, c.stages,
                   c.threads);
    if (r.split_space) fmt::format_to(o, "{:>5} ", c.split_k);
    fmt::format_to(o, "{:>8} {:>8} {:>6} {:>7} {:>6} {:>8.0f}% ", kb(v.smem_bytes), v.regs_per_thread,
                   v.blocks_per_sm, to_string(v.binding), v.waves, v.last_wave_fill * 100.0);
    if (calibrated)
      fmt::format_to(o, "{:>9.1f} {:>7.0f} {:>7}", v.predicted_us, tflops(r.problem, v.predicted_us),
                     to_string(v.time_bound));
    else
      fmt::format_to(o, "{:>10.1f}", v.dram_bytes / 1e6);
    const std::string notes = short_notes(v, r);
    if (!notes.empty()) fmt::format_to(o, "  {}", notes);
    s += '\n';
  }
  if (r.padding) padding_text(s, r);
  validation_text(s, r);
  const Verdict& best = r.candidates.front();
  // The device as planned: a preset other than the default, and the
  // overrides its sources name (--sm-count, --smem-kb, --power-budget).
  std::string device_flags;
  if (r.device) {
    const Device& d = *r.device;
    if (d.name != device_presets().front().name) device_flags += " --device " + d.name;
    for (DeviceField f : {DeviceField::sm_count, DeviceField::smem_per_sm_bytes, DeviceField::power_budget_w}) {
      // A source "--flag value ..." names the override: its first two words.
      const std::string_view src = d.source[static_cast<std::size_t>(f)];
      if (!src.starts_with("--")) continue;
      const std::size_t flag_end = src.find(' ');
      if (flag_end == std::string_view::npos) continue;
      const std::size_t value_end = src.find(' ', flag_end + 1);
      fmt::format_to(std::back_inserter(device_flags), " {}", src.substr(0, value_end));
    }
  }
  fmt::format_to(o,
                 "\nnext: tileplan tile --diagnose{} --m {} --n {} --k {}{} --instr {} --block-m {} --block-n {} "
                 "--block-k {} --stages {} --threads {}{}\n",
                 device_flags, r.problem.m, r.problem.n, r.problem.k, problem_flags(r.problem), to_string(best.config.instr),
                 best.config.block_m, best.config.block_n, best.config.block_k, best.config.stages,
                 best.config.threads,
                 best.config.split_k > 1 ? fmt::format(" --split-k {}", best.config.split_k) : std::string());
  return s;
}

// One verdict line per constraint: OK / FAIL / WARN, the numbers behind it,
// and the messages of every finding under it.
std::string diagnose_text(const TileReport& r) {
  std::string s = header(r);
  Out o(s);
  const Verdict& v = r.candidates.front();
  const TileConfig& c = v.config;
  const Device& d = *r.device;
  const InstrShape is = instr_shape(c.instr, r.problem.dtype);
  fmt::format_to(o, "config   block {}x{}x{}, {} stages, {} threads ({} warps), {}{}\n\n", c.block_m, c.block_n,
                 c.block_k, c.stages, c.threads, c.threads / d.warp_size, to_string(c.instr),
                 c.split_k > 1 ? fmt::format(", split_k {}", c.split_k) : std::string());

  auto status = [&](Constraint id, bool warnings_only) -> std::string_view {
    for (const Finding& f : v.failures)
      if (constraint_of(f.kind) == id) return "FAIL";
    if (warnings_only)
      for (const Finding& f : v.warnings)
        if (constraint_of(f.kind) == id) return "WARN";
    return "ok";
  };
  auto details = [&](Constraint id) {
    for (const Finding& f : v.failures)
      if (constraint_of(f.kind) == id) fmt::format_to(o, "          FAIL {}\n", message(f, c));
    for (const Finding& f : v.warnings)
      if (constraint_of(f.kind) == id) fmt::format_to(o, "          warn {}\n", message(f, c));
  };

  fmt::format_to(o, "C3 instruction shape  {:<4}  block a multiple of {}x{}x{}, threads of {}\n",
                 status(Constraint::C3, false), is.m, is.n, is.k, is.threads);
  details(Constraint::C3);
  // The calibrated model counts what the compiler allocates, which is not
  // always a buffer per stage: say which rule made the bytes.
  const int64_t one_less = std::max<int64_t>(c.stages - 1, 1);
  if (v.smem_bytes == v.smem_per_stage_bytes * c.stages)
    fmt::format_to(o, "C1 shared memory      {:<4}  {} KB/stage x {} stages = {} KB (block limit {} KB)\n",
                   status(Constraint::C1, false), kb(v.smem_per_stage_bytes), c.stages, kb(v.smem_bytes),
                   kb(d.smem_per_block_max_bytes));
  else if (c.instr == Instr::mma && v.smem_bytes == v.smem_per_stage_bytes * one_less)
    fmt::format_to(o,
                   "C1 shared memory      {:<4}  {} KB/stage x {} buffers = {} KB (block limit {} KB): of {} stages, "
                   "mma holds one in registers\n",
                   status(Constraint::C1, false), kb(v.smem_per_stage_bytes), one_less, kb(v.smem_bytes),
                   kb(d.smem_per_block_max_bytes), c.stages);
  else
    fmt::format_to(o,
                   "C1 shared memory      {:<4}  {} KB/stage, {} stages -> {} KB allocated (block limit {} KB): an "
                   "operand through registers has one buffer\n",
                   status(Constraint::C1, false), kb(v.smem_per_stage_bytes), c.stages, kb(v.smem_bytes),
                   kb(d.smem_per_block_max_bytes));
  details(Constraint::C1);
  if (r.model == Model::calibrated)
    fmt::format_to(o, "C2 registers          {:<4}  {} accumulators/thread -> {} regs/thread ({} profile), {} regs/block\n",
                   status(Constraint::C2, false), v.accum_per_thread, v.regs_per_thread, r.family,
                   v.regs_per_block);
  else
    fmt::format_to(o, "C2 registers          {:<4}  {} accumulators/thread -> {} regs/thread, {} regs/block\n",
                   status(Constraint::C2, false), v.accum_per_thread, v.regs_per_thread, v.regs_per_block);
  details(Constraint::C2);
  fmt::format_to(o,
                 "   occupancy               blocks/SM by regs {}, by smem {}, by threads {}, limit {} -> {}"
                 " (binding: {})\n",
                 v.blocks_by_regs, v.blocks_by_smem, v.blocks_by_threads, d.max_blocks_per_sm, v.blocks_per_sm,
                 v.binding == Resource::none ? "none fits" : to_string(v.binding));
  fmt::format_to(o, "C4 parallelism        {:<4}  {} {} over {} resident blocks -> {} wave(s), last {:.1f}% full\n",
                 status(Constraint::C4, true), v.grid,
                 c.split_k > 1 ? fmt::format("programs ({} tiles x split_k {})", v.grid / c.split_k, c.split_k)
                               : std::string("tiles"),
                 v.blocks_per_sm * d.sm_count, v.waves, v.last_wave_fill * 100.0);
  details(Constraint::C4);
  fmt::format_to(o, "   DRAM traffic            {:.1f} MB\n", v.dram_bytes / 1e6);
  if (has_time(v))
    fmt::format_to(o, "   predicted time          {:.1f} us ({:.0f} TFLOP/s), bound by {}{}\n", v.predicted_us,
                   tflops(r.problem, v.predicted_us), to_string(v.time_bound),
                   v.spills ? " (spilling)" : "");
  // What the time is made of (docs/model.md §3): one K step of the busiest
  // SM's first round, then the SMs' time against DRAM's.
  if (has_time(v)) {
    const TimeTerms& t = v.time_terms;
    fmt::format_to(o,
                   "   one K step              {} program{} at a time on an SM: MMA {:.3f}{}, L2 stage {:.3f}{}, round trip "
                   "{:.3f} ({} stage{} in flight) -> {:.3f} us a step, {} steps\n",
                   t.round_programs, t.round_programs == 1 ? "" : "s", t.mma_us,
                   t.mma_rate < 1 ? fmt::format(" (mma.sync at {:.0f}% of the tensor rate)", t.mma_rate * 100.0)
                                  : std::string(),
                   t.load_us, t.narrow_us > 0 ? fmt::format(", narrow loads {:.3f}", t.narrow_us) : std::string(),
                   t.round_trip_us, t.stages_in_flight, t.stages_in_flight == 1 ? "" : "s", t.iteration_us, t.k_steps);
    // The stage's copy rate, where one program's stage arrives slower at its
    // cap than at its L2 share, or where an mma tile's warps scale the cap
    // (copy_bytes_per_cycle, mma_copy_warp_power; docs/model.md §3).
    if (t.copy_us > 0 && (t.copy_us > t.load_us || t.copy_warp_scale != 1)) {
      const bool binds = t.copy_us > t.load_us;
      fmt::format_to(o,
                     "   copy rate               a stage arrives at one program at {:.1f} B a cycle at most{}: {:.3f} "
                     "us, {} {:.3f}\n",
                     t.copy_bytes_per_cycle,
                     t.copy_warp_scale != 1
                         ? fmt::format(" ({:.1f} x {:.2f} for {} warps)", t.copy_bytes_per_cycle / t.copy_warp_scale,
                                       t.copy_warp_scale, v.config.threads / 32)
                         : std::string(),
                     t.copy_us, binds ? "where its L2 share gives" : "within its L2 share's", t.load_us);
    }
    fmt::format_to(o,
                   "   SMs and DRAM            busiest SM {:.1f} us ({} program{}, epilogue {:.2f} us each), DRAM "
                   "{:.1f} us{}, launch {:.1f} us\n",
                   t.sm_us, t.programs_per_sm, t.programs_per_sm == 1 ? "" : "s", t.epilogue_us, t.dram_us,
                   t.overlap_order != 2 ? fmt::format(" (joined at order {:.2f}: the SMs bind in a grid of a wave or more)",
                                                      t.overlap_order)
                                        : std::string(),
                   t.launch_us);
    // The device's power budget (power_budget_w; docs/model.md §3, "The
    // power cap"): the SMs' time is at least what their energy takes at it.
    if (t.power_us > 0)
      fmt::format_to(o,
                     "   power cap               at {:.0f} W the flops, L2 bytes and cycles take {:.1f} us, the cycles "
                     "{:.1f} us at {:.0f} MHz: {}\n",
                     d.power_budget_w, t.power_us, t.cycles_us, d.boost_clock_mhz,
                     t.power_us > t.cycles_us
                         ? fmt::format("the cap binds (the SMs' time x{:.3f})", t.power_us / t.cycles_us)
                         : std::string("within the budget"));
  }
  // An mma tile's bytes in flight per SM past the knee slow DRAM
  // (mma_flight_knee_kb, mma_flight_dram_share; docs/model.md §3).
  // (The split's and a K-major B's shares are subtracted back out: 1e-9 keeps
  // their rounding from showing the line.)
  if (has_time(v) &&
      v.time_terms.dram_scale - v.time_terms.split_dram_share - v.time_terms.kmajor_b_row_share > 1 + 1e-9)
    fmt::format_to(o,
                   "   bytes in flight         {:.1f} KB per SM ({} program{} x {} stages x {:.1f} KB): DRAM's time "
                   "x{:.3f}, as an mma tile's kernel draws DRAM less efficiently past the knee\n",
                   v.time_terms.flight_bytes / 1024.0, v.time_terms.round_programs,
                   v.time_terms.round_programs == 1 ? "" : "s", v.time_terms.stages_in_flight,
                   v.time_terms.flight_bytes /
                       static_cast<double>(std::max<int64_t>(v.time_terms.round_programs * v.time_terms.stages_in_flight, 1)) /
                       1024.0,
                   v.time_terms.dram_scale - v.time_terms.split_dram_share - v.time_terms.kmajor_b_row_share);
  // A K-major B's rows shorter than 256 bytes (kmajor_b_row_dram_share).
  if (has_time(v) && v.time_terms.kmajor_b_row_share > 0)
    fmt::format_to(o,
                   "   short K-major rows      B is K-major and a stage's rows of B are {} bytes, under 256: DRAM's "
                   "time +{:.1f}%\n",
                   c.block_k * r.problem.elem_bytes(), v.time_terms.kmajor_b_row_share * 100.0);
  // A split GEMM streams B from split_k K slices at once (split_dram_share).
  if (has_time(v) && v.time_terms.split_dram_share > 0)
    fmt::format_to(o, "   split's DRAM            its programs stream B from {} K slices at once: DRAM's time +{:.0f}%\n",
                   c.split_k, v.time_terms.split_dram_share * 100.0);
  // An mma tile's copied rows shorter than a line: each request busies the
  // SM (short_row_request_cycles, docs/model.md §3).
  if (has_time(v) && v.time_terms.short_row_us > 0)
    fmt::format_to(o,
                   "   rows under a line       an mma tile's copied rows shorter than a {}-byte line busy the SM "
                   "{:.3f} us a step ({:.0f} requests){}\n",
                   d.cache_line_bytes, v.time_terms.short_row_us, v.time_terms.short_row_requests,
                   v.time_terms.short_row_us * static_cast<double>(v.time_terms.round_programs) >=
                           v.time_terms.busiest_us
                       ? ": the SM's busiest resource"
                       : "");
  // B's rows 16-byte aligned in a spilling kernel: each stage beyond two
  // costs a share of every step (aligned_b_stage_share, docs/model.md §3).
  if (has_time(v) && v.time_terms.aligned_rows_share > 0)
    fmt::format_to(o,
                   "   B's aligned rows        B's rows start 16-byte aligned and the kernel spills: its {} stages add "
                   "{:.2f} to every step's factor ({:.3f} in all), where 2 stages would add nothing\n",
                   v.config.stages, v.time_terms.aligned_rows_share, v.time_terms.step_scale);
  if (has_time(v) && v.narrow_footprint_bytes > 0)
    fmt::format_to(o,
                   "   L1 for narrow loads     {} KB per block ({} KB less a {} KB carveout, over {} block(s)) against "
                   "{} KB of their tiles' lines: {:.0f}% do not fit{}\n",
                   kb(static_cast<int64_t>(v.l1_bytes)), d.l1_smem_per_sm_bytes / 1024, v.carveout_bytes / 1024,
                   v.blocks_per_sm, kb(static_cast<int64_t>(v.narrow_footprint_bytes)), v.l1_short * 100.0,
                   v.l1_miss_us > 0 ? fmt::format(", +{:.0f} cycles per iteration", v.l1_miss_us * d.boost_clock_mhz)
                                    : std::string());
  // Rows shorter than a line: more L2 read requests per byte (docs/model.md §3).
  if (has_time(v) && v.l2_requests * static_cast<double>(d.cache_line_bytes) > v.l2_async_bytes)
    fmt::format_to(o,
                   "   L2 per stage            {:.0f} read requests for {} KB of copied rows (rows shorter than a "
                   "{}-byte line: {:.1f} sectors a request): priced as {} KB\n",
                   v.l2_requests, kb(static_cast<int64_t>(v.l2_async_bytes)), d.cache_line_bytes,
                   v.l2_async_bytes / v.l2_requests / static_cast<double>(d.mem_sector_bytes), kb(static_cast<int64_t>(v.l2_stage_bytes)));
  // A of few rows (M < 16): every copy of a row requests the same lines (docs/model.md §3).
  if (has_time(v) && v.repeated_rows_a_bytes > 0)
    fmt::format_to(o,
                   "   A of few rows           M = {}: A's {}x{} tile repeats its {} row{} {}, and each copy requests "
                   "the same lines: its {} KB a stage cost L2 {} KB more\n",
                   r.problem.m, c.block_m, c.block_k, r.problem.m, r.problem.m == 1 ? "" : "s",
                   r.problem.m == 1 ? fmt::format("{} times", c.block_m)
                                    : fmt::format("{:.3g} times each", static_cast<double>(c.block_m) / r.problem.m),
                   kb(c.block_m * c.block_k * r.problem.elem_bytes()), kb(static_cast<int64_t>(v.repeated_rows_a_bytes)));
  if (has_time(v) && v.in_step_us > 0)
    fmt::format_to(o,
                   "   programs in step        their K loops request A's same lines at once ({:.3g} copies each): "
                   "{:.1f} us of the path\n",
                   static_cast<double>(c.block_m) / static_cast<double>(r.problem.m), v.in_step_us);
  if (has_time(v) && r.measured_space && !in_space(*r.measured_space, c))
    fmt::format_to(o, "   extrapolated            the tile is outside the space family {} was measured on: its "
                      "prediction is not validated\n", r.family);
  if (has_time(v) && v.time_terms.partial_store_us > 0)
    fmt::format_to(o, "   partial stores          {:.2f} us after the SMs and DRAM (split_k {} fp32 partial tiles "
                      "stored at the round's end)\n",
                   v.time_terms.partial_store_us, c.split_k);
  if (has_time(v) && v.reduce_us > 0)
    fmt::format_to(o, "   of which the reduction  {:.1f} us (split_k {} fp32 partial tiles summed into C)\n",
                   v.reduce_us, c.split_k);
  if (r.split_advice) {
    const SplitAdvice& a = *r.split_advice;
    if (a.best_split > 1)
      fmt::format_to(o,
                     "   split-K                 pays: split_k {} predicted {:.1f} us against {:.1f} us unsplit "
                     "({:.2f}x faster; --split-k {})\n",
                     a.best_split, a.best_us, a.unsplit_us, a.unsplit_us / a.best_us, a.best_split);
    else
      fmt::format_to(o, "   split-K                 does not pay: no split_k of {{{}}} beats {:.1f} us "
                        "unsplit for this tile\n",
                     fmt::join(std::begin(kSplitFactors) + 1, std::end(kSplitFactors), ", "), a.unsplit_us);
  }
  if (r.padding)
    for (const PaddingOption& p : r.padding->options)
      fmt::format_to(o, "   padding                 {}: {} ({}): this tile {:.1f} us against {:.1f} us ({:.2f}x)\n",
                     padding_verdict(p.speedup), padding_summary(r.problem, p), padding_work(p.extra_work),
                     p.best.predicted_us, r.padding->unpadded.predicted_us, p.speedup);

  s += '\n';
  if (!v.failures.empty()) {
    fmt::format_to(o, "verdict  INFEASIBLE: binding constraint {} ({} failure(s))\n",
                   to_string(constraint_of(v.failures.begin()->kind)), v.failures.size);
  } else if (!v.warnings.empty()) {
    // The constraints that warn (C2: a priced spill of held tiles; C4: the tail, idle SMs), in order.
    std::string warning;
    for (Constraint c : {Constraint::C1, Constraint::C2, Constraint::C3, Constraint::C4})
      for (const Finding& f : v.warnings)
        if (constraint_of(f.kind) == c) {
          warning += (warning.empty() ? "" : ", ") + std::string(to_string(c));
          break;
        }
    fmt::format_to(o, "verdict  feasible; {} warn{}; occupancy bound by {}\n", warning,
                   warning.size() > 2 ? "" : "s", to_string(v.binding));
  } else {
    fmt::format_to(o, "verdict  feasible: all four constraints hold; occupancy bound by {}\n",
                   to_string(v.binding));
  }
  return s;
}

// One CSV field, quoted (RFC 4180: a quote doubled).
void append_csv_field(std::string& s, std::string_view text) {
  s += '"';
  for (char ch : text) {
    if (ch == '"') s += '"';
    s += ch;
  }
  s += '"';
}

void csv_findings(std::string& s, const FindingList& list, const TileConfig& c) {
  std::string joined;
  for (const Finding& f : list) {
    if (!joined.empty()) joined += "; ";
    joined += message(f, c);
  }
  append_csv_field(s, joined);
}

}  // namespace

void append_json_number(std::string& out, double v) {
  if (std::isfinite(v))
    fmt::format_to(std::back_inserter(out), "{}", v);
  else
    out += "null";
}

void append_json_string(std::string& out, std::string_view str) {
  out += '"';
  for (char ch : str) {
    const auto u = static_cast<unsigned char>(ch);
    switch (ch) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (u < 0x20)
          fmt::format_to(std::back_inserter(out), "\\u{:04x}", u);
        else
          out += ch;
    }
  }
  out += '"';
}

std::string no_candidate_reason(const TileReport& r) {
  if (r.c1_c3_count > 0 && r.min_split_k > 1)
    return fmt::format(
        "no configuration has block_K <= K = {} and split_k <= its K tiles ceil(K/block_K): the smallest split_k, "
        "{}, fails C4 for every block_K of the space; give smaller --split-k values",
        r.problem.k, r.min_split_k);
  if (r.c1_c3_count > 0)
    return fmt::format(
        "no configuration has block_K <= K = {}: the {} that satisfy C1-C3 all have a larger block_K; give smaller "
        "--block-k values or diagnose one configuration",
        r.problem.k, r.c1_c3_count);
  if (const std::optional<Finding> f = type_unsupported(*r.device, r.problem.dtype, r.instr))
    return fmt::format("no configuration satisfies C1-C3: {}", message(*f, TileConfig{}));
  return "no configuration satisfies C1-C3: widen the search space or diagnose one configuration";
}

std::string types_summary(const GemmProblem& p) {
  return fmt::format("{} in, {} out", to_string(p.dtype), to_string(p.c_dtype()));
}

namespace {

// Leading dimensions given explicitly, e.g. "lda=4112"; empty where all are packed.
std::string leading_dims(const GemmProblem& p) {
  std::string s;
  for (const auto& [name, ld] : {std::pair{"lda", p.lda}, {"ldb", p.ldb}, {"ldc", p.ldc}})
    if (ld != 0) fmt::format_to(std::back_inserter(s), "{}{}={}", s.empty() ? "" : " ", name, ld);
  return s;
}

}  // namespace

std::string layout_summary(const GemmProblem& p) {
  const std::string lds = leading_dims(p);
  if (p.a_layout == Layout::row && p.b_layout == Layout::row && lds.empty()) return {};
  std::string s = fmt::format("A={} B={}", to_string(p.a_layout), to_string(p.b_layout));
  if (!lds.empty()) s += " " + lds;
  return s;
}

std::string problem_flags(const GemmProblem& p) {
  std::string s;
  auto o = std::back_inserter(s);
  if (p.dtype != DType::float16) fmt::format_to(o, " --dtype {}", to_string(p.dtype));
  if (p.c_dtype() != default_out_dtype(p.dtype)) fmt::format_to(o, " --out-dtype {}", to_string(p.c_dtype()));
  if (p.a_layout != Layout::row) fmt::format_to(o, " --a-layout {}", to_string(p.a_layout));
  if (p.b_layout != Layout::row) fmt::format_to(o, " --b-layout {}", to_string(p.b_layout));
  for (const auto& [name, ld] : {std::pair{"lda", p.lda}, {"ldb", p.ldb}, {"ldc", p.ldc}})
    if (ld != 0) fmt::format_to(o, " --{} {}", name, ld);
  return s;
}

std::string padding_summary(const GemmProblem& given, const PaddingOption& o) {
  const GemmProblem& q = o.padded;
  std::string s;
  const auto add = [&](std::string_view name, int64_t from, int64_t to) {
    if (from == to) return;
    fmt::format_to(std::back_inserter(s), "{}{} {}->{}", s.empty() ? "" : ", ", name, from, to);
  };
  add("M", given.m, q.m);
  add("N", given.n, q.n);
  add("K", given.k, q.k);
  const ProblemAccess before = problem_access(given), after = problem_access(q);
  // Leading dimensions: explicit ones as they change; packed ones follow
  // their extent and are not repeated.
  if (given.lda != 0) add("lda", before.a.ld, after.a.ld);
  if (given.ldb != 0) add("ldb", before.b.ld, after.b.ld);
  if (given.ldc != 0) add("ldc", before.c.ld, after.c.ld);
  return s;
}

namespace {

// The first padding option that pays (they come fastest first), as a note.
std::string padding_note(const TileReport& r) {
  if (!r.padding || r.padding->options.empty()) return {};
  const PaddingOption& o = r.padding->options.front();
  if (o.speedup < kPaddingPays) return {};
  return fmt::format("padding {} pays {:.2f}x", padding_summary(r.problem, o), o.speedup);
}

std::string join_notes(std::initializer_list<std::string> parts) {
  std::string s;
  for (const std::string& p : parts)
    if (!p.empty()) s += (s.empty() ? "" : "; ") + p;
  return s;
}

constexpr std::string_view kPlanRow = "{:<18} {:<12} {:<12} {:<3} {:<3} {:>4} {:>12} {:>6} {:>7} ";

}  // namespace

std::string plan_text_header(const TileReport& r) {
  const Device& d = *r.device;
  const bool calibrated = r.model == Model::calibrated;
  std::string s = fmt::format(
      "device   {} [{}]: {} SMs\nmodel    {}{}, instr={}; {} configurations a shape, ranked {}\n\n",
      d.label, d.name, d.sm_count, to_string(r.model),
      calibrated ? fmt::format(" (family {})", r.family) : std::string(), to_string(r.instr), r.space_size,
      calibrated ? "by predicted time" : "by least DRAM traffic");
  Out o(s);
  fmt::format_to(o, fmt::runtime(kPlanRow), "shape (MxNxK)", "in", "out", "A", "B", "rank", "tile", "stages",
                 "threads");
  if (r.split_space) fmt::format_to(o, "{:>5} ", "split");
  if (calibrated)
    fmt::format_to(o, "{:>9} {:>7} {:>7} {:>5}  notes\n", "pred us", "TFLOP/s", "bound", "waves");
  else
    fmt::format_to(o, "{:>10} {:>5}  notes\n", "traffic MB", "waves");
  return s;
}

void append_plan_text_rows(const TileReport& r, std::string& out) {
  const GemmProblem& p = r.problem;
  const bool calibrated = r.model == Model::calibrated;
  Out o(out);
  const std::string shape = fmt::format("{}x{}x{}", p.m, p.n, p.k);
  if (r.candidates.empty()) {
    fmt::format_to(o, fmt::runtime(kPlanRow), shape, to_string(p.dtype), to_string(p.c_dtype()),
                   to_string(p.a_layout), to_string(p.b_layout), "-", "-", "-", "-");
    if (r.split_space) fmt::format_to(o, "{:>5} ", "-");
    if (calibrated)
      fmt::format_to(o, "{:>9} {:>7} {:>7} {:>5}  ", "-", "-", "-", "-");
    else
      fmt::format_to(o, "{:>10} {:>5}  ", "-", "-");
    out += join_notes({leading_dims(p), no_candidate_reason(r)});
    out += '\n';
    return;
  }
  int rank = 0;
  for (const Verdict& v : r.candidates) {
    const TileConfig& c = v.config;
    ++rank;
    fmt::format_to(o, fmt::runtime(kPlanRow), rank == 1 ? shape : std::string(),
                   rank == 1 ? to_string(p.dtype) : std::string_view(),
                   rank == 1 ? to_string(p.c_dtype()) : std::string_view(),
                   rank == 1 ? to_string(p.a_layout) : std::string_view(),
                   rank == 1 ? to_string(p.b_layout) : std::string_view(), rank,
                   fmt::format("{}x{}x{}", c.block_m, c.block_n, c.block_k), c.stages, c.threads);
    if (r.split_space) fmt::format_to(o, "{:>5} ", c.split_k);
    if (calibrated)
      fmt::format_to(o, "{:>9.1f} {:>7.0f} {:>7} {:>5}", v.predicted_us, tflops(p, v.predicted_us),
                     to_string(v.time_bound), v.waves);
    else
      fmt::format_to(o, "{:>10.1f} {:>5}", v.dram_bytes / 1e6, v.waves);
    const std::string notes = rank == 1 ? join_notes({leading_dims(p), short_notes(v, r), padding_note(r)})
                                        : short_notes(v, r);
    if (!notes.empty()) fmt::format_to(o, "  {}", notes);
    out += '\n';
  }
}

std::string plan_text_footer(const PlanTotals& t) {
  std::string s = fmt::format("\ntotal    {} shape(s), {} planned", t.shapes, t.planned);
  if (t.planned > 0 && t.pick_us > 0)
    fmt::format_to(Out(s), ": the first picks {:.1f} us predicted, one after another ({:.0f} TFLOP/s)", t.pick_us,
                   t.flops / t.pick_us / 1e6);
  s += '\n';
  return s;
}

std::string plan_csv_header() {
  return "m,n,k,dtype,out_dtype,a_layout,b_layout,lda,ldb,ldc,rank,block_m,block_n,block_k,stages,threads,"
         "split_k,instr,blocks_per_sm,waves,predicted_us,tflops,time_bound,dram_bytes,warnings,padding\n";
}

void append_plan_csv_rows(const TileReport& r, std::string& out) {
  const GemmProblem& p = r.problem;
  Out o(out);
  const auto shape = [&] {
    fmt::format_to(o, "{},{},{},{},{},{},{},{},{},{},", p.m, p.n, p.k, to_string(p.dtype), to_string(p.c_dtype()),
                   to_string(p.a_layout), to_string(p.b_layout), p.lda, p.ldb, p.ldc);
  };
  if (r.candidates.empty()) {
    shape();
    out += ",,,,,,,,,,,,,,";  // rank to dram_bytes
    append_csv_field(out, no_candidate_reason(r));
    out += ",\"\"\n";
    return;
  }
  int rank = 0;
  for (const Verdict& v : r.candidates) {
    const TileConfig& c = v.config;
    shape();
    fmt::format_to(o, "{},{},{},{},{},{},{},{},{},{},", ++rank, c.block_m, c.block_n, c.block_k, c.stages,
                   c.threads, c.split_k, to_string(c.instr), v.blocks_per_sm, v.waves);
    if (has_time(v))
      fmt::format_to(o, "{},{},{},", v.predicted_us, tflops(p, v.predicted_us), to_string(v.time_bound));
    else
      out += ",,,";
    fmt::format_to(o, "{},", v.dram_bytes);
    csv_findings(out, v.warnings, c);
    out += ',';
    append_csv_field(out, rank == 1 ? padding_note(r) : std::string());
    out += '\n';
  }
}

std::string tile_text(const TileReport& r) { return r.diagnose ? diagnose_text(r) : sweep_text(r); }

std::string tile_json(const TileReport& r) {
  std::string s;
  report_json(s, r);
  s += '\n';
  return s;
}

void append_tile_json_line(const TileReport& r, std::string& out) { report_json(out, r); }

std::string device_json(const Device& d) {
  std::string s;
  device_json(s, d);
  return s;
}

std::string tile_csv(const TileReport& r) {
  std::string s =
      "rank,block_m,block_n,block_k,stages,threads,instr,smem_per_stage_bytes,smem_bytes,accum_per_thread,"
      "regs_per_thread,regs_per_block,blocks_by_regs,blocks_by_smem,blocks_by_threads,blocks_per_sm,binding,"
      "grid,waves,last_wave_fill,dram_bytes,failures,warnings,predicted_us,time_bound,occupancy_limiter,spills,"
      "split_k,reduce_us\n";
  Out o(s);
  int rank = 0;
  for (const Verdict& v : r.candidates) {
    const TileConfig& c = v.config;
    fmt::format_to(o, "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},", ++rank, c.block_m,
                   c.block_n, c.block_k, c.stages, c.threads, to_string(c.instr), v.smem_per_stage_bytes,
                   v.smem_bytes, v.accum_per_thread, v.regs_per_thread, v.regs_per_block, v.blocks_by_regs,
                   v.blocks_by_smem, v.blocks_by_threads, v.blocks_per_sm, to_string(v.binding), v.grid, v.waves,
                   v.last_wave_fill, v.dram_bytes);
    csv_findings(s, v.failures, c);
    s += ',';
    csv_findings(s, v.warnings, c);
    if (has_time(v))
      fmt::format_to(o, ",{},{}", v.predicted_us, to_string(v.time_bound));
    else
      s += ",,";
    fmt::format_to(o, ",{},{},{},", v.occupancy_limiter == Limiter::none ? "" : to_string(v.occupancy_limiter),
                   v.spills, c.split_k);
    if (has_time(v)) fmt::format_to(o, "{}", v.reduce_us);
    s += '\n';
  }
  return s;
}

}  // namespace tileplan::render
