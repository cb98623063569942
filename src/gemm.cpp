#include "tileplan/gemm.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

namespace tileplan {

std::string_view to_string(Instr i) {
  switch (i) {
    case Instr::mma: return "mma";
    case Instr::wgmma: return "wgmma";
    case Instr::simt: return "simt";
  }
  return "?";
}

std::optional<Instr> parse_instr(std::string_view s) {
  if (s == "mma") return Instr::mma;
  if (s == "wgmma") return Instr::wgmma;
  if (s == "simt") return Instr::simt;
  return std::nullopt;
}

Status check_problem(const GemmProblem& p) {
  const std::pair<const char*, int64_t> dims[] = {{"m", p.m}, {"n", p.n}, {"k", p.k}};
  for (const auto& [name, value] : dims) {
    if (value < 1)
      return Error{ErrorKind::invalid_argument, name,
                   fmt::format("{} is {}: a GEMM dimension must be at least 1", name, value)};
    if (value > kMaxDim)
      return Error{ErrorKind::out_of_range, name,
                   fmt::format("{} is {}: a GEMM dimension must be at most {}", name, value, kMaxDim)};
  }
  const std::pair<const char*, int64_t> sizes[] = {{"elem_bytes", p.elem_bytes}, {"accum_bytes", p.accum_bytes}};
  for (const auto& [name, value] : sizes)
    if (value < 1 || value > 8)
      return Error{ErrorKind::invalid_argument, name, fmt::format("{} {} must be between 1 and 8", name, value)};
  __int128 bytes = static_cast<__int128>(p.elem_bytes) * p.m * p.n;
  bytes *= p.k;
  if (bytes > std::numeric_limits<int64_t>::max())
    return Error{ErrorKind::out_of_range, "m/n/k",
                 fmt::format("m/n/k {}x{}x{}: {}*M*N*K bytes must fit in 64 bits", p.m, p.n, p.k, p.elem_bytes)};
  return {};
}

Status check_config(const TileConfig& c) {
  const std::pair<const char*, int64_t> values[] = {{"block_m", c.block_m}, {"block_n", c.block_n},
                                                    {"block_k", c.block_k}, {"stages", c.stages},
                                                    {"threads", c.threads}};
  for (const auto& [name, value] : values) {
    if (value < 1)
      return Error{ErrorKind::invalid_argument, name, fmt::format("{} value {} must be at least 1", name, value)};
    if (value > kMaxTileValue)
      return Error{ErrorKind::out_of_range, name,
                   fmt::format("{} value {} must be at most {}", name, value, kMaxTileValue)};
  }
  if (c.instr != Instr::mma && c.instr != Instr::wgmma && c.instr != Instr::simt)
    return Error{ErrorKind::invalid_argument, "instr",
                 fmt::format("instr {} is not one of mma, wgmma, simt", static_cast<int>(c.instr))};
  return {};
}

namespace {
void sort_unique(std::vector<int64_t>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}
}  // namespace

SearchSpace normalized(SearchSpace s) {
  for (std::vector<int64_t>* v : {&s.block_m, &s.block_n, &s.block_k, &s.stages, &s.threads}) sort_unique(*v);
  return s;
}

Result<std::size_t> space_size(const SearchSpace& space) {
  const std::pair<const char*, const std::vector<int64_t>*> lists[] = {{"block_m", &space.block_m},
                                                                       {"block_n", &space.block_n},
                                                                       {"block_k", &space.block_k},
                                                                       {"stages", &space.stages},
                                                                       {"threads", &space.threads}};
  std::size_t total = 1;
  for (const auto& [name, list] : lists) {
    if (list->empty())
      return Error{ErrorKind::invalid_argument, name, fmt::format("{}: the list of candidates is empty", name)};
    for (int64_t v : *list) {
      TileConfig c;  // each value through the one checker
      if (std::string_view(name) == "block_m") c.block_m = v;
      if (std::string_view(name) == "block_n") c.block_n = v;
      if (std::string_view(name) == "block_k") c.block_k = v;
      if (std::string_view(name) == "stages") c.stages = v;
      if (std::string_view(name) == "threads") c.threads = v;
      if (Status s = check_config(c); !s.ok()) return s.error();
    }
  }
  // Distinct values only; each list is at most kMaxTileValue long once its
  // repeats are gone, so the running product is checked before it can wrap.
  for (const auto& [name, list] : lists) {
    std::vector<int64_t> v = *list;
    sort_unique(v);
    if (total > kMaxSearchSpace / v.size())
      return Error{ErrorKind::out_of_range, "space",
                   fmt::format("space holds more than {} configurations (the product of the numbers of distinct "
                               "block_m, block_n, block_k, stages and threads values); a sweep walks at most {}",
                               kMaxSearchSpace, kMaxSearchSpace)};
    total *= v.size();
  }
  return total;
}

}  // namespace tileplan
