// Renderers for `tileplan validate`: a per-shape table and summary for
// people, or one JSON object for tools.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tileplan/validate.hpp"

namespace tileplan::render {

struct Thresholds {
  std::optional<double> top1_geomean, top1_worst, top5_geomean;
};

// A case a dataset's split.json lists as superseded: not scored, named so
// that a reader sees what was left out.
struct SupersededCase {
  std::string dataset, shape, by;
};

struct ValidateReport {
  const ValidationReport* result = nullptr;
  std::vector<std::string> datasets;
  SplitFilter split = SplitFilter::all;
  std::string family = "triton";
  std::string device;
  Thresholds thresholds;
  std::vector<SupersededCase> superseded;
  // Why this device when it was not given: empty, or e.g. "matched to
  // meta.json's GPU: NVIDIA H100 80GB HBM3".
  std::string device_from;
  std::vector<std::string> warnings;  // one line each, e.g. a dataset measured on another GPU
};

// The first threshold the calibrated model misses, in words; nothing when it meets them all.
std::optional<std::string> threshold_miss(const ScoreSummary& s, const Thresholds& t);
// The same over a report: every shape together, then each class (when there
// are several), the class named in the sentence.
std::optional<std::string> threshold_miss(const ValidationReport& r, const Thresholds& t);

std::string validate_text(const ValidateReport& r);
std::string validate_json(const ValidateReport& r);

}  // namespace tileplan::render
