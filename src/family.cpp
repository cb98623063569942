#include "tileplan/family.hpp"
#include "tileplan/validate.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "detail.hpp"
#include "family_files.hpp"

namespace tileplan {
namespace {

// A section's provenance (registers, time, an input type's) records every
// fitting round's command: longer than one constant's, still bounded.
constexpr std::size_t kMaxSectionProvenance = 16384;

using nlohmann::json;

constexpr std::array<ConstantInfo, kTimeConstantCount> kTimeInfo{{
#define TILEPLAN_X(name, unit, desc) {#name, unit, desc},
    TILEPLAN_TIME_CONSTANTS(TILEPLAN_X)
#undef TILEPLAN_X
}};

constexpr std::array<ConstantInfo, kSplitKConstantCount> kSplitKInfo{{
#define TILEPLAN_X(name, unit, desc) {#name, unit, desc},
    TILEPLAN_SPLIT_K_CONSTANTS(TILEPLAN_X)
#undef TILEPLAN_X
}};

// What a JSON value is, in words (never its text: a hostile value can be
// nested deep enough to exhaust the stack of a recursive dump).
std::string_view kind_of(const json& j) {
  switch (j.type()) {
    case json::value_t::null: return "null";
    case json::value_t::object: return "an object";
    case json::value_t::array: return "a list";
    case json::value_t::string: return "a string";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "an integer";
    case json::value_t::number_float: return "a number";
    default: return "not a value";
  }
}

// Reads one file's keys; the first violation becomes the error.
class Reader {
 public:
  explicit Reader(std::string_view origin) : origin_(origin) {}
  bool failed() const { return !error_.empty(); }
  Error error() const { return Error{ErrorKind::parse_error, "family", error_}; }

  void fail(std::string_view key, std::string_view rule) {
    if (error_.empty()) error_ = fmt::format("family {}: '{}' {}", origin_, key, rule);
  }
  const json* get(const json& obj, std::string_view key, std::string_view path, bool required = true) {
    if (failed()) return nullptr;
    const auto it = obj.find(key);
    if (it == obj.end()) {
      if (required) fail(path, "is missing");
      return nullptr;
    }
    return &*it;
  }
  std::string string(const json& obj, std::string_view key, std::string_view path, bool required = true,
                     std::size_t max_length = 4096) {
    const json* j = get(obj, key, path, required);
    if (!j) return {};
    if (!j->is_string()) {
      fail(path, fmt::format("must be a string, not {}", kind_of(*j)));
      return {};
    }
    std::string s = j->get<std::string>();
    if (s.size() > max_length) fail(path, fmt::format("must be at most {} characters", max_length));
    return s;
  }
  int64_t integer(const json& obj, std::string_view key, std::string_view path, int64_t lo, int64_t hi) {
    const json* j = get(obj, key, path);
    if (!j) return 0;
    if (!j->is_number_integer()) {
      fail(path, fmt::format("must be an integer, not {}", kind_of(*j)));
      return 0;
    }
    // An unsigned value above INT64_MAX is out of range too.
    if (j->is_number_unsigned() && j->get<uint64_t>() > static_cast<uint64_t>(hi)) {
      fail(path, fmt::format("must be between {} and {}", lo, hi));
      return 0;
    }
    const int64_t v = j->get<int64_t>();
    if (v < lo || v > hi) fail(path, fmt::format("must be between {} and {}", lo, hi));
    return v;
  }
  double number(const json& obj, std::string_view key, std::string_view path) {
    const json* j = get(obj, key, path);
    if (!j) return 0;
    if (!j->is_number()) {
      fail(path, fmt::format("must be a number, not {}", kind_of(*j)));
      return 0;
    }
    const double v = j->get<double>();
    if (!std::isfinite(v)) fail(path, "must be finite");
    return v;
  }
  std::vector<std::string> strings(const json& obj, std::string_view key, std::string_view path) {
    const json* j = get(obj, key, path);
    std::vector<std::string> out;
    if (!j) return out;
    if (!j->is_array() || j->size() > 256) {
      fail(path, "must be a list of at most 256 strings");
      return out;
    }
    for (const json& e : *j) {
      if (!e.is_string() || e.get_ref<const std::string&>().size() > 4096) {
        fail(path, "must be a list of strings of at most 4096 characters");
        return {};
      }
      out.push_back(e.get<std::string>());
    }
    return out;
  }
  std::vector<int64_t> integers(const json& obj, std::string_view key, std::string_view path) {
    const json* j = get(obj, key, path);
    std::vector<int64_t> out;
    if (!j) return out;
    if (!j->is_array() || j->empty() || j->size() > 1024) {
      fail(path, "must be a list of 1 to 1024 integers");
      return out;
    }
    for (const json& e : *j) {
      if (!e.is_number_integer() || (e.is_number_unsigned() && e.get<uint64_t>() > uint64_t{1} << 62)) {
        fail(path, "must be a list of integers");
        return {};
      }
      out.push_back(e.get<int64_t>());
    }
    return out;
  }
  const json* object(const json& obj, std::string_view key, std::string_view path, bool required = true) {
    const json* j = get(obj, key, path, required);
    if (!j) return nullptr;
    if (!j->is_object()) {
      fail(path, fmt::format("must be an object, not {}", kind_of(*j)));
      return nullptr;
    }
    return j;
  }

 private:
  std::string origin_;
  std::string error_;
};

// The constants of one section: {"name": {"value": x, "fitted_on": "..."}, ...}.
template <std::size_t N>
void read_constants(Reader& rd, const json& section, std::string_view section_name,
                    const std::array<ConstantInfo, N>& info, std::array<double, N>& values,
                    std::array<std::string, N>& sources) {
  const std::string path = fmt::format("{}.constants", section_name);
  const json* constants = rd.object(section, "constants", path);
  if (!constants) return;
  for (const auto& [key, value] : constants->items()) {
    bool known = false;
    for (const ConstantInfo& c : info) known = known || c.name == key;
    if (!known) {
      rd.fail(fmt::format("{}.{}", path, key.size() > 64 ? key.substr(0, 64) + "..." : key), "is not a constant of this section");
      return;
    }
  }
  for (std::size_t i = 0; i < N; ++i) {
    const std::string cpath = fmt::format("{}.{}", path, info[i].name);
    // Constants added after format 1's first files: absent reads as 0.
    const bool optional = info[i].name == "transpose_cycles" || info[i].name == "paired_narrow_cycles" ||
                          info[i].name == "spill_access_cycles" || info[i].name == "spill_per_element" ||
                          info[i].name == "paired_b_mn_cycles" || info[i].name == "paired_b_mn_spill_free" ||
                          info[i].name == "tail_sync" || info[i].name == "per_narrow_c_accumulator" ||
                          info[i].name == "per_narrow_c_row_accumulator" || info[i].name == "per_narrow_c_row" ||
                          info[i].name == "epilogue_spill_cycles" || info[i].name == "async_share" ||
                          info[i].name == "overlap_power" || info[i].name == "l1_miss_cycles" ||
                          info[i].name == "l2_request_bytes" || info[i].name == "one_row_a_extra" ||
                          info[i].name == "reduce_split_us" || info[i].name == "partial_store_share" ||
                          info[i].name == "split_dram_share" || info[i].name == "split_dram_growth" ||
                          info[i].name == "in_step_a_ns" ||
                          info[i].name == "kmajor_wide_unit_saving" || info[i].name == "nmajor_wide_unit_cost" ||
                          info[i].name == "copy_bytes_per_cycle" || info[i].name == "mma_copy_bytes_per_cycle" ||
                          info[i].name == "mma_copy_warp_power" ||
                          info[i].name == "narrow_b_mn_step_share" || info[i].name == "aligned_b_stage_share" ||
                          info[i].name == "mma_rate_share" || info[i].name == "mma_flight_knee_kb" ||
                          info[i].name == "mma_flight_dram_share" || info[i].name == "short_row_request_cycles" ||
                          info[i].name == "kmajor_b_row_dram_share" || info[i].name == "sm_overlap_power" ||
                          info[i].name == "l2_reuse_near_share" || info[i].name == "l2_reuse_far_share";
    const json* c = rd.object(*constants, info[i].name, cpath, !optional);
    if (!c) {
      if (rd.failed()) return;
      values[i] = 0;
      continue;
    }
    values[i] = rd.number(*c, "value", cpath + ".value");
    sources[i] = rd.string(*c, "fitted_on", cpath + ".fitted_on", false);
  }
}

// Some of one section's constants, directly under it: {"name": {"value": x, "fitted_on": "..."}}.
template <std::size_t N>
void read_optional_constants(Reader& rd, const json& section, const std::string& path,
                             const std::array<ConstantInfo, N>& info, std::array<std::optional<double>, N>& values,
                             std::array<std::string, N>& sources) {
  for (const auto& [key, value] : section.items()) {
    (void)value;
    bool known = false;
    for (const ConstantInfo& c : info) known = known || c.name == key;
    if (!known) {
      rd.fail(fmt::format("{}.{}", path, key.size() > 64 ? key.substr(0, 64) + "..." : key),
              "is not a constant of this section");
      return;
    }
  }
  for (std::size_t i = 0; i < N; ++i) {
    const std::string cpath = fmt::format("{}.{}", path, info[i].name);
    const json* c = rd.object(section, info[i].name, cpath, false);
    if (!c) continue;
    values[i] = rd.number(*c, "value", cpath + ".value");
    sources[i] = rd.string(*c, "fitted_on", cpath + ".fitted_on", false);
  }
}

bool valid_name(std::string_view s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) return false;
  return true;
}

std::vector<KernelFamily> load_shipped() {
  std::vector<KernelFamily> out;
  for (std::size_t i = 0; i < detail::kShippedFamilyCount; ++i) {
    Result<KernelFamily> f = parse_family(detail::kShippedFamilies[i].text, detail::kShippedFamilies[i].path);
    // The shipped files are the library's own data; the unit tests parse
    // each one, so a broken one fails the build's tests, not a user.
    if (f.ok()) out.push_back(std::move(f).value());
  }
  return out;
}

}  // namespace

const std::array<ConstantInfo, kTimeConstantCount>& time_constant_info() { return kTimeInfo; }

std::array<double, kTimeConstantCount> to_array(const TimeConstants& c) {
  return {{
#define TILEPLAN_X(name, unit, desc) c.name,
      TILEPLAN_TIME_CONSTANTS(TILEPLAN_X)
#undef TILEPLAN_X
  }};
}

TimeConstants time_constants_from(const std::array<double, kTimeConstantCount>& v) {
  TimeConstants c;
  std::size_t i = 0;
#define TILEPLAN_X(name, unit, desc) c.name = v[i++];
  TILEPLAN_TIME_CONSTANTS(TILEPLAN_X)
#undef TILEPLAN_X
  return c;
}

const std::array<ConstantInfo, kSplitKConstantCount>& split_k_constant_info() { return kSplitKInfo; }

std::array<double, kSplitKConstantCount> to_array(const SplitKConstants& c) {
  return {{
#define TILEPLAN_X(name, unit, desc) c.name,
      TILEPLAN_SPLIT_K_CONSTANTS(TILEPLAN_X)
#undef TILEPLAN_X
  }};
}

SplitKConstants split_k_constants_from(const std::array<double, kSplitKConstantCount>& v) {
  SplitKConstants c;
  std::size_t i = 0;
#define TILEPLAN_X(name, unit, desc) c.name = v[i++];
  TILEPLAN_SPLIT_K_CONSTANTS(TILEPLAN_X)
#undef TILEPLAN_X
  return c;
}

namespace {
// Every value finite and in 0..1e9; the error names the first that is not.
template <std::size_t N>
Status check_in_range(const std::array<double, N>& v, const std::array<ConstantInfo, N>& info) {
  for (std::size_t i = 0; i < N; ++i)
    if (!(v[i] >= 0 && v[i] <= 1e9))
      return Error{ErrorKind::invalid_argument, std::string(info[i].name),
                   fmt::format("{} {} must be a finite number between 0 and 1e9", info[i].name, v[i])};
  return {};
}
}  // namespace

Status check_split_k_constants(const SplitKConstants& c) {
  if (Status s = check_in_range(to_array(c), kSplitKInfo); !s.ok()) return s;
  if (!(c.reduce_gbps > 0))
    return Error{ErrorKind::invalid_argument, "reduce_gbps",
                 fmt::format("reduce_gbps {} must be above 0", c.reduce_gbps)};
  if (!(c.split_dram_growth <= 1))
    return Error{ErrorKind::invalid_argument, "split_dram_growth",
                 fmt::format("split_dram_growth {} must be at most 1: it blends the flat share (0) with the "
                             "share of B the other K slices stream (1)",
                             c.split_dram_growth)};
  return {};
}

Status check_time_constants(const TimeConstants& c) {
  if (Status s = check_in_range(to_array(c), kTimeInfo); !s.ok()) return s;
  if (!(c.spill_factor >= 1))
    return Error{ErrorKind::invalid_argument, "spill_factor",
                 fmt::format("spill_factor {} must be at least 1: spilling never speeds a kernel up", c.spill_factor)};
  if (!(c.async_share <= 1))
    return Error{ErrorKind::invalid_argument, "async_share",
                 fmt::format("async_share {} must be at most 1: it is a share of the round trip", c.async_share)};
  if (!(c.kmajor_wide_unit_saving < 1))
    return Error{ErrorKind::invalid_argument, "kmajor_wide_unit_saving",
                 fmt::format("kmajor_wide_unit_saving {} must be below 1: it is a share of a stage's L2 cost",
                             c.kmajor_wide_unit_saving)};
  if (!(c.overlap_power == 0 || (c.overlap_power >= 1 && c.overlap_power <= 64)))
    return Error{ErrorKind::invalid_argument, "overlap_power",
                 fmt::format("overlap_power {} must be 0 (the plain maximum) or between 1 and 64: it is the "
                             "exponent of a smooth maximum",
                             c.overlap_power)};
  if (Status s = detail::check_l2_reuse_shares(c.l2_reuse_near_share, c.l2_reuse_far_share); !s.ok()) return s;
  if (!(c.sm_overlap_power == 0 || (c.sm_overlap_power >= 1 && c.sm_overlap_power <= 64)))
    return Error{ErrorKind::invalid_argument, "sm_overlap_power",
                 fmt::format("sm_overlap_power {} must be 0 (the Euclidean norm) or between 1 and 64: it is the "
                             "order of a smooth maximum",
                             c.sm_overlap_power)};
  if (!(c.tail_sync <= 1))
    return Error{ErrorKind::invalid_argument, "tail_sync",
                 fmt::format("tail_sync {} must be at most 1: it is a share of the last round", c.tail_sync)};
  if (!(c.mma_rate_share <= 1))
    return Error{ErrorKind::invalid_argument, "mma_rate_share",
                 fmt::format("mma_rate_share {} must be at most 1: it is a share of the device's tensor rate",
                             c.mma_rate_share)};
  if (!(c.mma_copy_warp_power <= 4))
    return Error{ErrorKind::invalid_argument, "mma_copy_warp_power",
                 fmt::format("mma_copy_warp_power {} must be at most 4: a copy rate that grows faster than the "
                             "fourth power of the warps is no rate the data show",
                             c.mma_copy_warp_power)};
  return {};
}

Status check_family(const KernelFamily& f) {
  if (f.version != kFamilyFormatVersion)
    return Error{ErrorKind::invalid_argument, "version",
                 fmt::format("version {} is not {}, the format this library reads", f.version, kFamilyFormatVersion)};
  if (!valid_name(f.name))
    return Error{ErrorKind::invalid_argument, "name",
                 "name must be 1 to 64 characters of a-z, 0-9, '_' and '-'"};
  if (f.group_m < 1 || f.group_m > kMaxTileValue)
    return Error{ErrorKind::invalid_argument, "group_m",
                 fmt::format("group_m {} must be between 1 and {}", f.group_m, kMaxTileValue)};
  if (Status s = check_register_profile(f.regs); !s.ok()) return s;
  if (Status s = check_time_constants(f.time); !s.ok()) return s;
  if (Result<std::size_t> n = space_size(f.space); !n.ok()) return n.error();
  if (f.split_k) {
    if (f.split_k->variant != "workspace")
      return Error{ErrorKind::invalid_argument, "split_k",
                   "split_k variant must be \"workspace\", the one variant the model describes"};
    if (Status s = check_split_k_constants(f.split_k->constants); !s.ok()) return s;
  }
  for (std::size_t i = 0; i < f.by_input_type.size(); ++i) {
    const DType t = f.by_input_type[i].dtype;
    if (static_cast<unsigned>(t) > static_cast<unsigned>(DType::float32) || !is_input_type(t))
      return Error{ErrorKind::invalid_argument, "by_input_type",
                   fmt::format("by_input_type entry {} is not an input type: one of {}", i + 1, input_type_names())};
    for (std::size_t j = 0; j < i; ++j)
      if (f.by_input_type[j].dtype == t)
        return Error{ErrorKind::invalid_argument, "by_input_type",
                     fmt::format("by_input_type holds {} twice", to_string(t))};
    if (Status s = check_register_profile(registers_for(f, t)); !s.ok())
      return Error{s.error().kind, s.error().param, fmt::format("{} (for {})", s.error().message, to_string(t))};
    if (Status s = check_time_constants(time_for(f, t)); !s.ok())
      return Error{s.error().kind, s.error().param, fmt::format("{} (for {})", s.error().message, to_string(t))};
  }
  for (std::size_t r = 0; r < f.validation.size(); ++r) {
    const FamilyValidation& v = f.validation[r];
    if (v.device.empty() || v.device.size() > 64)
      return Error{ErrorKind::invalid_argument, "validation",
                   "validation device must name a device preset (1 to 64 characters)"};
    for (std::size_t q = 0; q < r; ++q)
      if (f.validation[q].device == v.device)
        return Error{ErrorKind::invalid_argument, "validation",
                     fmt::format("validation holds device {} twice", v.device)};
    for (std::size_t i = 0; i < v.classes.size(); ++i) {
      const ClassScore& c = v.classes[i];
      if (c.problem_class.empty() || c.problem_class.size() > 64)
        return Error{ErrorKind::invalid_argument, "validation",
                     fmt::format("validation class {} must be named (1 to 64 characters)", i + 1)};
      for (std::size_t j = 0; j < i; ++j)
        if (v.classes[j].problem_class == c.problem_class)
          return Error{ErrorKind::invalid_argument, "validation",
                       fmt::format("validation holds class {} twice", c.problem_class)};
      if (c.cases < 1)
        return Error{ErrorKind::invalid_argument, "validation",
                     fmt::format("validation class {}: cases {} must be at least 1", c.problem_class, c.cases)};
      for (const double x : {c.top1_geomean, c.top1_worst, c.top5_geomean})
        if (!(x >= 1 && x <= 1e6))
          return Error{ErrorKind::invalid_argument, "validation",
                       fmt::format("validation class {}: a regret of {} is not a time over the best measured "
                                   "(1 to 1e6)",
                                   c.problem_class, x)};
      if (!(c.top5_geomean <= c.top1_geomean && c.top1_geomean <= c.top1_worst))
        return Error{ErrorKind::invalid_argument, "validation",
                     fmt::format("validation class {}: top5_geomean <= top1_geomean <= top1_worst must hold",
                                 c.problem_class)};
    }
  }
  for (std::size_t i = 0; i < f.by_instr.size(); ++i) {
    const Instr instr = f.by_instr[i].instr;
    if (instr != Instr::mma && instr != Instr::wgmma && instr != Instr::simt)
      return Error{ErrorKind::invalid_argument, "by_instr",
                   fmt::format("by_instr entry {} is not an instruction: one of mma, wgmma, simt", i + 1)};
    for (std::size_t j = 0; j < i; ++j)
      if (f.by_instr[j].instr == instr)
        return Error{ErrorKind::invalid_argument, "by_instr",
                     fmt::format("by_instr holds {} twice", to_string(instr))};
    if (Status s = check_register_profile(registers_for(f, DType::float16, instr)); !s.ok())
      return Error{s.error().kind, s.error().param, fmt::format("{} (for {})", s.error().message, to_string(instr))};
  }
  return {};
}

namespace {
const TypeConstants* overrides_for(const KernelFamily& f, DType t) {
  for (const TypeConstants& c : f.by_input_type)
    if (c.dtype == t) return &c;
  return nullptr;
}
}  // namespace

RegisterProfile registers_for(const KernelFamily& f, DType t) {
  const TypeConstants* o = overrides_for(f, t);
  if (!o) return f.regs;
  std::array<double, kRegisterConstantCount> v = to_array(f.regs);
  for (std::size_t i = 0; i < v.size(); ++i)
    if (o->regs[i]) v[i] = *o->regs[i];
  return register_profile_from(v, f.regs.accumulators_only);
}

RegisterProfile registers_for(const KernelFamily& f, DType t, Instr instr) {
  const RegisterProfile typed = registers_for(f, t);
  for (const InstrConstants& o : f.by_instr) {
    if (o.instr != instr) continue;
    std::array<double, kRegisterConstantCount> v = to_array(typed);
    for (std::size_t i = 0; i < v.size(); ++i)
      if (o.regs[i]) v[i] = *o.regs[i];
    return register_profile_from(v, typed.accumulators_only);
  }
  return typed;
}

TimeConstants time_for(const KernelFamily& f, DType t) {
  const TypeConstants* o = overrides_for(f, t);
  if (!o) return f.time;
  std::array<double, kTimeConstantCount> v = to_array(f.time);
  for (std::size_t i = 0; i < v.size(); ++i)
    if (o->time[i]) v[i] = *o->time[i];
  return time_constants_from(v);
}

Result<KernelFamily> parse_family(std::string_view text, std::string_view origin) {
  if (text.size() > kMaxFamilyFileBytes)
    return Error{ErrorKind::out_of_range, "family",
                 fmt::format("family {}: {} bytes, more than the {} a family file may hold", origin, text.size(),
                             kMaxFamilyFileBytes)};
  const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    return Error{ErrorKind::parse_error, "family", fmt::format("family {}: not a JSON object", origin)};
  Reader rd(origin);
  KernelFamily f;
  f.file = std::string(origin);
  if (rd.string(j, "format", "format") != "tileplan-family" && !rd.failed())
    rd.fail("format", "must be \"tileplan-family\"");
  f.version = rd.integer(j, "version", "version", kFamilyFormatVersion, kFamilyFormatVersion);
  f.name = rd.string(j, "name", "name", true, 64);
  if (!rd.failed() && !valid_name(f.name)) rd.fail("name", "must be 1 to 64 characters of a-z, 0-9, '_' and '-'");
  f.kernel = rd.string(j, "kernel", "kernel");
  f.device = rd.string(j, "device", "device", true, 64);
  f.input_types = rd.strings(j, "input_types", "input_types");
  f.accumulator = rd.string(j, "accumulator", "accumulator", true, 64);
  f.group_m = rd.integer(j, "group_m", "group_m", 1, kMaxTileValue);
  if (const json* space = rd.object(j, "space", "space")) {
    f.space.block_m = rd.integers(*space, "block_m", "space.block_m");
    f.space.block_n = rd.integers(*space, "block_n", "space.block_n");
    f.space.block_k = rd.integers(*space, "block_k", "space.block_k");
    f.space.stages = rd.integers(*space, "stages", "space.stages");
    f.space.threads = rd.integers(*space, "threads", "space.threads");
  }
  f.data = rd.strings(j, "data", "data");
  if (const json* regs = rd.object(j, "registers", "registers")) {
    const std::string rule = rd.string(*regs, "rule", "registers.rule");
    if (!rd.failed() && rule != "fitted" && rule != "accumulators_only")
      rd.fail("registers.rule", "must be \"fitted\" or \"accumulators_only\"");
    f.regs_fitted_on = rd.string(*regs, "fitted_on", "registers.fitted_on", true, kMaxSectionProvenance);
    f.regs.accumulators_only = rule == "accumulators_only";
    if (!rd.failed() && (!f.regs.accumulators_only || regs->contains("constants"))) {
      std::array<double, kRegisterConstantCount> values{};
      read_constants(rd, *regs, "registers", register_constant_info(), values, f.regs_sources);
      f.regs = register_profile_from(values, f.regs.accumulators_only);
    }
  }
  if (const json* time = rd.object(j, "time", "time")) {
    f.time_fitted_on = rd.string(*time, "fitted_on", "time.fitted_on", true, kMaxSectionProvenance);
    std::array<double, kTimeConstantCount> values{};
    read_constants(rd, *time, "time", kTimeInfo, values, f.time_sources);
    f.time = time_constants_from(values);
  }
  if (const json* typed = rd.object(j, "by_input_type", "by_input_type", false)) {
    for (const auto& [name, entry] : typed->items()) {
      const std::string shown = name.size() > 64 ? name.substr(0, 64) + "..." : name;
      const std::string path = fmt::format("by_input_type.{}", shown);
      const std::optional<DType> t = parse_dtype(name);
      if (!t || !is_input_type(*t)) {
        rd.fail(path, fmt::format("is not an input type: one of {}", input_type_names()));
        break;
      }
      if (!entry.is_object()) {
        rd.fail(path, fmt::format("must be an object, not {}", kind_of(entry)));
        break;
      }
      TypeConstants c;
      c.dtype = *t;
      c.fitted_on = rd.string(entry, "fitted_on", path + ".fitted_on", true, kMaxSectionProvenance);
      for (const auto& [key, value] : entry.items()) {
        (void)value;
        if (key != "fitted_on" && key != "registers" && key != "time")
          rd.fail(fmt::format("{}.{}", path, key.size() > 64 ? key.substr(0, 64) + "..." : key),
                  "is not one of fitted_on, registers, time");
      }
      if (const json* regs = rd.object(entry, "registers", path + ".registers", false))
        read_optional_constants(rd, *regs, path + ".registers", register_constant_info(), c.regs, c.regs_sources);
      if (const json* time = rd.object(entry, "time", path + ".time", false))
        read_optional_constants(rd, *time, path + ".time", kTimeInfo, c.time, c.time_sources);
      if (rd.failed()) break;
      f.by_input_type.push_back(std::move(c));
    }
  }
  if (const json* by_instr = rd.object(j, "by_instr", "by_instr", false)) {
    for (const auto& [name, entry] : by_instr->items()) {
      const std::string shown = name.size() > 64 ? name.substr(0, 64) + "..." : name;
      const std::string path = fmt::format("by_instr.{}", shown);
      const std::optional<Instr> instr = parse_instr(name);
      if (!instr || *instr == Instr::automatic) {
        rd.fail(path, "is not an instruction: one of mma, wgmma, simt");
        break;
      }
      if (!entry.is_object()) {
        rd.fail(path, fmt::format("must be an object, not {}", kind_of(entry)));
        break;
      }
      InstrConstants c;
      c.instr = *instr;
      c.fitted_on = rd.string(entry, "fitted_on", path + ".fitted_on", true, kMaxSectionProvenance);
      for (const auto& [key, value] : entry.items()) {
        (void)value;
        if (key != "fitted_on" && key != "registers")
          rd.fail(fmt::format("{}.{}", path, key.size() > 64 ? key.substr(0, 64) + "..." : key),
                  "is not one of fitted_on, registers");
      }
      if (const json* regs = rd.object(entry, "registers", path + ".registers", false))
        read_optional_constants(rd, *regs, path + ".registers", register_constant_info(), c.regs, c.regs_sources);
      if (rd.failed()) break;
      f.by_instr.push_back(std::move(c));
    }
  }
  if (const json* split = rd.object(j, "split_k", "split_k", false)) {
    SplitKModel m;
    m.variant = rd.string(*split, "variant", "split_k.variant", true, 64);
    if (!rd.failed() && m.variant != "workspace")
      rd.fail("split_k.variant", "must be \"workspace\", the one variant the model describes");
    m.fitted_on = rd.string(*split, "fitted_on", "split_k.fitted_on");
    for (const auto& [key, value] : split->items()) {
      (void)value;
      if (key != "variant" && key != "fitted_on" && key != "constants")
        rd.fail(fmt::format("split_k.{}", key.size() > 64 ? key.substr(0, 64) + "..." : key),
                "is not one of variant, fitted_on, constants");
    }
    std::array<double, kSplitKConstantCount> values{};
    read_constants(rd, *split, "split_k", kSplitKInfo, values, m.sources);
    m.constants = split_k_constants_from(values);
    f.split_k = std::move(m);
  }
  if (const json* records = rd.object(j, "validation", "validation", false)) {
    for (const auto& [device, v] : records->items()) {
      const std::string at = fmt::format("validation.{}", device.size() > 64 ? device.substr(0, 64) + "..." : device);
      if (!v.is_object()) {
        rd.fail(at, fmt::format("must be an object, not {}", kind_of(v)));
        break;
      }
      FamilyValidation val;
      val.device = device;
      val.datasets = rd.strings(v, "datasets", at + ".datasets");
      for (const auto& [key, value] : v.items()) {
        (void)value;
        if (key != "datasets" && key != "classes")
          rd.fail(fmt::format("{}.{}", at, key.size() > 64 ? key.substr(0, 64) + "..." : key),
                  "is not one of datasets, classes");
      }
      if (const json* classes = rd.object(v, "classes", at + ".classes")) {
        for (const auto& [name, entry] : classes->items()) {
          const std::string path = fmt::format("{}.classes.{}", at, name.size() > 64 ? name.substr(0, 64) + "..." : name);
          if (!entry.is_object()) {
            rd.fail(path, fmt::format("must be an object, not {}", kind_of(entry)));
            break;
          }
          ClassScore c;
          c.problem_class = name;
          c.cases = rd.integer(entry, "cases", path + ".cases", 1, int64_t{1} << 31);
          c.top1_geomean = rd.number(entry, "top1_geomean", path + ".top1_geomean");
          c.top1_worst = rd.number(entry, "top1_worst", path + ".top1_worst");
          c.top5_geomean = rd.number(entry, "top5_geomean", path + ".top5_geomean");
          c.worst_shape = rd.string(entry, "worst_shape", path + ".worst_shape", true, 128);
          for (const auto& [key, x] : entry.items()) {
            (void)x;
            if (key != "cases" && key != "top1_geomean" && key != "top1_worst" && key != "top5_geomean" &&
                key != "worst_shape")
              rd.fail(fmt::format("{}.{}", path, key.size() > 64 ? key.substr(0, 64) + "..." : key),
                      "is not one of cases, top1_geomean, top1_worst, top5_geomean, worst_shape");
          }
          if (rd.failed()) break;
          val.classes.push_back(std::move(c));
        }
      }
      if (rd.failed()) break;
      f.validation.push_back(std::move(val));
    }
  }
  if (rd.failed()) return rd.error();
  if (Status s = check_family(f); !s.ok())
    return Error{ErrorKind::parse_error, "family", fmt::format("family {}: {}", origin, s.error().message)};
  return f;
}

Result<KernelFamily> load_family_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Error{ErrorKind::io_error, "family_file", fmt::format("family_file '{}' cannot be opened for reading", path)};
  std::string text;
  char buf[65536];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    text.append(buf, static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxFamilyFileBytes)
      return Error{ErrorKind::out_of_range, "family_file",
                   fmt::format("family_file '{}' holds more than {} bytes, the most a family file may hold", path,
                               kMaxFamilyFileBytes)};
  }
  if (in.bad())
    return Error{ErrorKind::io_error, "family_file", fmt::format("family_file '{}': reading failed", path)};
  return parse_family(text, path);
}

std::string family_json(const KernelFamily& f) {
  json j;
  j["format"] = "tileplan-family";
  j["version"] = f.version;
  j["name"] = f.name;
  j["kernel"] = f.kernel;
  j["device"] = f.device;
  j["input_types"] = f.input_types;
  j["accumulator"] = f.accumulator;
  j["group_m"] = f.group_m;
  j["space"] = {{"block_m", f.space.block_m}, {"block_n", f.space.block_n}, {"block_k", f.space.block_k},
                {"stages", f.space.stages},   {"threads", f.space.threads}};
  j["data"] = f.data;
  json regs;
  regs["rule"] = f.regs.accumulators_only ? "accumulators_only" : "fitted";
  regs["fitted_on"] = f.regs_fitted_on;
  const auto constants = [](const auto& info, const auto& values, const auto& sources) {
    json c = json::object();
    for (std::size_t i = 0; i < info.size(); ++i) {
      json one;
      one["value"] = values[i];
      if (!sources[i].empty()) one["fitted_on"] = sources[i];
      c[std::string(info[i].name)] = one;
    }
    return c;
  };
  if (!f.regs.accumulators_only) regs["constants"] = constants(register_constant_info(), to_array(f.regs), f.regs_sources);
  j["registers"] = regs;
  json time;
  time["fitted_on"] = f.time_fitted_on;
  time["constants"] = constants(kTimeInfo, to_array(f.time), f.time_sources);
  j["time"] = time;
  if (!f.by_input_type.empty()) {
    json typed = json::object();
    const auto some = [](const auto& info, const auto& values, const auto& sources) {
      json c = json::object();
      for (std::size_t i = 0; i < info.size(); ++i) {
        if (!values[i]) continue;
        json one;
        one["value"] = *values[i];
        if (!sources[i].empty()) one["fitted_on"] = sources[i];
        c[std::string(info[i].name)] = one;
      }
      return c;
    };
    for (const TypeConstants& c : f.by_input_type) {
      json e;
      e["fitted_on"] = c.fitted_on;
      if (json r = some(register_constant_info(), c.regs, c.regs_sources); !r.empty()) e["registers"] = r;
      if (json t = some(kTimeInfo, c.time, c.time_sources); !t.empty()) e["time"] = t;
      typed[std::string(to_string(c.dtype))] = e;
    }
    j["by_input_type"] = typed;
  }
  if (!f.by_instr.empty()) {
    json by = json::object();
    for (const InstrConstants& c : f.by_instr) {
      json e;
      e["fitted_on"] = c.fitted_on;
      json r = json::object();
      for (std::size_t i = 0; i < kRegisterConstantCount; ++i) {
        if (!c.regs[i]) continue;
        json one;
        one["value"] = *c.regs[i];
        if (!c.regs_sources[i].empty()) one["fitted_on"] = c.regs_sources[i];
        r[std::string(register_constant_info()[i].name)] = one;
      }
      if (!r.empty()) e["registers"] = r;
      by[std::string(to_string(c.instr))] = e;
    }
    j["by_instr"] = by;
  }
  if (f.split_k) {
    json split;
    split["variant"] = f.split_k->variant;
    split["fitted_on"] = f.split_k->fitted_on;
    split["constants"] = constants(kSplitKInfo, to_array(f.split_k->constants), f.split_k->sources);
    j["split_k"] = split;
  }
  if (!f.validation.empty()) {
    json records = json::object();
    for (const FamilyValidation& v : f.validation) {
      json classes = json::object();
      for (const ClassScore& c : v.classes)
        classes[c.problem_class] = {{"cases", c.cases},
                                    {"top1_geomean", c.top1_geomean},
                                    {"top1_worst", c.top1_worst},
                                    {"top5_geomean", c.top5_geomean},
                                    {"worst_shape", c.worst_shape}};
      records[v.device] = {{"datasets", v.datasets}, {"classes", classes}};
    }
    j["validation"] = records;
  }
  return j.dump(2) + "\n";
}

const std::vector<KernelFamily>& shipped_families() {
  static const std::vector<KernelFamily> families = load_shipped();
  return families;
}

Result<KernelFamily> find_family(std::string_view name) {
  for (const KernelFamily& f : shipped_families())
    if (f.name == name) return f;
  std::string names;
  for (const KernelFamily& f : shipped_families()) names += (names.empty() ? "" : ", ") + f.name;
  const std::string shown = name.size() > 64 ? std::string(name.substr(0, 64)) + "..." : std::string(name);
  return Error{ErrorKind::not_found, "family", fmt::format("family '{}' is not one of: {}", shown, names)};
}

namespace detail {
bool is_shipped_family(const KernelFamily& f) {
  for (const KernelFamily& s : shipped_families())
    if (&s == &f) return true;
  return false;
}
}  // namespace detail

const KernelFamily& default_family() {
  static const KernelFamily fallback{};
  for (const KernelFamily& f : shipped_families())
    if (f.name == "triton") return f;
  return fallback;  // unreachable while data/families/triton.json ships (a unit test checks it)
}

namespace {
const FamilyValidation* record_of(const KernelFamily& f, std::string_view device) {
  for (const FamilyValidation& v : f.validation)
    if (v.device == device) return &v;
  return nullptr;
}
}  // namespace

const FamilyValidation* validation_on(const KernelFamily& f, const Device& d) {
  const FamilyValidation* v = record_of(f, d.name);
  if (!v) return nullptr;
  const std::optional<Device> preset = find_device(d.name);
  return preset && preset->source == d.source ? v : nullptr;
}

const ClassScore* validation_for(const FamilyValidation& v, const GemmProblem& p) {
  const std::string cls = problem_class(p);
  for (const ClassScore& c : v.classes)
    if (c.problem_class == cls) return &c;
  return nullptr;
}

const ClassScore* validation_for(const KernelFamily& f, std::string_view device, const GemmProblem& p) {
  const FamilyValidation* v = record_of(f, device);
  return v ? validation_for(*v, p) : nullptr;
}

}  // namespace tileplan
