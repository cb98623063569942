// tileplan._tileplan: the library's entry points for Python. It converts and
// never computes:
//   arguments   the Python function's locals() -> the library's values, with the
//               CLI's rules and messages (arguments.hpp)
//   results     the library's JSON renderers -> Python dicts and lists, so that
//               every field has the name and the value of the CLI's --format json
//               (one schema, two doors); the package wraps them in records
//   errors      the library's Errors -> tileplan.Error
// The Planner and Ranker classes are the autotuner hooks' fast path: built once
// per device, family and space, then asked about one problem at a time.
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <pybind11/pybind11.h>

#include "arguments.hpp"
#include "tileplan/loop.hpp"
#include "tileplan/occupancy.hpp"
#include "tileplan/planner.hpp"
#include "tileplan/render/family.hpp"
#include "tileplan/render/loop.hpp"
#include "tileplan/render/occupancy.hpp"
#include "tileplan/render/tile.hpp"

namespace tileplan::python {
namespace {

// A JSON text from a renderer as Python objects (json.loads: dicts keep the
// renderer's key order, numbers their exact values).
py::object from_json(const std::string& text) {
  // Never destroyed: a static py::object would be released after the interpreter.
  static const py::object* loads = new py::object(py::module_::import("json").attr("loads"));
  const py::object s = py::reinterpret_steal<py::object>(
      PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "surrogateescape"));
  if (!s) throw py::error_already_set();
  return (*loads)(s);
}

// `tileplan tile`'s names for a search space, with keywords for flags.
const Names kSpaceNames = {{"space", "the search space (block_m x block_n x block_k x stages x threads x split_k)"}};
// `tileplan occupancy`'s flags, as keywords.
const Names kOccupancyNames = {{"threads_per_block", "threads"},
                               {"regs_per_thread", "regs"},
                               {"smem_dynamic_bytes", "smem"},
                               {"smem_static_bytes", "smem_static"},
                               {"carveout_percent", "carveout"}};
// `tileplan loop`'s flags, as keywords.
const Names kLoopNames = {{"perm", "access"}, {"list_points", "points"}};

// What one call may hand to Python. The CLI streams output of any length; a
// Python result is held whole, several hundred bytes of objects per point or
// candidate, so a valid request could exhaust the interpreter's memory.
constexpr std::size_t kMaxPythonCandidates = std::size_t{1} << 16;
constexpr int64_t kMaxPythonListedPoints = int64_t{1} << 18;

constexpr const char* kSpaceKeys[] = {"block_m", "block_n", "block_k", "stages", "threads", "split_k"};

// One value of one dimension through the one checker (as the CLI checks each value of a list).
void check_value(std::string_view key, int64_t v) {
  TileConfig c;
  if (key == "block_m") c.block_m = v;
  if (key == "block_n") c.block_n = v;
  if (key == "block_k") c.block_k = v;
  if (key == "stages") c.stages = v;
  if (key == "threads") c.threads = v;
  if (key == "split_k") c.split_k = v;
  require(check_config(c));
}

// block_m, ..., threads: None keeps the model's default candidates of that
// dimension (the CLI's: default_space).
SearchSpace read_space(const Args& a, Model model, const KernelFamily& family) {
  SearchSpace space = default_space(model, family);
  std::vector<int64_t>* dims[] = {&space.block_m, &space.block_n, &space.block_k,
                                  &space.stages,  &space.threads, &space.split_k};
  for (std::size_t i = 0; i < 6; ++i) {
    std::optional<std::vector<int64_t>> values = a.int_list(kSpaceKeys[i]);
    if (!values) continue;
    for (int64_t v : *values) check_value(kSpaceKeys[i], v);
    *dims[i] = std::move(*values);
  }
  return space;
}

void check_top_k(int64_t topk) {
  if (topk < 0)
    throw UserError(ErrorKind::invalid_argument, "top_k",
                    fmt::format("top_k {} must be at least 0 (0 keeps every feasible one)", topk));
}

// A Python int that fits in 64 bits, or nothing (no exception).
std::optional<int64_t> exact_int(py::handle h) {
  if (!PyLong_Check(h.ptr()) || PyBool_Check(h.ptr())) return std::nullopt;
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(h.ptr(), &overflow);
  if (overflow != 0 || (v == -1 && PyErr_Occurred())) {
    PyErr_Clear();
    return std::nullopt;
  }
  return v;
}

// Whether a planner's space holds a split factor above 1.
bool space_splits(const Planner& planner) {
  const std::vector<int64_t>& splits = planner.space().split_k;
  return splits.size() > 1 || splits.front() > 1;
}

render::TileReport report_for(const Device& dev, Instr instr, Model model, const KernelFamily& family) {
  render::TileReport r;
  r.device = &dev;
  r.instr = instr;
  r.model = model;
  r.family = family.name;
  r.group_m = family.group_m;
  if (model == Model::calibrated) {
    r.measured_space = family.space;
    r.validation = validation_on(family, dev);  // the family's held-out scores, where they hold for dev
  }
  return r;
}

// tileplan tile --format json.
py::object plan(py::dict kwargs) {
  const Args a(std::move(kwargs));
  // In the CLI's order, so that of several mistakes the same one is named.
  const GemmProblem p = read_problem(a);
  const int64_t topk = a.integer("top_k");
  const Model model = read_model(a);
  const Instr instr = model_instr(read_instr(a), model);
  const KernelFamily family = read_family(a, model);
  check_top_k(topk);
  Device dev = read_device(a);
  read_power_budget(a, dev);
  SearchSpace space = read_space(a, model, family);
  require(check_problem(p));
  std::string json;
  {
    py::gil_scoped_release unlocked;
    const Planner planner = take(Planner::create(dev, instr, std::move(space), model, family, p), kSpaceNames);
    render::TileReport report = report_for(dev, instr, model, family);
    report.problem = p;
    report.space_size = planner.space_size();
    report.split_space = space_splits(planner);
    report.feasible_count = take(planner.plan_into(p, static_cast<std::size_t>(topk), report.candidates));
    report.stages_inert = stages_have_no_effect(p, model);
    report.padding = take(padding_advice(planner, p));
    if (report.candidates.size() > kMaxPythonCandidates)
      throw UserError(ErrorKind::out_of_range, "top_k",
                      fmt::format("top_k {} keeps {} candidates; a Python result holds at most {}: give a top_k of "
                                  "at most {}",
                                  topk, report.candidates.size(), kMaxPythonCandidates, kMaxPythonCandidates));
    json = render::tile_json(report);
  }
  return from_json(json);
}

// tileplan tile --diagnose --format json.
py::object diagnose(py::dict kwargs) {
  const Args a(std::move(kwargs));
  const GemmProblem p = read_problem(a);
  const Model model = read_model(a);
  const Instr instr = model_instr(read_instr(a), model);
  const KernelFamily family = read_family(a, model);
  Device dev = read_device(a);
  read_power_budget(a, dev);
  require(check_problem(p));
  TileConfig cfg;
  cfg.instr = instr;
  int64_t* fields[] = {&cfg.block_m, &cfg.block_n, &cfg.block_k, &cfg.stages, &cfg.threads, &cfg.split_k};
  for (std::size_t i = 0; i < 6; ++i) {
    *fields[i] = a.integer(kSpaceKeys[i]);
    check_value(kSpaceKeys[i], *fields[i]);
  }
  cfg.instr = resolve_instr(cfg.instr, dev.compute_capability, cfg.block_m, cfg.threads);
  // As the CLI: one split factor, given, must fit the problem's K tiles.
  if (model == Model::calibrated && family.split_k) require(check_split(p, cfg, family));
  render::TileReport report = report_for(dev, instr, model, family);
  report.problem = p;
  report.diagnose = true;
  report.space_size = 1;
  report.candidates.push_back(take(tileplan::diagnose(p, dev, cfg, model, family)));
  report.feasible_count = report.candidates.front().feasible() ? 1 : 0;
  report.split_space = cfg.split_k > 1;
  return from_json(render::tile_json(report));
}

// tileplan occupancy --format json.
py::object occupancy(py::dict kwargs) {
  const Args a(std::move(kwargs));
  OccupancyInput in;
  in.threads_per_block = a.integer("threads");
  in.regs_per_thread = a.integer("regs");
  for (const auto& [key, bytes] : {std::pair{"smem", &in.smem_dynamic_bytes}, std::pair{"smem_static", &in.smem_static_bytes}}) {
    *bytes = a.integer(key);
    if (*bytes < 0)
      throw UserError(ErrorKind::invalid_argument, key, fmt::format("{} '{}' must not be negative", key, *bytes));
  }
  in.carveout_percent = a.optional_integer("carveout");
  const Device dev = read_device(a);
  require(check_occupancy_input(dev, in), kOccupancyNames);
  const render::OccupancyReport report = take(render::make_occupancy_report(dev, in), kOccupancyNames);
  return from_json(render::occupancy_json(report));
}

// tileplan loop --format json.
py::object loop(py::dict kwargs) {
  const Args a(std::move(kwargs));
  Device dev = find_preset(a.text("device"));
  require(check_device(dev));
  LoopNest nest;
  if (a.is_none("extents")) throw py::type_error("extents must be an int or a sequence of ints, not NoneType");
  nest.extents = *a.int_list("extents");
  nest.threads = a.integer("threads");
  nest.replicate = a.flag("replicate");
  const py::handle vector = a.get("vector");
  const bool vector_auto = PyUnicode_Check(vector.ptr()) && a.text("vector") == "auto";
  if (PyUnicode_Check(vector.ptr()) && !vector_auto)
    throw UserError(ErrorKind::invalid_argument, "vector",
                    fmt::format("vector '{}' is not an integer", a.text("vector")));
  if (!PyUnicode_Check(vector.ptr()) && (PyBool_Check(vector.ptr()) || !PyIndex_Check(vector.ptr())))
    throw py::type_error(fmt::format("vector must be an int or 'auto', not {}", Py_TYPE(vector.ptr())->tp_name));
  nest.vector = vector_auto ? 1 : a.integer("vector");
  LoopPlan plan = take(make_plan(nest), kLoopNames);

  const std::string dtype_name = a.text("dtype");
  const std::optional<ElementType> dtype = find_dtype(dtype_name);
  if (!dtype)
    throw UserError(ErrorKind::invalid_argument, "dtype",
                    fmt::format("dtype '{}' is not one of: {}", dtype_name, dtype_names()));
  const std::string scope_name = a.text("scope");
  const std::optional<MemoryScope> scope = parse_scope(scope_name);
  if (!scope)
    throw UserError(ErrorKind::invalid_argument, "scope",
                    fmt::format("scope '{}' is not one of: global, shared", scope_name));

  Access access = tile_access(plan, dtype->bytes, *scope);
  if (auto perm = a.int_list("access")) access.perm = std::move(*perm);
  if (auto origin = a.int_list("origin")) access.origin = std::move(*origin);
  if (auto shape = a.int_list("buffer_shape")) {
    access.buffer_shape = std::move(*shape);
    require(check_access(plan, access), kLoopNames);
  } else {
    access = take(box_access(plan, access.perm, access.origin, access.elem_bytes, access.scope), kLoopNames);
  }
  std::optional<VectorChoice> choice;
  if (vector_auto) {
    choice = take(choose_vector(plan, access, dev), kLoopNames);
    nest.vector = choice->vector;
    plan = take(make_plan(nest), kLoopNames);
  }
  const bool points = a.flag("points");
  if (points) {
    // Beyond the library's own limit, its error; below it, Python's.
    const LoopSummary summary = take(summarize(plan, dev), kLoopNames);
    const int64_t pairs = summary.points * summary.replicas;  // <= max(N, T*V): fits
    if (pairs <= render::kMaxListedPoints && pairs > kMaxPythonListedPoints)
      throw UserError(ErrorKind::out_of_range, "points",
                      fmt::format("points: the nest has {} (thread, point) pairs; a Python listing holds at most {} "
                                  "(tileplan loop --points --format json streams up to {})",
                                  pairs, kMaxPythonListedPoints, render::kMaxListedPoints));
  }
  std::string json;
  {
    py::gil_scoped_release unlocked;
    const render::LoopReport report = take(
        render::make_loop_report(dev, plan, access, {std::string(dtype->name), choice, points, render::LoopFormat::json}),
        kLoopNames);
    json = render::loop_json(report);
  }
  return from_json(json);
}

// tileplan devices --format json: each preset's fields, carveout steps and sources.
py::dict device_dict(const Device& d) {
  py::dict out, sources;
  out["name"] = d.name;
  out["label"] = d.label;
  for (const DeviceFieldView& f : describe(d)) {
    const py::str name(std::string(f.name));
    if (f.integral)
      out[name] = py::int_(static_cast<int64_t>(f.value));
    else
      out[name] = py::float_(f.value);
    sources[name] = std::string(f.source);
  }
  py::list steps;
  for (int64_t kb : d.smem_carveout_kb) steps.append(kb);
  out["smem_carveout_kb"] = steps;
  sources["smem_carveout_kb"] = d.carveout_source;
  out["carveout_multi_block_min_kb"] = d.carveout_multi_block_min_kb;
  sources["carveout_multi_block_min_kb"] = d.carveout_rule_source;
  out["sources"] = sources;
  return out;
}

py::list devices() {
  py::list out;
  for (const Device& d : device_presets()) out.append(device_dict(d));
  return out;
}

py::dict device(py::dict kwargs) { return device_dict(find_preset(Args(std::move(kwargs)).text("name"))); }

// tileplan families --format json.
py::object families(py::dict kwargs) {
  const Args a(std::move(kwargs));
  const std::optional<std::string> name = a.optional_text("family");
  const std::optional<std::string> file = a.optional_path("family_file");
  if (name && file)
    throw UserError(ErrorKind::invalid_argument, "family",
                    "family and family_file cannot be combined: give one kernel family");
  std::vector<KernelFamily> list;
  if (file)
    list.push_back(take(load_family_file(*file), {{"family", "family_file"}}));
  else if (name)
    list.push_back(take(find_family(*name)));
  else
    list = shipped_families();
  return from_json(render::families_json(list));
}

// The device, model, family and instruction every hook call shares.
struct Setting {
  Device dev;
  Instr instr = Instr::automatic;
  Model model = Model::calibrated;
  KernelFamily family;
};
Setting read_setting(const Args& a) {
  Setting s;
  s.model = read_model(a);
  s.instr = model_instr(read_instr(a), s.model);
  s.family = read_family(a, s.model);
  s.dev = read_device(a);
  read_power_budget(a, s.dev);
  return s;
}

// A planner over one search space, built once: the best configurations of a
// problem in microseconds (tileplan.triton.configs and heuristics).
class FastPlanner {
 public:
  explicit FastPlanner(py::dict kwargs) {
    const Args a(std::move(kwargs));
    Setting s = read_setting(a);
    SearchSpace space = read_space(a, s.model, s.family);
    planner_ = std::make_unique<Planner>(
        take(Planner::create(std::move(s.dev), s.instr, std::move(space), s.model, std::move(s.family)), kSpaceNames));
  }
  // [(block_m, block_n, block_k, stages, threads, predicted_us or None, split_k)], best first.
  py::list top(py::dict problem, int64_t topk) const {
    const GemmProblem p = read_problem(Args(std::move(problem)));
    check_top_k(topk);
    thread_local std::vector<Verdict> picks;
    {
      py::gil_scoped_release unlocked;
      (void)take(planner_->plan_into(p, static_cast<std::size_t>(topk), picks));
    }
    py::list out;
    for (const Verdict& v : picks) {
      const TileConfig& c = v.config;
      const py::object time = v.predicted && std::isfinite(v.predicted_us) ? py::object(py::float_(v.predicted_us))
                                                                           : py::object(py::none());
      out.append(py::make_tuple(c.block_m, c.block_n, c.block_k, c.stages, c.threads, time, c.split_k));
    }
    return out;
  }
  // The fastest padding option (padding_advice) as (summary, speedup,
  // extra_work, unpadded_us, padded_us), or None where there is none.
  py::object padding(py::dict problem) const {
    const GemmProblem p = read_problem(Args(std::move(problem)));
    std::optional<PaddingAdvice> advice;
    {
      py::gil_scoped_release unlocked;
      advice = take(padding_advice(*planner_, p));
    }
    if (!advice) return py::none();
    const PaddingOption& o = advice->options.front();
    return py::make_tuple(render::padding_summary(p, o), o.speedup, o.extra_work, advice->unpadded.predicted_us,
                          o.best.predicted_us);
  }
  int64_t group_m() const { return planner_->family().group_m; }
  bool splits() const { return space_splits(*planner_); }
  int64_t warp_size() const { return planner_->device().warp_size; }

 private:
  std::unique_ptr<Planner> planner_;  // Planner has no default constructor
};

// Ranks a caller's configurations (rank_configs) for one problem at a time:
// tileplan.triton.prune's fast path.
class Ranker {
 public:
  explicit Ranker(py::dict kwargs) : s_(read_setting(Args(std::move(kwargs)))) {}
  // configs: (block_m, block_n, block_k, stages, threads[, split_k]) tuples, or None for
  // one the caller could not map. Returns (ranked, others, unmapped): indices
  // of the candidates best first; of the mapped configurations that are not
  // candidates (infeasible, or block_K > K), in the given order; of None and
  // of the tuples check_config refuses, in the given order.
  py::tuple rank(py::dict problem, py::list configs) const {
    const GemmProblem p = read_problem(Args(std::move(problem)));
    std::vector<TileConfig> mapped;
    std::vector<std::size_t> where;
    py::list unmapped;
    const std::size_t n = configs.size();
    for (std::size_t i = 0; i < n; ++i) {
      const py::handle item = configs[i];
      const Py_ssize_t size = item.is_none() || !PyTuple_Check(item.ptr()) ? 0 : PyTuple_GET_SIZE(item.ptr());
      if (size != 5 && size != 6) {
        unmapped.append(i);
        continue;
      }
      TileConfig c;
      c.instr = s_.instr;
      int64_t* fields[] = {&c.block_m, &c.block_n, &c.block_k, &c.stages, &c.threads, &c.split_k};
      bool ints = true;
      for (std::size_t f = 0; f < static_cast<std::size_t>(size) && ints; ++f) {
        const std::optional<int64_t> v = exact_int(PyTuple_GET_ITEM(item.ptr(), static_cast<Py_ssize_t>(f)));
        ints = v.has_value();
        *fields[f] = v.value_or(0);
      }
      c.instr = resolve_instr(c.instr, s_.dev.compute_capability, c.block_m, c.threads);
      // A split the model cannot price (the seed model, a family without a
      // split model) is not mappable: kept after the ranked ones, never an
      // error. One beyond the K tiles fails C4 like any infeasible config.
      if (!ints || !check_config(c).ok() ||
          (c.split_k > 1 && (s_.model != Model::calibrated || !s_.family.split_k))) {
        unmapped.append(i);
        continue;
      }
      mapped.push_back(c);
      where.push_back(i);
    }
    std::vector<std::size_t> order;
    std::vector<Verdict> verdicts;
    {
      py::gil_scoped_release unlocked;
      order = distinct_tiles_first(p, s_.model, mapped, verdicts,
                                   take(rank_configs(p, s_.dev, mapped, s_.model, s_.family, &verdicts)));
    }
    py::list ranked, others;
    for (std::size_t j : order) {
      const bool candidate = verdicts[j].feasible() && mapped[j].block_k <= p.k;
      (candidate ? ranked : others).append(where[j]);
    }
    return py::make_tuple(ranked, others, unmapped);
  }
  int64_t warp_size() const { return s_.dev.warp_size; }

 private:
  Setting s_;
};

}  // namespace
}  // namespace tileplan::python

PYBIND11_MODULE(_tileplan, m) {
  using namespace tileplan::python;
  m.doc() = "tileplan's C++ library for Python: use the package tileplan, not this module.";
  m.attr("__version__") = TILEPLAN_VERSION;
  // The split factors the triton family's split kernel was measured with (`--split-k auto`).
  py::tuple factors(std::size(tileplan::kSplitFactors));
  for (std::size_t i = 0; i < std::size(tileplan::kSplitFactors); ++i) factors[i] = tileplan::kSplitFactors[i];
  m.attr("SPLIT_FACTORS") = factors;
  m.attr("PADDING_PAYS") = tileplan::kPaddingPays;
  register_errors(m);
  // Each takes the calling Python function's locals(): the package's
  // signatures are the documented ones.
  m.def("plan", &plan, py::arg("args"));
  m.def("diagnose", &diagnose, py::arg("args"));
  m.def("occupancy", &occupancy, py::arg("args"));
  m.def("loop", &loop, py::arg("args"));
  m.def("devices", &devices);
  m.def("device", &device, py::arg("args"));
  m.def("families", &families, py::arg("args"));
  py::class_<FastPlanner>(m, "Planner")
      .def(py::init<py::dict>(), py::arg("args"))
      .def("top", &FastPlanner::top, py::arg("problem"), py::arg("top_k"))
      .def("padding", &FastPlanner::padding, py::arg("problem"))
      .def_property_readonly("splits", &FastPlanner::splits)
      .def_property_readonly("group_m", &FastPlanner::group_m)
      .def_property_readonly("warp_size", &FastPlanner::warp_size);
  py::class_<Ranker>(m, "Ranker")
      .def(py::init<py::dict>(), py::arg("args"))
      .def("rank", &Ranker::rank, py::arg("problem"), py::arg("configs"))
      .def_property_readonly("warp_size", &Ranker::warp_size);
}
