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
    case Instr::automatic: return "auto";
  }
  return "?";
}

std::optional<Instr> parse_instr(std::string_view s) {
  if (s == "mma") return Instr::mma;
  if (s == "wgmma") return Instr::wgmma;
  if (s == "simt") return Instr::simt;
  if (s == "auto") return Instr::automatic;
  return std::nullopt;
}

std::string_view to_string(DType t) {
  switch (t) {
    case DType::float16: return "float16";
    case DType::bfloat16: return "bfloat16";
    case DType::float8_e4m3: return "float8_e4m3";
    case DType::float8_e5m2: return "float8_e5m2";
    case DType::tfloat32: return "tfloat32";
    case DType::float32: return "float32";
  }
  return "?";
}

std::optional<DType> parse_dtype(std::string_view s) {
  for (DType t : {DType::float16, DType::bfloat16, DType::float8_e4m3, DType::float8_e5m2, DType::tfloat32,
                  DType::float32})
    if (s == to_string(t)) return t;
  return std::nullopt;
}

std::string_view input_type_names() { return "float16, bfloat16, float8_e4m3, float8_e5m2, tfloat32"; }
std::string_view output_type_names() { return "float16, bfloat16, float32"; }

std::string_view to_string(Layout l) { return l == Layout::row ? "row" : "col"; }

std::optional<Layout> parse_layout(std::string_view s) {
  if (s == "row") return Layout::row;
  if (s == "col") return Layout::col;
  return std::nullopt;
}

namespace {

bool valid_dtype(DType t) { return static_cast<unsigned>(t) <= static_cast<unsigned>(DType::float32); }

// The extent each leading dimension strides past (the contiguous one) and the
// rows it strides over.
struct LdRule {
  const char* name;
  int64_t ld, contiguous, rows, bytes;
};


}  // namespace


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
  if (!valid_dtype(p.dtype) || !is_input_type(p.dtype))
    return Error{ErrorKind::invalid_argument, "dtype",
                 fmt::format("dtype {} is not an input type: one of {}",
                             valid_dtype(p.dtype) ? to_string(p.dtype) : std::string_view("(invalid)"),
                             input_type_names())};
  if (p.out_dtype && (!valid_dtype(*p.out_dtype) || !is_output_type(*p.out_dtype)))
    return Error{ErrorKind::invalid_argument, "out_dtype",
                 fmt::format("out_dtype {} is not an output type: one of {}",
                             valid_dtype(*p.out_dtype) ? to_string(*p.out_dtype) : std::string_view("(invalid)"),
                             output_type_names())};
  if (p.accum_bytes < 1 || p.accum_bytes > 8)
    return Error{ErrorKind::invalid_argument, "accum_bytes",
                 fmt::format("accum_bytes {} must be between 1 and 8", p.accum_bytes)};
  for (const auto& [name, l] : {std::pair<const char*, Layout>{"a_layout", p.a_layout}, {"b_layout", p.b_layout}})
    if (l != Layout::row && l != Layout::col)
      return Error{ErrorKind::invalid_argument, name,
                   fmt::format("{} {} is not one of row, col", name, static_cast<int>(l))};
  const int64_t e = p.elem_bytes();
  __int128 bytes = static_cast<__int128>(e) * p.m * p.n;
  bytes *= p.k;
  if (bytes > std::numeric_limits<int64_t>::max())
    return Error{ErrorKind::out_of_range, "m/n/k",
                 fmt::format("m/n/k {}x{}x{}: {}*M*N*K bytes must fit in 64 bits", p.m, p.n, p.k, e)};
  const bool a_row = p.a_layout == Layout::row, b_row = p.b_layout == Layout::row;
  const LdRule lds[] = {{"lda", p.lda, a_row ? p.k : p.m, a_row ? p.m : p.k, e},
                        {"ldb", p.ldb, b_row ? p.n : p.k, b_row ? p.k : p.n, e},
                        {"ldc", p.ldc, p.n, p.m, p.out_bytes()}};
  for (const LdRule& r : lds) {
    if (r.ld == 0) continue;
    if (r.ld < r.contiguous || r.ld > kMaxDim)
      return Error{ErrorKind::invalid_argument, r.name,
                   fmt::format("{} {} must be 0 (packed) or between the extent it strides past ({}) and {}", r.name,
                               r.ld, r.contiguous, kMaxDim)};
    const __int128 span = static_cast<__int128>(r.ld) * r.rows * r.bytes;
    if (span > std::numeric_limits<int64_t>::max())
      return Error{ErrorKind::out_of_range, r.name,
                   fmt::format("{} {}: {} rows of {} elements of {} bytes must fit in 64 bits", r.name, r.ld,
                               r.rows, r.ld, r.bytes)};
  }
  return {};
}

Status check_config(const TileConfig& c) {
  const std::pair<const char*, int64_t> values[] = {{"block_m", c.block_m}, {"block_n", c.block_n},
                                                    {"block_k", c.block_k}, {"stages", c.stages},
                                                    {"threads", c.threads}, {"split_k", c.split_k}};
  for (const auto& [name, value] : values) {
    if (value < 1)
      return Error{ErrorKind::invalid_argument, name, fmt::format("{} value {} must be at least 1", name, value)};
    if (value > kMaxTileValue)
      return Error{ErrorKind::out_of_range, name,
                   fmt::format("{} value {} must be at most {}", name, value, kMaxTileValue)};
  }
  if (c.instr != Instr::mma && c.instr != Instr::wgmma && c.instr != Instr::simt)
    return Error{ErrorKind::invalid_argument, "instr",
                 c.instr == Instr::automatic
                     ? std::string("instr auto is a sweep's request: a configuration's instruction is mma, wgmma "
                                   "or simt (resolve_instr)")
                     : fmt::format("instr {} is not one of mma, wgmma, simt", static_cast<int>(c.instr))};
  return {};
}

namespace {
void sort_unique(std::vector<int64_t>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}
}  // namespace

SearchSpace normalized(SearchSpace s) {
  for (std::vector<int64_t>* v : {&s.block_m, &s.block_n, &s.block_k, &s.stages, &s.threads, &s.split_k})
    sort_unique(*v);
  return s;
}

Result<std::size_t> space_size(const SearchSpace& space) {
  const std::pair<const char*, const std::vector<int64_t>*> lists[] = {{"block_m", &space.block_m},
                                                                       {"block_n", &space.block_n},
                                                                       {"block_k", &space.block_k},
                                                                       {"stages", &space.stages},
                                                                       {"threads", &space.threads},
                                                                       {"split_k", &space.split_k}};
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
      if (std::string_view(name) == "split_k") c.split_k = v;
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
                               "block_m, block_n, block_k, stages, threads and split_k values); a sweep walks at most {}",
                               kMaxSearchSpace, kMaxSearchSpace)};
    total *= v.size();
  }
  return total;
}

bool in_space(const SearchSpace& space, const TileConfig& cfg) {
  const auto has = [](const std::vector<int64_t>& values, int64_t v) {
    return std::find(values.begin(), values.end(), v) != values.end();
  };
  return has(space.block_m, cfg.block_m) && has(space.block_n, cfg.block_n) && has(space.block_k, cfg.block_k) &&
         has(space.stages, cfg.stages) && has(space.threads, cfg.threads);
}

}  // namespace tileplan
