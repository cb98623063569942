#include "tileplan/render/emit.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tileplan/model.hpp"

namespace tileplan::render {
namespace {

std::string comment(const Verdict& v, int rank) {
  std::string c = fmt::format("  # rank {}", rank);
  if (v.predicted && std::isfinite(v.predicted_us)) c += fmt::format(", {:.1f} us predicted", v.predicted_us);
  if (!v.feasible()) c += ", infeasible";
  return c;
}

std::string model_summary(const TileReport& r) {
  return r.model == Model::calibrated ? fmt::format("model calibrated, family {}", r.family) : "model seed";
}

// The problem (its types always; its layouts and leading dimensions when not
// the defaults), the model, and the problem's warnings, as Python comments.
std::string header(const TileReport& r) {
  const GemmProblem& p = r.problem;
  const std::string model = model_summary(r);
  std::string problem = types_summary(p);
  if (const std::string layout = layout_summary(p); !layout.empty()) problem += ", " + layout;
  std::string s = fmt::format("# tileplan: {}x{}x{} (MxNxK) {}, on {}, {}, {} configuration(s)\n", p.m, p.n, p.k,
                              problem, r.device->name, model, r.candidates.size());
  TileConfig cfg;
  cfg.instr = r.instr;
  for (const Finding& f : problem_findings(p, r.instr)) fmt::format_to(std::back_inserter(s), "# {}\n", message(f, cfg));
  // The padding that pays most, where one does: the configurations below are
  // for the problem as given.
  if (r.padding) {
    const PaddingOption& o = r.padding->options.front();
    if (o.speedup >= kPaddingPays)
      fmt::format_to(std::back_inserter(s),
                     "# padding {} (A and B zero-filled, C's added part dropped) is predicted {:.2f}x faster: "
                     "`tileplan tile` lists the options; these configurations are for the problem as given\n",
                     padding_summary(p, o), o.speedup);
  }
  return s;
}

// TileLang's name of a type in memory: tf32 operands are float32 arrays
// that the tensor cores multiply with a 10-bit mantissa.
std::string_view tilelang_dtype(DType t) { return t == DType::tfloat32 ? "float32" : to_string(t); }

// One configuration as the autotuner's code, without comment or newline.
// Triton: SPLIT_K only when the space splits (a kernel without the argument
// refuses a config that carries it).
std::string config_line(const TileReport& r, const TileConfig& c, Emit e) {
  if (e == Emit::triton)
    return fmt::format(
        "triton.Config({{'BLOCK_M': {}, 'BLOCK_N': {}, 'BLOCK_K': {}, 'GROUP_M': {}{}}}, num_stages={}, num_warps={}),",
        c.block_m, c.block_n, c.block_k, r.group_m, r.split_space ? fmt::format(", 'SPLIT_K': {}", c.split_k) : "",
        c.stages, c.threads / r.device->warp_size);
  return fmt::format(
      "{{\"block_M\": {}, \"block_N\": {}, \"block_K\": {}, \"num_stages\": {}, \"threads\": {}, "
      "{}\"in_dtype\": \"{}\", \"out_dtype\": \"{}\", \"accum_dtype\": \"float32\"}},",
      c.block_m, c.block_n, c.block_k, c.stages, c.threads,
      r.split_space ? fmt::format("\"split_k\": {}, ", c.split_k) : "", tilelang_dtype(r.problem.dtype),
      tilelang_dtype(r.problem.c_dtype()));
}

}  // namespace

std::string_view to_string(Emit e) {
  switch (e) {
    case Emit::triton: return "triton";
    case Emit::tilelang: return "tilelang";
  }
  return "?";
}

std::optional<Emit> parse_emit(std::string_view s) {
  if (s == "triton") return Emit::triton;
  if (s == "tilelang") return Emit::tilelang;
  return std::nullopt;
}

std::string emit(const TileReport& r, Emit e) {
  std::string s = header(r);
  int rank = 0;
  if (e == Emit::tilelang) s += "[\n";
  for (const Verdict& v : r.candidates) {
    if (e == Emit::tilelang) s += "    ";
    s += config_line(r, v.config, e);
    s += comment(v, ++rank);
    s += '\n';
  }
  if (e == Emit::tilelang) s += "]\n";
  return s;
}

void BatchEmit::add(const TileReport& r) {
  ++shapes_;
  const GemmProblem& p = r.problem;
  const std::string shape = fmt::format("{}x{}x{}", p.m, p.n, p.k);
  if (r.candidates.empty()) {
    unplanned_.push_back(fmt::format("{} ({}): {}", shape, types_summary(p), no_candidate_reason(r)));
    return;
  }
  auto same_kernel = [&p](const List& l) {
    return l.kernel.dtype == p.dtype && l.kernel.c_dtype() == p.c_dtype() && l.kernel.a_layout == p.a_layout &&
           l.kernel.b_layout == p.b_layout;
  };
  auto it = std::find_if(lists_.begin(), lists_.end(), same_kernel);
  if (it == lists_.end()) {
    List fresh;
    fresh.kernel = p;
    lists_.push_back(std::move(fresh));
    it = std::prev(lists_.end());
  }
  List& list = *it;
  ++list.shapes;
  TileConfig cfg;
  cfg.instr = r.instr;
  for (const Finding& f : problem_findings(p, r.instr)) {
    std::string text = message(f, cfg);
    auto found = std::find_if(list.findings.begin(), list.findings.end(),
                              [&text](const auto& known) { return known.first == text; });
    if (found == list.findings.end())
      list.findings.emplace_back(std::move(text), 1);
    else
      ++found->second;
  }
  int64_t rank = 0;
  for (const Verdict& v : r.candidates) {
    ++rank;
    const TileConfig& c = v.config;
    // The fields a line shows: configurations that differ in nothing else
    // (the instruction, which the compiler picks) are one line.
    const std::array<int64_t, 6> key{c.block_m, c.block_n, c.block_k, c.stages, c.threads, c.split_k};
    const auto [slot, inserted] = list.index.try_emplace(key, list.entries.size());
    if (inserted) {
      list.entries.emplace_back();
      list.entries.back().config = c;
    }
    Entry& e = list.entries[slot->second];
    if (rank == 1) {
      if (e.named.size() < 3) e.named.push_back(shape);
      ++e.firsts;
    } else {
      ++e.lower;
      e.worst_rank = std::max(e.worst_rank, rank);
      e.best_lower_rank = e.best_lower_rank == 0 ? rank : std::min(e.best_lower_rank, rank);
    }
  }
}

std::string BatchEmit::finish(const TileReport& base, std::string_view source, std::size_t topk) const {
  std::size_t configs = 0;
  for (const List& l : lists_) configs += l.entries.size();
  // The file's name inside a Python comment: a control character (a newline
  // would end the comment) shows as '?'.
  std::string name(source);
  std::replace_if(name.begin(), name.end(), [](char ch) { return static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f; },
                  '?');
  std::string s =
      fmt::format("# tileplan: {} shape(s) of {}, on {}, {}\n", shapes_, name, base.device->name, model_summary(base));
  auto o = std::back_inserter(s);
  fmt::format_to(o, "# {} of each shape, without repeats: {} configuration(s) in {} list(s), one per kernel (types "
                 "and layouts)\n",
                 topk == 0 ? std::string("every feasible configuration")
                           : fmt::format("the first {} configuration(s)", topk),
                 configs, lists_.size());
  if (emit_ == Emit::triton)
    s += "# use a list as @triton.autotune(configs=LIST, key=['M', 'N', 'K']): each shape's first pick is in its "
         "list\n";
  else
    s += "# use a list as the configurations of TileLang's autotuner: each shape's first pick is in its list\n";
  s += "# per shape, the first pick with its notes (predicted time, warnings, padding): the same command with "
       "--format text\n";
  for (const std::string& u : unplanned_) fmt::format_to(o, "# no configuration for {}\n", u);
  for (const List& l : lists_) {
    const GemmProblem& k = l.kernel;
    fmt::format_to(o, "\n# {}, A {}, B {}: {} shape(s), {} configuration(s)\n", types_summary(k),
                   to_string(k.a_layout), to_string(k.b_layout), l.shapes, l.entries.size());
    for (const auto& [text, count] : l.findings)
      fmt::format_to(o, "# warning ({} of {} shape(s)): {}\n", count, l.shapes, text);
    std::vector<const Entry*> order;
    order.reserve(l.entries.size());
    for (const Entry& e : l.entries) order.push_back(&e);
    std::stable_sort(order.begin(), order.end(), [](const Entry* a, const Entry* b) {
      if (a->firsts != b->firsts) return a->firsts > b->firsts;
      return a->firsts + a->lower > b->firsts + b->lower;
    });
    fmt::format_to(o, "configs_{}_{}_{}_{} = [\n", to_string(k.dtype), to_string(k.c_dtype()), to_string(k.a_layout),
                   to_string(k.b_layout));
    TileReport r = base;
    r.problem = k;
    for (const Entry* e : order) {
      s += "    ";
      s += config_line(r, e->config, emit_);
      s += "  #";
      if (e->firsts > 0) {
        fmt::format_to(o, " first pick for {}", fmt::join(e->named, ", "));
        if (e->firsts > e->named.size()) fmt::format_to(o, " and {} more", e->firsts - e->named.size());
      }
      if (e->lower > 0) {
        if (e->firsts > 0) s += ";";
        const std::string ranks = e->best_lower_rank == e->worst_rank
                                      ? fmt::format("{}", e->worst_rank)
                                      : fmt::format("{} to {}", e->best_lower_rank, e->worst_rank);
        fmt::format_to(o, " ranked {} for {} {}shape(s)", ranks, e->lower, e->firsts > 0 ? "more " : "");
      }
      s += '\n';
    }
    s += "]\n";
  }
  return s;
}

}  // namespace tileplan::render
