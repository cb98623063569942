#include "tileplan/render/validate.hpp"

#include <algorithm>
#include <iterator>

#include <fmt/format.h>

#include "tileplan/render/tile.hpp"

namespace tileplan::render {
namespace {

using Out = std::back_insert_iterator<std::string>;

std::string_view split_name(SplitFilter f) {
  switch (f) {
    case SplitFilter::all: return "all";
    case SplitFilter::calibration: return "calibration";
    case SplitFilter::held_out: return "heldout";
  }
  return "?";
}

std::string ms_or_dash(const std::optional<double>& ms) { return ms ? fmt::format("{:.4f}", *ms) : "-"; }

// `members`: the report's indices of the summary's shapes (nullptr: all of them).
std::string worst_name(const ScoreSummary& x, const ValidationReport& r, const std::vector<std::size_t>* members) {
  if (!x.shapes) return {};
  const std::size_t i = members ? (*members)[x.top1_worst_shape] : x.top1_worst_shape;
  return shape_name(r.shapes[i].problem);
}

void summary_line(std::string& s, std::string_view name, const ScoreSummary& x, const ValidationReport& r,
                  const std::vector<std::size_t>* members = nullptr) {
  Out o(s);
  fmt::format_to(o, "{:<11} shapes {}: top-1 regret geomean {:.3f}, worst {:.3f}", name, x.shapes, x.top1_geomean,
                 x.top1_worst);
  if (x.shapes) fmt::format_to(o, " ({})", worst_name(x, r, members));
  fmt::format_to(o, "; top-5 geomean {:.3f}, worst {:.3f}; mean Spearman {:.3f}\n", x.top5_geomean, x.top5_worst,
                 x.spearman_mean);
}

// The calibrated pick's measured over predicted time (nothing when no pick was predicted).
void time_line(std::string& s, std::string_view name, const ScoreSummary& x) {
  if (!x.time_ratio_shapes) return;
  fmt::format_to(Out(s), "{:<11} the pick's measured / predicted time: geomean {:.3f}, {:.3f} to {:.3f} over {} shape(s)\n",
                 name, x.time_ratio_geomean, x.time_ratio_min, x.time_ratio_max, x.time_ratio_shapes);
}

// `,"name":value` (a JSON number).
void number_field(std::string& s, std::string_view name, double value) {
  fmt::format_to(Out(s), ",\"{}\":", name);
  append_json_number(s, value);
}

void summary_json(std::string& s, const ScoreSummary& x, const ValidationReport& r,
                  const std::vector<std::size_t>* members = nullptr) {
  fmt::format_to(Out(s), "{{\"shapes\":{}", x.shapes);
  number_field(s, "top1_geomean", x.top1_geomean);
  number_field(s, "top1_worst", x.top1_worst);
  s += ",\"top1_worst_shape\":";
  append_json_string(s, worst_name(x, r, members));
  number_field(s, "top5_geomean", x.top5_geomean);
  number_field(s, "top5_worst", x.top5_worst);
  number_field(s, "spearman_mean", x.spearman_mean);
  s += ",\"time_ratio\":";
  if (x.time_ratio_shapes) {
    fmt::format_to(Out(s), "{{\"shapes\":{}", x.time_ratio_shapes);
    number_field(s, "geomean", x.time_ratio_geomean);
    number_field(s, "min", x.time_ratio_min);
    number_field(s, "max", x.time_ratio_max);
    s += '}';
  } else {
    s += "null";
  }
  s += '}';
}

void score_json(std::string& s, const RankingScore& x, const std::string& key) {
  s += "{\"top1_key\":";
  append_json_string(s, key);
  number_field(s, "top1_regret", x.top1_regret);
  number_field(s, "top5_regret", x.top5_regret);
  number_field(s, "spearman", x.spearman);
  s += '}';
}

void clock_json(std::string& s, const std::optional<RowClock>& c) {
  if (!c) {
    s += "null";
    return;
  }
  s += "{\"mhz\":";
  append_json_number(s, c->mhz);
  fmt::format_to(Out(s), ",\"power_capped\":{}}}", c->power_capped);
}

// "rows":..,"capped_rows":..,"min_mhz":..,"median_mhz":..,"max_mhz":.. (null MHz without rows).
void range_json(std::string& s, const ClockRange& c) {
  fmt::format_to(Out(s), "\"rows\":{},\"capped_rows\":{}", c.rows, c.capped);
  for (auto [name, v] : {std::pair{"min_mhz", c.min_mhz}, {"median_mhz", c.median_mhz}, {"max_mhz", c.max_mhz}}) {
    fmt::format_to(Out(s), ",\"{}\":", name);
    if (c.rows)
      append_json_number(s, v);
    else
      s += "null";
  }
}

void optional_json(std::string& s, const std::optional<double>& v) {
  if (v)
    append_json_number(s, *v);
  else
    s += "null";
}

}  // namespace

std::optional<std::string> threshold_miss(const ScoreSummary& s, const Thresholds& t) {
  if (t.top1_geomean && s.top1_geomean > *t.top1_geomean)
    return fmt::format("the calibrated model's top-1 regret geomean {:.4f} exceeds --max-top1-geomean {}",
                       s.top1_geomean, *t.top1_geomean);
  if (t.top1_worst && s.top1_worst > *t.top1_worst)
    return fmt::format("the calibrated model's worst top-1 regret {:.4f} exceeds --max-top1-worst {}", s.top1_worst,
                       *t.top1_worst);
  if (t.top5_geomean && s.top5_geomean > *t.top5_geomean)
    return fmt::format("the calibrated model's top-5 regret geomean {:.4f} exceeds --max-top5-geomean {}",
                       s.top5_geomean, *t.top5_geomean);
  return std::nullopt;
}

std::optional<std::string> threshold_miss(const ValidationReport& r, const Thresholds& t) {
  if (auto miss = threshold_miss(r.calibrated, t)) return miss;
  if (r.groups.size() < 2) return std::nullopt;
  for (const GroupScore& g : r.groups)
    if (auto miss = threshold_miss(g.calibrated, t)) return fmt::format("class {}: {}", g.group, *miss);
  return std::nullopt;
}

std::string validate_text(const ValidateReport& rep) {
  const ValidationReport& r = *rep.result;
  std::string s;
  Out o(s);
  fmt::format_to(o, "validate  {} shape(s), split {}, device {}{}, calibrated model family {}\n", r.shapes.size(),
                 split_name(rep.split), rep.device, rep.device_from.empty() ? "" : " (" + rep.device_from + ")",
                 rep.family);
  for (const std::string& w : rep.warnings) fmt::format_to(o, "warning  {}\n", w);
  s += "regret = measured time of the pick / best measured time; rho = Spearman(model's order, measured times)\n";
  s += "time = the calibrated pick's measured time / its predicted time (how far the model's microseconds are)\n\n";
  std::size_t width = 18;
  for (const ShapeScore& x : r.shapes) width = std::max(width, shape_name(x.problem).size());
  fmt::format_to(o, "{:<{}} {:<11} {:>9} {:>20} {:>8} | {:>20} {:>6} {:>6} {:>5} | {:>6} {:>6} {:>5}\n", "shape",
                 width, "split", "cuBLAS ms", "best measured", "best ms", "calibrated top-1", "top-1", "top-5", "rho",
                 "seed-1", "seed-5", "rho");
  for (const ShapeScore& x : r.shapes) {
    fmt::format_to(o, "{:<{}} {:<11} {:>9} {:>20} {:>8.4f} | {:>20} {:>6.3f} {:>6.3f} {:>5.2f} | {:>6.3f} {:>6.3f} {:>5.2f}\n",
                   shape_name(x.problem), width, to_string(x.split), ms_or_dash(x.cublas_ms), x.best_key, x.best_ms,
                   x.calibrated_top1_key, x.calibrated.top1_regret, x.calibrated.top5_regret, x.calibrated.spearman,
                   x.seed.top1_regret, x.seed.top5_regret, x.seed.spearman);
  }
  s += '\n';
  summary_line(s, "calibrated", r.calibrated, r);
  summary_line(s, "seed", r.seed, r);
  time_line(s, "time", r.calibrated);
  if (const ClockRange& c = r.clocks.candidates; c.rows || r.clocks.cublas_rows) {
    std::size_t candidates = 0;
    for (const ShapeScore& x : r.shapes) candidates += x.candidates;
    fmt::format_to(o, "{:<11} {} of {} timed configuration rows carry the SM clock they ran at", "clocks", c.rows,
                   candidates);
    if (c.rows)
      fmt::format_to(o, ": {} power-capped, {:.0f} to {:.0f} MHz (median {:.0f})", c.capped, c.min_mhz, c.max_mhz,
                     c.median_mhz);
    fmt::format_to(o, "; cuBLAS: {} of {} rows power-capped\n", r.clocks.cublas_capped, r.clocks.cublas_rows);
  }
  if (!rep.superseded.empty()) {
    fmt::format_to(o, "superseded  {} case(s) not scored, their rows replaced by a later measurement (split.json):",
                   rep.superseded.size());
    for (std::size_t i = 0; i < rep.superseded.size(); ++i) {
      const SupersededCase& c = rep.superseded[i];
      fmt::format_to(o, "{} {} {}", i ? ";" : "", c.dataset, c.shape);
      if (!c.by.empty()) fmt::format_to(o, " (by {})", c.by);
    }
    s += '\n';
  }
  if (r.groups.size() > 1) {
    s += "\nby class (input type : layouts of A, B : M N K, upper case = a multiple of 16)\n";
    for (const GroupScore& g : r.groups) {
      fmt::format_to(o, "{}\n", g.group);
      summary_line(s, "  calibrated", g.calibrated, r, &g.shapes);
      summary_line(s, "  seed", g.seed, r, &g.shapes);
      time_line(s, "  time", g.calibrated);
    }
  }
  if (std::any_of(r.shapes.begin(), r.shapes.end(), [](const ShapeScore& x) { return x.has_splits; })) {
    s += "\nsplit-K: the calibrated pick against cuBLAS and against the best unsplit configuration "
         "(> 1: the pick is faster)\n";
    fmt::format_to(o, "{:<{}} {:<11} {:>28} {:>5} {:>8} {:>9} {:>11} {:>14}\n", "shape", width, "split", "pick", "split",
                   "pick ms", "cuBLAS ms", "cuBLAS/pick", "unsplit/pick");
    std::vector<double> vs_cublas, vs_unsplit;
    for (const ShapeScore& x : r.shapes) {
      if (!x.has_splits) continue;
      const std::string cublas = x.cublas_ms ? fmt::format("{:.3f}", *x.cublas_ms / x.pick_ms) : "-";
      const std::string unsplit = x.best_unsplit_ms ? fmt::format("{:.3f}", *x.best_unsplit_ms / x.pick_ms) : "-";
      if (x.cublas_ms) vs_cublas.push_back(*x.cublas_ms / x.pick_ms);
      if (x.best_unsplit_ms) vs_unsplit.push_back(*x.best_unsplit_ms / x.pick_ms);
      fmt::format_to(o, "{:<{}} {:<11} {:>28} {:>5} {:>8.4f} {:>9} {:>11} {:>14}\n", shape_name(x.problem), width,
                     to_string(x.split), x.calibrated_top1_key, x.pick_split_k, x.pick_ms, ms_or_dash(x.cublas_ms),
                     cublas, unsplit);
    }
    fmt::format_to(o, "geomean: cuBLAS/pick {:.3f} over {} shape(s), best unsplit/pick {:.3f} over {}\n",
                   geomean(vs_cublas), vs_cublas.size(), geomean(vs_unsplit), vs_unsplit.size());
  }
  const Thresholds& t = rep.thresholds;
  if (t.top1_geomean || t.top1_worst || t.top5_geomean) {
    s += "thresholds ";
    if (t.top1_geomean) fmt::format_to(o, " top-1 geomean <= {}", *t.top1_geomean);
    if (t.top1_worst) fmt::format_to(o, " top-1 worst <= {}", *t.top1_worst);
    if (t.top5_geomean) fmt::format_to(o, " top-5 geomean <= {}", *t.top5_geomean);
    const std::optional<std::string> miss = threshold_miss(r, t);
    fmt::format_to(o, ": {}\n", miss ? "MISSED (" + *miss + ")"
                                      : r.groups.size() > 1 ? "met (overall and in every class)" : "met");
  }
  return s;
}

std::string validate_json(const ValidateReport& rep) {
  const ValidationReport& r = *rep.result;
  std::string s = "{\"datasets\":[";
  Out o(s);
  for (std::size_t i = 0; i < rep.datasets.size(); ++i) {
    if (i) s += ',';
    append_json_string(s, rep.datasets[i]);
  }
  s += "],\"superseded\":[";
  for (std::size_t i = 0; i < rep.superseded.size(); ++i) {
    const SupersededCase& c = rep.superseded[i];
    s += i ? ",{\"dataset\":" : "{\"dataset\":";
    append_json_string(s, c.dataset);
    s += ",\"shape\":";
    append_json_string(s, c.shape);
    s += ",\"by\":";
    append_json_string(s, c.by);
    s += '}';
  }
  fmt::format_to(o, "],\"split\":\"{}\",\"device\":", split_name(rep.split));
  append_json_string(s, rep.device);
  s += ",\"device_from\":";
  if (rep.device_from.empty()) s += "null";
  else append_json_string(s, rep.device_from);
  s += ",\"warnings\":[";
  for (std::size_t i = 0; i < rep.warnings.size(); ++i) {
    if (i) s += ',';
    append_json_string(s, rep.warnings[i]);
  }
  s += ']';
  fmt::format_to(o, ",\"family\":\"{}\",\"shapes\":[", rep.family);
  for (std::size_t i = 0; i < r.shapes.size(); ++i) {
    const ShapeScore& x = r.shapes[i];
    if (i) s += ',';
    fmt::format_to(o,
                   "{{\"shape\":\"{}\",\"m\":{},\"n\":{},\"k\":{},\"dtype\":\"{}\",\"a_layout\":\"{}\","
                   "\"b_layout\":\"{}\",\"group\":\"{}\",\"dataset\":",
                   shape_name(x.problem), x.problem.m, x.problem.n, x.problem.k, to_string(x.problem.dtype),
                   to_string(x.problem.a_layout), to_string(x.problem.b_layout), x.group);
    append_json_string(s, x.dataset);
    fmt::format_to(o, ",\"split\":\"{}\",\"cublas_ms\":", to_string(x.split));
    optional_json(s, x.cublas_ms);
    fmt::format_to(o, ",\"candidates\":{},\"best_key\":", x.candidates);
    append_json_string(s, x.best_key);
    s += ",\"best_ms\":";
    append_json_number(s, x.best_ms);
    fmt::format_to(o, ",\"unmodelled\":{},\"pick_ms\":", x.unmodelled);
    append_json_number(s, x.pick_ms);
    s += ",\"pick_predicted_ms\":";
    optional_json(s, x.pick_predicted_ms > 0 ? std::optional<double>(x.pick_predicted_ms) : std::nullopt);
    fmt::format_to(o, ",\"pick_split_k\":{},\"best_unsplit_ms\":", x.pick_split_k);
    optional_json(s, x.best_unsplit_ms);
    s += ",\"calibrated\":";
    score_json(s, x.calibrated, x.calibrated_top1_key);
    s += ",\"seed\":";
    score_json(s, x.seed, x.seed_top1_key);
    s += ",\"clock\":{";
    range_json(s, x.clock);
    s += ",\"pick\":";
    clock_json(s, x.pick_clock);
    s += ",\"best\":";
    clock_json(s, x.best_clock);
    s += ",\"cublas\":";
    clock_json(s, x.cublas_clock);
    s += "}}";
  }
  s += "],\"summary\":{\"calibrated\":";
  summary_json(s, r.calibrated, r);
  s += ",\"seed\":";
  summary_json(s, r.seed, r);
  s += "},\"clocks\":{";
  range_json(s, r.clocks.candidates);
  fmt::format_to(o, ",\"cublas_rows\":{},\"cublas_capped_rows\":{}}}", r.clocks.cublas_rows, r.clocks.cublas_capped);
  s += ",\"groups\":[";
  for (std::size_t i = 0; i < r.groups.size(); ++i) {
    const GroupScore& g = r.groups[i];
    if (i) s += ',';
    s += "{\"group\":";
    append_json_string(s, g.group);
    s += ",\"calibrated\":";
    summary_json(s, g.calibrated, r, &g.shapes);
    s += ",\"seed\":";
    summary_json(s, g.seed, r, &g.shapes);
    s += '}';
  }
  s += "],\"thresholds\":{\"max_top1_geomean\":";
  optional_json(s, rep.thresholds.top1_geomean);
  s += ",\"max_top1_worst\":";
  optional_json(s, rep.thresholds.top1_worst);
  s += ",\"max_top5_geomean\":";
  optional_json(s, rep.thresholds.top5_geomean);
  fmt::format_to(o, "}},\"pass\":{}}}\n", !threshold_miss(r, rep.thresholds).has_value());
  return s;
}

}  // namespace tileplan::render
