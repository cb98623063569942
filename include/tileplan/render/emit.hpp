// The shortlist as code for a user's autotuner: Triton's @triton.autotune
// configs, or TileLang's autotuner's list of dicts. Paste-ready text.
#pragma once

#include <array>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tileplan/render/tile.hpp"

namespace tileplan::render {

enum class Emit { triton, tilelang };
std::string_view to_string(Emit e);
std::optional<Emit> parse_emit(std::string_view s);

// Triton: one line per candidate,
//   triton.Config({'BLOCK_M': 128, 'BLOCK_N': 256, 'BLOCK_K': 64, 'GROUP_M': 8}, num_stages=4, num_warps=8),
// with num_warps = threads / warp size and GROUP_M the family's grouped order.
// TileLang: a Python list of dicts with block_M, block_N, block_K, num_stages,
// threads and the problem's types in TileLang's names: in_dtype (A and B:
// "float16", "bfloat16", "float8_e4m3", "float8_e5m2", or "float32" for tf32
// operands), out_dtype (C) and accum_dtype ("float32").
// Both start with a comment naming the problem (its types; its layouts and
// leading dimensions when not the defaults), the device and the model, then
// one comment per problem warning (problem_findings). Each line ends in a
// comment with the rank and the predicted time (if any).
std::string emit(const TileReport& r, Emit e);

// A batch's shortlists (tile --shapes FILE --emit) as autotune lists: one
// Python list per kernel (input type, output type, A and B layouts), named
// configs_<in>_<out>_<a>_<b>, holding every configuration ranked in the
// top k of any of its shapes once. An autotuner keyed on M, N, K then times
// only those for each shape, and each shape's own first pick is among them.
// Lines as emit()'s; each ends in a comment naming the shapes it is the
// first pick for (the first three, then a count) and how many more rank it
// lower. A list is ordered by the shapes it is the first pick for, then by
// all the shapes that rank it, then by first appearance. Before the lists:
// a header (source, device, model, k, counts) and one comment per shape
// with no feasible configuration (why); before each list its distinct
// problem warnings, each with the number of its shapes it concerns.
// Memory grows with the distinct configurations and warnings, not with the
// shapes (beyond the unplanned shapes' comments).
class BatchEmit {
 public:
  explicit BatchEmit(Emit e) : emit_(e) {}
  // One shape's report, in the file's order: its candidates ranked, best
  // first; none: the shape is listed with no_candidate_reason.
  void add(const TileReport& r);
  // The lists. `base` gives the device, model, family, GROUP_M and whether
  // the space splits; `source` names the shapes file; `topk` the ranks kept.
  std::string finish(const TileReport& base, std::string_view source, std::size_t topk) const;

 private:
  // One distinct configuration of a list.
  struct Entry {
    TileConfig config;
    std::size_t firsts = 0;            // shapes it is the first pick for
    std::vector<std::string> named;    // the first three of those, as MxNxK
    std::size_t lower = 0;             // shapes that rank it 2nd or lower
    int64_t best_lower_rank = 0;       // the best of those ranks, 2 at best (0: none)
    int64_t worst_rank = 0;            // the worst of those ranks (0: none)
  };
  struct List {
    GemmProblem kernel;  // its types and layouts (the first shape's)
    std::size_t shapes = 0;
    std::vector<Entry> entries;                          // in order of first appearance
    std::map<std::array<int64_t, 6>, std::size_t> index;  // emitted fields -> entries
    std::vector<std::pair<std::string, std::size_t>> findings;  // distinct warnings, shapes with each
  };
  Emit emit_;
  std::vector<List> lists_;             // in order of first appearance
  std::vector<std::string> unplanned_;  // "MxNxK (types): why"
  std::size_t shapes_ = 0;
};

}  // namespace tileplan::render
