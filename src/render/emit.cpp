#include "tileplan/render/emit.hpp"

#include <cmath>
#include <iterator>

#include <fmt/format.h>

#include "tileplan/model.hpp"

namespace tileplan::render {
namespace {

std::string comment(const Verdict& v, int rank) {
  std::string c = fmt::format("  # rank {}", rank);
  if (v.predicted && std::isfinite(v.predicted_us)) c += fmt::format(", {:.1f} us predicted", v.predicted_us);
  if (!v.feasible()) c += ", infeasible";
  return c;
}

// The problem (its types always; its layouts and leading dimensions when not
// the defaults), the model, and the problem's warnings, as Python comments.
std::string header(const TileReport& r) {
  const GemmProblem& p = r.problem;
  const std::string model = r.model == Model::calibrated
                                ? fmt::format("model calibrated, family {}", r.family)
                                : std::string("model seed");
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
  auto o = std::back_inserter(s);
  int rank = 0;
  if (e == Emit::triton) {
    const int64_t group_m = r.group_m;
    for (const Verdict& v : r.candidates) {
      const TileConfig& c = v.config;
      // SPLIT_K only when the space splits: a kernel without the
      // argument refuses a config that carries it.
      fmt::format_to(o,
                     "triton.Config({{'BLOCK_M': {}, 'BLOCK_N': {}, 'BLOCK_K': {}, 'GROUP_M': {}{}}}, num_stages={}, "
                     "num_warps={}),{}\n",
                     c.block_m, c.block_n, c.block_k, group_m,
                     r.split_space ? fmt::format(", 'SPLIT_K': {}", c.split_k) : std::string(), c.stages,
                     c.threads / r.device->warp_size, comment(v, ++rank));
    }
    return s;
  }
  s += "[\n";
  for (const Verdict& v : r.candidates) {
    const TileConfig& c = v.config;
    fmt::format_to(o,
                   "    {{\"block_M\": {}, \"block_N\": {}, \"block_K\": {}, \"num_stages\": {}, \"threads\": {}, "
                   "{}\"in_dtype\": \"{}\", \"out_dtype\": \"{}\", \"accum_dtype\": \"float32\"}},{}\n",
                   c.block_m, c.block_n, c.block_k, c.stages, c.threads,
                   r.split_space ? fmt::format("\"split_k\": {}, ", c.split_k) : std::string(),
                   tilelang_dtype(r.problem.dtype), tilelang_dtype(r.problem.c_dtype()), comment(v, ++rank));
  }
  s += "]\n";
  return s;
}

}  // namespace tileplan::render
