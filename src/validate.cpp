#include "tileplan/validate.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <cmath>
#include <fstream>
#include <map>
#include <numeric>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace tileplan {
namespace {

using nlohmann::json;

// A checker's sentence with the dataset's own field names (M, N, K, BM, ...)
// for the library's parameter names.
std::string field_message(const Error& e) {
  static constexpr std::pair<std::string_view, std::string_view> kFields[] = {
      {"m/n/k", "M/N/K"}, {"m", "M"}, {"n", "N"}, {"k", "K"}, {"block_m", "BM"}, {"block_n", "BN"},
      {"block_k", "BK"}};
  for (const auto& [param, field] : kFields)
    if (e.param == param && e.message.rfind(param, 0) == 0) return std::string(field) + e.message.substr(param.size());
  return e.message;
}

// A required integer field of a JSON line, or an error sentence.
std::optional<std::string> get_int(const json& j, const char* field, int64_t& out) {
  const auto it = j.find(field);
  if (it == j.end()) return fmt::format("missing field '{}'", field);
  if (!it->is_number_integer()) return fmt::format("field '{}' must be an integer", field);
  out = it->get<int64_t>();
  return std::nullopt;
}

std::optional<std::string> get_string(const json& j, const char* field, std::string& out) {
  const auto it = j.find(field);
  if (it == j.end()) return fmt::format("missing field '{}'", field);
  if (!it->is_string()) return fmt::format("field '{}' must be a string", field);
  out = it->get<std::string>();
  return std::nullopt;
}

// A path that names a regular file, or an error sentence. (An ifstream opens
// a directory without complaint and then reads nothing.)
std::optional<std::string> check_regular_file(const std::string& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) return fmt::format("{}: the file cannot be opened for reading", path);
  if (!std::filesystem::is_regular_file(status)) return fmt::format("{}: not a regular file", path);
  return std::nullopt;
}

// Calls `line_fn(json, line_number)` for every non-blank line; returns the
// first error as "PATH:LINE: reason". Lines longer than kMaxDatasetLineBytes
// are refused before they are parsed.
template <class F>
std::optional<std::string> each_json_line(const std::string& path, F line_fn) {
  if (auto e = check_regular_file(path)) return e;
  std::ifstream f(path, std::ios::binary);
  if (!f) return fmt::format("{}: the file cannot be opened for reading", path);
  std::string line;
  int64_t number = 0;
  while (true) {
    line.clear();
    bool too_long = false;
    for (int c; (c = f.get()) != std::char_traits<char>::eof() && c != '\n';) {
      if (line.size() == kMaxDatasetLineBytes) {
        too_long = true;
        break;
      }
      line.push_back(static_cast<char>(c));
    }
    if (line.empty() && !f) break;
    ++number;
    if (too_long) return fmt::format("{}:{}: the line is longer than {} bytes", path, number, kMaxDatasetLineBytes);
    if (line.find_first_not_of(" \t\r") == std::string::npos) {
      if (!f) break;
      continue;
    }
    json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object())
      return fmt::format("{}:{}: not a JSON object", path, number);
    if (auto err = line_fn(j, number)) return fmt::format("{}:{}: {}", path, number, *err);
    if (!f) break;
  }
  if (f.bad()) return fmt::format("{}: reading failed", path);
  return std::nullopt;
}

std::optional<std::string> read_configs(const std::string& path, Dataset& d) {
  std::map<std::pair<std::string, std::string>, int64_t> seen;
  auto err = each_json_line(path, [&](const json& j, int64_t line) -> std::optional<std::string> {
    MeasuredConfig c;
    int64_t bm = 0, bn = 0, bk = 0, stages = 0, warps = 0;
    for (auto [field, value] : {std::pair<const char*, int64_t*>{"BM", &bm}, {"BN", &bn}, {"BK", &bk},
                                {"stages", &stages}, {"warps", &warps}})
      if (auto e = get_int(j, field, *value)) return e;
    if (auto e = get_string(j, "key", c.key)) return e;
    if (j.contains("class"))
      if (auto e = get_string(j, "class", c.klass)) return e;
    // Threads = 32*warps: bound warps first so that the product cannot overflow.
    if (warps < 1 || warps > kMaxTileValue / 32)
      return fmt::format("configuration '{}': warps {} must be between 1 and {}", c.key, warps, kMaxTileValue / 32);
    // Triton kernels compiled for sm_90 (every dataset's device): each tile's
    // instruction is the one tl.dot picked for it.
    c.config = TileConfig{bm, bn, bk, stages, 32 * warps, resolve_instr(Instr::automatic, 90, bm, 32 * warps)};
    if (j.contains("split_k") && !j["split_k"].is_null())
      if (auto e = get_int(j, "split_k", c.config.split_k)) return e;
    if (j.contains("variant"))
      if (auto e = get_string(j, "variant", c.variant)) return e;
    if (Status e = check_config(c.config); !e.ok())
      return fmt::format("configuration '{}': {}", c.key, field_message(e.error()));
    if (auto [it, inserted] = seen.emplace(std::pair{c.klass, c.key}, line); !inserted)
      return fmt::format("configuration '{}'{} repeats line {}", c.key,
                         c.klass.empty() ? "" : fmt::format(" of class '{}'", c.klass), it->second);
    c.compiled = !j.contains("error");
    if (c.compiled) {
      for (auto [field, value] : {std::pair<const char*, int64_t*>{"n_regs", &c.regs_per_thread},
                                  {"n_spills", &c.spills}, {"shared", &c.smem_bytes},
                                  {"occupancy", &c.blocks_per_sm}})
        if (auto e = get_int(j, field, *value)) return e;
    }
    d.configs.push_back(std::move(c));
    return std::nullopt;
  });
  if (err) return err;
  if (d.configs.empty()) return fmt::format("{}: the file holds no configurations", path);
  std::stable_sort(d.configs.begin(), d.configs.end(), [](const MeasuredConfig& a, const MeasuredConfig& b) {
    const TileConfig &x = a.config, &y = b.config;
    return std::tie(x.block_m, x.block_n, x.block_k, x.stages, x.threads, x.split_k) <
           std::tie(y.block_m, y.block_n, y.block_k, y.stages, y.threads, y.split_k);
  });
  return std::nullopt;
}

// The optional type and layout fields of a timing line.
std::optional<std::string> read_case_fields(const json& j, GemmProblem& p) {
  std::string text;
  if (j.contains("dtype")) {
    if (auto e = get_string(j, "dtype", text)) return e;
    const std::optional<DType> t = parse_dtype(text);
    if (!t || !is_input_type(*t))
      return fmt::format("field 'dtype' must be one of {}", input_type_names());
    p.dtype = *t;
  }
  for (auto [field, layout] : {std::pair<const char*, Layout*>{"a_layout", &p.a_layout}, {"b_layout", &p.b_layout}}) {
    if (!j.contains(field)) continue;
    if (auto e = get_string(j, field, text)) return e;
    const std::optional<Layout> l = parse_layout(text);
    if (!l) return fmt::format("field '{}' must be row or col", field);
    *layout = *l;
  }
  return std::nullopt;
}

// The optional clock fields of a timing line: sm_clock_mhz (1 to 10000) and
// clock_reasons (a list of at most 32 strings, the clock-event reasons NVML
// named while the row was timed). Nothing when the line has no sm_clock_mhz.
std::optional<std::string> read_clock_fields(const json& j, std::optional<RowClock>& clock) {
  clock.reset();
  bool capped = false;
  if (const auto r = j.find("clock_reasons"); r != j.end()) {
    if (!r->is_array() || r->size() > 32 ||
        !std::all_of(r->begin(), r->end(), [](const json& x) { return x.is_string(); }))
      return std::string("field 'clock_reasons' must be a list of at most 32 strings (the clock-event reasons)");
    for (const json& x : *r) {
      const std::string& why = x.get_ref<const std::string&>();
      capped = capped || why == "sw_power_cap" || why == "hw_power_brake";
    }
  }
  const auto mhz = j.find("sm_clock_mhz");
  if (mhz == j.end()) return std::nullopt;
  if (!mhz->is_number() || !(mhz->get<double>() >= 1 && mhz->get<double>() <= 10000))
    return std::string("field 'sm_clock_mhz' must be a number between 1 and 10000 (MHz)");
  clock = RowClock{mhz->get<double>(), capped};
  return std::nullopt;
}

ClockRange clock_range(std::vector<double> mhz, std::size_t capped) {
  ClockRange r;
  r.rows = mhz.size();
  r.capped = capped;
  if (mhz.empty()) return r;
  std::sort(mhz.begin(), mhz.end());
  r.min_mhz = mhz.front();
  r.median_mhz = mhz[mhz.size() / 2];
  r.max_mhz = mhz.back();
  return r;
}

using CaseKey = std::tuple<int64_t, int64_t, int64_t, DType, Layout, Layout>;
CaseKey case_key(const GemmProblem& p) { return {p.m, p.n, p.k, p.dtype, p.a_layout, p.b_layout}; }

std::optional<std::string> read_timings(const std::string& path, Dataset& d) {
  std::map<std::pair<std::string, std::string>, std::size_t> index;
  for (std::size_t i = 0; i < d.configs.size(); ++i) index.emplace(std::pair{d.configs[i].klass, d.configs[i].key}, i);
  std::map<CaseKey, std::size_t> shape_of;
  std::map<std::pair<CaseKey, std::string>, int64_t> line_of;
  auto err = each_json_line(path, [&](const json& j, int64_t line) -> std::optional<std::string> {
    // An auxiliary kernel timed alone, or a split GEMM timed without its
    // reduction (`gemm_alone`): parts of a configuration, not one.
    if (const auto v = j.find("variant");
        v != j.end() && v->is_string() &&
        (v->get_ref<const std::string&>() == "aux" || v->get_ref<const std::string&>() == "gemm_alone"))
      return std::nullopt;
    GemmProblem p;
    for (auto [field, value] : {std::pair<const char*, int64_t*>{"M", &p.m}, {"N", &p.n}, {"K", &p.k}})
      if (auto e = get_int(j, field, *value)) return e;
    if (auto e = read_case_fields(j, p)) return e;
    if (Status e = check_problem(p); !e.ok()) return field_message(e.error());
    std::string key, klass;
    if (auto e = get_string(j, "key", key)) return e;
    if (j.contains("class"))
      if (auto e = get_string(j, "class", klass)) return e;
    const auto ms = j.find("ms");
    if (ms == j.end()) return std::string("missing field 'ms'");
    if (!ms->is_number() || !(ms->get<double>() >= kMinMeasuredMs && ms->get<double>() <= kMaxMeasuredMs))
      return fmt::format("field 'ms' must be a number between {} and {} (milliseconds)", kMinMeasuredMs,
                         kMaxMeasuredMs);
    std::optional<RowClock> clock;
    if (auto e = read_clock_fields(j, clock)) return e;
    // One time per (case, configuration): a second line would silently
    // replace or join the first.
    if (const auto [seen, fresh] = line_of.emplace(std::pair{case_key(p), key}, line); !fresh)
      return fmt::format("case {} configuration '{}' repeats line {}", shape_name(p), key, seen->second);
    const auto [it, inserted] = shape_of.emplace(case_key(p), d.shapes.size());
    if (inserted) d.shapes.push_back(MeasuredShape{p, std::nullopt, {}, std::nullopt, {}});
    MeasuredShape& s = d.shapes[it->second];
    if (key == "cublas") {
      s.cublas_ms = ms->get<double>();
      s.cublas_clock = clock;
      return std::nullopt;
    }
    auto c = index.find(std::pair{klass, key});
    if (c == index.end() && !klass.empty()) c = index.find(std::pair{std::string(), key});
    if (c == index.end())
      return fmt::format("configuration '{}'{} is not in configs.jsonl", key,
                         klass.empty() ? "" : fmt::format(" of class '{}'", klass));
    if (!d.configs[c->second].compiled)
      return fmt::format("configuration '{}' has a time but configs.jsonl records it as refused", key);
    s.times_ms.emplace_back(c->second, ms->get<double>());
    if (clock) s.clocks.emplace_back(c->second, *clock);
    return std::nullopt;
  });
  if (err) return err;
  if (d.shapes.empty()) return fmt::format("{}: the file holds no timings", path);
  for (const MeasuredShape& s : d.shapes)
    if (s.times_ms.empty())
      return fmt::format("{}: case {} has only a cuBLAS time", path, shape_name(s.problem));
  return std::nullopt;
}

// An optional file holding one JSON object of at most max_bytes: the object
// in `j` (null when the file does not exist), or what is wrong with the file.
std::optional<std::string> read_json_object(const std::string& path, std::size_t max_bytes, json& j) {
  j = nullptr;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::nullopt;  // optional file
  if (auto e = check_regular_file(path)) return e;
  if (std::filesystem::file_size(path, ec) > max_bytes || ec)
    return fmt::format("{}: larger than {} bytes", path, max_bytes);
  std::ifstream f(path, std::ios::binary);
  if (!f) return fmt::format("{}: the file cannot be opened for reading", path);
  j = json::parse(f, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return fmt::format("{}: not a JSON object", path);
  return std::nullopt;
}

std::optional<std::string> read_split(const std::string& path, Dataset& d) {
  json j;
  if (auto e = read_json_object(path, kMaxSplitFileBytes, j)) return e;
  if (j.is_null()) return std::nullopt;
  for (auto [field, list] : {std::pair<const char*, std::vector<GemmProblem>*>{"calibration", &d.calibration},
                             {"held_out", &d.held_out}}) {
    const auto it = j.find(field);
    if (it == j.end()) continue;
    if (!it->is_array())
      return fmt::format("{}: '{}' must be a list of \"MxNxK[:dtype:LL]\" strings", path, field);
    for (std::size_t i = 0; i < it->size(); ++i) {
      const json& s = (*it)[i];
      const std::optional<GemmProblem> p = s.is_string() ? parse_shape(s.get<std::string>()) : std::nullopt;
      // Name the item by position, never by its text: a hostile item can be
      // nested deep enough to exhaust the stack of a recursive dump.
      if (!p) return fmt::format("{}: '{}' item {} is not a case \"MxNxK[:dtype:LL]\"", path, field, i + 1);
      list->push_back(*p);
    }
  }
  // Cases whose rows a later measurement replaces: {"shapes": [...], "by": "DIR", "why": "..."}.
  if (const auto it = j.find("superseded"); it != j.end()) {
    const auto shapes = it->is_object() ? it->find("shapes") : it->end();
    if (!it->is_object() || shapes == it->end() || !shapes->is_array())
      return fmt::format("{}: 'superseded' must be an object whose 'shapes' is a list of \"MxNxK[:dtype:LL]\" strings",
                         path);
    for (const char* note : {"by", "why"})
      if (const auto n = it->find(note); n != it->end() && !n->is_string())
        return fmt::format("{}: 'superseded' field '{}' must be a string", path, note);
    if (const auto by = it->find("by"); by != it->end()) {
      // Printed in validate's text: one line, so no control characters, and bounded.
      d.superseded_by = by->get<std::string>();
      if (d.superseded_by.size() > 512 || std::any_of(d.superseded_by.begin(), d.superseded_by.end(),
                                                      [](char c) { return static_cast<unsigned char>(c) < 0x20; }))
        return fmt::format("{}: 'superseded' field 'by' must be at most 512 characters, none a control character",
                           path);
    }
    for (std::size_t i = 0; i < shapes->size(); ++i) {
      const json& s = (*shapes)[i];
      const std::optional<GemmProblem> p = s.is_string() ? parse_shape(s.get<std::string>()) : std::nullopt;
      if (!p) return fmt::format("{}: 'superseded' item {} is not a case \"MxNxK[:dtype:LL]\"", path, i + 1);
      d.superseded.push_back(*p);
    }
  }
  d.has_split = true;
  return std::nullopt;
}

bool same_shape(const GemmProblem& a, const GemmProblem& b) { return case_key(a) == case_key(b); }

// A configuration the family's model describes: unsplit, or split in the
// family's split-K variant.
bool modelled(const MeasuredConfig& c, const KernelFamily& family) {
  if (c.config.split_k == 1) return c.variant.empty() || c.variant == "none";
  return family.split_k && (c.variant.empty() || c.variant == family.split_k->variant);
}

// Average ranks (1-based) of the values, ties sharing their mean rank.
std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<std::size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    const double mean = (static_cast<double>(i) + static_cast<double>(j)) / 2.0 + 1.0;
    for (std::size_t t = i; t <= j; ++t) r[order[t]] = mean;
    i = j + 1;
  }
  return r;
}

}  // namespace

std::string_view to_string(Split s) {
  switch (s) {
    case Split::unlabelled: return "-";
    case Split::calibration: return "calibration";
    case Split::held_out: return "held-out";
  }
  return "?";
}

std::optional<GemmProblem> parse_shape(std::string_view s) {
  GemmProblem p;
  std::string_view dims_text = s, suffix;
  if (const std::size_t colon = s.find(':'); colon != std::string_view::npos) {
    dims_text = s.substr(0, colon);
    suffix = s.substr(colon + 1);
  }
  int64_t* dims[] = {&p.m, &p.n, &p.k};
  for (int i = 0; i < 3; ++i) {
    const std::size_t x = i < 2 ? dims_text.find('x') : dims_text.size();
    if (x == std::string_view::npos) return std::nullopt;
    const std::string_view part = dims_text.substr(0, x);
    auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), *dims[i]);
    if (part.empty() || ec != std::errc() || ptr != part.data() + part.size()) return std::nullopt;
    dims_text = i < 2 ? dims_text.substr(x + 1) : std::string_view();
  }
  if (s.find(':') != std::string_view::npos) {
    const std::size_t colon = suffix.find(':');
    if (colon == std::string_view::npos) return std::nullopt;
    const std::optional<DType> t = parse_dtype(suffix.substr(0, colon));
    const std::string_view lay = suffix.substr(colon + 1);
    if (!t || !is_input_type(*t) || lay.size() != 2) return std::nullopt;
    for (auto [c, out] : {std::pair<char, Layout*>{lay[0], &p.a_layout}, {lay[1], &p.b_layout}}) {
      if (c != 'r' && c != 'c') return std::nullopt;
      *out = c == 'r' ? Layout::row : Layout::col;
    }
    p.dtype = *t;
  }
  if (!check_problem(p).ok()) return std::nullopt;
  return p;
}

std::string shape_name(const GemmProblem& p) {
  if (p.dtype == DType::float16 && p.a_layout == Layout::row && p.b_layout == Layout::row)
    return fmt::format("{}x{}x{}", p.m, p.n, p.k);
  return fmt::format("{}x{}x{}:{}:{}{}", p.m, p.n, p.k, to_string(p.dtype), p.a_layout == Layout::row ? 'r' : 'c',
                     p.b_layout == Layout::row ? 'r' : 'c');
}

std::string problem_class(const GemmProblem& p) {
  std::string flags;
  for (auto [c, d] : {std::pair<char, int64_t>{'M', p.m}, {'N', p.n}, {'K', p.k}})
    flags.push_back(d == 1 ? '1' : d % kDivisibility == 0 ? c : static_cast<char>(c - 'A' + 'a'));
  return fmt::format("{}:{}{}:{}", to_string(p.dtype), p.a_layout == Layout::row ? 'r' : 'c',
                     p.b_layout == Layout::row ? 'r' : 'c', flags);
}

// meta.json: the GPU's name, SM count, L2 size and compute capability. The
// file and the four fields are optional; a field of the wrong kind is an error.
std::optional<std::string> read_meta(const std::string& path, Dataset& d) {
  json j;
  if (auto e = read_json_object(path, kMaxMetaFileBytes, j)) return e;
  if (j.is_null()) return std::nullopt;
  MeasuredGpu g;
  int found = 0;
  if (const auto it = j.find("gpu"); it != j.end()) {
    // Printed in validate's warnings: one line, bounded.
    const std::string name = it->is_string() ? it->get<std::string>() : "";
    if (name.empty() || name.size() > 256 ||
        std::any_of(name.begin(), name.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; }))
      return fmt::format("{}: 'gpu' must be the GPU's name: 1 to 256 characters, none a control character", path);
    g.name = name;
    ++found;
  }
  for (auto [field, value, most] : {std::tuple<const char*, int64_t*, int64_t>{"sm_count", &g.sm_count, 1'000'000},
                                    {"l2_bytes", &g.l2_bytes, int64_t{1} << 40}}) {
    const auto it = j.find(field);
    if (it == j.end()) continue;
    if (!it->is_number_integer() || it->get<int64_t>() < 1 || it->get<int64_t>() > most)
      return fmt::format("{}: '{}' must be an integer from 1 to {}", path, field, most);
    *value = it->get<int64_t>();
    ++found;
  }
  if (const auto it = j.find("compute_capability"); it != j.end()) {
    // "9.0" as the harnesses write it (torch's major.minor).
    const std::string cc = it->is_string() ? it->get<std::string>() : "";
    if (cc.size() < 3 || cc.size() > 4 || cc[cc.size() - 2] != '.' ||
        !std::all_of(cc.begin(), cc.end() - 2, [](char c) { return c >= '0' && c <= '9'; }) ||
        cc.back() < '0' || cc.back() > '9')
      return fmt::format("{}: 'compute_capability' must be \"MAJOR.MINOR\", e.g. \"9.0\"", path);
    g.compute_capability = std::stoll(cc.substr(0, cc.size() - 2)) * 10 + (cc.back() - '0');
    ++found;
  }
  if (found == 4) d.gpu = g;
  return std::nullopt;
}

Result<Dataset> load_dataset(const std::string& dir) {
  Dataset out;
  out.dir = dir;
  const auto fail = [](std::string message) { return Error{ErrorKind::parse_error, "", std::move(message)}; };
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    return Error{ErrorKind::io_error, "", fmt::format("{}: not a dataset directory", dir)};
  if (auto e = read_configs(dir + "/configs.jsonl", out)) return fail(*e);
  if (auto e = read_timings(dir + "/timings.jsonl", out)) return fail(*e);
  if (auto e = read_split(dir + "/split.json", out)) return fail(*e);
  if (auto e = read_meta(dir + "/meta.json", out)) return fail(*e);
  // A superseded case's rows stay in the files as measured, but nothing scores or fits them.
  std::erase_if(out.shapes, [&](const MeasuredShape& m) {
    return std::any_of(out.superseded.begin(), out.superseded.end(),
                       [&](const GemmProblem& q) { return case_key(q) == case_key(m.problem); });
  });
  return out;
}

bool describes(const Device& d, const MeasuredGpu& g) {
  return d.sm_count == g.sm_count && d.l2_bytes == g.l2_bytes && d.compute_capability == g.compute_capability;
}

std::optional<std::string> measured_elsewhere(const Dataset& d, const Device& dev) {
  if (!d.gpu || describes(dev, *d.gpu)) return std::nullopt;
  std::string fits;
  for (const Device& p : device_presets())
    if (describes(p, *d.gpu)) {
      fits = fmt::format("; the {} preset does", p.name);
      break;
    }
  return fmt::format("{} was measured on {} ({} SMs, {} MiB of L2, sm_{}), which the {} preset does not describe ({} "
                     "SMs, {} MiB of L2, sm_{}){}",
                     d.dir, d.gpu->name, d.gpu->sm_count, d.gpu->l2_bytes >> 20, d.gpu->compute_capability, dev.name,
                     dev.sm_count, dev.l2_bytes >> 20, dev.compute_capability, fits);
}

std::optional<Device> preset_for(const std::vector<Dataset>& sets) {
  if (sets.empty()) return std::nullopt;
  for (const Device& d : device_presets())
    if (std::all_of(sets.begin(), sets.end(), [&](const Dataset& s) { return s.gpu && describes(d, *s.gpu); }))
      return d;
  return std::nullopt;
}

Split split_of(const std::vector<Dataset>& datasets, const GemmProblem& p) {
  for (const Dataset& d : datasets) {
    for (const GemmProblem& q : d.calibration)
      if (same_shape(p, q)) return Split::calibration;
    for (const GemmProblem& q : d.held_out)
      if (same_shape(p, q)) return Split::held_out;
  }
  return Split::unlabelled;
}

double spearman(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size() || x.size() < 2) return 0.0;
  const std::vector<double> rx = ranks(x), ry = ranks(y);
  const double n = static_cast<double>(x.size());
  const double mx = std::accumulate(rx.begin(), rx.end(), 0.0) / n;
  const double my = std::accumulate(ry.begin(), ry.end(), 0.0) / n;
  double sxy = 0, sxx = 0, syy = 0;
  for (std::size_t i = 0; i < rx.size(); ++i) {
    sxy += (rx[i] - mx) * (ry[i] - my);
    sxx += (rx[i] - mx) * (rx[i] - mx);
    syy += (ry[i] - my) * (ry[i] - my);
  }
  if (sxx == 0 || syy == 0) return 0.0;
  return sxy / std::sqrt(sxx * syy);
}

double geomean(const std::vector<double>& v) {
  if (v.empty()) return 1.0;
  double s = 0;
  for (double x : v) s += std::log(x);
  return std::exp(s / static_cast<double>(v.size()));
}

Result<RankingScore> score_ranking(const std::vector<std::size_t>& order, const std::vector<double>& measured_ms) {
  if (measured_ms.empty() || order.size() != measured_ms.size())
    return Error{ErrorKind::invalid_argument, "order",
                 fmt::format("order has {} indices for {} measured times: it must be a permutation of them, at least one",
                             order.size(), measured_ms.size())};
  std::vector<bool> seen(order.size(), false);
  for (std::size_t i : order) {
    if (i >= order.size() || seen[i])
      return Error{ErrorKind::invalid_argument, "order",
                   fmt::format("order is not a permutation of 0..{}", order.size() - 1)};
    seen[i] = true;
  }
  for (double t : measured_ms)
    if (!(t > 0) || !std::isfinite(t))
      return Error{ErrorKind::invalid_argument, "measured_ms",
                   fmt::format("measured_ms holds {}: every time must be positive and finite", t)};
  RankingScore s;
  const double best = *std::min_element(measured_ms.begin(), measured_ms.end());
  s.top1 = order.front();
  s.top1_regret = measured_ms[order.front()] / best;
  double top5 = measured_ms[order.front()];
  for (std::size_t r = 1; r < std::min<std::size_t>(5, order.size()); ++r) top5 = std::min(top5, measured_ms[order[r]]);
  s.top5_regret = top5 / best;
  std::vector<double> position(order.size());
  for (std::size_t r = 0; r < order.size(); ++r) position[order[r]] = static_cast<double>(r);
  s.spearman = spearman(position, measured_ms);
  return s;
}

ScoreSummary summarize(const std::vector<ShapeScore>& shapes, bool calibrated) {
  ScoreSummary out;
  out.shapes = shapes.size();
  std::vector<double> top1, top5;
  double rho = 0;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const RankingScore& s = calibrated ? shapes[i].calibrated : shapes[i].seed;
    top1.push_back(s.top1_regret);
    top5.push_back(s.top5_regret);
    rho += s.spearman;
    if (s.top1_regret > out.top1_worst) out.top1_worst = s.top1_regret, out.top1_worst_shape = i;
    out.top5_worst = std::max(out.top5_worst, s.top5_regret);
  }
  out.top1_geomean = geomean(top1);
  out.top5_geomean = geomean(top5);
  if (calibrated) {
    std::vector<double> ratio;
    for (const ShapeScore& s : shapes)
      if (s.pick_predicted_ms > 0) ratio.push_back(s.pick_ms / s.pick_predicted_ms);
    out.time_ratio_shapes = ratio.size();
    if (!ratio.empty()) {
      out.time_ratio_geomean = geomean(ratio);
      const auto [lo, hi] = std::minmax_element(ratio.begin(), ratio.end());
      out.time_ratio_min = *lo;
      out.time_ratio_max = *hi;
    }
  }
  out.spearman_mean = shapes.empty() ? 0.0 : rho / static_cast<double>(shapes.size());
  return out;
}

Result<ValidationReport> validate(const Device& dev, const std::vector<Dataset>& datasets, SplitFilter filter,
                                  const KernelFamily& family) {
  if (Status s = check_device(dev); !s.ok()) return s.error();
  if (Status s = check_family(family); !s.ok()) return s.error();
  ValidationReport report;
  std::vector<double> all_mhz;  // every candidate row's clock, for report.clocks
  std::size_t all_capped = 0;
  for (const Dataset& d : datasets) {
    for (const MeasuredShape& m : d.shapes) {
      const Split split = split_of(datasets, m.problem);
      if (filter == SplitFilter::calibration && split != Split::calibration) continue;
      if (filter == SplitFilter::held_out && split != Split::held_out) continue;
      // Candidates: this shape's measured configurations, in the sweep's order.
      std::vector<std::pair<std::size_t, double>> times = m.times_ms;
      std::sort(times.begin(), times.end());
      std::vector<TileConfig> configs;
      std::vector<double> ms;
      std::size_t unmodelled = 0;
      for (auto it = times.begin(); it != times.end();) {
        const auto [index, t] = *it;
        if (index >= d.configs.size() || !(t > 0))
          return Error{ErrorKind::invalid_argument, "datasets",
                       fmt::format("datasets: {} shape {} refers to configuration {} of {} or has a time {} <= 0",
                                   d.dir, shape_name(m.problem), index, d.configs.size(), t)};
        const MeasuredConfig& c = d.configs[index];
        if (!modelled(c, family)) {
          ++unmodelled;
          it = times.erase(it);
          continue;
        }
        configs.push_back(c.config);
        ms.push_back(t);
        ++it;
      }
      if (configs.empty()) continue;
      ShapeScore s;
      s.unmodelled = unmodelled;
      s.dataset = d.dir;
      s.problem = m.problem;
      s.group = problem_class(m.problem);
      s.split = split;
      s.cublas_ms = m.cublas_ms;
      s.candidates = configs.size();
      const std::size_t best = static_cast<std::size_t>(std::min_element(ms.begin(), ms.end()) - ms.begin());
      s.best_key = d.configs[times[best].first].key;
      s.best_ms = ms[best];
      std::vector<Verdict> verdicts;
      Result<std::vector<std::size_t>> calibrated =
          rank_configs(m.problem, dev, configs, Model::calibrated, family, &verdicts);
      if (!calibrated.ok()) return calibrated.error();
      // The picks are the shortlist's (one per tile where stages have no
      // effect); the rank correlation is the model's order's.
      const std::vector<std::size_t> shortlist =
          distinct_tiles_first(m.problem, Model::calibrated, configs, verdicts, *calibrated);
      // The seed model ranks the unsplit ones; the splits follow in sweep order.
      std::vector<TileConfig> unsplit;
      std::vector<std::size_t> unsplit_index, split_index;
      for (std::size_t i = 0; i < configs.size(); ++i) {
        if (configs[i].split_k == 1) {
          unsplit.push_back(configs[i]);
          unsplit_index.push_back(i);
          s.best_unsplit_ms = s.best_unsplit_ms ? std::min(*s.best_unsplit_ms, ms[i]) : ms[i];
        } else {
          split_index.push_back(i);
        }
      }
      s.has_splits = !split_index.empty();
      Result<std::vector<std::size_t>> seed = rank_configs(m.problem, dev, unsplit, Model::seed);
      if (!seed.ok()) return seed.error();
      for (std::size_t& i : *seed) i = unsplit_index[i];
      seed->insert(seed->end(), split_index.begin(), split_index.end());
      Result<RankingScore> cal = score_ranking(shortlist, ms), ref = score_ranking(*seed, ms),
                           model_order = score_ranking(*calibrated, ms);
      if (!cal.ok()) return cal.error();
      if (!ref.ok()) return ref.error();
      if (!model_order.ok()) return model_order.error();
      cal->spearman = model_order->spearman;
      s.calibrated = *cal;
      s.seed = *ref;
      s.calibrated_top1_key = d.configs[times[s.calibrated.top1].first].key;
      s.pick_ms = ms[s.calibrated.top1];
      if (const Verdict& v = verdicts[s.calibrated.top1]; v.predicted && v.predicted_us > 0)
        s.pick_predicted_ms = v.predicted_us * 1e-3;
      s.pick_split_k = configs[s.calibrated.top1].split_k;
      s.seed_top1_key = d.configs[times[s.seed.top1].first].key;
      // The clocks of the candidates' rows (the unmodelled ones left out, as above).
      std::vector<double> mhz;
      std::size_t capped = 0;
      for (const auto& [index, c] : m.clocks) {
        if (index >= d.configs.size() || !(c.mhz > 0))
          return Error{ErrorKind::invalid_argument, "datasets",
                       fmt::format("datasets: {} shape {} has a clock for configuration {} of {} or of {} MHz",
                                   d.dir, shape_name(m.problem), index, d.configs.size(), c.mhz)};
        if (!modelled(d.configs[index], family)) continue;
        mhz.push_back(c.mhz);
        capped += c.power_capped;
        if (index == times[s.calibrated.top1].first) s.pick_clock = c;
        if (index == times[best].first) s.best_clock = c;
      }
      all_mhz.insert(all_mhz.end(), mhz.begin(), mhz.end());
      all_capped += capped;
      s.clock = clock_range(std::move(mhz), capped);
      s.cublas_clock = m.cublas_clock;
      if (m.cublas_clock) {
        ++report.clocks.cublas_rows;
        report.clocks.cublas_capped += m.cublas_clock->power_capped;
      }
      report.shapes.push_back(std::move(s));
    }
  }
  report.clocks.candidates = clock_range(std::move(all_mhz), all_capped);
  report.calibrated = summarize(report.shapes, true);
  report.seed = summarize(report.shapes, false);
  for (std::size_t i = 0; i < report.shapes.size(); ++i) {
    auto g = std::find_if(report.groups.begin(), report.groups.end(),
                          [&](const GroupScore& x) { return x.group == report.shapes[i].group; });
    if (g == report.groups.end()) g = report.groups.insert(report.groups.end(), GroupScore{report.shapes[i].group, {}, {}, {}});
    g->shapes.push_back(i);
  }
  for (GroupScore& g : report.groups) {
    std::vector<ShapeScore> members;
    for (std::size_t i : g.shapes) members.push_back(report.shapes[i]);
    g.calibrated = summarize(members, true);
    g.seed = summarize(members, false);
  }
  return report;
}

}  // namespace tileplan
