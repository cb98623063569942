// tileplan validate: score the calibrated model and the seed model on
// recorded measurements, shape by shape; optionally fail (exit 1) when the
// calibrated model misses a threshold.
#include <algorithm>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "common.hpp"
#include "tileplan/render/validate.hpp"
#include "tileplan/family.hpp"
#include "tileplan/validate.hpp"

namespace tileplan::cli {
namespace {

struct ValidateFlags {
  std::vector<std::string> datasets;
  std::string split = "all";
  std::string family = "triton";
  std::string family_file;
  DeviceFlags device;
  std::string format = "text";
  std::string max_top1_geomean, max_top1_worst, max_top5_geomean;
  std::string classes;
  std::string output;
};

// A regret threshold: a number of at least 1 (a regret is never below 1).
std::optional<double> threshold(const CLI::App& app, const char* flag, const std::string& text) {
  if (app.count(flag) == 0) return std::nullopt;
  double v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(v))
    throw UsageError(fmt::format("{} '{}' is not a number", flag, text));
  if (v < 1.0) throw UsageError(fmt::format("{} {} must be at least 1: a regret is never below 1", flag, text));
  return v;
}

void run(const CLI::App& app, const ValidateFlags& fl) {
  SplitFilter split = SplitFilter::all;
  if (fl.split == "calibration") split = SplitFilter::calibration;
  else if (fl.split == "heldout" || fl.split == "held_out") split = SplitFilter::held_out;
  else if (fl.split != "all")
    throw UsageError(fmt::format("--split '{}' is not one of: calibration, heldout, all", fl.split));
  if (app.count("--family") && app.count("--family-file"))
    throw UsageError("--family and --family-file cannot be combined: give one kernel family");
  Result<KernelFamily> family = app.count("--family-file") ? load_family_file(fl.family_file) : find_family(fl.family);
  require(family.status(), {{"family", app.count("--family-file") ? "--family-file" : "--family"}});
  render::Thresholds t{threshold(app, "--max-top1-geomean", fl.max_top1_geomean),
                       threshold(app, "--max-top1-worst", fl.max_top1_worst),
                       threshold(app, "--max-top5-geomean", fl.max_top5_geomean)};
  const bool device_given = app.count("--device") != 0;
  Device dev = fl.device.resolve(device_given);

  std::vector<std::string> only;
  if (app.count("--class")) {
    for (std::size_t start = 0; start <= fl.classes.size();) {
      const std::size_t comma = std::min(fl.classes.find(',', start), fl.classes.size());
      const std::string c = fl.classes.substr(start, comma - start);
      const std::optional<GemmProblem> probe = parse_shape("16x16x16:" + c.substr(0, c.rfind(':')));
      const std::string flags = c.rfind(':') == std::string::npos ? "" : c.substr(c.rfind(':') + 1);
      const auto flag_ok = [&](std::size_t i, char upper) {
        return flags[i] == upper || flags[i] == upper - 'A' + 'a' || flags[i] == '1';
      };
      if (!probe || flags.size() != 3 || !flag_ok(0, 'M') || !flag_ok(1, 'N') || !flag_ok(2, 'K'))
        throw UsageError(fmt::format("--class '{}' is not a class DTYPE:LL:MNK (e.g. float16:rr:MNk; upper case = a "
                                     "multiple of 16, 1 = equal to 1)", c));
      only.push_back(c);
      start = comma + 1;
    }
  }
  // No --class: every class.
  const auto selected = [&](const GemmProblem& p) {
    return only.empty() || std::find(only.begin(), only.end(), problem_class(p)) != only.end();
  };
  std::vector<Dataset> sets;
  for (const std::string& dir : fl.datasets) {
    Result<Dataset> d = load_dataset(dir);
    require(d.status());
    std::erase_if(d->shapes, [&](const MeasuredShape& m) { return !selected(m.problem); });
    sets.push_back(std::move(d).value());
  }
  // Without --device, the preset that describes the GPU every dataset was
  // measured on (meta.json), else the default; a dataset measured on a GPU
  // the preset does not describe gets a warning either way.
  std::string device_from;
  if (!device_given) {
    if (std::optional<Device> matched = preset_for(sets)) {
      dev = *matched;
      device_from = fmt::format("matched to meta.json's GPU: {}", sets.front().gpu->name);
    }
    // --power-budget applies to the preset the data matched, not the default.
    fl.device.apply_power(dev);
  }
  std::vector<std::string> warnings;
  for (const Dataset& d : sets)
    if (std::optional<std::string> w = measured_elsewhere(d, dev)) warnings.push_back(std::move(*w));
  Result<ValidationReport> validated = validate(dev, sets, split, *family);
  require(validated.status());
  const ValidationReport& result = *validated;
  if (result.shapes.empty())
    throw UsageError(only.empty()
                         ? fmt::format("--split {}: no shape of the given datasets is in that split (split.json)", fl.split)
                         : fmt::format("--split {} --class {}: no shape of the given datasets is in that split and "
                                       "those classes", fl.split, fl.classes));

  render::ValidateReport rep{&result, fl.datasets, split, family->name, dev.name, t, {}, device_from, warnings};
  for (const Dataset& d : sets)
    for (const GemmProblem& p : d.superseded)
      if (selected(p)) rep.superseded.push_back({d.dir, shape_name(p), d.superseded_by});
  emit(fl.format == "json" ? render::validate_json(rep) : render::validate_text(rep), fl.output);
  if (auto miss = render::threshold_miss(result, t)) throw CheckFailed(*miss);
}

}  // namespace

void register_validate(CLI::App& app) {
  auto fl = std::make_shared<ValidateFlags>();
  CLI::App* cmd = app.add_subcommand(
      "validate", "score the calibrated and seed models on measured datasets (regret of their picks, rank correlation)");
  cmd->add_option("datasets", fl->datasets, "dataset directories (configs.jsonl, timings.jsonl, split.json)")
      ->required();
  cmd->add_option("--split", fl->split, "shapes to score: calibration, heldout or all")->default_val("all");
  cmd->add_option("--family", fl->family, "kernel family of the calibrated model, by name (see `tileplan families`)")
      ->default_val("triton");
  cmd->add_option("--family-file", fl->family_file, "kernel family of the calibrated model, from a family file");
  fl->device.add_to(*cmd, false, true);
  cmd->get_option("--device")
      ->description("GPU preset (see `tileplan devices`); without it, the preset that describes the GPU the "
                    "datasets' meta.json records, else h200");
  cmd->add_option("--format", fl->format, "text or json")->default_val("text")->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("--class", fl->classes,
                  "score only cases of these classes: comma list of DTYPE:LL:MNK (e.g. float16:rr:MNk)");
  cmd->add_option("--max-top1-geomean", fl->max_top1_geomean, "exit 1 if the top-1 regret geomean exceeds X");
  cmd->add_option("--max-top1-worst", fl->max_top1_worst, "exit 1 if the worst top-1 regret exceeds X");
  cmd->add_option("--max-top5-geomean", fl->max_top5_geomean, "exit 1 if the top-5 regret geomean exceeds X");
  cmd->add_option("--output,-o", fl->output, "write to FILE instead of standard output");
  cmd->callback([cmd, fl] { run(*cmd, *fl); });
}

}  // namespace tileplan::cli
